"""Monte Carlo checks of the report's statistics, with the figures docs/metrics.md quotes.

Each function draws many replications with a known truth and returns how often a
statistic did what it claims (an interval covered the truth, a verdict held). The tests
in tests/test_validation.py assert these rates with a tolerance that fits the number of
replications (`consistent_with`); run this file to print the figures:

    PYTHONPATH=. python tests/validation.py
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from rummysim.analysis.metrics import balance_interval


def consistent_with(hits: int, reps: int, rate: float, *, alternative: str = "two-sided") -> bool:
    """Return True if `hits` of `reps` is consistent with a true `rate` (exact binomial test, p > 0.001).

    ``alternative="less"`` asks only that the observed rate be not clearly below `rate`
    (for a conservative interval); ``"greater"`` that it be not clearly above it (for an
    error rate that should be at most `rate`).
    """
    return bool(stats.binomtest(hits, reps, rate, alternative=alternative).pvalue > 0.001)


def balance_coverage(*, n: int, games: int, shares: list[float] | None = None, reps: int, seed: int) -> int:
    """Return how many of `reps` Balance intervals (game level) cover the true Balance.

    Each replication draws the winning start positions of `games` games from `shares`
    (fair seats if None) and builds `balance_interval` from the counts.
    """
    rng = np.random.default_rng(seed)
    p = np.full(n, 1.0 / n) if shares is None else np.asarray(shares)
    truth = 1.0 - (p.max() - p.min())
    hits = 0
    for counts in rng.multinomial(games, p, size=reps):
        e = balance_interval(counts)
        hits += e.low <= truth <= e.high
    return hits


def main() -> None:
    reps = 2000
    print(f"Balance (game level), {reps} replications each: coverage of the true Balance")
    for n in (2, 3, 4, 6):
        for games in (300, 20_000):
            fair = balance_coverage(n=n, games=games, reps=reps, seed=n * games)
            tilted = [1.0 / n + 0.02] + [1.0 / n] * (n - 2) + [1.0 / n - 0.02]
            biased = balance_coverage(n=n, games=games, shares=tilted, reps=reps, seed=n * games + 1)
            print(f"  n={n} games={games:>6}: fair {fair / reps:.3f}, first seat +2 pp {biased / reps:.3f}")


if __name__ == "__main__":
    main()
