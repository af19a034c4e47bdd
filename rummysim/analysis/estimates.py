"""Estimates with 95% intervals: Wilson for proportions; over whole games, the bootstrap or the delta method.

Wilson intervals come from statsmodels. The bootstrap is a percentile bootstrap over
whole games, as scipy's ``stats.bootstrap`` computes it, written here for scale: scipy
holds every resampled value of every column (200 resamples x games x columns at once,
gigabytes at a million games) and draws anew for each statistic. Here one set of
resamples serves every metric of a set of games, and a resample is held as its games'
counts, so the sums behind every ratio are one matrix product per batch of resamples
(`resampled_sums`). Games are the unit of resampling because the hands of one game share
scores and dealers; the hands of a game are never resampled apart.

From `DELTA_GAMES` games on, a ratio's interval and a difference of ratios' come from the
delta method instead: each game's influence on the ratio (`linearised`), whose spread over
games gives the standard error, and the normal interval around the value. It needs one pass
over the games rather than 2,000, so hundreds of conditions of a million games each are
analysed in seconds; at these sizes both methods cover 95% (docs/metrics.md has the measured
coverage of each, and the widths they give on the shipped experiments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

LEVEL = 0.95
RESAMPLES = 2000
DELTA_GAMES = 5000
"""From this many games (the fewer side's, for a difference), intervals over games come from the delta method."""
Z = float(stats.norm.ppf(0.5 + LEVEL / 2))
"""The normal quantile of a two-sided 95% interval, 1.96."""
CELLS = 1 << 22
"""About how many resample x game counts are held at once (32 MiB of float64)."""


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


def resampled_sums(columns: np.ndarray, *, rng: np.random.Generator, resamples: int = RESAMPLES) -> np.ndarray:
    """Return the column sums of `resamples` bootstrap resamples of the rows (games): shape (resamples, k).

    Resample r draws ``rng.integers(0, n, n)`` (32-bit), n games with replacement, one call per
    resample, so the draws depend on the seed alone (not on the batching below). A
    resample's sum of a column is its games' counts times the column: the counts of a batch
    of resamples (``np.bincount``) times the whole (n, k) matrix at once, in batches of
    about `CELLS` counts, so memory stays bounded whatever the number of games.
    """
    n, k = columns.shape
    sums = np.empty((resamples, k))
    batch = max(1, min(resamples, CELLS // max(n, 1)))
    counts = np.empty((batch, n))
    for start in range(0, resamples, batch):
        rows = min(batch, resamples - start)
        for r in range(rows):
            counts[r] = np.bincount(rng.integers(0, n, n, dtype=np.int32 if n < 2**31 else np.int64), minlength=n)
        sums[start : start + rows] = counts[:rows] @ columns
    return sums


def percentile_interval(values: np.ndarray) -> tuple[float, float]:
    """Return the percentile 95% interval of bootstrap values (linear interpolation, as scipy's ``quantile``)."""
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


class Resampled:
    """Per-game columns of one set of games, with their sums over the same bootstrap resamples.

    Every statistic of the set is computed from the same resamples of whole games: one
    draw of indices serves all of a condition's (or a comparison's) metrics. Columns with
    the same values are resampled once, so equal columns give exactly equal sums.
    """

    def __init__(self, columns: Sequence[np.ndarray], *, seed: int, resamples: int = RESAMPLES) -> None:
        self.n = len(columns[0]) if columns else 0
        unique: dict[bytes, int] = {}
        self._slot: list[int] = []
        matrix: list[np.ndarray] = []
        for column in columns:
            column = np.asarray(column, dtype=float)
            slot = unique.setdefault(column.tobytes(), len(matrix))
            if slot == len(matrix):
                matrix.append(column)
            self._slot.append(slot)
        self.totals = [float(np.sum(c)) for c in matrix]
        self.sums = (
            resampled_sums(np.column_stack(matrix), rng=np.random.default_rng(seed), resamples=resamples)
            if self.n >= 2 and matrix
            else None
        )

    def total(self, i: int) -> float:
        """Return the sum of column `i` over the games themselves."""
        return self.totals[self._slot[i]]

    def resampled(self, i: int) -> np.ndarray:
        """Return the sums of column `i` over every resample."""
        assert self.sums is not None
        return self.sums[:, self._slot[i]]


def linearised(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Return each game's influence on sum(num) / sum(den) (delta method): (num − R·den) / mean(den).

    >>> linearised(np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.0, 2.0])).tolist()
    [0.1875, -0.5625, 0.375]
    """
    total = np.sum(den)
    if total == 0:
        return np.zeros_like(num, dtype=float)
    return (num - np.sum(num) / total * den) / np.mean(den)


def normal_estimate(value: float, se: float, n: int) -> Estimate:
    """Return `value` ± `Z`·`se` (no interval below 2 games or when either is not finite)."""
    if n < 2 or not (np.isfinite(value) and np.isfinite(se)):
        return Estimate(value, float("nan"), float("nan"), n)
    return Estimate(value, value - Z * se, value + Z * se, n)


def influence_se(*influences: np.ndarray) -> float:
    """Return the standard error of a sum of independent means, from each one's games' influence values.

    One array: sd(z) / √n. Several (conditions whose games are apart): √(Σ var(z_i) / n_i).
    """
    if any(len(z) < 2 for z in influences):
        return float("nan")
    return float(np.sqrt(sum(np.var(z, ddof=1) / len(z) for z in influences)))


def _ratio_of(num: float | np.ndarray, den: float | np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num, dtype=float) / den


def _estimate(value: float, draws: np.ndarray | None, n: int) -> Estimate:
    """Return `value` with the percentile interval of its bootstrap `draws` (none below 2 games or if not finite)."""
    if draws is None or n < 2 or not np.isfinite(value):
        return Estimate(value, float("nan"), float("nan"), n)
    return Estimate(value, *percentile_interval(draws), n)


def ratio_estimates(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]], *, seed: int, resamples: int = RESAMPLES
) -> dict[str, Estimate]:
    """Return sum(num)/sum(den) of each named (num, den) pair of per-game columns, intervals from shared resamples.

    Every pair holds one value per game of the same games; the games are resampled whole,
    or from `DELTA_GAMES` games on, each ratio's interval is the delta method's.
    """
    n_games = len(next(iter(pairs.values()))[0]) if pairs else 0
    if n_games >= DELTA_GAMES:
        return {name: _delta_ratio(num, den) for name, (num, den) in pairs.items()}
    columns = [c for pair in pairs.values() for c in pair]
    data = Resampled(columns, seed=seed, resamples=resamples)
    out = {}
    for i, name in enumerate(pairs):
        num, den = 2 * i, 2 * i + 1
        value = float(_ratio_of(data.total(num), data.total(den)))
        draws = None if data.sums is None else _ratio_of(data.resampled(num), data.resampled(den))
        out[name] = _estimate(value, draws, data.n)
    return out


def _delta_ratio(num: np.ndarray, den: np.ndarray) -> Estimate:
    """Return sum(num)/sum(den) with the delta method's interval over games."""
    value = float(_ratio_of(np.sum(num), np.sum(den)))
    return normal_estimate(value, influence_se(linearised(num, den)), len(num))


def ratio_estimate(num: np.ndarray, den: np.ndarray, *, seed: int, resamples: int = RESAMPLES) -> Estimate:
    """Return sum(num)/sum(den) with a bootstrap interval over games."""
    return ratio_estimates({"ratio": (num, den)}, seed=seed, resamples=resamples)["ratio"]


Pair = tuple[np.ndarray, np.ndarray]


def difference_estimates(
    pairs: Mapping[str, tuple[Pair, Pair]], *, paired: bool, seed: int, resamples: int = RESAMPLES
) -> dict[str, Estimate]:
    """Return ratio(b) - ratio(a) of each named pair of conditions' (num, den) columns, with intervals.

    Paired: a's and b's columns hold the same games in the same order, and one resample of
    the games serves both. Unpaired: each condition's games are resampled apart. Columns of
    different lengths are different sets of games (all games, or only the decided ones):
    each set gets resamples of its own, its seed derived from `seed` and its size. From
    `DELTA_GAMES` games on each side, the delta method gives the interval instead: the
    per-game differences of the games' influence values when paired, each side's apart if not.
    """
    groups: dict[tuple[int, int], list[str]] = {}
    for name, (a, b) in pairs.items():
        groups.setdefault((len(a[0]), len(b[0])), []).append(name)
    out: dict[str, Estimate] = {}
    for (n_a, n_b), names in groups.items():
        if min(n_a, n_b) >= DELTA_GAMES:
            out.update({name: delta_difference(*pairs[name], paired=paired) for name in names})
            continue
        a_cols = [c for name in names for c in pairs[name][0]]
        b_cols = [c for name in names for c in pairs[name][1]]
        if paired:
            data = Resampled(a_cols + b_cols, seed=seed_sequence(seed, n_a), resamples=resamples)
            side_a = side_b = data
            offset_b, n = len(a_cols), data.n
        else:
            side_a = Resampled(a_cols, seed=seed_sequence(seed, n_a, n_b, 0), resamples=resamples)
            side_b = Resampled(b_cols, seed=seed_sequence(seed, n_a, n_b, 1), resamples=resamples)
            offset_b, n = 0, min(n_a, n_b)
        for i, name in enumerate(names):
            num, den = 2 * i, 2 * i + 1
            value = float(
                _ratio_of(side_b.total(offset_b + num), side_b.total(offset_b + den))
                - _ratio_of(side_a.total(num), side_a.total(den))
            )
            draws = None
            if side_a.sums is not None and side_b.sums is not None:
                draws = _ratio_of(side_b.resampled(offset_b + num), side_b.resampled(offset_b + den)) - _ratio_of(
                    side_a.resampled(num), side_a.resampled(den)
                )
            out[name] = _estimate(value, draws, n)
    return {name: out[name] for name in pairs}


def delta_change(a: Pair, b: Pair, *, paired: bool) -> tuple[float, float]:
    """Return ratio(b) − ratio(a) and its delta-method standard error (paired: a's and b's games the same).

    Paired, the se is that of the games' differences of influence values; apart, each side's adds.
    """
    value = float(_ratio_of(np.sum(b[0]), np.sum(b[1])) - _ratio_of(np.sum(a[0]), np.sum(a[1])))
    za, zb = linearised(*a), linearised(*b)
    return value, influence_se(zb - za) if paired else influence_se(za, zb)


def delta_difference(a: Pair, b: Pair, *, paired: bool) -> Estimate:
    """Return ratio(b) − ratio(a) with the delta method's 95% interval (`delta_change`)."""
    value, se = delta_change(a, b, paired=paired)
    return normal_estimate(value, se, min(len(a[0]), len(b[0])))


def delta_log_ratio(a: Pair, b: Pair, *, paired: bool) -> Estimate:
    """Return log(ratio(b) / ratio(a)) with the delta method's 95% interval: a relative change, on its own scale.

    A game's influence on log R is its influence on R over R (`linearised` / R); paired, the
    se is that of the games' differences, apart each side's adds. No interval where either
    ratio is not positive (a log needs one).

    >>> a = (np.array([20.0, 24, 22, 26]), np.ones(4)); b = (np.array([15.0, 17, 16, 18]), np.ones(4))
    >>> e = delta_log_ratio(a, b, paired=True)
    >>> round(e.value, 4), e.low < e.value < e.high < 0
    (-0.3321, True)
    """
    ra, rb = (float(_ratio_of(np.sum(x[0]), np.sum(x[1]))) for x in (a, b))
    n = min(len(a[0]), len(b[0]))
    if not (ra > 0 and rb > 0):
        return Estimate(float("nan"), float("nan"), float("nan"), n)
    za, zb = log_linearised(*a), log_linearised(*b)
    se = influence_se(zb - za) if paired else influence_se(za, zb)
    return normal_estimate(float(np.log(rb / ra)), se, n)


def log_linearised(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Return each game's influence on log(sum(num) / sum(den)): its `linearised` value over the ratio (NaN if 0)."""
    ratio = float(_ratio_of(np.sum(num), np.sum(den)))
    return linearised(num, den) / ratio if ratio else np.full(len(num), np.nan)


def seed_sequence(*entropy: int) -> int:
    """Return one 32-bit seed from several integers (numpy's `SeedSequence`): a stable seed per set of games."""
    return int(np.random.SeedSequence(list(entropy)).generate_state(1)[0])


def independent_difference(a: Pair, b: Pair, *, seed: int, resamples: int = RESAMPLES) -> Estimate:
    """Return ratio(b) - ratio(a) for unpaired conditions, each one's games resampled apart."""
    return difference_estimates({"d": (a, b)}, paired=False, seed=seed, resamples=resamples)["d"]
