"""Every pair of cells that share deals: each one's difference with its paired delta-method interval.

The cells of one table size play the same deals game by game, so the difference of two of
them, R_j − R_i (each a ratio of per-game sums, as every metric here), is measured on
identical luck. Its standard error is that of the games' differences of influence values
(`estimates.linearised`), √(var(z_j − z_i) / N), the paired `estimates.delta_change`; over k
cells that is √((C_ii + C_jj − 2 C_ij) / N) of the games' covariance matrix C of influence
values, so one k x k matrix gives all k(k − 1)/2 pairs in one pass over the games.

A relative measure (a game's length, decided on the log ratio: `rummysim.margins.RELATIVE`)
is taken on x = log(R_j / R_i), its games' influence values `estimates.log_linearised`, and
turned back into its unit at the estimate and both ends, R_i · (eˣ − 1), as the atlas turns
its changes back (`rummysim.report.atlas`): the estimate is then exactly R_j − R_i.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rummysim.analysis.estimates import LEVEL, Pair, linearised, log_linearised


@dataclass(frozen=True)
class PairedDifferences:
    """The differences of k cells on their shared games: ``[i, j]`` is cell j − cell i, with its interval."""

    difference: np.ndarray
    """(k, k): R_j − R_i at ``[i, j]`` (NaN where either ratio is not measured)."""
    low: np.ndarray
    """(k, k): the interval's lower end (NaN without one: fewer than 2 games, or no variance to measure)."""
    high: np.ndarray
    level: float
    """The intervals' confidence level."""
    games: int
    """The shared games N."""


def paired_differences(columns: Sequence[Pair], *, level: float = LEVEL, relative: bool = False) -> PairedDifferences:
    """Return every pair's R_j − R_i of k cells' per-game (num, den) columns over the same games, in the same order.

    Intervals are normal at `level` (the delta method, paired); `relative`: on the log ratio,
    turned back into the unit (module doc). The diagonal is 0 without an interval.

    >>> one = np.ones(4)
    >>> found = paired_differences([(np.array([20.0, 24, 22, 26]), one), (np.array([21.0, 25, 22, 27]), one)])
    >>> float(found.difference[0, 1]), round(float(found.low[0, 1]), 3), round(float(found.high[0, 1]), 3)
    (0.75, 0.26, 1.24)
    """
    k = len(columns)
    n = len(columns[0][0]) if k else 0
    if any(len(num) != n or len(den) != n for num, den in columns):
        raise ValueError("paired_differences: every cell's columns must hold the same games")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.array([np.sum(num) / np.sum(den) for num, den in columns], dtype=float)
    difference = ratios[None, :] - ratios[:, None]
    nan = np.full((k, k), np.nan)
    if n < 2:
        return PairedDifferences(difference, nan, nan.copy(), level, n)
    if relative:
        influence = np.column_stack([log_linearised(num, den) if r > 0 else np.full(n, np.nan)
                                     for (num, den), r in zip(columns, ratios, strict=True)])  # fmt: skip
    else:
        influence = np.column_stack([linearised(num, den) for num, den in columns])
    c = np.atleast_2d(np.cov(influence, rowvar=False, ddof=1))
    variance = np.diag(c)[:, None] + np.diag(c)[None, :] - 2.0 * c
    se = np.sqrt(np.clip(variance, 0.0, None) / n)  # rounding can leave -1e-18 where two cells are alike
    z = float(stats.norm.ppf(0.5 + level / 2))
    with np.errstate(invalid="ignore", over="ignore"):
        if relative:
            x = np.log(ratios[None, :] / ratios[:, None])
            base = ratios[:, None]
            low, high = base * np.expm1(x - z * se), base * np.expm1(x + z * se)
        else:
            low, high = difference - z * se, difference + z * se
    unmeasured = ~np.isfinite(difference)
    low[unmeasured], high[unmeasured] = np.nan, np.nan
    np.fill_diagonal(low, np.nan)
    np.fill_diagonal(high, np.nan)
    return PairedDifferences(difference, low, high, level, n)
