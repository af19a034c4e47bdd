"""Comparisons of conditions: differences with 95% intervals, exact tests, Holm's correction.

An experiment plans its comparisons by its lineups: every condition is compared with
the first condition that seats the same strategies (the reference). Two conditions with
the same table (players and cards dealt) play the same deals game by game (the deals come
from the seed, game and hand alone, whatever the lineup's order), so they are compared
*paired*: per-game differences, resampling whole games (one set of resamples for all metrics), exact
McNemar tests for a yes/no per game and the Stuart-Maxwell test for the winning seat
(statsmodels). Other pairs (different table sizes) are compared unpaired, with the
Miettinen-Nurminen score test (statsmodels' ``method="score"``). The p-values of all planned tests of an experiment are
corrected together by Holm's method; a difference whose interval spans zero is
"inconclusive", never "equal". A difference that is exactly zero (every paired game
alike) and a metric with no events in either condition are results too, with verdicts
of their own (`Verdict`). The record of a comparison and how it stands, its `Verdict` and
`Answer`, are in `rummysim.analysis.comparison` (importable from here too).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import SquareTable, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import test_proportions_2indep
from statsmodels.tools.sm_exceptions import SingularMatrixWarning

from rummysim.analysis.comparison import ALPHA, Comparison, Test
from rummysim.analysis.comparison import Answer as Answer
from rummysim.analysis.comparison import Verdict as Verdict
from rummysim.analysis.equivalence import (
    DELTA_TEST,
    MEASURES,
    bounds,
    delta_test,
    spread,
    variance_ratio,
)
from rummysim.analysis.estimates import Pair, delta_log_ratio, difference_estimates, linearised, log_linearised
from rummysim.analysis.metrics import (
    PROPORTIONS,
    RATIOS,
    ConditionSummary,
    per_game_columns,
    seed_for,
)
from rummysim.analysis.skill import MCNEMAR, SCORE_TEST, compare_skill, measured
from rummysim.design import Condition
from rummysim.measures import DEFAULT_MEASURES, planned_metrics
from rummysim.specs import strategy_label

COUNTED = frozenset({*RATIOS, *PROPORTIONS})
"""The metrics that count events (rummies, stalls, ties, ...), which may happen in neither condition."""


def plan(conditions: Sequence[Condition]) -> list[tuple[str, str, bool]]:
    """Return the planned comparisons (reference, other, paired) of an experiment's conditions.

    Conditions seating the same set of strategies form a family whose first member is the
    reference; a pair is paired when table size and cards dealt are the same: the deals of
    game g then come from the same seeds (R3), even if the lineup's order differs. A grid
    crossed with conditions (``arm|cell`` names) makes a family of each arm: every cell is
    compared with its own arm's first cell (an atlas's basic rummy at each table size). The checks
    with strong players (``strong: true``) make families of their own. A condition's ``reference:``
    names the one it is compared with instead, or with ``none`` no other (`Condition.reference`).
    """
    first: dict[tuple[frozenset[str], str, bool], Condition] = {}
    named = {c.name: c for c in conditions}
    planned = []
    for condition in conditions:
        labels = [strategy_label(p) for p in condition.players]
        key = (frozenset(labels), condition.name.rpartition("|")[0], condition.strong)
        if key not in first:
            first[key] = condition
            if not condition.reference:
                continue
        if condition.reference == "":
            continue
        ref = named[condition.reference] if condition.reference else first[key]
        same_table = (ref.rules.n_players, ref.rules.n_dealt) == (condition.rules.n_players, condition.rules.n_dealt)
        planned.append((ref.name, condition.name, same_table))
    return planned


def _binary(frame: pd.DataFrame, column: str, value: object) -> np.ndarray:
    return (frame[column] == value).to_numpy(dtype=float)


def compare(
    ref: tuple[ConditionSummary, pd.DataFrame], other: tuple[ConditionSummary, pd.DataFrame], *, paired: bool,
    seed: int = 0, skill: Sequence[str] = (), measures: Sequence[str] = DEFAULT_MEASURES,
    relative: Collection[str] = (),
) -> Comparison:  # fmt: skip
    """Return the differences other - reference of every metric, with intervals and tests.

    `skill`: the strategies the experiment names for its skill measure (``skill.strategy``); the
    one compared is `rummysim.analysis.skill.measured` of the reference. `measures`: the
    experiment's planned measures (`rummysim.measures`); their metrics get the planned tests
    (Holm), every other difference a descriptive one (Benjamini-Hochberg, `fdr`). `relative`: the planned
    metrics decided on the log ratio of their levels (`rummysim.margins.RELATIVE`): each gets its log ratio
    (`delta_log_ratio`), and its spread on that scale.
    """
    (summary_a, games_a), (summary_b, games_b) = ref, other
    if paired:
        common = games_a.index.intersection(games_b.index)
        games_a, games_b = games_a.loc[common], games_b.loc[common]
    result = Comparison(
        reference=summary_a.name, other=summary_b.name, paired=paired, games=min(len(games_a), len(games_b)),
        planned=frozenset(planned_metrics(tuple(measures))),
    )  # fmt: skip
    pending: dict[str, tuple[Pair, Pair]] = {}  # every difference's columns, resampled together at the end

    def diff(metric: str, a: Pair, b: Pair) -> None:
        if metric in COUNTED and not np.any(a[0]) and not np.any(b[0]):
            result.no_events.add(metric)
        pending[metric] = (a, b)
        if paired:
            result.variance_ratios[metric] = variance_ratio(a, b)
        if metric in MEASURES and metric in result.planned:
            per_game = np.all(a[1] == 1) and np.all(b[1] == 1)  # a mean per game: its values as the test sees them
            za, zb = (a[0], b[0]) if per_game else (linearised(*a), linearised(*b))
            if metric in relative:
                log_ratio = delta_log_ratio(a, b, paired=paired)
                result.log_ratios[metric] = log_ratio
                za, zb = log_linearised(*a), log_linearised(*b)  # each game's influence on the log of its ratio
            result.spreads[metric] = spread(za, zb, paired=paired)

    columns_a, columns_b = per_game_columns(games_a), per_game_columns(games_b)
    for metric, (num, den, _) in RATIOS.items():
        diff(metric, (columns_a[num], columns_a[den]), (columns_b[num], columns_b[den]))
    hands_a, hands_b = columns_a["decided_hands"], columns_b["decided_hands"]
    diff(
        "first_seat_advantage_hand",
        (columns_a["hands_won_0"] - hands_a / summary_a.n_players, hands_a),
        (columns_b["hands_won_0"] - hands_b / summary_b.n_players, hands_b),
    )
    last_a, last_b = summary_a.n_players - 1, summary_b.n_players - 1  # the dealer plays last (R3.4)
    diff(
        "dealer_advantage_hand",
        (columns_a[f"hands_won_{last_a}"] - hands_a / summary_a.n_players, hands_a),
        (columns_b[f"hands_won_{last_b}"] - hands_b / summary_b.n_players, hands_b),
    )
    _proportions(result, games_a=games_a, games_b=games_b, diff=diff, paired=paired)
    if paired:
        both = games_a["decided"].to_numpy() & games_b["decided"].to_numpy()
        decided_a, decided_b = games_a[both], games_b[both]
        _first_seat_paired(result, decided_a=decided_a, decided_b=decided_b, n=summary_a.n_players, diff=diff)
    else:
        decided_a, decided_b = games_a[games_a["decided"]], games_b[games_b["decided"]]
        _first_seat_unpaired(
            result, decided_a=decided_a, decided_b=decided_b, n_players_a=summary_a.n_players,
            n_players_b=summary_b.n_players, diff=diff,
        )  # fmt: skip
    planned = compare_skill(
        result, summaries=(summary_a, summary_b), decided=(decided_a, decided_b),
        strategy=measured(summary_a, skill), diff=diff, mcnemar=_mcnemar, seed=seed,
    )  # fmt: skip
    result.tests.update({metric: Test(metric, method, p) for metric, (method, p) in planned.items()})
    seed = seed_for(summary_a.name, summary_b.name, base=seed)
    result.differences.update(difference_estimates(pending, paired=paired, seed=seed))
    _sort_tests(result, pending)
    return result


def _sort_tests(result: Comparison, pending: Mapping[str, tuple[Pair, Pair]]) -> None:
    """Keep the planned metrics' tests (Holm); give every other difference a descriptive one (Benjamini-Hochberg).

    A planned metric without a test of its own is tested over games (`delta_test`); the
    winning seat's distribution (Stuart-Maxwell) goes with the first seat's edge.
    """
    for metric in list(result.tests):
        owner = "first_seat_advantage_game" if metric == "seat_distribution_game" else metric
        if owner not in result.planned:
            test = result.tests.pop(metric)
            if metric != "seat_distribution_game":  # a distribution is no line of "what else changes"
                result.descriptive[metric] = test
    for metric, (a, b) in pending.items():
        if metric in result.tests or metric in result.descriptive or metric in result.no_events:
            continue
        test = Test(metric, DELTA_TEST, delta_test(a, b, paired=result.paired))
        (result.tests if metric in result.planned else result.descriptive)[metric] = test


def _proportions(result: Comparison, *, games_a: pd.DataFrame, games_b: pd.DataFrame, diff: Any, paired: bool) -> None:
    for metric, (column, among, _) in PROPORTIONS.items():
        rows_a, rows_b = games_a, games_b
        if among == "decided":
            if paired:
                keep = games_a["decided"].to_numpy() & games_b["decided"].to_numpy()
                rows_a, rows_b = games_a[keep], games_b[keep]
            else:
                rows_a, rows_b = games_a[games_a["decided"]], games_b[games_b["decided"]]
        events_a, events_b = rows_a[column].to_numpy(dtype=float), rows_b[column].to_numpy(dtype=float)
        diff(metric, (events_a, np.ones(len(events_a))), (events_b, np.ones(len(events_b))))


def _first_seat_paired(
    result: Comparison, *, decided_a: pd.DataFrame, decided_b: pd.DataFrame, n: int, diff: Any
) -> None:
    wins_a, wins_b = _binary(decided_a, "winner_start", 0), _binary(decided_b, "winner_start", 0)
    ones = np.ones(len(wins_a))
    diff("first_seat_advantage_game", (wins_a, ones), (wins_b, ones))
    if len(wins_a):
        result.tests["first_seat_advantage_game"] = Test(
            "first_seat_advantage_game", MCNEMAR, _mcnemar(wins_a.astype(bool), wins_b.astype(bool))
        )
        table = winning_starts(decided_a["winner_start"].to_numpy(), decided_b["winner_start"].to_numpy(), n)
        with warnings.catch_warnings():
            warnings.simplefilter("error", SingularMatrixWarning)
            try:
                p = float(SquareTable(table, shift_zeros=False).homogeneity().pvalue)
            except SingularMatrixWarning:  # too few games for the table: said as such, never a p-value
                p = float("nan")
        result.tests["seat_distribution_game"] = Test("seat_distribution_game", "Stuart-Maxwell", p)


def winning_starts(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Return the n × n table of paired games by the winner's start position in a (rows) and in b (columns).

    >>> winning_starts(np.array([0, 0, 1, 2]), np.array([0, 1, 1, -1]), 2).tolist()
    [[1, 1], [0, 1]]
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    inside = (a >= 0) & (a < n) & (b >= 0) & (b < n)
    return np.bincount(a[inside] * n + b[inside], minlength=n * n).reshape(n, n)


def _first_seat_unpaired(
    result: Comparison, *, decided_a: pd.DataFrame, decided_b: pd.DataFrame, n_players_a: int, n_players_b: int,
    diff: Any,
) -> None:  # fmt: skip
    wins_a, wins_b = _binary(decided_a, "winner_start", 0), _binary(decided_b, "winner_start", 0)
    diff(
        "first_seat_advantage_game",
        (wins_a - 1.0 / n_players_a, np.ones(len(wins_a))),
        (wins_b - 1.0 / n_players_b, np.ones(len(wins_b))),
    )
    if len(wins_a) and len(wins_b):
        # H0: equal advantages, r_b - r_a = 1/n_players_b - 1/n_players_a.
        test = test_proportions_2indep(
            int(wins_b.sum()),
            len(wins_b),
            int(wins_a.sum()),
            len(wins_a),
            value=1.0 / n_players_b - 1.0 / n_players_a,
            compare="diff",
            method="score",
            correction=True,
        )
        result.tests["first_seat_advantage_game"] = Test("first_seat_advantage_game", SCORE_TEST, float(test.pvalue))


def _mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    """Return the exact McNemar p-value of paired yes/no outcomes (statsmodels)."""
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    return float(mcnemar(table, exact=True).pvalue)


def rule_out(
    comparisons: Sequence[Comparison], *, margins: Mapping[str, float], relative: Mapping[str, float] | None = None,
    alpha: float = ALPHA,
) -> None:  # fmt: skip
    """Set each planned change's simultaneous interval and what it rules out (`equivalence.bounds`).

    The m planned changes of the family (every comparison's planned metrics with a difference)
    share one set of simultaneous intervals at 1 − α/m: the run's verdicts are read from them.
    `relative`: measure -> its margin as a share of the reference's level, for the measures whose
    comparisons carry a log ratio (`compare`'s `relative`); the others are decided on the difference.
    `alpha`: the family's share of the run's error rate (all of it but in an atlas, `rummysim.analysis.atlas`).
    """
    shares = relative or {}
    planned = [(c, m) for c in comparisons for m in MEASURES if m in c.tests and m in c.differences]
    for comp, metric in planned:
        key = MEASURES[metric][0]
        on_log = metric in comp.log_ratios and key in shares
        comp.bounds[metric] = bounds(
            metric=metric, interval=comp.log_ratios[metric] if on_log else comp.differences[metric],
            spread=comp.spreads[metric], margins=margins, tests=len(planned),
            exact=comp.tests[metric].method == MCNEMAR, share=shares[key] if on_log else None, alpha=alpha,
        )  # fmt: skip


def fdr(comparisons: Sequence[Comparison]) -> None:
    """Correct every descriptive test of an experiment together by Benjamini-Hochberg's method (statsmodels).

    Controls the expected share of false discoveries among the descriptive changes reported at 5%;
    when nothing changes at all, the chance of reporting any is at most 5% too (docs/metrics.md has
    the rate measured on null runs).
    """
    for test, p in _adjusted([t for c in comparisons for t in c.descriptive.values()], method="fdr_bh"):
        test.p_fdr = p


def holm(comparisons: Sequence[Comparison]) -> None:
    """Correct every planned test of an experiment together by Holm's method (statsmodels)."""
    for test, p in _adjusted([t for c in comparisons for t in c.tests.values()], method="holm"):
        test.p_holm = p


def _adjusted(tests: Sequence[Test], *, method: str) -> list[tuple[Test, float]]:
    """Return each test with a p-value (NaN: not computed) and its p-value adjusted by statsmodels' `method`."""
    tests = [t for t in tests if not np.isnan(t.p)]
    if not tests:
        return []
    adjusted = multipletests([t.p for t in tests], alpha=ALPHA, method=method)[1]
    return [(t, float(p)) for t, p in zip(tests, adjusted, strict=True)]
