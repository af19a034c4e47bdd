"""The ladder: every strategy's strength on one scale, fitted jointly across an experiment's mixed lineups.

**Model.** Strategy i has strength θ_i = exp(β_i); β_i is its *rating*. A game's finishing order
is drawn place by place, each place going to a seat not yet placed with probability proportional
to its strategy's strength (Plackett-Luce: R. L. Plackett, Appl. Statist. 24 (1975); R. D. Luce,
*Individual Choice Behavior*, 1959). With two players it is Bradley-Terry (R. A. Bradley and M. E.
Terry, Biometrika 39 (1952)): i beats j with probability logistic(β_i − β_j). A game's order is
by final score (the games table), else its winner alone (Luce's choice model); decided games only.

**Fit.** Maximum likelihood over every game of the fitted conditions at once (`fit`, the model's
likelihood and its maximum in `rummysim.analysis.plackett_luce`), by
``scipy.optimize.minimize`` (trust-exact, exact gradient and Hessian of the concave
log-likelihood). The MLE exists exactly when the graph of who finished ahead of whom is strongly
connected (D. R. Hunter, Ann. Statist. 32 (2004), Assumption 1); the ladder is fitted on its largest
strongly connected part (the *core*), and a strategy that only ever finished behind (ahead of) the
core gets a one-sided bound (`Status`). The reference (by default the core's weakest) has rating 0:
a rating is the log-odds of beating it in a two-player game. Intervals: 95% percentile bootstrap,
each condition's games resampled within it. Details and choices: docs/metrics.md, "The ladder".

**Forecasts against what was measured** (issue 42, part 4). Every pairing of every table is
forecast by the ladder, and measured. The fit test (`FitTest`) says whether one scale describes
them all; where it rejects, or cannot be run (no residual degrees of freedom: each condition's
own ratings are the ladder's, so a misfit within a table goes unseen), a forecast is kept only
inside its pairing's measured 95% interval (`Ladder.forecast_holds`); the others are dropped
(`Ladder.dropped`), and the report says so in words in place of the number.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.special import expit, logit
from statsmodels.stats.proportion import proportion_confint

from rummysim.analysis.estimates import LEVEL, RESAMPLES, Estimate, resampled_sums
from rummysim.analysis.frames import strategy_counts
from rummysim.analysis.metrics import seed_for
from rummysim.analysis.plackett_luce import Choices, fit_ratings, fit_resample, fit_test
from rummysim.analysis.plackett_luce import stages as stages  # defined there, importable from here as before
from rummysim.analysis.skill import Pairing, Ranking, pairings, record
from rummysim.compat import StrEnum
from rummysim.errors import ConfigError

if TYPE_CHECKING:
    from rummysim.analysis import Analysis
    from rummysim.design import Condition

NAN = float("nan")
UNBOUNDED = 1e200
"""A bootstrap interval's end beyond this is unbounded (a resample where the MLE runs off to infinity)."""


FIT_ALPHA = 0.05
"""The fit test's level: below it, one scale is rejected."""


class FitTest(StrEnum):
    """What the likelihood-ratio test says of one scale for every pairing (`Ladder.fit_p`)."""

    HOLDS = "holds"
    """Not rejected at `FIT_ALPHA`: the forecasts are the model's, whether or not each lies in its interval."""
    REJECTED = "rejected"
    """Rejected: some pairing goes otherwise than the ratings say."""
    UNTESTED = "untested"
    """No residual degrees of freedom (or a condition's own ratings do not exist): the test cannot be run."""


class Status(StrEnum):
    """How far a strategy's rating is known."""

    REFERENCE = "reference"
    FITTED = "fitted"
    AT_LEAST = "at least"
    """It only ever finished ahead of the core: a lower bound (the MLE is +infinity)."""
    AT_MOST = "at most"
    """It only ever finished behind the core: an upper bound (the MLE is −infinity)."""
    APART = "not estimable"
    """It never met the core directly: nothing is known of it on the ladder's scale."""


@dataclass(frozen=True)
class Rating:
    """A strategy's log-strength against the reference, with its 95% interval (one end only when bounded)."""

    strategy: str
    rating: Estimate
    games: int
    """Fitted games in which it held a seat."""
    status: Status


@dataclass(frozen=True)
class Ladder:
    """Every strategy's rating, strongest first, with the pairwise results it is fitted from."""

    ratings: tuple[Rating, ...]
    reference: str
    ranking: str
    """What a game's order is taken from: ``final scores`` or ``winner``."""
    conditions: tuple[str, ...]
    """The conditions fitted."""
    left_out: dict[str, str] = field(default_factory=dict)
    """Mixed conditions not fitted, and why (another rule set)."""
    pairings: tuple[Pairing, ...] = ()
    deviance: float = NAN
    """The likelihood-ratio statistic of the ladder against each condition's own ratings (`fit_p`)."""
    df: int = 0
    draws: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False, compare=False)
    """Bootstrap ratings (resamples x `ratings`; NaN for a strategy outside the core)."""

    @property
    def fit_p(self) -> float:
        """Return the p-value of the ladder's fit: small when one scale does not describe every pairing."""
        return float(stats.chi2.sf(self.deviance, self.df)) if self.df else NAN

    @property
    def fit_test(self) -> FitTest:
        """Return what the fit test says: one scale holds, is rejected, or could not be tested (0 df)."""
        if not self.df or not math.isfinite(self.deviance):
            return FitTest.UNTESTED
        return FitTest.REJECTED if self.fit_p < FIT_ALPHA else FitTest.HOLDS

    def forecast_holds(self, p: Pairing) -> bool:
        """Return True if a pairing's forecast may be shown as a number (issue 42, part 4).

        It may where the fit test holds and the pairing is fitted (the test covers it), or where the forecast
        lies inside the pairing's measured 95% interval. Not where there is no forecast (a bounded strategy).
        A pairing under other rules is never covered by the test: its interval decides.
        """
        if not math.isfinite(p.predicted):
            return False
        if p.fitted and self.fit_test is FitTest.HOLDS:
            return True
        return p.share.low <= p.predicted <= p.share.high

    @property
    def dropped(self) -> tuple[Pairing, ...]:
        """Return the pairings whose forecast is dropped: outside the measured interval, and not covered by a fit test
        that holds (`forecast_holds`)."""
        return tuple(p for p in self.pairings if math.isfinite(p.predicted) and not self.forecast_holds(p))

    def chance_holds(self, strategy: str) -> bool:
        """Return True if `strategy`'s forecast chance to beat the reference may be shown: no fitted pairing of
        the two has its forecast dropped (the head-to-head ones if they met head to head, else any table's)."""
        met = [p for p in self.pairings if p.fitted and {p.strategy, p.opponent} == {strategy, self.reference}]
        checked = [p for p in met if p.seats == 2] or met
        return not any(p in self.dropped for p in checked)

    def rating(self, strategy: str) -> Rating:
        """Return one strategy's rating."""
        return next(r for r in self.ratings if r.strategy == strategy)

    def win_probability(self, strategy: str, opponent: str | None = None) -> Estimate:
        """Return the chance that `strategy` beats `opponent` (the reference) head to head, with its interval."""
        a, b = self.rating(strategy), self.rating(opponent or self.reference)
        fitted = (Status.REFERENCE, Status.FITTED)
        if a.status in fitted and b.status in fitted and self.draws.size:
            i, j = self.ratings.index(a), self.ratings.index(b)
            low, high = _interval(self.draws[:, i] - self.draws[:, j])
            gap = a.rating.value - b.rating.value
        else:  # a bound: the farthest ends of the two intervals
            low, high = a.rating.low - b.rating.high, a.rating.high - b.rating.low
            gap = NAN
        return Estimate(float(expit(gap)), float(expit(low)), float(expit(high)), min(a.games, b.games))

    def table(self) -> pd.DataFrame:
        """Return one row per strategy, strongest first: rating, interval, games, chance to beat the reference."""
        rows = []
        for r in self.ratings:
            p = self.win_probability(r.strategy)
            rows.append({"strategy": r.strategy, "status": str(r.status), "rating": r.rating.value,
                         "low": r.rating.low, "high": r.rating.high, "games": r.games, "reference": self.reference,
                         "win_probability": p.value, "win_low": p.low, "win_high": p.high})  # fmt: skip
        return pd.DataFrame(rows)


def _interval(values: np.ndarray) -> tuple[float, float]:
    """Return the percentile 95% interval of bootstrap ratings; an end at ±infinity (or unknown) is NaN: unbounded."""
    alpha = (1 - LEVEL) / 2
    low = np.quantile(np.clip(np.where(np.isnan(values), -np.inf, values), -1e300, 1e300), alpha)
    high = np.quantile(np.clip(np.where(np.isnan(values), np.inf, values), -1e300, 1e300), 1 - alpha)
    return (NAN if abs(low) > UNBOUNDED else float(low)), (NAN if abs(high) > UNBOUNDED else float(high))


def fit(
    rankings: Mapping[str, Sequence[Ranking]], *, seed: int, reference: str | None = None,
    resamples: int = RESAMPLES, ranking: str = "final scores",
) -> Ladder:  # fmt: skip
    """Return the ladder of the strategies in these conditions' finishing orders (module doc), fitted jointly.

    `rankings`: condition -> its games' orders. `reference`: the strategy at rating 0 (the core's weakest
    if None). Each condition's games are resampled within it, `resamples` times, for the intervals.
    """
    choices = Choices(rankings)
    labels = choices.labels
    graph = choices.beaten(choices.counts)
    core, outside = _core(choices, graph, reference)
    anchor = labels.index(reference) if reference is not None else int(core[0])
    beta = fit_ratings(choices, choices.counts, core, anchor, np.zeros(len(labels)))[0]
    if reference is None:
        anchor = int(core[np.argmin(beta[core])])
        beta = beta - beta[anchor]
    draws = _bootstrap(choices, core, anchor, beta, seed=seed, resamples=resamples)
    fitted: dict[str, Estimate] = {}
    for m in core:
        low, high = (0.0, 0.0) if m == anchor else _interval(draws[:, m]) if resamples else (NAN, NAN)
        fitted[labels[m]] = Estimate(float(beta[m]), low, high, int(choices.played[m]))
    ratings = [Rating(s, e, e.n, Status.REFERENCE if s == labels[anchor] else Status.FITTED) for s, e in fitted.items()]
    ratings += _bounded(rankings, choices, graph, outside, anchor=anchor, fitted=fitted)
    ratings.sort(key=_rank)
    order = [labels.index(r.strategy) for r in ratings]
    statistic, df = fit_test(choices, core, beta)
    found = Ladder(
        tuple(ratings), labels[anchor], ranking, tuple(rankings), deviance=statistic, df=df, draws=draws[:, order]
    )
    return replace(found, pairings=tuple(pairings(rankings, _known(found), fitted=True)))


def _core(choices: Choices, graph: np.ndarray, reference: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Return the strategies of the core, the largest strongly connected part of who finished ahead of whom, and the
    others; raise `ConfigError` if the `reference` asked for is not in the core."""
    labels = choices.labels
    n_parts, part = connected_components(graph, directed=True, connection="strong")
    core_part = max(range(n_parts), key=lambda q: ((part == q).sum(), choices.played[part == q].sum(), -q))
    core = np.flatnonzero(part == core_part)
    if reference is not None and (reference not in labels or part[labels.index(reference)] != core_part):
        fits = ", ".join(labels[m] for m in core)
        raise ConfigError(f"ladder: reference {reference!r} is not on the fitted ladder; it may be one of {fits}")
    return core, np.flatnonzero(part != core_part)


def _bootstrap(
    choices: Choices, core: np.ndarray, anchor: int, beta: np.ndarray, *, seed: int, resamples: int
) -> np.ndarray:
    """Return the ratings of each resample (resamples x strategies; NaN outside the core), each condition's games
    resampled within it."""
    draws = np.full((resamples, len(choices.labels)), NAN)
    if resamples:
        total = np.zeros((resamples, len(choices.chosen)))
        for name, matrix in choices.games.items():
            if len(matrix):
                rng = np.random.default_rng(seed_for(name, "ladder", base=seed))
                total += resampled_sums(matrix, rng=rng, resamples=resamples)
        for r in range(resamples):
            draws[r] = fit_resample(choices, total[r], core, anchor, beta)
    return draws


def _bounded(
    rankings: Mapping[str, Sequence[Ranking]], choices: Choices, graph: np.ndarray, outside: np.ndarray, *,
    anchor: int, fitted: Mapping[str, Estimate],
) -> list[Rating]:  # fmt: skip
    """Return the ratings of the strategies outside the core: a one-sided bound for one only ever ahead of the core
    or only behind it (`_bound`), else not estimable."""
    reach = np.isfinite(shortest_path(graph, unweighted=True))
    ratings = []
    for m in outside:
        s, status = choices.labels[m], Status.APART
        rating = Estimate(NAN, NAN, NAN, int(choices.played[m]))
        if reach[anchor, m] != reach[m, anchor]:  # only ever ahead of the core (reached from it), or only behind
            above = bool(reach[anchor, m])
            bound = _bound(rankings, s, fitted, above=above)
            if math.isfinite(bound):
                status = Status.AT_LEAST if above else Status.AT_MOST
                rating = replace(rating, low=bound) if above else replace(rating, high=bound)
        ratings.append(Rating(s, rating, rating.n, status))
    return ratings


_TIER = {Status.AT_LEAST: 0, Status.REFERENCE: 1, Status.FITTED: 1, Status.AT_MOST: 2, Status.APART: 3}
"""Strongest first: bounded above the core, the core, bounded below it, not estimable."""


def _rank(r: Rating) -> tuple[int, float]:
    """Return a rating's place on the ladder: its tier (`_TIER`), then its rating, or its bound, highest first."""
    e = r.rating
    return _TIER[r.status], -(e.value if math.isfinite(e.value) else e.low if math.isfinite(e.low) else e.high)


def _bound(rankings: Mapping[str, Sequence[Ranking]], s: str, fitted: Mapping[str, Estimate], *, above: bool) -> float:
    """Return a one-sided 95% bound on a strategy's rating from its record against the core opponent it met most.

    Against opponent T in a condition where they hold k_S and k_T seats, S's best seat finished ahead in
    x of m games, and p = k_S θ_S / (k_S θ_S + k_T θ_T), so β_S = β_T + logit(p) − log(k_S / k_T). The
    bound takes the end of p's Clopper-Pearson interval (x is 0 or m here) and the far end of T's interval.
    """
    best: tuple[int, str, int, int, int] | None = None
    for games in rankings.values():
        lineup = Counter(label for place in games[0] for label in place) if games else Counter()
        for t in fitted:
            known, ahead = record(games, s, t)
            if known and (best is None or known > best[0]):
                best = (known, t, ahead, lineup[s], lineup[t])
    if best is None:
        return NAN
    known, t, ahead, k_s, k_t = best
    low, high = proportion_confint(ahead, known, alpha=1 - LEVEL, method="beta")
    end, p = (fitted[t].low, low) if above else (fitted[t].high, high)
    return float(end + logit(p) - math.log(k_s / k_t))


def _known(found: Ladder) -> dict[str, float]:
    """Return the fitted strategies' ratings, strongest first (the order `pairings` puts each pair in)."""
    return {r.strategy: r.rating.value if r.status in (Status.REFERENCE, Status.FITTED) else NAN for r in found.ratings}


def _rule_set(rules: Any) -> str:
    """Return a rule set's settings other than the table size, as a key."""
    return repr({k: v for k, v in rules.to_dict(resolved=False).items() if k != "n_players"})


def _rankings(analysis: Analysis, name: str, lineup: Mapping[str, int], games: pd.DataFrame | None) -> list[Ranking]:
    """Return a condition's decided games' finishing orders: by final score from `games` (seats tied on
    score share a place), else the winner only (the others share second place)."""
    decided = analysis.frames[name].query("decided")
    if games is None:
        return [((w,), tuple(sorted((Counter(lineup) - Counter([w])).elements()))) for w in decided["winner_strategy"]]
    rows = games[(games["condition"] == name) & games["game"].isin(decided.index)]
    rows = rows.sort_values(["game", "won", "score"], ascending=[True, False, False], kind="stable")
    seats = zip(rows["game"], zip(rows["won"], rows["score"], strict=True), rows["strategy"].astype(str), strict=True)
    return [
        tuple(tuple(seat[2] for seat in place) for _, place in groupby(game, key=itemgetter(1)))
        for _, game in groupby(seats, key=itemgetter(0))
    ]


def rated_conditions(analysis: Analysis, *, rules: Any = None) -> tuple[list[Condition], list[Condition]] | None:
    """Return (every mixed condition, those the ladder fits: one rule set's), or None if they say no more than a pair.

    `ladder` fits these; a caller may ask first, before it reads the games table.
    """
    conditions = analysis.experiment.conditions
    mixed = [c for c in conditions if c.name in analysis.frames and len(strategy_counts(c.players)) > 1]
    if not mixed:
        return None
    common = Counter(_rule_set(c.rules) for c in mixed).most_common(1)[0][0]
    base = _rule_set(rules) if rules is not None else common
    chosen = [c for c in mixed if _rule_set(c.rules) == base]
    labels = {label for c in chosen for label in strategy_counts(c.players)}
    if len(labels) < 2 or (len(chosen) == 1 and len(labels) == 2):
        return None
    return mixed, chosen


def ladder(
    analysis: Analysis, *, games: pd.DataFrame | None = None, rules: Any = None, reference: str | None = None,
    resamples: int = RESAMPLES,
) -> Ladder | None:  # fmt: skip
    """Return the ladder of an experiment's mixed lineups under one rule set; None if it says no more than a pair.

    `games`: the run's games table (`Results.games`), to order games by final score; without it, by the
    winner. `rules`: the rule set fitted (`Rules`, table size aside); by default the one most mixed
    conditions play, the base rules: a rule may change a bot's strength (the going-rummy bonus does
    rummy_hunter's), so rule sets are never pooled; the others are listed, with their pairings. None
    when the fitted conditions seat fewer than 2 strategies or are one condition of 2, or when none of
    their games has a finishing order (every one stalled, R10.2).
    """
    experiment = analysis.experiment
    rated = rated_conditions(analysis, rules=rules)
    if rated is None:
        return None
    mixed, chosen = rated
    settings = chosen[0].rules.to_dict(resolved=False)
    left_out = {c.name: "other rules: " + ", ".join(f"{k} {v} (fitted: {settings.get(k)})" for k, v in
                c.rules.to_dict(resolved=False).items() if k != "n_players" and v != settings.get(k))
                for c in mixed if c not in chosen}  # fmt: skip
    orders = {c.name: _rankings(analysis, c.name, strategy_counts(c.players), games) for c in mixed}
    if not any(orders[c.name] for c in chosen):  # every game stalled (R10.2): no finishing order to fit
        return None
    found = fit(
        {c.name: orders[c.name] for c in chosen}, seed=experiment.seed, reference=reference, resamples=resamples,
        ranking="winner" if games is None else "final scores",
    )  # fmt: skip
    extra = pairings({name: orders[name] for name in left_out}, _known(found), fitted=False)
    return replace(found, left_out=left_out, pairings=found.pairings + tuple(extra))
