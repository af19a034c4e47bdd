"""Estimates with 95% intervals: Wilson for proportions, bootstrap over whole games.

Every interval here comes from statsmodels or scipy; this module only shapes their
answers into `Estimate` values. Games are the unit of resampling because the hands of
one game share scores and dealers; the hands of a game are never resampled apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

LEVEL = 0.95
RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval [low, high] and the sample size behind it."""

    value: float
    low: float
    high: float
    n: int

    @property
    def spans_zero(self) -> bool:
        """Return True if the interval contains zero: the sign is not resolved."""
        return bool(self.low <= 0.0 <= self.high)

    def shifted(self, by: float, *, scale: float = 1.0) -> Estimate:
        """Return ``(x + by) * scale`` of the value and both ends (an exact transform)."""
        return Estimate((self.value + by) * scale, (self.low + by) * scale, (self.high + by) * scale, self.n)

    def text(self, *, percent: bool = False, digits: int = 1) -> str:
        """Return ``value [low, high]``, in percentage points if `percent`.

        >>> Estimate(0.5, 0.4, 0.6, 100).text(percent=True)
        '50.0% [40.0, 60.0]'
        """
        k = 100.0 if percent else 1.0
        unit = "%" if percent else ""
        if np.isnan(self.value):
            return "n/a"
        return f"{self.value * k:.{digits}f}{unit} [{self.low * k:.{digits}f}, {self.high * k:.{digits}f}]"


def wilson(count: int, n: int) -> Estimate:
    """Return the proportion count/n with its Wilson 95% interval (statsmodels).

    >>> e = wilson(50, 100)
    >>> round(e.low, 4), round(e.high, 4)
    (0.4038, 0.5962)
    """
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    low, high = proportion_confint(count, n, alpha=1 - LEVEL, method="wilson")
    return Estimate(count / n, float(low), float(high), n)


def bootstrap(
    statistic: Callable[..., np.ndarray],
    columns: tuple[np.ndarray, ...],
    *,
    seed: int,
    resamples: int = RESAMPLES,
) -> Estimate:
    """Return ``statistic(*columns)`` with a percentile bootstrap 95% interval (scipy).

    Each column holds one value per game; the games are resampled whole and together
    (paired), so a statistic of several columns keeps each game's values side by side.
    `statistic` takes the columns with resamples on the last axis and returns one value
    per resample.
    """
    value = float(statistic(*columns))
    n = len(columns[0])
    if n < 2 or not np.isfinite(value):
        return Estimate(value, float("nan"), float("nan"), n)
    result = stats.bootstrap(
        columns, statistic, paired=True, vectorized=True, n_resamples=resamples, confidence_level=LEVEL,
        method="percentile", random_state=np.random.default_rng(seed), batch=200,
    )  # fmt: skip
    low, high = result.confidence_interval
    return Estimate(value, float(low), float(high), n)


def ratio(num: np.ndarray, den: np.ndarray, axis: int = -1) -> np.ndarray:
    """Return sum(num) / sum(den) along `axis`: a mean over hands, with games resampled."""
    return np.sum(num, axis=axis) / np.sum(den, axis=axis)


def ratio_difference(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, axis: int = -1
) -> np.ndarray:
    """Return ratio(b) - ratio(a) along `axis`, for paired games.

    Positional, as scipy's bootstrap calls a statistic: one argument per resampled column.
    """
    return ratio(num_b, den_b, axis) - ratio(num_a, den_a, axis)


def ratio_estimate(num: np.ndarray, den: np.ndarray, *, seed: int) -> Estimate:
    """Return sum(num)/sum(den) with a bootstrap interval over games."""
    return bootstrap(ratio, (num.astype(float), den.astype(float)), seed=seed)


def independent_difference(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], *, seed: int
) -> Estimate:
    """Return ratio(b) - ratio(a) for unpaired conditions, each one's games resampled apart.

    scipy resamples the two conditions' game indices independently; the statistic looks
    each resampled game's (num, den) up by index, so a game's values stay together.
    """
    a_num, a_den = (np.asarray(x, dtype=float) for x in a)
    b_num, b_den = (np.asarray(x, dtype=float) for x in b)

    def statistic(ia: np.ndarray, ib: np.ndarray, axis: int = -1) -> np.ndarray:
        ia, ib = ia.astype(np.intp), ib.astype(np.intp)
        return ratio(b_num[ib], b_den[ib]) - ratio(a_num[ia], a_den[ia])

    columns = (np.arange(len(a_num), dtype=float), np.arange(len(b_num), dtype=float))
    value = float(statistic(*columns))
    if min(len(a_num), len(b_num)) < 2:
        return Estimate(value, float("nan"), float("nan"), min(len(a_num), len(b_num)))
    result = stats.bootstrap(
        columns, statistic, paired=False, vectorized=True, n_resamples=RESAMPLES, confidence_level=LEVEL,
        method="percentile", random_state=np.random.default_rng(seed), batch=200,
    )  # fmt: skip
    low, high = result.confidence_interval
    return Estimate(value, float(low), float(high), min(len(a_num), len(b_num)))
