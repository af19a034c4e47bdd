"""The ladder (issue 20, part 6): ratings by maximum likelihood, recovered from games drawn from the model itself.

Finishing orders are drawn from Plackett-Luce by the Gumbel-max trick: sorting β + Gumbel noise
gives a Plackett-Luce order (J. I. Yellott, J. Math. Psych. 15 (1977)); with two seats it is a
Bradley-Terry game.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, logit

from rummysim.analysis import Analysis
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.frames import game_outcomes
from rummysim.analysis.ladder import Ladder, Ranking, Status, fit, ladder, stages
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.report.ladder import chance_text, draw_ladder, ladder_lines, ladder_notes, pairing_lines

TRUTH = {"greedy": 0.0, "rummy_hunter": 0.6, "cautious": 1.0, "montecarlo": 2.0}
PAIRS = [("greedy", "rummy_hunter"), ("rummy_hunter", "cautious"), ("greedy", "cautious"), ("cautious", "montecarlo")]


def orders(rng: np.random.Generator, lineup: list[str], games: int, truth: dict[str, float] = TRUTH) -> list[Ranking]:
    """Return `games` finishing orders of a lineup drawn from Plackett-Luce with log-strengths `truth`."""
    beta = np.array([truth[s] for s in lineup])
    ranked = np.argsort(-(beta + rng.gumbel(size=(games, len(lineup)))), axis=1)
    return [tuple((lineup[i],) for i in row) for row in ranked]


def experiment_orders(rng: np.random.Generator, *, games: int = 600) -> dict[str, list[Ranking]]:
    found = {f"{a}_vs_{b}": orders(rng, [a, b], games) for a, b in PAIRS}
    found["mixed4"] = orders(rng, list(TRUTH), games // 2)
    return found


def recovered(found: Ladder, truth: dict[str, float], *, tolerance: float) -> bool:
    """Return True if every rating is within `tolerance` of the truth (shifted to the reference) and covered."""
    for r in found.ratings:
        true = truth[r.strategy] - truth[found.reference]
        if abs(r.rating.value - true) > tolerance or not r.rating.low <= true <= r.rating.high:
            return False
    return True


def test_a_finishing_order_is_a_sequence_of_choices_and_ties_of_different_strategies_end_it():
    assert stages((("a",), ("b",), ("c",))) == [("a", (("a", 1), ("b", 1), ("c", 1))), ("b", (("b", 1), ("c", 1)))]
    assert stages((("a",), ("b", "c"), ("d",))) == [("a", (("a", 1), ("b", 1), ("c", 1), ("d", 1)))]
    # two seats of one strategy: the winner had two chances; a tie between them changes nothing
    assert stages((("g",), ("g", "g"), ("u",))) == [("g", (("g", 3), ("u", 1))), ("g", (("g", 2), ("u", 1))),
                                                    ("g", (("g", 1), ("u", 1)))]  # fmt: skip


def test_known_ratings_are_recovered_from_pairs_and_a_four_player_table():
    found = fit(experiment_orders(np.random.default_rng(1)), seed=1, resamples=300)
    assert found.reference == "greedy"  # the weakest fixes the scale
    assert [r.strategy for r in found.ratings] == ["montecarlo", "cautious", "rummy_hunter", "greedy"]
    assert recovered(found, TRUTH, tolerance=0.2), found.table()
    assert found.rating("greedy").rating == Estimate(0.0, 0.0, 0.0, 1500)  # 2 pairs of 600 games, 300 at the table
    assert found.rating("greedy").games == 1500 and found.rating("montecarlo").games == 900
    chance = found.win_probability("montecarlo")
    assert chance.low <= expit(2.0) <= chance.high
    assert found.fit_p > 0.01  # games drawn from the model fit it


def test_plackett_luce_on_whole_orders_needs_no_pairs_and_a_swapped_winner_and_loser_fails_the_check():
    rng = np.random.default_rng(2)
    tables = {"mixed4": orders(rng, list(TRUTH), 1500)}
    assert recovered(fit(tables, seed=2, resamples=200), TRUTH, tolerance=0.2)
    # a planted bug: reading each order backwards (the loser as the winner) must not pass as a recovery
    backwards = {name: [tuple(reversed(game)) for game in games] for name, games in tables.items()}
    assert not recovered(fit(backwards, seed=2, resamples=50), TRUTH, tolerance=0.2)
    flipped = {name: [game[:1] + game[1:][::-1] for game in games] for name, games in tables.items()}
    assert not recovered(fit(flipped, seed=2, resamples=50), TRUTH, tolerance=0.2)  # losers' order reversed


def test_the_winner_alone_recovers_the_ratings_too_with_wider_intervals():
    rng = np.random.default_rng(3)
    whole = orders(rng, list(TRUTH), 1500)
    winner_only = [(game[0], tuple(sorted(label for (label,) in game[1:]))) for game in whole]
    by_winner = fit({"mixed4": winner_only}, seed=3, resamples=200, ranking="winner")
    by_order = fit({"mixed4": whole}, seed=3, resamples=200)
    assert recovered(by_winner, TRUTH, tolerance=0.3)
    width = [f.rating("cautious").rating.high - f.rating("cautious").rating.low for f in (by_winner, by_order)]
    assert width[0] > width[1]  # the whole order carries more information than the winner


def test_which_strategy_fixes_the_scale_changes_no_comparison():
    tables = experiment_orders(np.random.default_rng(4), games=400)
    a = fit(tables, seed=4, resamples=100)
    b = fit(tables, seed=4, resamples=100, reference="cautious")
    assert a.reference == "greedy" and b.reference == "cautious"
    shift = a.rating("cautious").rating.value
    for r in a.ratings:
        assert b.rating(r.strategy).rating.value == pytest.approx(r.rating.value - shift, abs=1e-6)
    for s, t in [("montecarlo", "rummy_hunter"), ("rummy_hunter", "greedy"), ("cautious", "montecarlo")]:
        pa, pb = a.win_probability(s, t), b.win_probability(s, t)
        assert (pa.value, pa.low, pa.high) == pytest.approx((pb.value, pb.low, pb.high), abs=1e-6)
    with pytest.raises(ConfigError, match="reference 'uniform' is not on the fitted ladder"):
        fit(tables, seed=4, resamples=0, reference="uniform")


def test_a_strategy_that_loses_or_wins_every_game_gets_a_one_sided_bound_never_inf():
    rng = np.random.default_rng(5)
    tables = experiment_orders(rng, games=400)
    tables["uniform_vs_greedy"] = [(("greedy",), ("uniform",))] * 500
    tables["montecarlo_vs_oracle"] = [(("oracle",), ("montecarlo",))] * 300
    found = fit(tables, seed=5, resamples=100)
    table = found.table()
    assert np.isfinite(table[["rating", "low", "high", "win_probability"]].fillna(0).to_numpy()).all()
    uniform, oracle = found.rating("uniform"), found.rating("oracle")
    assert uniform.status is Status.AT_MOST and math.isnan(uniform.rating.value) and math.isnan(uniform.rating.low)
    # 0 of 500 against greedy, the reference: the Clopper-Pearson upper end, 1 - 0.025^(1/500)
    assert uniform.rating.high == pytest.approx(logit(1 - 0.025 ** (1 / 500)))
    assert oracle.status is Status.AT_LEAST and math.isnan(oracle.rating.high)
    assert oracle.rating.low == pytest.approx(found.rating("montecarlo").rating.low + logit(0.025 ** (1 / 300)))
    assert found.ratings[0].strategy == "oracle" and found.ratings[-1].strategy == "uniform"
    assert found.win_probability("uniform").high < 0.01 and math.isnan(found.win_probability("uniform").value)
    # the core's ratings are those of its own games: the bounded strategies do not move them
    alone = fit(experiment_orders(np.random.default_rng(5), games=400), seed=5, resamples=0)
    for r in alone.ratings:
        assert found.rating(r.strategy).rating.value == pytest.approx(r.rating.value, abs=1e-6)


def test_strategies_that_never_meet_the_ladder_are_not_estimable():
    tables = experiment_orders(np.random.default_rng(6), games=300)
    tables["islanders"] = orders(np.random.default_rng(7), ["x", "y"], 300, {"x": 1.0, "y": 0.0})
    found = fit(tables, seed=6, resamples=50)
    for s in ("x", "y"):
        r = found.rating(s)
        assert r.status is Status.APART and all(math.isnan(v) for v in (r.rating.value, r.rating.low, r.rating.high))
    assert {r.strategy for r in found.ratings[-2:]} == {"x", "y"}  # listed last
    assert found.reference == "greedy"


def test_a_resample_where_a_rating_runs_off_gives_an_unbounded_end_not_a_number():
    # 2 upsets in 150: some resamples have none, where montecarlo's MLE is +infinity
    games = [(("montecarlo",), ("greedy",))] * 148 + [(("greedy",), ("montecarlo",))] * 2
    found = fit({"p": games}, seed=8, resamples=400)
    e = found.rating("montecarlo").rating
    assert e.value == pytest.approx(math.log(74)) and e.low > 0 and math.isnan(e.high)


def bots_like_analysis(rng: np.random.Generator, truth: dict[str, float] = TRUTH) -> tuple[Analysis, pd.DataFrame]:
    """Return an analysis of pairs, a 4-player table and a pair under other rules, and its games table."""
    conditions = {f"{a}_vs_{b}": {"players": [a, b]} for a, b in PAIRS}
    conditions["mixed4"] = {"players": list(TRUTH)}
    conditions["no_bonus"] = {"players": ["greedy", "rummy_hunter"], "rules": {"rummy_multiplier": 1}}
    data = {"name": "bots", "question": "How strong?", "seed": 9, "games": 400, "players": ["greedy", "greedy"]}
    experiment = parse_experiment({**data, "conditions": conditions}, source="x.yaml")
    rows, frames = [], {}
    for c in experiment.conditions:
        lineup = [p["strategy"] for p in c.players]
        strengths = truth if c.name != "no_bonus" else {"greedy": 0.0, "rummy_hunter": -0.4}
        for g, game in enumerate(orders(rng, lineup, 400, strengths)):
            place = {label: i for i, (label,) in enumerate(game)}
            for seat in range(len(lineup)):
                label = lineup[(seat + g) % len(lineup)]
                rows.append({"condition": c.name, "game": g, "seat": seat, "strategy": label,
                             "score": 200 - 50 * place[label], "won": place[label] == 0, "tied": False,
                             "stalled": False})  # fmt: skip
    games = pd.DataFrame(rows)
    for name, table in games.groupby("condition"):
        frames[str(name)] = game_outcomes(table).assign(decided=lambda f: f["winner_seat"] >= 0)
    return Analysis(experiment, [], [], frames, {}), games


def test_ladder_of_an_analysis_fits_the_base_rules_lists_the_others_and_reads_as_a_report(tmp_path):
    analysis, games = bots_like_analysis(np.random.default_rng(9))
    found = ladder(analysis, games=games, resamples=100)
    assert found is not None and found.ranking == "final scores"
    assert set(found.conditions) == {f"{a}_vs_{b}" for a, b in PAIRS} | {"mixed4"}
    assert found.left_out == {"no_bonus": "other rules: rummy_multiplier 1 (fitted: 2)"}
    assert list(found.table().columns) == ["strategy", "status", "rating", "low", "high", "games", "reference",
                                           "win_probability", "win_low", "win_high"]  # fmt: skip
    assert recovered(found, TRUTH, tolerance=0.3)
    assert ladder(analysis, resamples=0).ranking == "winner"  # type: ignore[union-attr]
    # the same tables and seed give the same ladder
    again = ladder(analysis, games=games, resamples=100)
    assert again is not None and again.table().equals(found.table())
    lines = ladder_lines(analysis, found) + pairing_lines(analysis, found)
    # montecarlo met greedy only at the 4-player table: the lead says so, with that table's measured share
    (table,) = [
        p for p in found.pairings if (p.condition, p.strategy, p.opponent) == ("mixed4", "montecarlo", "greedy")
    ]
    assert lines[0].startswith(
        f"`montecarlo` tops the ladder: measured, it finishes ahead of `greedy` in {chance_text(table.share.value)} "
        f"four-player games ({100 * table.share.value:.1f}% ["
    )
    assert " of 400, a table of greedy, rummy_hunter, cautious and montecarlo)" in lines[0]
    order = ", ".join(f"`{r.strategy}`" for r in found.ratings)
    assert lines[0].endswith(f" Strongest first: {order}.") and order.startswith("`montecarlo`, ")
    (head,) = [p for p in found.pairings if p.condition == "cautious_vs_montecarlo"]
    said = f", and beats `cautious`, the next, in {chance_text(head.share.value)} two-player games ("
    assert head.share.low > 0.5 and said + f"{100 * head.share.value:.1f}% [" in lines[0]
    assert "`no_bonus` is not in the ladder (other rules: rummy_multiplier 1 (fitted: 2))" in ladder_notes(
        analysis, found
    )
    assert "| 4 | `greedy` | 0 (reference) | – | 1,200 |" in lines  # 2 pairs and the table, 400 games each
    left_out = "| `no_bonus` (not in the ladder) | 2 | `rummy_hunter` beats `greedy` |"
    assert any(line.startswith(left_out) for line in lines)
    assert any("`montecarlo` finishes ahead of `greedy`" in line for line in lines)
    png = draw_ladder(found, tmp_path / "figures" / "ladder")
    assert png == tmp_path / "figures" / "ladder.png" and png.stat().st_size > 0
    assert (tmp_path / "figures" / "ladder.svg").exists()


def test_the_lead_says_when_the_top_two_are_not_told_apart():
    close = {**TRUTH, "montecarlo": 1.05}
    analysis, games = bots_like_analysis(np.random.default_rng(11), close)
    found = ladder(analysis, games=games, resamples=100)
    assert found is not None
    top, second = (r.strategy for r in found.ratings[:2])
    assert {top, second} == {"montecarlo", "cautious"}
    (head,) = [p for p in found.pairings if p.condition == "cautious_vs_montecarlo"]  # measured, head to head
    assert head.share.low < 0.5 < head.share.high
    said = f", though it is not shown to be ahead of `{second}`, the next: it beats `{second}` in "
    assert said in ladder_lines(analysis, found)[0]


def test_no_ladder_when_it_would_say_no_more_than_one_pair():
    analysis, _ = bots_like_analysis(np.random.default_rng(10))
    one_pair = {k: v for k, v in analysis.frames.items() if k in ("greedy_vs_rummy_hunter", "no_bonus")}
    assert ladder(Analysis(analysis.experiment, [], [], one_pair, {}), resamples=0) is None


def ladder_coverage(reps: int, *, resamples: int = 200) -> dict[str, int]:
    """Return how often each rating's interval covered the truth over `reps` experiments drawn from the model."""
    covered = dict.fromkeys(TRUTH, 0)
    for i in range(reps):
        found = fit(experiment_orders(np.random.default_rng(1000 + i), games=300), seed=i, resamples=resamples,
                    reference="greedy")  # fmt: skip
        for r in found.ratings:
            covered[r.strategy] += r.rating.low <= TRUTH[r.strategy] <= r.rating.high
    return covered


@pytest.mark.slow
def test_ladder_intervals_cover_the_truth_about_95_percent_of_the_time():
    reps = 200
    for strategy, hits in ladder_coverage(reps).items():
        if strategy != "greedy":
            assert stats.binomtest(hits, reps, 0.95).pvalue > 0.001, (strategy, hits / reps)
