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
of their own (`Verdict`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import SquareTable, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import test_proportions_2indep
from statsmodels.tools.sm_exceptions import SingularMatrixWarning

from rummysim.analysis.equivalence import (
    DELTA_TEST,
    MEASURES,
    Bounds,
    Spread,
    bounds,
    delta_test,
    linearised,
    spread,
    variance_ratio,
)
from rummysim.analysis.estimates import Estimate, Pair, difference_estimates
from rummysim.analysis.metrics import (
    PROPORTIONS,
    RATIOS,
    ConditionSummary,
    per_game_columns,
    seed_for,
)
from rummysim.analysis.skill import MCNEMAR, SCORE_TEST, compare_skill, measured
from rummysim.compat import StrEnum
from rummysim.design import Condition
from rummysim.measures import DEFAULT_MEASURES, planned_metrics
from rummysim.specs import strategy_label

ALPHA = 0.05


COUNTED = frozenset({*RATIOS, *PROPORTIONS})
"""The metrics that count events (rummies, stalls, ties, ...), which may happen in neither condition."""


class Verdict(StrEnum):
    """How a difference stands, decided once here; the report words each one."""

    HOLDS = "holds after Holm's correction"
    """Its interval excludes zero and its planned test holds after Holm's correction."""
    NOT_AFTER_HOLM = "inconclusive after Holm's correction"
    """Its interval excludes zero, but its planned test does not hold after correction."""
    INCONCLUSIVE = "inconclusive"
    """Its interval spans zero, or could not be computed (too few games)."""
    UNCORRECTED = "interval excludes zero (uncorrected: no planned test)"
    """Its interval excludes zero and no test covers it: descriptive, not corrected, never in the Answer."""
    DISCOVERED = "a change at a 5% false discovery rate (descriptive)"
    """Descriptive: its interval excludes zero and its test holds after Benjamini-Hochberg's correction across every
    descriptive difference of the experiment."""
    NOT_AFTER_FDR = "inconclusive at a 5% false discovery rate (descriptive)"
    """Descriptive: its interval excludes zero, but its test does not hold after Benjamini-Hochberg's correction."""
    EXACTLY_ZERO = "exactly zero"
    """Every paired game gave the same value in both conditions: difference 0 [0, 0]."""
    NO_EVENTS = "no events in either condition"
    """What it counts happened in neither condition, so there is nothing to compare."""
    DIFFERS = "differs after Holm's correction"
    """A test of a whole distribution (the winning seat's) holds after Holm's correction."""
    NO_DIFFERENCE_SHOWN = "no difference shown"
    """A test of a whole distribution does not hold after Holm's correction."""
    NOT_COMPUTED = "test could not be computed (too few games)"
    """Its planned test has no p-value: a singular table on a small run (Stuart-Maxwell), or no data."""

    @property
    def is_shown(self) -> bool:
        """Return True if the sign of the difference is resolved (corrected or not)."""
        return self in (Verdict.HOLDS, Verdict.DISCOVERED, Verdict.UNCORRECTED)

    @property
    def is_claim(self) -> bool:
        """Return True if the Answer may claim the difference: its planned test holds after Holm's correction."""
        return self is Verdict.HOLDS


class Answer(StrEnum):
    """A planned comparison's answer to its question, decided from its interval [L, U] and margin X.

    - ``Yes``: the change holds after Holm's correction and [L, U] reaches beyond ±X;
    - ``Yes, but small``: it holds, and [L, U] lies inside ±X: a real change, smaller than the margin;
    - ``No``: it does not hold and [L, U] lies inside ±X: any change is smaller than X (equivalence);
    - ``Can't tell``: it does not hold and [L, U] reaches beyond ±X: a change that large is still possible.
    """

    YES = "Yes"
    SMALL = "Yes, but small"
    NO = "No"
    CANT_TELL = "Can't tell"


@dataclass
class Test:
    """One planned test: its p-value, and the p-value after Holm's correction."""

    metric: str
    method: str
    p: float
    p_holm: float = float("nan")
    """Planned tests: the p-value after Holm's correction across the experiment's planned tests."""
    p_fdr: float = float("nan")
    """Descriptive tests: the p-value after Benjamini-Hochberg's correction across the experiment's descriptive
    tests."""


@dataclass
class Comparison:
    """Condition `other` against its `reference`: differences other - reference."""

    reference: str
    other: str
    paired: bool
    games: int
    differences: dict[str, Estimate] = field(default_factory=dict)
    tests: dict[str, Test] = field(default_factory=dict)
    """The planned tests (the experiment's ``measures:``, plus the winning seat's distribution with the first
    seat's edge), corrected together by Holm's method (`holm`)."""
    descriptive: dict[str, Test] = field(default_factory=dict)
    """The tests of every other difference, corrected together by Benjamini-Hochberg's method (`fdr`)."""
    planned: frozenset[str] = frozenset()
    """The metrics the experiment plans (`rummysim.measures.planned_metrics`)."""
    focal: str | None = None
    """The strategy whose skill is compared (`rummysim.analysis.skill.measured`), if any."""
    skill_metric: str | None = None
    """Its planned skill measure: ``order`` at one table size and seat count, else ``strength`` (`analysis.skill`)."""
    no_events: set[str] = field(default_factory=set)
    """Metrics whose events (rummies, stalls, ties, ...) happened in neither condition."""
    variance_ratios: dict[str, float] = field(default_factory=dict)
    """Paired only: each difference's variance over an unpaired design's on the same games (`variance_ratio`)."""
    spreads: dict[str, Spread] = field(default_factory=dict)
    """The standard errors of each planned difference (`MEASURES`), for its smallest detectable change."""
    bounds: dict[str, Bounds] = field(default_factory=dict)
    """What each planned difference rules out (`rule_out`, after Holm's correction)."""

    def verdict(self, metric: str) -> Verdict:
        """Return how a difference stands (`Verdict`)."""
        if metric in self.no_events:
            return Verdict.NO_EVENTS
        diff = self.differences[metric]
        if diff.value == diff.low == diff.high == 0.0:
            return Verdict.EXACTLY_ZERO
        if np.isnan(diff.low) or diff.spans_zero:
            return Verdict.INCONCLUSIVE
        test = self.tests.get(metric)
        if test is None:
            found = self.descriptive.get(metric)
            if found is None:
                return Verdict.UNCORRECTED
            if np.isnan(found.p_fdr):
                return Verdict.NOT_COMPUTED
            return Verdict.DISCOVERED if found.p_fdr < ALPHA else Verdict.NOT_AFTER_FDR
        if np.isnan(test.p):
            return Verdict.NOT_COMPUTED
        return Verdict.HOLDS if test.p_holm < ALPHA else Verdict.NOT_AFTER_HOLM

    def answer(self, metric: str) -> Answer:
        """Return a planned difference's answer (`Answer`), from its verdict and what it rules out (`rule_out`)."""
        verdict = self.verdict(metric)
        if verdict in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
            return Answer.NO
        b = self.bounds.get(metric)
        if b is None or not (np.isfinite(b.interval.low) and np.isfinite(b.interval.high)):
            return Answer.CANT_TELL
        if verdict.is_claim:
            return Answer.SMALL if b.equivalent else Answer.YES
        return Answer.NO if b.equivalent else Answer.CANT_TELL

    def distribution_verdict(self, metric: str) -> Verdict:
        """Return how a test of a whole distribution stands, such as the winning seat's (Stuart-Maxwell)."""
        if np.isnan(self.tests[metric].p):
            return Verdict.NOT_COMPUTED
        return Verdict.DIFFERS if self.tests[metric].p_holm < ALPHA else Verdict.NO_DIFFERENCE_SHOWN


def plan(conditions: Sequence[Condition]) -> list[tuple[str, str, bool]]:
    """Return the planned comparisons (reference, other, paired) of an experiment's conditions.

    Conditions seating the same set of strategies form a family whose first member is the
    reference; a pair is paired when table size and cards dealt are the same: the deals of
    game g then come from the same seeds (R3), even if the lineup's order differs.
    """
    first: dict[frozenset[str], Condition] = {}
    planned = []
    for condition in conditions:
        labels = [strategy_label(p) for p in condition.players]
        key = frozenset(labels)
        if key not in first:
            first[key] = condition
            continue
        ref = first[key]
        same_table = (ref.rules.n_players, ref.rules.n_dealt) == (condition.rules.n_players, condition.rules.n_dealt)
        planned.append((ref.name, condition.name, same_table))
    return planned


def _binary(frame: pd.DataFrame, column: str, value: object) -> np.ndarray:
    return (frame[column] == value).to_numpy(dtype=float)


def compare(
    ref: tuple[ConditionSummary, pd.DataFrame], other: tuple[ConditionSummary, pd.DataFrame], *, paired: bool,
    seed: int = 0, skill: Sequence[str] = (), measures: Sequence[str] = DEFAULT_MEASURES,
) -> Comparison:  # fmt: skip
    """Return the differences other - reference of every metric, with intervals and tests.

    `skill`: the strategies the experiment names for its skill measure (``skill.strategy``); the
    one compared is `rummysim.analysis.skill.measured` of the reference. `measures`: the
    experiment's planned measures (`rummysim.measures`); their metrics get the planned tests
    (Holm), every other difference a descriptive one (Benjamini-Hochberg, `fdr`).
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
        table = pd.crosstab(decided_a["winner_start"].to_numpy(), decided_b["winner_start"].to_numpy())
        table = table.reindex(index=range(n), columns=range(n), fill_value=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", SingularMatrixWarning)
            try:
                p = float(SquareTable(table.to_numpy(), shift_zeros=False).homogeneity().pvalue)
            except SingularMatrixWarning:  # too few games for the table: said as such, never a p-value
                p = float("nan")
        result.tests["seat_distribution_game"] = Test("seat_distribution_game", "Stuart-Maxwell", p)


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


def rule_out(comparisons: Sequence[Comparison], *, margins: Mapping[str, float]) -> None:
    """Set what each planned difference rules out (`equivalence.bounds`); call after `holm`.

    The smallest detectable change is at Holm's first level, α/m, over the m planned tests
    of the experiment, so it holds whatever the other tests show.
    """
    tests = sum(1 for c in comparisons for t in c.tests.values() if not np.isnan(t.p))
    for comp in comparisons:
        for metric in MEASURES:
            if metric in comp.tests and metric in comp.differences:
                comp.bounds[metric] = bounds(
                    metric=metric, interval=comp.differences[metric], spread=comp.spreads[metric],
                    margins=margins, tests=tests, exact=comp.tests[metric].method == MCNEMAR,
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
