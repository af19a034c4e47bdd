"""Comparisons of conditions: differences with 95% intervals, exact tests, Holm's correction.

An experiment plans its comparisons by its lineups: every condition is compared with
the first condition that seats the same strategies (the reference). Two conditions with
the same lineup and table play the same deals game by game (same seeds, seats
rotated alike), so they are compared *paired*: per-game differences, resampling whole
games (scipy's bootstrap), exact McNemar tests for a yes/no per game and the
Stuart-Maxwell test for the winning seat (statsmodels). Other pairs (different table
sizes) are compared unpaired. The p-values of all planned tests of an experiment are
corrected together by Holm's method; a difference whose interval spans zero is
"inconclusive", never "equal". A difference that is exactly zero (every paired game
alike) and a metric with no events in either condition are results too, with verdicts
of their own (`Verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import SquareTable, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import test_proportions_2indep

from rummysim.analysis.estimates import Estimate, bootstrap, independent_difference, ratio_difference
from rummysim.analysis.metrics import (
    PROPORTIONS,
    RATIOS,
    ConditionSummary,
    balance,
    hand_balance,
    hand_balance_columns,
    per_game_columns,
    seed_for,
    winner_indicators,
)
from rummysim.compat import StrEnum
from rummysim.strategies.registry import strategy_label

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
    UNCORRECTED = "interval excludes zero"
    """Its interval excludes zero and no planned test covers it: descriptive, not corrected."""
    EXACTLY_ZERO = "exactly zero"
    """Every paired game gave the same value in both conditions: difference 0 [0, 0]."""
    NO_EVENTS = "no events in either condition"
    """What it counts happened in neither condition, so there is nothing to compare."""

    @property
    def is_shown(self) -> bool:
        """Return True if the sign of the difference is resolved (corrected or not)."""
        return self in (Verdict.HOLDS, Verdict.UNCORRECTED)


@dataclass
class Test:
    """One planned test: its p-value, and the p-value after Holm's correction."""

    metric: str
    method: str
    p: float
    p_holm: float = float("nan")


@dataclass
class Comparison:
    """Condition `other` against its `reference`: differences other - reference."""

    reference: str
    other: str
    paired: bool
    games: int
    differences: dict[str, Estimate] = field(default_factory=dict)
    tests: dict[str, Test] = field(default_factory=dict)
    focal: str | None = None
    """The strategy whose Order is compared (`ConditionSummary.focal` of the reference)."""
    no_events: set[str] = field(default_factory=set)
    """Metrics whose events (rummies, stalls, ties, ...) happened in neither condition."""

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
            return Verdict.UNCORRECTED
        return Verdict.HOLDS if test.p_holm < ALPHA else Verdict.NOT_AFTER_HOLM


def plan(conditions: Sequence[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """Return the planned comparisons (reference, other, paired) of an experiment's conditions.

    Conditions seating the same set of strategies form a family whose first member is the
    reference; a pair is paired when lineup, table size and cards dealt are the same.
    """
    first: dict[frozenset[str], dict[str, Any]] = {}
    planned = []
    for condition in conditions:
        labels = [strategy_label(p) for p in condition["players"]]
        key = frozenset(labels)
        if key not in first:
            first[key] = condition
            continue
        ref = first[key]
        same_table = all(ref["rules"][k] == condition["rules"][k] for k in ("n_players", "cards_dealt"))
        same_lineup = [strategy_label(p) for p in ref["players"]] == labels
        planned.append((ref["name"], condition["name"], same_table and same_lineup))
    return planned


def _binary(frame: pd.DataFrame, column: str, value: object) -> np.ndarray:
    return (frame[column] == value).to_numpy(dtype=float)


def compare(
    ref: tuple[ConditionSummary, pd.DataFrame], other: tuple[ConditionSummary, pd.DataFrame], *, paired: bool,
    seed: int = 0,
) -> Comparison:  # fmt: skip
    """Return the differences other - reference of every metric, with intervals and tests."""
    (sa, fa), (sb, fb) = ref, other
    if paired:
        common = fa.index.intersection(fb.index)
        fa, fb = fa.loc[common], fb.loc[common]
    result = Comparison(sa.name, sb.name, paired, min(len(fa), len(fb)))
    key = (sa.name, sb.name)

    def diff(metric: str, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> None:
        s = seed_for(*key, metric, base=seed)
        if metric in COUNTED and not np.any(a[0]) and not np.any(b[0]):
            result.no_events.add(metric)
        if paired:
            result.differences[metric] = bootstrap(ratio_difference, (*a, *b), seed=s)
        else:
            result.differences[metric] = independent_difference(a, b, seed=s)

    ca, cb = per_game_columns(fa), per_game_columns(fb)
    for metric, (num, den, _) in RATIOS.items():
        diff(metric, (ca[num], ca[den]), (cb[num], cb[den]))
    diff("first_seat_advantage_hand", (ca["hands_won_0"] - ca["decided_hands"] / sa.n_players, ca["decided_hands"]),
         (cb["hands_won_0"] - cb["decided_hands"] / sb.n_players, cb["decided_hands"]))  # fmt: skip
    _proportions(result, fa, fb, diff, paired=paired)
    if paired:
        both = fa["decided"].to_numpy() & fb["decided"].to_numpy()
        da, db = fa[both], fb[both]
        _first_seat_paired(result, da, db, sa.n_players, diff)
        _balance_paired(result, fa, fb, da, db, sa.n_players, seed=seed_for(*key, "balance", base=seed))
    else:
        da, db = fa[fa["decided"]], fb[fb["decided"]]
        _first_seat_unpaired(result, da, db, sa.n_players, sb.n_players, diff)
    _order(result, sa, sb, da, db, diff, paired=paired)
    return result


def _proportions(result: Comparison, fa: pd.DataFrame, fb: pd.DataFrame, diff: Any, *, paired: bool) -> None:
    for metric, (column, among, _) in PROPORTIONS.items():
        ra, rb = fa, fb
        if among == "decided":
            if paired:
                keep = fa["decided"].to_numpy() & fb["decided"].to_numpy()
                ra, rb = fa[keep], fb[keep]
            else:
                ra, rb = fa[fa["decided"]], fb[fb["decided"]]
        x_a, x_b = ra[column].to_numpy(dtype=float), rb[column].to_numpy(dtype=float)
        diff(metric, (x_a, np.ones(len(x_a))), (x_b, np.ones(len(x_b))))


def _first_seat_paired(result: Comparison, da: pd.DataFrame, db: pd.DataFrame, n: int, diff: Any) -> None:
    xa, xb = _binary(da, "winner_start", 0), _binary(db, "winner_start", 0)
    ones = np.ones(len(xa))
    diff("first_seat_advantage_game", (xa, ones), (xb, ones))
    if len(xa):
        result.tests["first_seat_advantage_game"] = Test(
            "first_seat_advantage_game", "exact McNemar", _mcnemar(xa.astype(bool), xb.astype(bool))
        )
        table = pd.crosstab(da["winner_start"].to_numpy(), db["winner_start"].to_numpy())
        table = table.reindex(index=range(n), columns=range(n), fill_value=0)
        p = float(SquareTable(table.to_numpy(), shift_zeros=False).homogeneity().pvalue)
        result.tests["seat_distribution_game"] = Test("seat_distribution_game", "Stuart-Maxwell", p)


def _first_seat_unpaired(result: Comparison, da: pd.DataFrame, db: pd.DataFrame, n_a: int, n_b: int, diff: Any) -> None:
    xa, xb = _binary(da, "winner_start", 0), _binary(db, "winner_start", 0)
    diff("first_seat_advantage_game", (xa - 1.0 / n_a, np.ones(len(xa))), (xb - 1.0 / n_b, np.ones(len(xb))))
    if len(xa) and len(xb):
        # H0: equal advantages, r_b - r_a = 1/n_b - 1/n_a.
        test = test_proportions_2indep(
            int(xb.sum()), len(xb), int(xa.sum()), len(xa), value=1.0 / n_b - 1.0 / n_a, compare="diff"
        )
        result.tests["first_seat_advantage_game"] = Test(
            "first_seat_advantage_game", "two-proportion score test", float(test.pvalue)
        )


def _balance_paired(
    result: Comparison, fa: pd.DataFrame, fb: pd.DataFrame, da: pd.DataFrame, db: pd.DataFrame, n: int, *, seed: int
) -> None:
    cols = winner_indicators(da, n) + winner_indicators(db, n)

    def game_level(*x: np.ndarray, axis: int = -1) -> np.ndarray:
        return balance(*x[n:], axis=axis) - balance(*x[:n], axis=axis)

    result.differences["balance_game"] = bootstrap(game_level, tuple(cols), seed=seed)
    hand_cols = hand_balance_columns(fa, n) + hand_balance_columns(fb, n)

    def hand_level(*x: np.ndarray, axis: int = -1) -> np.ndarray:
        return hand_balance(*x[n + 1 :], axis=axis) - hand_balance(*x[: n + 1], axis=axis)

    result.differences["balance_hand"] = bootstrap(hand_level, tuple(hand_cols), seed=seed + 1)


def _order(
    result: Comparison, sa: ConditionSummary, sb: ConditionSummary, da: pd.DataFrame, db: pd.DataFrame, diff: Any,
    *, paired: bool,
) -> None:  # fmt: skip
    """Compare the Order of the reference's focal strategy, when both conditions seat it equally often."""
    focal = sa.focal
    if focal is None:
        return
    label = focal.strategy
    same = [s for s in sb.strategies if s.strategy == label and s.seats == focal.seats]
    if not same or len(sb.strategies) < 2:
        return
    strong_a, strong_b = focal, same[0]
    result.focal = label
    xa, xb = _binary(da, "winner_strategy", label), _binary(db, "winner_strategy", label)

    def order_scale(x: np.ndarray, summary: ConditionSummary, seats: int) -> np.ndarray:
        n = summary.n_players
        return (x / seats - 1.0 / n) / (1.0 - 1.0 / n)

    ya, yb = order_scale(xa, sa, strong_a.seats), order_scale(xb, sb, strong_b.seats)
    diff("order", (ya, np.ones(len(ya))), (yb, np.ones(len(yb))))
    if paired and len(xa):
        result.tests["order"] = Test("order", "exact McNemar", _mcnemar(xa.astype(bool), xb.astype(bool)))
    elif not paired and sa.n_players == sb.n_players and strong_a.seats == strong_b.seats and len(xa) and len(xb):
        test = test_proportions_2indep(int(xb.sum()), len(xb), int(xa.sum()), len(xa), compare="diff")
        result.tests["order"] = Test("order", "two-proportion score test", float(test.pvalue))


def _mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    """Return the exact McNemar p-value of paired yes/no outcomes (statsmodels)."""
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    return float(mcnemar(table, exact=True).pvalue)


def holm(comparisons: Sequence[Comparison]) -> None:
    """Correct every planned test of an experiment together by Holm's method (statsmodels)."""
    tests = [t for c in comparisons for t in c.tests.values() if not np.isnan(t.p)]
    if not tests:
        return
    adjusted = multipletests([t.p for t in tests], alpha=ALPHA, method="holm")[1]
    for test, p in zip(tests, adjusted, strict=True):
        test.p_holm = float(p)
