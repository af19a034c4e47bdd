"""The atlas's families of tests (issue 42, part 3): never binds by identical tables, fairness to every seat, BY.

The fairness test is checked on simulated paired games with no rule effect (its one-sided 5%
rate, near a fair and an unfair table) and with a planted fairer rule set (found).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from mini_atlas import SPEC

from rummysim.analysis.atlas import alike_groups, fairer, interactions, never_binds, unfairness
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.grid import Effect, arms
from rummysim.experiment import parse_experiment


def games(wins: np.ndarray, n: int) -> pd.DataFrame:
    """Return per-game rows (decided_hands, hands_won_<position>) from each game's hands' winning positions."""
    counts = np.stack([(wins == s).sum(axis=1) for s in range(n)], axis=1)
    frame = pd.DataFrame({f"hands_won_{s}": counts[:, s] for s in range(n)})
    frame["decided_hands"] = counts.sum(axis=1)
    return frame


def paired_cells(rng, shares, other_shares, *, n_games=1500, hands=8, kept=0.6):
    """Return basic rummy's games and a cell's on the same deals: with the same shares, a share `kept` of its
    hands won alike (pairing); with others, drawn apart."""
    n = len(shares)
    basic = rng.choice(n, size=(n_games, hands), p=shares)
    redrawn = rng.choice(n, size=(n_games, hands), p=other_shares)
    cell = np.where(rng.random((n_games, hands)) < kept, basic, redrawn) if shares == other_shares else redrawn
    return games(cell, n), games(basic, n)


@pytest.mark.parametrize("shares", [(0.25, 0.25, 0.25, 0.25), (0.265, 0.25, 0.25, 0.235)], ids=["fair", "unfair"])
def test_the_one_sided_fairness_test_holds_its_5_percent_with_no_rule_effect(shares):
    rng = np.random.default_rng(42)
    z = []
    for _ in range(600):
        cell, basic = paired_cells(rng, list(shares), list(shares))
        found = unfairness(cell, basic, 4)
        z.append(found.change / found.se)
    rate = float(np.mean(np.array(z) < -1.6449))
    assert rate <= 0.075, rate  # 5% with 600 runs: at most 7.5% (its 95% binomial bound is 6.9%)


def test_a_rule_set_fairer_to_every_seat_is_found_and_holm_keeps_the_rest():
    rng = np.random.default_rng(7)
    unfair, fair = [0.28, 0.25, 0.25, 0.22], [0.25, 0.25, 0.25, 0.25]
    cell, basic = paired_cells(rng, unfair, fair, n_games=3000)
    found = unfairness(cell, basic, 4)
    assert found.change < 0 and found.change / found.se < -4
    table = pd.DataFrame([{"players": 4, "change": found.change, "se": found.se},
                          *({"players": 4, "change": 0.0, "se": found.se} for _ in range(62))])  # fmt: skip
    tested = fairer(table, alpha=0.01)
    assert tested["shown"].tolist() == [True] + [False] * 62


def test_holm_runs_within_each_table_size_at_alpha_over_the_sizes():
    table = pd.DataFrame({"players": [2, 2, 3], "change": [-3.0, -2.9, -3.0], "se": [1.0, 1.0, 1.0]})
    tested = fairer(table, alpha=0.01)  # one-sided p 0.00135, 0.00187; two sizes: 0.005 each
    assert tested["p_holm"].tolist() == pytest.approx([0.0027, 0.0027, 0.00135], rel=0.02)
    assert tested["shown"].tolist() == [True, True, True]
    assert fairer(table, alpha=0.004)["shown"].tolist() == [False, False, True]


def experiment():
    return parse_experiment(SPEC, source="mini_atlas.yaml")


def frames_for(exp, binds: str | None) -> dict[str, pd.DataFrame]:
    """Return a frame per cell with digests: every cell plays alike but where the factor `binds` is not first."""
    out = {}
    factors = list(exp.grid)
    for cells in arms(exp).values():
        for index, name in cells.items():
            changed = binds is not None and index[factors.index(binds)] != 0
            digest = np.arange(5, dtype=np.int64) + (100 if changed else 0)
            out[name] = pd.DataFrame({"digest": digest}, index=pd.Index(range(5), name="game"))
    return out


def test_r12_a_rule_never_binds_only_when_every_pair_that_differs_in_it_alone_plays_alike():
    exp = experiment()
    assert never_binds(exp, frames_for(exp, None)) == {("going_out", "discard"): True, ("stock_out", "block"): True}
    binding = never_binds(exp, frames_for(exp, "stock_out"))
    assert binding == {("going_out", "discard"): True, ("stock_out", "block"): False}
    one_pair = frames_for(exp, None)
    name = next(n for n in one_pair if n.endswith("going_out=discard,stock_out=block") and n.startswith("p3|"))
    one_pair[name] = one_pair[name].assign(digest=one_pair[name]["digest"] + 1)  # one cell of 12 differs
    assert never_binds(exp, one_pair) == {("going_out", "discard"): False, ("stock_out", "block"): False}
    no_digest = {k: v.drop(columns="digest") for k, v in frames_for(exp, None).items()}
    assert not any(never_binds(exp, no_digest).values())


def test_cells_that_play_alike_are_grouped_within_their_arm():
    exp = experiment()
    groups = alike_groups(exp, frames_for(exp, "stock_out"))
    assert len(groups) == 2 * 3  # per arm: the two rebuild cells alike, the two block cells alike
    assert all(len(g) == 2 and len({n.rpartition("|")[0] for n in g}) == 1 for g in groups)


def test_interactions_are_corrected_by_benjamini_yekutieli_and_ranked_by_z_within_a_measure():
    found = [Effect("p2", "hands_per_game", "interaction", f"t{i}", Estimate(x, x - 1.96, x + 1.96, 100))
             for i, x in enumerate([6.0, 0.5, -7.0, 1.0])]  # fmt: skip
    found += [Effect("p2_skill", "order", "interaction", "s", Estimate(0.3, 0.1, 0.5, 100)),
              Effect("p2", "order", "interaction", "wrong arm", Estimate(9.0, 8.0, 10.0, 100)),
              Effect("p2", "hands_per_game", "main", "main", Estimate(9.0, 8.0, 10.0, 100))]  # fmt: skip
    table = interactions(found, measures={"hands_per_game": False, "order": True}, skill_arms={"p2_skill"}, alpha=0.01)
    assert list(table["term"]) == ["t2", "t0", "t3", "t1", "s"]  # by |z| within each measure; others left out
    assert table["shown"].tolist() == [True, True, False, False, False]
    assert (table["q"] >= table["p"]).all()


def test_a_games_digest_changes_with_any_one_value_of_its_hand_rows_and_not_with_their_order():
    from rummysim.analysis.frames import hand_digest

    rng = np.random.default_rng(3)
    rows = 4 * 2 * 3  # 4 games of 2 hands at 3 seats
    hands = pd.DataFrame({"game": np.repeat(np.arange(4), 6), "hand": np.tile(np.repeat([0, 1], 3), 4),
                          "seat": np.tile([0, 1, 2], 8), "position": np.tile([2, 0, 1], 8),
                          "won": rng.random(rows) < 0.3, "points": rng.integers(0, 40, rows),
                          "score": rng.integers(0, 90, rows), "went_out_by": ["meld"] * rows,
                          "went_rummy": np.zeros(rows, bool), "stalled": np.zeros(rows, bool),
                          "turns": rng.integers(1, 9, rows)})  # fmt: skip
    digest = hand_digest(hands)
    assert digest.equals(hand_digest(hands.sample(frac=1.0, random_state=1)))
    for column in ("position", "points", "score", "turns", "won", "went_out_by", "hand", "seat"):
        changed = hands.copy()
        value = changed.at[7, column]
        flag = isinstance(value, (bool, np.bool_))
        changed.at[7, column] = "discard" if column == "went_out_by" else (not value) if flag else value + 1
        found = hand_digest(changed)
        assert (found != digest).tolist() == [False, True, False, False], column  # row 7 is game 1's
