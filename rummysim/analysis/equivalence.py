"""What a planned change rules out: simultaneous intervals, equivalence against a margin, the smallest detectable one.

Every verdict of a run is read from one set of simultaneous intervals: each of the run's m
planned changes (`rule_out` counts them, family by family) gets an interval at 1 − α/m
(Bonferroni), so with 95% confidence *all* of them cover their true changes at once, and every
verdict read from them (`rummysim.analysis.comparison.Answer`) is right together: a "Yes", a
"No" and a "Yes, but small" each get the same family-wise control. That interval is the one
printed beside the verdict. For each planned difference, with its 95% interval [L, U] and its
standard error s:

- **simultaneous interval**: [L, U] widened about the estimate by z(1 − α/2m) / z(1 − α/2)
  (`simultaneous`): exact for the delta method's normal intervals, and for a bootstrap's
  percentile interval the same widening of each side, keeping its asymmetry (the bootstrap's
  own tail at α/2m would rest on a handful of resamples).
- **relative measures** (a game's or a hand's length, the points a hand scores; `rummysim.margins.RELATIVE`):
  decided on log(other / reference) by the delta method against ±log(1 + share), so a game
  30% shorter is never "small" however short games are.
- **ruled out**: every change outside the simultaneous interval. When it lies inside ±margin
  (the experiment file's ``margin:``), the data rule out any change as large as the margin:
  the two one-sided tests of equivalence (Schuirmann's TOST), each at α/2m.
- **detectable**: the smallest change the run finds with 80% power at the simultaneous level,
  z(1 − α/2m) · s₀ + z(0.8) · s + c:
  s₀ is the standard error with no change (the test's own scale: for paired games
  √(mean(d²) / N), which for yes/no outcomes is McNemar's √((b + c) / N²)), s the one the
  games show, and c, for an exact test of paired yes/no outcomes (McNemar's), one game's
  change max|d| / N, its continuity correction (Connor 1987; Fleiss, Levin and Paik 2003,
  ch. 13).
- **variance ratio** (paired comparisons): the variance of the paired difference over
  the variance the same games would give unpaired, var(d_b − d_a) / (var(d_a) + var(d_b)),
  per game after linearising a ratio of sums (delta method). Below 1, pairing bought
  precision: an unpaired design would need 1/ratio times the games for the same width.

``precision:`` sizes the 95% half-width (`rummysim.precision`); the simultaneous interval is that
width times z(1 − α/2m) / 1.96. docs/metrics.md gives the formulas' sources and their measured
coverage, power and run-wise error rates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

from rummysim.analysis.estimates import LEVEL, Estimate, Z, delta_change, linearised
from rummysim.measures import MEASURES as ALL_MEASURES

ALPHA = 0.05
POWER = 0.80
MEASURES: dict[str, tuple[str, float]] = {m.metric: (m.name, 1.0 / m.scale) for m in ALL_MEASURES.values()}
"""Each plannable metric: (its ``margin:`` key, the margin's unit in the metric's scale: pp -> 0.01)."""
DELTA_TEST = "z-test over games (delta method)"
"""The test of a difference of two ratios of per-game sums: z = (R_b − R_a) / se, se from the linearised games."""


@dataclass(frozen=True)
class Bounds:
    """What one planned difference rules out, and how small a change the run could see."""

    metric: str
    interval: Estimate
    """The change with its simultaneous interval at `level`: the one that decides the verdict and is printed.
    On the difference other − reference, or for a `relative` measure on log(other / reference)."""
    margin: float
    """The margin of equivalence on the interval's scale (a fraction for a share, log(1 + share) if `relative`)."""
    spread: Spread
    """The change's standard errors and its exact test's step, on the interval's scale."""
    detectable: float
    """The smallest change found with 80% power at the simultaneous level, on the interval's scale."""
    level: float = LEVEL
    """The interval's confidence level, 1 − α/m over the run's m planned changes."""
    relative: bool = False
    """Decided on the log ratio of the two levels (`rummysim.margins.RELATIVE`), not on their difference."""

    @property
    def shown(self) -> bool:
        """Return True if the interval excludes zero: the change's sign is shown."""
        return bool(self.interval.low > 0 or self.interval.high < 0)

    @property
    def equivalent(self) -> bool:
        """Return True if the interval lies inside ±margin: the data rule out a change as large as the margin."""
        return bool(-self.margin < self.interval.low and self.interval.high < self.margin)

    @property
    def beyond(self) -> bool:
        """Return True if the whole interval lies at or beyond the margin on one side: a change at least that large."""
        return bool(self.interval.low >= self.margin or self.interval.high <= -self.margin)

    @property
    def possible(self) -> float:
        """Return the largest change (either sign) the interval leaves possible."""
        return float(max(abs(self.interval.low), abs(self.interval.high)))


def simultaneous(e: Estimate, *, tests: int, alpha: float = ALPHA) -> Estimate:
    """Return a 95% interval widened to the simultaneous level 1 − α/m over `tests` m changes (Bonferroni).

    Each side grows about the estimate by z(1 − α/2m) / z(1 − α/2), so a normal interval becomes
    exactly the normal interval at that level, and a percentile one keeps its asymmetry:

    >>> e = simultaneous(Estimate(1.0, 0.0, 2.0, 100), tests=7)
    >>> round(e.low, 3), round(e.high, 3)
    (-0.373, 2.373)
    >>> simultaneous(Estimate(1.0, 0.0, 2.0, 100), tests=1) == Estimate(1.0, 0.0, 2.0, 100)
    True
    """
    if tests <= 1:
        return e
    k = normal_quantile(1 - alpha / (2 * tests)) / Z
    return Estimate(e.value, e.value - k * (e.value - e.low), e.value + k * (e.high - e.value), e.n)


@lru_cache(maxsize=1024)
def normal_quantile(p: float) -> float:
    """Return the standard normal quantile z(p), remembered: a run asks the same few thousands of times."""
    return float(stats.norm.ppf(p))


def level_of(tests: int, alpha: float = ALPHA) -> float:
    """Return the simultaneous level 1 − α/m of m tests: ``0.99286`` for 7 (at least 0.95)."""
    return 1 - alpha / max(tests, 1)


@dataclass(frozen=True)
class Spread:
    """How much a difference of means varies: what the smallest detectable change is made of."""

    se: float
    """The standard error the games show: sd(d) / √N paired, √(var_a / N_a + var_b / N_b) apart."""
    null_se: float
    """The standard error were there no change, as the test sees it: √(mean(d²) / N) paired, else `se`."""
    step: float
    """One game's change to the mean difference, max|d| / N paired, 0 apart: an exact test's continuity."""


def spread(a: np.ndarray, b: np.ndarray, *, paired: bool) -> Spread:
    """Return the spread of mean(b) − mean(a): per-game differences d if paired, else each side apart.

    >>> spread(np.array([0.0, 0, 1, 1]), np.array([1.0, 0, 1, 1]), paired=True)
    Spread(se=0.25, null_se=0.25, step=0.25)
    """
    if min(len(a), len(b)) < 2:
        return Spread(float("nan"), float("nan"), float("nan"))
    if paired:
        d, n = b - a, len(a)
        se = float(np.std(d, ddof=1) / math.sqrt(n))
        return Spread(se, float(math.sqrt(np.mean(d**2) / n)), float(np.max(np.abs(d)) / n))
    se = float(math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b)))
    return Spread(se, se, 0.0)


def delta_test(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], *, paired: bool) -> float:
    """Return the two-sided p-value of ratio(b) − ratio(a) = 0 by a z-test on the games' linearised values.

    Each ratio is sum(num) / sum(den) over games (a mean per game when den is 1); its
    standard error comes from the games' influence values (`linearised`, the delta method):
    per-game differences when `paired`, each side apart otherwise. NaN when the games do not
    vary (nothing to test).

    >>> a = (np.array([1.0, 0, 1, 0, 1, 0, 1, 0]), np.ones(8)); b = (np.array([1.0, 1, 1, 0, 1, 1, 1, 0]), np.ones(8))
    >>> round(delta_test(a, b, paired=True), 3)
    0.127
    """
    (num_a, den_a), (num_b, den_b) = a, b
    if min(len(num_a), len(num_b)) < 2 or not (np.sum(den_a) > 0 and np.sum(den_b) > 0):
        return float("nan")
    change, se = delta_change(a, b, paired=paired)
    if not se > 0:
        return float("nan")
    return float(2 * stats.norm.sf(abs(change) / se))


def variance_ratio(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """Return var(z_b − z_a) / (var(z_a) + var(z_b)) of paired games' linearised values: pairing's gain.

    >>> x = np.array([0.0, 1.0, 1.0, 0.0]); ones = np.ones(4)
    >>> variance_ratio((x, ones), (x, ones)), variance_ratio((x, ones), (1 - x, ones))
    (0.0, 2.0)
    """
    za, zb = linearised(*a), linearised(*b)
    unpaired = np.var(za, ddof=1) + np.var(zb, ddof=1) if len(za) > 1 else 0.0
    if not unpaired > 0:
        return float("nan")
    return float(np.var(zb - za, ddof=1) / unpaired)


def detectable(spread: Spread, *, tests: int, exact: bool = False, power: float = POWER, alpha: float = ALPHA) -> float:
    """Return the smallest change a two-sided test at α/m finds with the given power.

    z(1 − α/2m) · s₀ + z(power) · s, plus one game's step when the test is exact (its
    continuity correction):

    >>> round(detectable(Spread(1.0, 1.0, 0.0), tests=1), 3), round(detectable(Spread(1.0, 1.0, 0.1), tests=1), 3)
    (2.802, 2.802)
    >>> round(detectable(Spread(1.0, 1.0, 0.1), tests=1, exact=True), 3)
    2.902
    """
    if not math.isfinite(spread.se) or tests < 1:
        return float("nan")
    level = alpha / tests
    step = spread.step if exact else 0.0
    return float(normal_quantile(1 - level / 2) * spread.null_se + normal_quantile(power) * spread.se + step)


def bounds(
    *, metric: str, interval: Estimate, spread: Spread, margins: Mapping[str, float], tests: int, exact: bool,
    share: float | None = None, alpha: float = ALPHA,
) -> Bounds:  # fmt: skip
    """Return what a planned change rules out at the simultaneous level of `tests` changes, with the file's margin.

    `alpha`: the family's error rate, shared by its `tests` (an atlas gives its changes a part of
    the report's 5%, `rummysim.analysis.atlas.ALPHAS`).

    `interval`: the change's 95% interval, on the difference or, with `share` (a relative margin,
    `rummysim.margins.RELATIVE`), on the log ratio, its margin then log(1 + share). `exact`: its
    test is exact on paired yes/no outcomes (McNemar's), so it needs one game's step more.
    """
    key, unit = MEASURES[metric]
    margin = math.log1p(share) if share is not None else margins[key] * unit
    found = detectable(spread, tests=tests, exact=exact, alpha=alpha)
    wide = simultaneous(interval, tests=tests, alpha=alpha)
    return Bounds(metric, wide, margin, spread, found, level_of(tests, alpha), relative=share is not None)
