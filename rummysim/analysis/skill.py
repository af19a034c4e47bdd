"""Skill: which strategy's skill is measured, its strength on a scale free of table size, and its comparisons.

**Which strategy.** The experiment file names it (``skill: {strategy: [cautious, rummy_hunter]}``:
for each lineup, the first named strategy it seats); without the key, the lineup's strategy
highest on the ladder (`rummysim.design.LADDER`: uniform < greedy < rummy_hunter < cautious <
montecarlo < expert), a strategy off the ladder (a plug-in bot, the one under test) above every built-in
one, ties broken by the higher win share per seat. Never by seat count alone.

**Strength.** Order (w − k/n)/(1 − k/n) falls with table size on its own: a bot of
constant strength wins a smaller share of a larger table. Luce's choice model (Bradley-Terry
for two players) gives each seat a strength and the winner with probability proportional to
it; with strategy S holding k of n seats at strength θ and the others at strength 1,

    w = kθ / (kθ + n − k),   so   θ = [w / (1 − w)] / [k / (n − k)],

the odds of S winning a decided game over the odds of its seat share: 1 when S wins its fair
share at any table size, and the same θ at every table size for a bot that keeps its
strength. Between conditions the change in log θ is compared; at the same table size with
the same seats it ranks exactly as Order, so Order stays the planned measure there, and
strength is the planned measure when table size or seats differ (issue 13, item 5).

At a win share of 0 or 1 the odds are 0 or infinite and θ is not estimable: `strength`
gives a NaN value with the one finite end of w's interval as a bound (at least θ(low) when
S won every game, at most θ(high) when it won none), never inf. In a lineup of three or
more strategies θ against "the other seats" would pool different bots; `strengths_against`
gives S's strength against each opponent T instead, θ_S / θ_T, from the games either won
(Luce's choice axiom: which of the two wins does not depend on the other seats). `pairings`
gives, from whole finishing orders, how often S's best seat finished ahead of T's: the pairwise
table beneath the ladder (`rummysim.analysis.ladder`).

**Claims.** "Rewards skill more" is said of a condition only when the measured strategy beats
its opponents in both conditions (its Order's interval above 0), wins more for its share in
that condition, the planned test holds after Holm's correction, and the change is at least
the smallest effect worth reporting (the measure's ``margin:``). Formulas, sources and the
measured coverage: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit
from statsmodels.stats import proportion

from rummysim.analysis.comparison import Comparison
from rummysim.analysis.equivalence import spread
from rummysim.analysis.estimates import (
    DELTA_GAMES,
    LEVEL,
    RESAMPLES,
    Estimate,
    Resampled,
    influence_se,
    normal_estimate,
    percentile_interval,
    wilson,
)
from rummysim.analysis.metrics import ConditionSummary, StrategyShare, seed_for
from rummysim.design import LADDER

Ranking = tuple[tuple[str, ...], ...]
"""One game's finishing order: its places from first, each the strategies of the seats in it (several: tied)."""
NAN = float("nan")
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

    θ is increasing in w, so the ends of w's interval give θ's. θ of 1 is a fair share. At a
    share of 1 θ is not estimable: the value is NaN and only the lower end, θ of w's lower end,
    is given (S is at least that strong); at a share of 0 only the upper end. Never inf.

    >>> round(strength(Estimate(0.775, 0.75, 0.8, 1000), seats=1, n=2).value, 2)
    3.44
    >>> e = strength(wilson(200, 200), seats=1, n=2)
    >>> math.isnan(e.value), round(e.low, 1), math.isnan(e.high)
    (True, 52.1, True)
    """

    def theta(w: float) -> float:
        if not 0.0 < w < 1.0 or seats >= n:
            return float("nan")
        return w / (1.0 - w) / seat_odds(seats, n)

    value, low, high = theta(share.value), theta(share.low), theta(share.high)
    if share.value == 0.0 and share.high < 1.0:  # won no game: an upper bound only
        return Estimate(float("nan"), float("nan"), high, share.n)
    if share.value == 1.0 and share.low > 0.0:  # won every game: a lower bound only
        return Estimate(float("nan"), low, float("nan"), share.n)
    if math.isfinite(value) and share.low <= 0.0:  # θ of a share's end at 0 is 0 (at 1 it stays NaN: unbounded)
        low = 0.0
    return Estimate(value, low, high, share.n)


def strengths_against(summary: ConditionSummary, strategy: str) -> dict[str, Estimate]:
    """Return the strength θ_S / θ_T of `strategy` S against each other strategy T of a lineup, from the winners.

    Under Luce's choice model a game won by S or T is won by S with probability
    p = k_S θ_S / (k_S θ_S + k_T θ_T), whatever the other seats (the choice axiom), so
    θ_S / θ_T = odds(p) / (k_S / k_T), with p's Wilson interval over the games S or T won
    (`strength` with T's seats as the others: its bounds at 0 and 1 too). With two strategies
    it is `strength` itself; with more it is against each opponent, never pooled.
    """
    mine = next(s for s in summary.strategies if s.strategy == strategy)

    def wins(s: StrategyShare) -> int:
        return 0 if not s.share.n else round(s.share.value * s.share.n)

    return {
        other.strategy: strength(wilson(wins(mine), wins(mine) + wins(other)), seats=mine.seats,
                                 n=mine.seats + other.seats)
        for other in summary.strategies
        if other.strategy != strategy
    }  # fmt: skip


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
    """Return log θ_b − log θ_a with a percentile bootstrap interval over games (paired or apart).

    From `DELTA_GAMES` games on, the interval is the delta method's, as for ratios (`estimates`).
    """
    (ka, kb), (na, nb) = seats, n

    def statistic(x_a: np.ndarray, x_b: np.ndarray, axis: int = -1) -> np.ndarray:
        return log_strength(x_b, seats=kb, n=nb, axis=axis) - log_strength(x_a, seats=ka, n=na, axis=axis)

    size = min(len(wins_a), len(wins_b))
    value = float(statistic(wins_a, wins_b)) if size else float("nan")
    if size < 2 or not math.isfinite(value):
        return Estimate(value, float("nan"), float("nan"), size)
    if size >= DELTA_GAMES:  # the delta method (`estimates.delta_change`), each game's influence on log θ
        za, zb = linearised_strength(wins_a), linearised_strength(wins_b)
        return normal_estimate(value, influence_se(zb - za) if paired else influence_se(za, zb), size)
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
    if metric == "order":  # per game, (won - k/n) / (1 - k/n): its mean is Order (`metrics.skill_order`)
        order_a = (wins_a - seats_a / na) / (1.0 - seats_a / na)
        order_b = (wins_b - seats_b / nb) / (1.0 - seats_b / nb)
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
    """Return True if the planned skill change holds and may reach the smallest effect worth reporting.

    Decided on the interval that decides the verdict (the simultaneous one, `Comparison.bounds`), never on the
    point alone: a change is "smaller than worth reporting" only when that whole interval lies inside ±margin
    (the verdict's "Yes, but small"); +0.040 [+0.017, +0.063] against a margin of 0.050 may be as large as
    0.063, so it is worth reporting.
    """
    metric = comp.skill_metric
    if metric is None or not comp.verdict(metric).is_claim:
        return False
    b = comp.bounds.get(metric)
    d, margin = (b.interval, b.margin) if b is not None else (comp.differences[metric], margins[metric])
    return not (-margin < d.low and d.high < margin)


@dataclass(frozen=True)
class Pairing:
    """How often one strategy's best seat finished ahead of another's in one condition, and the ladder's forecast."""

    condition: str
    strategy: str
    opponent: str
    share: Estimate
    """Games in which its best-placed seat finished ahead of the opponent's (Wilson), over those where it is known."""
    predicted: float
    """A ladder's probability of it: k_S θ_S / (k_S θ_S + k_T θ_T), NaN unless both are rated."""
    fitted: bool
    """Whether the condition is part of the fit."""
    seats: int = 2
    """Seats at the condition's table (its table size): at 2 it is a head-to-head share."""


def record(games: Sequence[Ranking], s: str, t: str) -> tuple[int, int]:
    """Return (games where the order of S's and T's best seats is known, games where S's was ahead)."""
    known = ahead = 0
    for game in games:
        place: dict[str, int] = {}
        for i, labels in enumerate(game):
            for label in labels:
                place.setdefault(label, i)
        if s in place and t in place and place[s] != place[t]:
            known += 1
            ahead += place[s] < place[t]
    return known, ahead


def pairings(rankings: Mapping[str, Sequence[Ranking]], ratings: Mapping[str, float], *, fitted: bool) -> list[Pairing]:
    """Return each condition's pairs of strategies with how often the first's best seat finished ahead (Wilson).

    `ratings`: log-strengths on a ladder (`analysis.ladder`), strongest first, NaN where only bounded:
    each pair is given the higher first, with the ladder's forecast k_S θ_S / (k_S θ_S + k_T θ_T).
    """
    on = list(ratings)
    out = []
    for name, games in rankings.items():
        if not games:
            continue
        lineup = Counter(label for place in games[0] for label in place)
        order = sorted(lineup, key=lambda s: (on.index(s) if s in on else len(on), s))
        for i, s in enumerate(order):
            for t in order[i + 1 :]:
                n_known, ahead = record(games, s, t)
                gap = ratings.get(s, NAN) - ratings.get(t, NAN) + math.log(lineup[s] / lineup[t])
                share, forecast = wilson(ahead, n_known), float(expit(gap))
                out.append(Pairing(name, s, t, share, forecast, fitted, seats=sum(lineup.values())))
    return out
