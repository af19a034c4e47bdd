"""The Plackett-Luce model of finishing orders, fitted by maximum likelihood (`rummysim.analysis.ladder` uses it).

A finishing order is a series of choices (`stages`): each place goes to one of the seats not
yet placed, with probability proportional to its strategy's strength exp(β). `Choices` counts
the distinct choices of the fitted games; `log_likelihood` is exact with its gradient and
Hessian, `fit_ratings` maximizes it on a set of strategies, `fit_test` tests one scale
against each condition's own, and `fit_resample` fits a bootstrap resample. Details:
docs/metrics.md, "The ladder".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import optimize
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.special import logsumexp

from rummysim.analysis.skill import NAN, Ranking


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


class Choices:
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


def log_likelihood(beta: np.ndarray, counts: np.ndarray, chosen: np.ndarray, sets: np.ndarray) -> tuple[Any, ...]:
    """Return the Plackett-Luce log-likelihood of the choices, its gradient and Hessian in the ratings."""
    with np.errstate(divide="ignore"):
        weights = np.log(sets) + beta
    norm = logsumexp(weights, axis=1)
    p = np.exp(weights - norm[:, None])
    value = counts @ (beta[chosen] - norm)
    gradient = np.bincount(chosen, weights=counts, minlength=len(beta)) - counts @ p
    hessian = (p.T * counts) @ p - np.diag(counts @ p)
    return value, gradient, hessian


def restrict(choices: Choices, counts: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return the choices of `members` alone: (counts, placed, seats left); an order restricted to some
    strategies is Plackett-Luce with the same strengths, so a choice is kept where a member was placed."""
    inside = np.isin(choices.chosen, members) & (counts > 0)
    sets = choices.sets[inside][:, members]
    keep = (sets > 0).sum(axis=1) > 1
    chosen = np.searchsorted(members, choices.chosen[inside][keep])
    return counts[inside][keep], chosen, sets[keep]


def fit_ratings(
    choices: Choices, counts: np.ndarray, members: np.ndarray, anchor: int, start: np.ndarray
) -> tuple[np.ndarray, float]:
    """Return the MLE of the ratings of sorted `members` (0 at `anchor`, NaN off them) and its log-likelihood."""
    beta = np.full(len(choices.labels), NAN)
    beta[anchor] = 0.0
    c, chosen, sets = restrict(choices, counts, members)
    if len(members) < 2 or not len(c):
        return beta, 0.0
    free = np.flatnonzero(members != anchor)
    last: dict[bytes, tuple[Any, ...]] = {}

    def at(x: np.ndarray) -> tuple[Any, ...]:  # the optimizer asks for the Hessian where it has the value
        if x.tobytes() not in last:
            full = np.zeros(len(members))
            full[free] = x
            last.clear()
            last[x.tobytes()] = log_likelihood(full, c, chosen, sets)
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


def fit_test(choices: Choices, core: np.ndarray, beta: np.ndarray) -> tuple[float, int]:
    """Return the likelihood-ratio statistic of one ladder against each condition's own ratings, and its df.

    Large when the ladder misses some pairing (one bot beats another more than their ratings say).
    NaN (0 df) when a condition's own ratings do not exist (someone won every game there).
    """
    statistic, df = 0.0, 1 - len(core)
    for matrix in choices.games.values():
        counts = matrix.sum(axis=0)
        members = core[(choices.sets[counts > 0][:, core] > 0).any(axis=0)]
        if len(members) < 2:
            continue
        if connected_components(choices.beaten(counts)[np.ix_(members, members)], connection="strong")[0] > 1:
            return NAN, 0
        own = fit_ratings(choices, counts, members, int(members[0]), beta)[1]
        statistic += 2 * (own - float(log_likelihood(beta[members], *restrict(choices, counts, members))[0]))
        df += len(members) - 1
    return (max(statistic, 0.0), df) if df > 0 else (NAN, 0)


def fit_resample(choices: Choices, counts: np.ndarray, core: np.ndarray, anchor: int, start: np.ndarray) -> np.ndarray:
    """Return one resample's ratings of the core; where its MLE does not exist, ±inf (or NaN) off the anchor's part."""
    graph = choices.beaten(counts)[np.ix_(core, core)]
    n_parts, part = connected_components(graph, directed=True, connection="strong")
    if n_parts == 1:
        return fit_ratings(choices, counts, core, anchor, start)[0]
    mine = part[list(core).index(anchor)]
    beta = fit_ratings(choices, counts, core[part == mine], anchor, start)[0]
    reach = np.isfinite(shortest_path(graph, unweighted=True))
    a = list(core).index(anchor)
    for i, m in enumerate(core):
        if part[i] != mine:  # above the anchor's part if reached from it, below if it reaches it
            beta[m] = np.inf if reach[a, i] else -np.inf if reach[i, a] else NAN
    return beta
