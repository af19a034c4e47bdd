"""The ladder: every strategy's strength on one scale, fitted jointly across an experiment's mixed lineups.

**Model.** Strategy i has strength θ_i = exp(β_i); β_i is its *rating*. A game's finishing order
is drawn place by place, each place going to a seat not yet placed with probability proportional
to its strategy's strength (Plackett-Luce: R. L. Plackett, Appl. Statist. 24 (1975); R. D. Luce,
*Individual Choice Behavior*, 1959). With two players it is Bradley-Terry (R. A. Bradley and M. E.
Terry, Biometrika 39 (1952)): i beats j with probability logistic(β_i − β_j). A game's order is
by final score (the games table), else its winner alone (Luce's choice model); decided games only.

**Fit.** Maximum likelihood over every game of the fitted conditions at once (`fit`), by
``scipy.optimize.minimize`` (trust-exact, exact gradient and Hessian of the concave
log-likelihood). The MLE exists exactly when the graph of who finished ahead of whom is strongly
connected (D. R. Hunter, Ann. Statist. 32 (2004), Assumption 1); the ladder is fitted on its largest
strongly connected part (the *core*), and a strategy that only ever finished behind (ahead of) the
core gets a one-sided bound (`Status`). The reference (by default the core's weakest) has rating 0:
a rating is the log-odds of beating it in a two-player game. Intervals: 95% percentile bootstrap,
each condition's games resampled within it. Details and choices: docs/metrics.md, "The ladder".
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
from scipy import optimize, stats
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.special import expit, logit, logsumexp
from statsmodels.stats.proportion import proportion_confint

from rummysim.analysis.estimates import LEVEL, RESAMPLES, Estimate, resampled_sums
from rummysim.analysis.frames import strategy_counts
from rummysim.analysis.metrics import seed_for
from rummysim.analysis.skill import Pairing, Ranking, pairings, record
from rummysim.compat import StrEnum
from rummysim.errors import ConfigError

if TYPE_CHECKING:
    from rummysim.analysis import Analysis
    from rummysim.design import Condition

NAN = float("nan")
UNBOUNDED = 1e200
"""A bootstrap interval's end beyond this is unbounded (a resample where the MLE runs off to infinity)."""


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


def stages(ranking: Ranking) -> list[tuple[str, tuple[tuple[str, int], ...]]]:
    """Return the choices a finishing order is made of: (the strategy placed, the seats left by strategy).

    A choice among seats of one strategy tells nothing and is left out; so is all that follows seats of
    different strategies tied for a place.

    >>> stages((("a",), ("b",), ("c", "c")))
    [('a', (('a', 1), ('b', 1), ('c', 2))), ('b', (('b', 1), ('c', 2)))]
    """
    left = Counter(label for place in ranking for label in place)
    out = []
    for place in ranking:
        if len(set(place)) > 1:
            break
        for label in place:
            if len(+left) > 1:
                out.append((label, tuple(sorted((+left).items()))))
            left[label] -= 1
    return out


class _Design:
    """The fitted games as counts of distinct choices: which strategy was placed, among which seats."""

    def __init__(self, rankings: Mapping[str, Sequence[Ranking]]) -> None:
        seated = {name: [{x for place in game for x in place} for game in games] for name, games in rankings.items()}
        self.labels = sorted({x for games in seated.values() for game in games for x in game})
        index = {label: i for i, label in enumerate(self.labels)}
        keys: dict[tuple[str, tuple[tuple[str, int], ...]], int] = {}
        per_game: dict[str, list[Counter[int]]] = {}
        for name, games in rankings.items():
            per_game[name] = [Counter(keys.setdefault(stage, len(keys)) for stage in stages(game)) for game in games]
        self.chosen = np.array([index[label] for label, _ in keys], dtype=int)
        self.sets = np.zeros((len(keys), len(self.labels)))
        for k, (_, left) in enumerate(keys):
            for label, seats in left:
                self.sets[k, index[label]] = seats
        self.games: dict[str, np.ndarray] = {}
        for name, counts in per_game.items():
            matrix = np.zeros((len(counts), len(keys)))
            for g, found in enumerate(counts):
                matrix[g, list(found)] = list(found.values())
            self.games[name] = matrix
        self.counts = sum((m.sum(axis=0) for m in self.games.values()), np.zeros(len(keys)))
        played = Counter(x for games in seated.values() for game in games for x in game)
        self.played = np.array([played[label] for label in self.labels], dtype=int)

    def beaten(self, counts: np.ndarray) -> np.ndarray:
        """Return the graph of who finished ahead of whom: [j, i] is True if i was placed while j was left."""
        seen = ((self.sets > 0) & (counts > 0)[:, None]).astype(float)
        placed = np.zeros_like(seen)
        placed[np.arange(len(self.chosen)), self.chosen] = counts > 0
        graph = (seen.T @ placed) > 0
        np.fill_diagonal(graph, False)
        return graph


def _log_likelihood(beta: np.ndarray, counts: np.ndarray, chosen: np.ndarray, sets: np.ndarray) -> tuple[Any, ...]:
    """Return the Plackett-Luce log-likelihood of the choices, its gradient and Hessian in the ratings."""
    with np.errstate(divide="ignore"):
        weights = np.log(sets) + beta
    norm = logsumexp(weights, axis=1)
    p = np.exp(weights - norm[:, None])
    value = counts @ (beta[chosen] - norm)
    gradient = np.bincount(chosen, weights=counts, minlength=len(beta)) - counts @ p
    hessian = (p.T * counts) @ p - np.diag(counts @ p)
    return value, gradient, hessian


def _restrict(design: _Design, counts: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the choices of `members` alone: (counts, placed, seats left); an order restricted to some
    strategies is Plackett-Luce with the same strengths, so a choice is kept where a member was placed."""
    inside = np.isin(design.chosen, members) & (counts > 0)
    sets = design.sets[inside][:, members]
    keep = (sets > 0).sum(axis=1) > 1
    chosen = np.searchsorted(members, design.chosen[inside][keep])
    return counts[inside][keep], chosen, sets[keep]


def _fit(
    design: _Design, counts: np.ndarray, members: np.ndarray, anchor: int, start: np.ndarray
) -> tuple[np.ndarray, float]:
    """Return the MLE of the ratings of sorted `members` (0 at `anchor`, NaN off them) and its log-likelihood."""
    beta = np.full(len(design.labels), NAN)
    beta[anchor] = 0.0
    c, chosen, sets = _restrict(design, counts, members)
    if len(members) < 2 or not len(c):
        return beta, 0.0
    free = np.flatnonzero(members != anchor)
    last: dict[bytes, tuple[Any, ...]] = {}

    def at(x: np.ndarray) -> tuple[Any, ...]:  # the optimizer asks for the Hessian where it has the value
        if x.tobytes() not in last:
            full = np.zeros(len(members))
            full[free] = x
            last.clear()
            last[x.tobytes()] = _log_likelihood(full, c, chosen, sets)
        return last[x.tobytes()]

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient, _ = at(x)
        return -float(value), -gradient[free]

    def hessian(x: np.ndarray) -> np.ndarray:
        return -at(x)[2][np.ix_(free, free)]

    x0 = np.nan_to_num(start[members[free]] - start[anchor])
    found = optimize.minimize(negative, x0, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-9})
    beta[members[free]] = found.x
    return beta, -float(found.fun)


def _fit_test(design: _Design, core: np.ndarray, beta: np.ndarray) -> tuple[float, int]:
    """Return the likelihood-ratio statistic of one ladder against each condition's own ratings, and its df.

    Large when the ladder misses some pairing (one bot beats another more than their ratings say).
    NaN (0 df) when a condition's own ratings do not exist (someone won every game there).
    """
    statistic, df = 0.0, 1 - len(core)
    for matrix in design.games.values():
        counts = matrix.sum(axis=0)
        members = core[(design.sets[counts > 0][:, core] > 0).any(axis=0)]
        if len(members) < 2:
            continue
        if connected_components(design.beaten(counts)[np.ix_(members, members)], connection="strong")[0] > 1:
            return NAN, 0
        own = _fit(design, counts, members, int(members[0]), beta)[1]
        statistic += 2 * (own - float(_log_likelihood(beta[members], *_restrict(design, counts, members))[0]))
        df += len(members) - 1
    return (max(statistic, 0.0), df) if df > 0 else (NAN, 0)


def _fit_resample(design: _Design, counts: np.ndarray, core: np.ndarray, anchor: int, start: np.ndarray) -> np.ndarray:
    """Return one resample's ratings of the core; where its MLE does not exist, ±inf (or NaN) off the anchor's part."""
    graph = design.beaten(counts)[np.ix_(core, core)]
    n_parts, part = connected_components(graph, directed=True, connection="strong")
    if n_parts == 1:
        return _fit(design, counts, core, anchor, start)[0]
    mine = part[list(core).index(anchor)]
    beta = _fit(design, counts, core[part == mine], anchor, start)[0]
    reach = np.isfinite(shortest_path(graph, unweighted=True))
    a = list(core).index(anchor)
    for i, m in enumerate(core):
        if part[i] != mine:  # above the anchor's part if reached from it, below if it reaches it
            beta[m] = np.inf if reach[a, i] else -np.inf if reach[i, a] else NAN
    return beta


def fit(
    rankings: Mapping[str, Sequence[Ranking]], *, seed: int, reference: str | None = None,
    resamples: int = RESAMPLES, ranking: str = "final scores",
) -> Ladder:  # fmt: skip
    """Return the ladder of the strategies in these conditions' finishing orders (module doc), fitted jointly.

    `rankings`: condition -> its games' orders. `reference`: the strategy at rating 0 (the core's weakest
    if None). Each condition's games are resampled within it, `resamples` times, for the intervals.
    """
    design = _Design(rankings)
    labels = design.labels
    graph = design.beaten(design.counts)
    n_parts, part = connected_components(graph, directed=True, connection="strong")
    core_part = max(range(n_parts), key=lambda q: ((part == q).sum(), design.played[part == q].sum(), -q))
    core = np.flatnonzero(part == core_part)
    if reference is not None and (reference not in labels or part[labels.index(reference)] != core_part):
        fits = ", ".join(labels[m] for m in core)
        raise ConfigError(f"ladder: reference {reference!r} is not on the fitted ladder; it may be one of {fits}")
    anchor = labels.index(reference) if reference is not None else int(core[0])
    beta = _fit(design, design.counts, core, anchor, np.zeros(len(labels)))[0]
    if reference is None:
        anchor = int(core[np.argmin(beta[core])])
        beta = beta - beta[anchor]
    draws = np.full((resamples, len(labels)), NAN)
    if resamples:
        total = np.zeros((resamples, len(design.chosen)))
        for name, matrix in design.games.items():
            if len(matrix):
                rng = np.random.default_rng(seed_for(name, "ladder", base=seed))
                total += resampled_sums(matrix, rng=rng, resamples=resamples)
        for r in range(resamples):
            draws[r] = _fit_resample(design, total[r], core, anchor, beta)
    fitted: dict[str, Estimate] = {}
    for m in core:
        low, high = (0.0, 0.0) if m == anchor else _interval(draws[:, m]) if resamples else (NAN, NAN)
        fitted[labels[m]] = Estimate(float(beta[m]), low, high, int(design.played[m]))
    reach = np.isfinite(shortest_path(graph, unweighted=True))
    ratings = [Rating(s, e, e.n, Status.REFERENCE if s == labels[anchor] else Status.FITTED) for s, e in fitted.items()]
    for m in np.flatnonzero(part != core_part):
        s, status = labels[m], Status.APART
        rating = Estimate(NAN, NAN, NAN, int(design.played[m]))
        if reach[anchor, m] != reach[m, anchor]:  # only ever ahead of the core (reached from it), or only behind
            above = bool(reach[anchor, m])
            bound = _bound(rankings, s, fitted, above=above)
            if math.isfinite(bound):
                status = Status.AT_LEAST if above else Status.AT_MOST
                rating = replace(rating, low=bound) if above else replace(rating, high=bound)
        ratings.append(Rating(s, rating, rating.n, status))
    tier = {Status.AT_LEAST: 0, Status.REFERENCE: 1, Status.FITTED: 1, Status.AT_MOST: 2, Status.APART: 3}

    def rank(r: Rating) -> tuple[int, float]:
        e = r.rating
        return tier[r.status], -(e.value if math.isfinite(e.value) else e.low if math.isfinite(e.low) else e.high)

    ratings.sort(key=rank)
    order = [labels.index(r.strategy) for r in ratings]
    statistic, df = _fit_test(design, core, beta)
    found = Ladder(
        tuple(ratings), labels[anchor], ranking, tuple(rankings), deviance=statistic, df=df, draws=draws[:, order]
    )
    return replace(found, pairings=tuple(pairings(rankings, _known(found), fitted=True)))


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
    when the fitted conditions seat fewer than 2 strategies or are one condition of 2.
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
    found = fit(
        {c.name: orders[c.name] for c in chosen}, seed=experiment.seed, reference=reference, resamples=resamples,
        ranking="winner" if games is None else "final scores",
    )  # fmt: skip
    extra = pairings({name: orders[name] for name in left_out}, _known(found), fitted=False)
    return replace(found, left_out=left_out, pairings=found.pairings + tuple(extra))
