"""What a planned comparison rules out: equivalence against a margin, the smallest detectable change, pairing's gain.

For each planned difference (the first seat's game-level edge, the compared strategy's
Order), with its 95% interval [L, U] and its standard error s:

- **ruled out**: every change outside [L, U]. When [L, U] lies inside ±margin (the
  experiment file's ``margin:``, `rummysim.design.MARGINS`), the data rule out any change
  as large as the margin: the two one-sided tests of equivalence (Schuirmann's TOST),
  each at 2.5%.
- **detectable**: the smallest change the run finds with 80% power after Holm's
  correction over the experiment's m planned tests, (z(1 − α/2m) + z(0.8)) · s. Holm's
  first step tests at α/m, so a change this large is found with at least 80% power
  whatever the other tests show.
- **variance ratio** (paired comparisons): the variance of the paired difference over
  the variance the same games would give unpaired, var(d_b − d_a) / (var(d_a) + var(d_b)),
  per game after linearising a ratio of sums (delta method). Below 1, pairing bought
  precision: an unpaired design would need 1/ratio times the games for the same width.

docs/metrics.md gives the formulas' sources and their measured coverage and power.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rummysim.analysis.estimates import Estimate

ALPHA = 0.05
POWER = 0.80
MEASURES: dict[str, tuple[str, float]] = {
    # planned metric: (its `margin:` key, the margin's unit as a fraction: pp -> 0.01)
    "first_seat_advantage_game": ("first_seat_edge", 0.01),
    "order": ("order", 1.0),
    "strength": ("strength", 1.0),  # a change in log strength (`rummysim.analysis.skill`)
}


@dataclass(frozen=True)
class Bounds:
    """What one planned difference rules out, and how small a change the run could see."""

    metric: str
    interval: Estimate
    """The difference other − reference with its 95% interval."""
    margin: float
    """The margin of equivalence, in the difference's own scale (a fraction for a share)."""
    se: float
    """The difference's standard error, from the games' own variance."""
    detectable: float
    """The smallest change found with 80% power after Holm's correction."""

    @property
    def equivalent(self) -> bool:
        """Return True if the 95% interval lies inside ±margin: the data rule out a change as large as the margin."""
        return bool(-self.margin < self.interval.low and self.interval.high < self.margin)

    @property
    def possible(self) -> float:
        """Return the largest change (either sign) the 95% interval leaves possible."""
        return float(max(abs(self.interval.low), abs(self.interval.high)))


def standard_error(a: np.ndarray, b: np.ndarray, *, paired: bool) -> float:
    """Return the standard error of mean(b) − mean(a): per-game differences if paired, else apart."""
    if min(len(a), len(b)) < 2:
        return float("nan")
    if paired:
        return float(np.std(b - a, ddof=1) / math.sqrt(len(a)))
    return float(math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b)))


def linearised(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Return each game's influence on sum(num) / sum(den) (delta method): (num − R·den) / mean(den)."""
    total = np.sum(den)
    if total == 0:
        return np.zeros_like(num, dtype=float)
    return (num - np.sum(num) / total * den) / np.mean(den)


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


def detectable(se: float, *, tests: int, power: float = POWER, alpha: float = ALPHA) -> float:
    """Return the smallest change a two-sided test at α/m finds with the given power: (z(1 − α/2m) + z(power))·se.

    >>> round(detectable(1.0, tests=1), 3)
    2.802
    """
    if not math.isfinite(se) or tests < 1:
        return float("nan")
    level = alpha / tests
    return float((stats.norm.ppf(1 - level / 2) + stats.norm.ppf(power)) * se)


def bounds(*, metric: str, interval: Estimate, se: float, margins: Mapping[str, float], tests: int) -> Bounds:
    """Return what a planned difference rules out, with the margin from the experiment (`MEASURES`)."""
    key, unit = MEASURES[metric]
    return Bounds(metric, interval, margins[key] * unit, se, detectable(se, tests=tests))
