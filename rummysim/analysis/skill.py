"""Skill: which strategy's skill is measured, its strength on a scale free of table size, and its comparisons.

**Which strategy.** The experiment file names it (``skill: {strategy: [cautious, rummy_hunter]}``:
for each lineup, the first named strategy it seats); without the key, the lineup's strategy
highest on the ladder (`rummysim.design.LADDER`: uniform < greedy < rummy_hunter < cautious <
montecarlo), a strategy off the ladder (a plug-in bot, the one under test) above every built-in
one, ties broken by the higher win share per seat. Never by seat count alone.

**Strength.** Order (w/k − 1/n)/(1 − 1/n) falls with table size on its own: a bot of
constant strength wins a smaller share of a larger table. Luce's choice model (Bradley-Terry
for two players) gives each seat a strength and the winner with probability proportional to
it; with strategy S holding k of n seats at strength θ and the others at strength 1,

    w = kθ / (kθ + n − k),   so   θ = [w / (1 − w)] / [k / (n − k)],

the odds of S winning a decided game over the odds of its seat share: 1 when S wins its fair
share at any table size, and the same θ at every table size for a bot that keeps its
strength. Between conditions the change in log θ is compared; at the same table size with
the same seats it ranks exactly as Order, so Order stays the planned measure there, and
strength is the planned measure when table size or seats differ (issue 13, item 5).

**Claims.** "Rewards skill more" is said of a condition only when the measured strategy beats
its opponents in both conditions (its Order's interval above 0), wins more for its share in
that condition, the planned test holds after Holm's correction, and the change is at least
the smallest effect worth reporting (the measure's ``margin:``). Formulas, sources and the
measured coverage: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats import proportion

from rummysim.analysis.equivalence import spread
from rummysim.analysis.estimates import LEVEL, RESAMPLES, Estimate, Resampled, percentile_interval
from rummysim.analysis.metrics import ConditionSummary, StrategyShare, seed_for
from rummysim.design import LADDER

if TYPE_CHECKING:
    from rummysim.analysis.compare import Comparison

SCORE_TEST = "Miettinen-Nurminen score test"
"""The unpaired test of two proportions: statsmodels' ``method="score"`` with its variance correction
``nobs / (nobs - 1)`` (statsmodels' default for a difference is Agresti-Caffo, which is not this test)."""
MCNEMAR = "exact McNemar"
"""The paired test of yes/no outcomes: McNemar's, exact (binomial on the discordant games; statsmodels)."""


def measured(summary: ConditionSummary, named: Sequence[str]) -> str | None:
    """Return the strategy whose skill is measured in a condition's lineup (module doc), or None.

    None when the lineup seats a single strategy, or seats none of the strategies the file names.
    """
    if len(summary.strategies) < 2:
        return None
    labels = [s.strategy for s in summary.strategies]
    if named:
        return next((name for name in named if name in labels), None)

    def rank(s: StrategyShare) -> tuple[int, float]:
        base = s.strategy.split("(")[0]
        step = LADDER.index(base) if base in LADDER else len(LADDER)
        value = s.per_seat.value
        return step, value if math.isfinite(value) else -1.0

    return max(summary.strategies, key=rank).strategy


def seat_odds(seats: int, n: int) -> float:
    """Return the odds of a strategy's seat share, k / (n − k): its odds of winning at strength 1."""
    return seats / (n - seats)


def strength(share: Estimate, *, seats: int, n: int) -> Estimate:
    """Return Luce's strength θ = odds(w) / odds(k/n) of a strategy, with its interval from w's (Wilson).

    θ is increasing in w, so the ends of w's interval give θ's. θ of 1 is a fair share.

    >>> round(strength(Estimate(0.775, 0.75, 0.8, 1000), seats=1, n=2).value, 2)
    3.44
    """

    def theta(w: float) -> float:
        if not 0.0 <= w <= 1.0 or seats >= n:
            return float("nan")
        return float("inf") if w == 1.0 else w / (1.0 - w) / seat_odds(seats, n)

    return Estimate(theta(share.value), theta(share.low), theta(share.high), share.n)


def log_strength(wins: np.ndarray, *, seats: int, n: int, axis: int = -1) -> np.ndarray:
    """Return log θ = logit(mean wins) − log(k / (n − k)) along `axis` (±inf when S won all or none)."""
    w = np.mean(wins, axis=axis)
    with np.errstate(divide="ignore"):
        return np.log(w) - np.log1p(-w) - math.log(seat_odds(seats, n))


def linearised_strength(wins: np.ndarray) -> np.ndarray:
    """Return each game's influence on log θ (delta method): (x − w) / (w (1 − w))."""
    w = float(np.mean(wins)) if len(wins) else float("nan")
    if not 0.0 < w < 1.0:
        return np.full(len(wins), np.nan)
    return (wins - w) / (w * (1.0 - w))


def strength_difference(
    wins_a: np.ndarray, wins_b: np.ndarray, *, seats: tuple[int, int], n: tuple[int, int], paired: bool, seed: int
) -> Estimate:
    """Return log θ_b − log θ_a with a percentile bootstrap interval over games (paired or apart)."""
    (ka, kb), (na, nb) = seats, n

    def statistic(x_a: np.ndarray, x_b: np.ndarray, axis: int = -1) -> np.ndarray:
        return log_strength(x_b, seats=kb, n=nb, axis=axis) - log_strength(x_a, seats=ka, n=na, axis=axis)

    size = min(len(wins_a), len(wins_b))
    value = float(statistic(wins_a, wins_b)) if size else float("nan")
    if size < 2 or not math.isfinite(value):
        return Estimate(value, float("nan"), float("nan"), size)
    if paired:  # one resample of the games serves both conditions (`Resampled`)
        data = Resampled([wins_a, wins_b], seed=seed)
        assert data.sums is not None
        share_a, share_b = data.resampled(0)[:, None] / size, data.resampled(1)[:, None] / size
        draws = statistic(share_a, share_b)
        if not np.all(np.isfinite(draws)):  # a resample where S won all or none: no interval
            return Estimate(value, float("nan"), float("nan"), size)
        return Estimate(value, *percentile_interval(draws), size)
    result = stats.bootstrap(
        (wins_a, wins_b), statistic, paired=False, vectorized=True, n_resamples=RESAMPLES, confidence_level=LEVEL,
        method="percentile", random_state=np.random.default_rng(seed), batch=200,
    )  # fmt: skip
    low, high = result.confidence_interval
    if not (math.isfinite(low) and math.isfinite(high)):  # a resample where S won all or none: no interval
        return Estimate(value, float("nan"), float("nan"), size)
    return Estimate(value, float(low), float(high), size)


def skill_metric(a: ConditionSummary, b: ConditionSummary, strategy: str) -> str | None:
    """Return the planned skill measure: ``order`` at one table size and seat count, else ``strength``."""
    sa = next((s for s in a.strategies if s.strategy == strategy), None)
    sb = next((s for s in b.strategies if s.strategy == strategy), None)
    if sa is None or sb is None or len(b.strategies) < 2:
        return None
    return "order" if (a.n_players, sa.seats) == (b.n_players, sb.seats) else "strength"


def compare_skill(
    result: Comparison, *, summaries: tuple[ConditionSummary, ConditionSummary],
    decided: tuple[pd.DataFrame, pd.DataFrame], strategy: str | None, diff: Any, mcnemar: Any, seed: int,
) -> dict[str, tuple[str, float]]:  # fmt: skip
    """Compare the measured strategy's skill: Order at one table size, Luce strength across sizes.

    Sets the comparison's differences; returns its planned test, metric -> (method, p).
    """
    summary_a, summary_b = summaries
    metric = skill_metric(summary_a, summary_b, strategy) if strategy else None
    if metric is None or strategy is None:
        return {}
    result.focal, result.skill_metric = strategy, metric
    seats_a = next(s.seats for s in summary_a.strategies if s.strategy == strategy)
    seats_b = next(s.seats for s in summary_b.strategies if s.strategy == strategy)
    na, nb = summary_a.n_players, summary_b.n_players
    wins_a = (decided[0]["winner_strategy"] == strategy).to_numpy(dtype=float)
    wins_b = (decided[1]["winner_strategy"] == strategy).to_numpy(dtype=float)
    if metric == "order":
        order_a = (wins_a / seats_a - 1.0 / na) / (1.0 - 1.0 / na)
        order_b = (wins_b / seats_b - 1.0 / nb) / (1.0 - 1.0 / nb)
        diff("order", (order_a, np.ones(len(order_a))), (order_b, np.ones(len(order_b))))
        if result.paired and len(wins_a):
            return {"order": (MCNEMAR, mcnemar(wins_a.astype(bool), wins_b.astype(bool)))}
        if not result.paired and len(wins_a) and len(wins_b):
            test = proportion.test_proportions_2indep(
                int(wins_b.sum()), len(wins_b), int(wins_a.sum()), len(wins_a), compare="diff", method="score",
                correction=True,
            )  # fmt: skip
            return {"order": (SCORE_TEST, float(test.pvalue))}
        return {}
    result.differences["strength"] = strength_difference(
        wins_a, wins_b, seats=(seats_a, seats_b), n=(na, nb), paired=result.paired,
        seed=seed_for(summary_a.name, summary_b.name, "strength", base=seed),
    )  # fmt: skip
    za, zb = linearised_strength(wins_a), linearised_strength(wins_b)
    result.spreads["strength"] = spread(za, zb, paired=result.paired)
    if len(wins_a) and len(wins_b) and 0 < wins_a.mean() < 1 and 0 < wins_b.mean() < 1:
        # H0: equal strength, that is odds(w_b) / odds(w_a) = odds of the seat shares b over a.
        test = proportion.test_proportions_2indep(
            int(wins_b.sum()), len(wins_b), int(wins_a.sum()), len(wins_a), compare="odds-ratio", method="score",
            value=seat_odds(seats_b, nb) / seat_odds(seats_a, na),
        )  # fmt: skip
        return {"strength": (f"{SCORE_TEST} of the odds ratio", float(test.pvalue))}
    return {}


def worth_reporting(comp: Comparison, margins: Mapping[str, float]) -> bool:
    """Return True if the planned skill change holds after Holm and is at least the smallest effect worth reporting."""
    metric = comp.skill_metric
    if metric is None or not comp.verdict(metric).is_claim:
        return False
    return abs(comp.differences[metric].value) >= margins[metric]
