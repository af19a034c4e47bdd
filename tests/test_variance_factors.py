"""The tighter designs' measurements (rummysim.variance_factors): duplicate deals, the deal's covariates, factors."""

from __future__ import annotations

import numpy as np
import pytest

from rummysim import variance_factors
from rummysim.arrangement import arranger
from rummysim.dealing import deal
from rummysim.rules import Rules
from rummysim.seeding import hand_key

SKILL = [{"strategy": "cautious"}, {"strategy": "greedy"}, {"strategy": "greedy"}]


def ends(hands, game):
    """Return one game's holdings at each hand's end, seat by seat."""
    return hands.loc[hands["game"] == game, "holding_end"].reset_index(drop=True)


def test_duplicate_blocks_play_one_deal_per_block_with_the_lineup_rotated_through_every_seat():
    rules = Rules(n_players=3, target_score=50)
    same = variance_factors.play(rules, [{"strategy": "greedy"}] * 3, seed=5, games=6, duplicate=True)["hands"]
    # greedy decides by its cards alone: a block's games are one game played three times
    for game in (1, 2):
        a = same[same["game"] == 0].drop(columns="game").reset_index(drop=True)
        b = same[same["game"] == game].drop(columns="game").reset_index(drop=True)
        assert a.equals(b)
    assert not ends(same, 0).equals(ends(same, 3))
    fresh = variance_factors.play(rules, [{"strategy": "greedy"}] * 3, seed=5, games=3, duplicate=False)["hands"]
    assert not ends(fresh, 0).equals(ends(fresh, 1))
    games = variance_factors.play(rules, SKILL, seed=5, games=6, duplicate=True)["games"]
    cautious = games[games["strategy"] == "cautious"].sort_values("game")
    assert cautious["seat"].tolist() == [0, 2, 1, 0, 2, 1]  # every seat once a block (R3.4's rotation)
    assert games.groupby(games["game"] // 3)["first_dealer"].nunique().eq(1).all()


def test_the_deals_covariates_are_the_first_players_and_the_measured_players_centred_opening_deadwood():
    rules = Rules(n_players=3)
    tables = variance_factors.play(Rules(n_players=3, target_score=40), SKILL, seed=9, games=4, duplicate=False)
    found = variance_factors.opening_covariates(tables["hands"], rules, seed=9, games=4)
    expected = {"first": np.zeros(4), "measured": np.zeros(4)}
    for (game, number), rows in tables["hands"].groupby(["game", "hand"]):
        dealer = int(rows["dealer"].iloc[0])
        holdings = deal(rules, dealer=dealer, key=hand_key(9, int(game), int(number))).holdings
        deadwood = [arranger(rules).deadwood(h) for h in holdings]
        cautious = int(rows.loc[rows["strategy"] == "cautious", "seat"].iloc[0])
        for name, seat in (("first", (dealer + 1) % 3), ("measured", cautious)):  # R3.4: left of the dealer first
            expected[name][game] += deadwood[seat] - np.mean(deadwood)
    for name in expected:
        np.testing.assert_allclose(found[name], expected[name])
    assert np.any(found["first"] != found["measured"])


def test_the_deals_covariates_have_mean_zero_over_deals():
    """R3.2: the seats' holdings are exchangeable, so a seat's centred deadwood averages 0 over many deals."""
    tables = variance_factors.play(Rules(n_players=3, target_score=100), SKILL, seed=4, games=150, duplicate=False)
    found = variance_factors.opening_covariates(tables["hands"], Rules(n_players=3), seed=4, games=150)
    hands = tables["hands"].drop_duplicates(["game", "hand"]).groupby("game").size().to_numpy()
    per_hand = found["first"].sum() / hands.sum()
    se = np.std(found["first"] / np.sqrt(hands)) / np.sqrt(hands.sum())
    assert abs(per_hand) < 4 * se


def test_variance_factor_finds_a_planted_cancellation_and_none_where_there_is_none():
    rng = np.random.default_rng(0)
    x = rng.normal(size=4000)
    blocks = (np.column_stack([x, -x + 0.1 * rng.normal(size=4000)])).sum(axis=1)  # a block's two games cancel
    value, low, high = variance_factors.variance_factor(blocks, rng.normal(size=8000), rng=rng)
    assert value < 0.02 and high < 0.02
    blocks = rng.normal(size=(4000, 2)).sum(axis=1)  # independent games in blocks of 2: no gain
    value, low, high = variance_factors.variance_factor(blocks, rng.normal(size=8000), rng=rng)
    assert low < 1.0 < high and 0.9 < value < 1.1


def test_regression_factor_is_the_share_of_variance_the_covariates_leave():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5000, 2))
    z = 2 * x[:, 0] + rng.normal(size=5000)  # var 4 + 1: the covariates explain 4/5
    value, low, high = variance_factors.regression_factor(z, x, rng=rng)
    assert value == pytest.approx(0.2, abs=0.02) and low < value < high
    value, *_ = variance_factors.regression_factor(rng.normal(size=5000), x, rng=rng)
    assert value == pytest.approx(1.0, abs=0.01)


def test_measure_reports_both_designs_for_every_estimate(monkeypatch):
    monkeypatch.setattr(variance_factors, "RESAMPLES", 20)
    factors = variance_factors.measure(2, games=40, seed=3, target_score=30)
    table = variance_factors.factors_table(factors)
    assert set(table["design"]) == {"duplicate deals", "regression on the deal"}
    assert len(table) == 12 and list(table.columns) == ["design", "estimate", "2 players"]
    assert all(f.low <= f.high for f in factors)


def test_duplicate_deals_intervals_cover_when_blocked_and_not_when_games_are_taken_apart():
    """A block's games share their deals: their lengths go together, so intervals over games apart are too narrow."""
    found = variance_factors.duplicate_coverage(3, games=3000, seed=8, size=500, samples=400).set_index("estimate")
    assert 0.92 <= found.loc["game length", "blocked"] <= 0.98
    assert found.loc["game length", "naive"] < found.loc["game length", "blocked"] - 0.03
    assert 0.92 <= found.loc["skill (the measured player's share)", "blocked"] <= 0.98


def test_the_command_refuses_a_table_size_the_rules_do_not_have(capsys):
    with pytest.raises(SystemExit):
        variance_factors.main(["--players", "1", "--games", "10"])
    assert "--players are 2 to 6 (R1.1)" in capsys.readouterr().err
