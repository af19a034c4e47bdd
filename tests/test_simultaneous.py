"""Issue 42 part 2: every verdict of a run is read from one set of simultaneous intervals at 1 − α/m.

Synthetic runs of m paired planned changes go through the project's own estimator
(`delta_difference`), `rule_out` and `Comparison.answer`: at a true change equal to the margin,
the share of runs with any false "No" or "Yes, but small" stays at most 5%; with no change at all,
the share with any false "Yes"; and a planted bug (the 95% intervals, unadjusted) fails both.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from rummysim.analysis.compare import Answer, Comparison, rule_out
from rummysim.analysis.compare import Test as PlannedTest
from rummysim.analysis.equivalence import spread
from rummysim.analysis.estimates import delta_difference, delta_log_ratio
from rummysim.design import check_margin

METRIC = "first_seat_advantage_game"  # the first seat's edge over a game: margin 1 pp, a yes/no per game
MARGINS = check_margin({"first_seat_edge": "1 pp"}, "test: margin")
PLANNED = 7  # as many planned changes as acehigh's question asks
GAMES = 5000


def paired_run(rng: np.random.Generator, change: float, *, changes: int = PLANNED, games: int = GAMES) -> np.ndarray:
    """Return `changes` paired sets of games (2, changes, games): wins of the first seat under a and under b.

    Under a the first seat wins a third of the games; b flips some games' winner so that the true
    change in its share is exactly `change` (a flip each way, the paired games' discordant pairs).
    """
    a = rng.random((changes, games)) < 1 / 3
    flip = rng.random((changes, games))
    down, up = 0.02, 0.02 + change  # P(1 -> 0 | a = 1) · P(a = 1) and P(0 -> 1 | a = 0) · P(a = 0)
    b = np.where(a, flip >= down * 3, flip < up * 1.5)
    return np.stack([a, b]).astype(float)


def comparisons(run: np.ndarray) -> list[Comparison]:
    """Return one paired comparison a planned change of a synthetic run, as `compare` fills it in."""
    comps = []
    ones = np.ones(run.shape[2])
    for i in range(run.shape[1]):
        comp = Comparison(f"a{i}", f"b{i}", paired=True, games=run.shape[2], planned=frozenset({METRIC}))
        comp.differences[METRIC] = delta_difference((run[0, i], ones), (run[1, i], ones), paired=True)
        comp.tests[METRIC] = PlannedTest(METRIC, "z", 0.5)  # a supporting p-value only: the answer never reads it
        comp.spreads[METRIC] = spread(run[0, i], run[1, i], paired=True)
        comps.append(comp)
    return comps


def answers(run: np.ndarray, *, planted: bool = False) -> list[Answer]:
    """Return the answers of one synthetic run, every change decided as `rummysim.analysis.analyze` decides it.

    `planted`: the bug of deciding each change alone (its 95% interval), not at the run's level 1 − α/m.
    """
    comps = comparisons(run)
    for family in [[c] for c in comps] if planted else [comps]:
        rule_out(family, margins=MARGINS)
    return [comp.answer(METRIC) for comp in comps]


def rate(runs: int, change: float, wrong: set[Answer], *, seed: int, planted: bool = False) -> tuple[int, int]:
    """Return (runs with any answer in `wrong`, runs) over synthetic runs at a true change `change`."""
    rng = np.random.default_rng(seed)
    bad = sum(any(a in wrong for a in answers(paired_run(rng, change), planted=planted)) for _ in range(runs))
    return bad, runs


def test_r11_a_run_has_one_level_for_all_its_planned_changes():
    """Each of the m intervals is its 95% interval widened by z(1 − α/2m) / z(1 − α/2), and says its level."""
    comps = comparisons(paired_run(np.random.default_rng(2), 0.0))
    rule_out(comps, margins=MARGINS)
    z = 2.6901  # z(1 - 0.05 / 14), two-sided at 0.05 / 7
    for comp in comps:
        b, d = comp.bounds[METRIC], comp.differences[METRIC]
        assert b.level == pytest.approx(1 - 0.05 / PLANNED)
        assert b.interval.high - b.interval.low == pytest.approx((d.high - d.low) * z / 1.959964, rel=1e-4)
        assert b.interval.value == d.value


@pytest.mark.parametrize("seed", [42])
def test_r11_runwise_false_no_at_the_margin_is_at_most_5_percent_over_1000_runs(seed):
    """At a true change equal to the margin, "No" and "Yes, but small" are false: at most 5% of runs say either."""
    bad, runs = rate(1000, 0.01, {Answer.NO, Answer.SMALL}, seed=seed)
    low, _ = proportion_confint(bad, runs, method="wilson")
    assert low < 0.05 and bad / runs <= 0.05, f"{bad} of {runs} runs said a false No or Yes, but small"
    planted, _ = rate(1000, 0.01, {Answer.NO, Answer.SMALL}, seed=seed, planted=True)  # each change decided alone
    assert planted / runs > 0.08 and proportion_confint(planted, runs, method="wilson")[0] > 0.05


def test_r11_runwise_false_yes_under_no_change_is_at_most_5_percent():
    yes = {Answer.YES, Answer.UNCLEAR, Answer.SMALL}
    bad, runs = rate(600, 0.0, yes, seed=7)
    assert bad / runs <= 0.05 and proportion_confint(bad, runs, method="wilson")[0] < 0.05
    planted, _ = rate(600, 0.0, yes, seed=7, planted=True)
    assert proportion_confint(planted, runs, method="wilson")[0] > 0.05  # seven 95% intervals: about 30% of runs


def test_r11_a_length_30_percent_shorter_is_never_small_however_short_games_are():
    """Game length is decided on its log ratio against ±log(1.05): 2.39 -> 1.66 hands a game is a "Yes"."""
    rng = np.random.default_rng(3)
    for level, games in ((2.39, 1600), (23.9, 1600)):  # three experts' games, and three greedy players'
        a = rng.gamma(4.0, level / 4.0, games)
        b = a * 0.7 * np.exp(rng.normal(0, 0.1, games))
        comp = Comparison("a", "b", paired=True, games=games, planned=frozenset({"hands_per_game"}))
        pair_a, pair_b = (a, np.ones(games)), (b, np.ones(games))
        comp.differences["hands_per_game"] = delta_difference(pair_a, pair_b, paired=True)
        comp.log_ratios["hands_per_game"] = delta_log_ratio(pair_a, pair_b, paired=True)
        ra, rb = a.mean(), b.mean()
        comp.spreads["hands_per_game"] = spread((a - ra) / ra, (b - rb) / rb, paired=True)
        comp.tests["hands_per_game"] = PlannedTest("hands_per_game", "z", 1e-9)
        rule_out([comp], margins=check_margin(None, "m"), relative={"game_length": 0.05})
        bounds = comp.bounds["hands_per_game"]
        assert bounds.relative and bounds.margin == pytest.approx(math.log(1.05))
        assert comp.answer("hands_per_game") is Answer.YES, (level, bounds)
        comp.spreads["hands_per_game"] = spread(a, b, paired=True)
        rule_out([comp], margins=check_margin({"game_length": "1 hand"}, "m"))  # a margin in hands: the difference
        assert not comp.bounds["hands_per_game"].relative
        expected = Answer.YES if level > 10 else Answer.SMALL  # 0.72 hands fewer is "small" against 1 hand
        assert comp.answer("hands_per_game") is expected


def test_r11_lengths_and_scores_take_a_share_of_their_level_as_margin_and_keep_it_through_the_manifest():
    from rummysim.design import from_manifest
    from rummysim.errors import ConfigError
    from rummysim.experiment import parse_experiment

    spec = {
        "name": "m",
        "question": "q?",
        "seed": 1,
        "games": 10,
        "players": ["greedy", "greedy"],
        "measures": ["game_length"],
    }
    plain = parse_experiment(spec, source="m.yaml")
    assert plain.relative_margin == {"game_length": 0.05, "hand_length": 0.05, "points_per_hand": 0.05}
    given = parse_experiment({**spec, "margin": {"game_length": "10%", "hand_length": "2 turns"}}, source="m.yaml")
    assert given.relative_margin == {"game_length": 0.10, "points_per_hand": 0.05}
    assert given.margin["hand_length"] == 2.0
    recorded = given.to_dict()
    assert recorded["margin"]["game_length"] == "10%" and recorded["margin"]["hand_length"] == 2.0
    back = from_manifest({"experiment": recorded}, source="manifest.json")
    assert (back.relative_margin, back.margin) == (given.relative_margin, given.margin)
    with pytest.raises(ConfigError, match=r"m.yaml: margin.game_length: '150%' is not a share above 0% and at most"):
        parse_experiment({**spec, "margin": {"game_length": "150%"}}, source="m.yaml")
    with pytest.raises(ConfigError, match=r"margin.first_seat_edge: '1%' is a share of a level, which only"):
        parse_experiment({**spec, "margin": {"first_seat_edge": "1%"}}, source="m.yaml")
