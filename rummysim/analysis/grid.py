"""A grid experiment as a factorial design: main effects and two-factor interactions with bootstrap intervals.

A ``grid:`` crosses rule settings (factors), each with its levels, the first the reference
level. With m(c) a measure of cell c (a ratio of per-game sums, as every metric here):

- **main effect** of factor A at level a: the mean over the other factors' level
  combinations r of m(a, r) − m(a₀, r), a₀ the reference level;
- **interaction** of factors A and B at levels a, b: the mean over the other factors' r of
  m(a, b, r) − m(a₀, b, r) − m(a, b₀, r) + m(a₀, b₀, r): how much the change A makes
  depends on B (0 when the effects add up).

With ``conditions`` crossed with the grid, each condition (an *arm*, such as a lineup) is
analysed apart. Intervals are percentile bootstraps over games (2,000 resamples), or from
`DELTA_GAMES` games on the delta method's (each game's influence on an effect, the same
contrast of its influences on the cells, `estimates.linearised`): cells that
share deals (the same table size and cards dealt: the same seeds, game by game) are resampled
together, the same games in every such cell (paired), and cells that deal differently apart.
They are descriptive: no planned test covers them and they are not corrected for multiple
comparisons (docs/metrics.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rummysim.analysis.estimates import (
    DELTA_GAMES,
    LEVEL,
    RESAMPLES,
    Estimate,
    Pair,
    influence_se,
    linearised,
    normal_estimate,
)
from rummysim.analysis.metrics import ConditionSummary, seed_for
from rummysim.design import Experiment

HEADLINE = "first_seat_advantage_game"
"""The measure of the heat-map: the first seat's game-level edge r₀ − 1/n."""
BATCH = 200


@dataclass(frozen=True)
class Effect:
    """One main effect or interaction of a grid, on one measure, with its 95% interval."""

    arm: str
    """The crossed condition it is measured within ('' when the grid is not crossed)."""
    measure: str
    kind: str
    """``main`` or ``interaction``."""
    term: str
    """``ace=high_or_low`` (against the reference level), or ``ace=high_or_low × going_out=discard``."""
    estimate: Estimate


def arms(experiment: Experiment) -> dict[str, dict[tuple[int, ...], str]]:
    """Return each arm's cells: the index of each factor's level -> the condition's name."""
    factors = experiment.grid
    found: dict[str, dict[tuple[int, ...], str]] = {}
    for condition in experiment.conditions:
        arm = condition.name.rpartition("|")[0]
        cell = []
        for factor, levels in factors.items():
            value = getattr(condition.rules, factor)
            matches = [i for i, level in enumerate(levels) if level == value or str(level) == str(value)]
            if not matches:
                break
            cell.append(matches[0])
        else:
            found.setdefault(arm, {})[tuple(cell)] = condition.name
    return found


def per_game_measures(
    frame: pd.DataFrame, *, n: int, strategy: str | None, seats: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Return each measure's per-game (numerator, denominator), so a cell's value is sum(num) / sum(den).

    Order is the several-seat form (w − k/n) / (1 − k/n) of `strategy`'s k = `seats` seats (docs/metrics.md,
    `rummysim.analysis.metrics.skill_order`): with one seat, (w − 1/n) / (1 − 1/n).
    """
    decided = frame["decided"].to_numpy(dtype=float)
    first = (frame["winner_start"].to_numpy() == 0) * decided
    hands, decided_hands = frame["hands"].to_numpy(dtype=float), frame["decided_hands"].to_numpy(dtype=float)
    measures: dict[str, tuple[np.ndarray, np.ndarray]] = {
        HEADLINE: (first - decided / n, decided),
        "first_seat_advantage_hand": (frame["hands_won_0"].to_numpy(dtype=float) - decided_hands / n, decided_hands),
        "dealer_advantage_hand": (frame[f"hands_won_{n - 1}"].to_numpy(dtype=float) - decided_hands / n,
                                  decided_hands),  # the dealer plays last (R3.4)
        "hands_per_game": (hands, np.ones(len(frame))),
        "points_per_hand": (frame["points"].to_numpy(dtype=float), hands),
        "turns_per_hand": (frame["turns"].to_numpy(dtype=float), hands),
    }  # fmt: skip
    if strategy is not None:
        won = (frame["winner_strategy"] == strategy).to_numpy(dtype=float) * decided
        measures["order"] = ((won - seats * decided / n) / (1.0 - seats / n), decided)
    return measures


def _contrasts(values: np.ndarray, names: Sequence[str], levels: Sequence[Sequence[Any]]) -> dict[tuple[str, str], Any]:
    """Return each main effect and two-factor interaction of cell values (resamples on axis 0, factors after)."""
    out: dict[tuple[str, str], Any] = {}
    k = len(names)
    for i in range(k):
        for level in range(1, len(levels[i])):
            diff = np.take(values, level, axis=1 + i) - np.take(values, 0, axis=1 + i)
            out[("main", f"{names[i]}={levels[i][level]}")] = diff.reshape(len(values), -1).mean(axis=1)
    for i, j in itertools.combinations(range(k), 2):
        for a, b in itertools.product(range(1, len(levels[i])), range(1, len(levels[j]))):

            def at(x: int, y: int, i: int = i, j: int = j) -> np.ndarray:
                return np.take(np.take(values, y, axis=1 + j), x, axis=1 + i)

            term = at(a, b) - at(0, b) - at(a, 0) + at(0, 0)
            label = f"{names[i]}={levels[i][a]} × {names[j]}={levels[j][b]}"
            out[("interaction", label)] = term.reshape(len(values), -1).mean(axis=1)
    return out


def effects(
    experiment: Experiment, *, frames: Mapping[str, pd.DataFrame], summaries: Mapping[str, ConditionSummary],
    strategy: Mapping[str, str | None], seed: int = 0,
) -> list[Effect]:  # fmt: skip
    """Return every arm's main effects and two-factor interactions, with bootstrap intervals over games.

    `strategy`: per arm, the strategy whose Order is a measure too (`analysis.skill.measured`), or None.
    """
    factors = experiment.grid
    names, levels = list(factors), [list(v) for v in factors.values()]
    shape = tuple(len(v) for v in levels)
    found: list[Effect] = []
    for arm, cells in arms(experiment).items():
        if len(cells) != int(np.prod(shape)) or not all(name in frames for name in cells.values()):
            continue  # an incomplete grid (a run stopped part-way) has no factorial contrasts
        rules = {cell: experiment.condition(name).rules for cell, name in cells.items()}
        groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        for cell, r in rules.items():
            groups.setdefault((r.n_players, r.n_dealt), []).append(cell)
        first = summaries[cells[(0,) * len(shape)]]
        label = strategy.get(arm)
        seats = next((s.seats for s in first.strategies if s.strategy == label), 1)
        columns = {}
        for cell, name in cells.items():
            games = frames[name]
            common = next(c for c in groups if cell in groups[c])
            index = games.index
            for other in groups[common]:
                index = index.intersection(frames[cells[other]].index)
            columns[cell] = per_game_measures(games.loc[index], n=rules[cell].n_players, strategy=label, seats=seats)
        rng = np.random.default_rng(seed_for(arm, "grid", base=seed))
        for measure in columns[(0,) * len(shape)]:
            point = np.empty((1, *shape))
            for cell, cols in columns.items():
                num, den = cols[measure]
                at: tuple[Any, ...] = (0, *cell)
                point[at] = num.sum() / den.sum() if den.sum() else np.nan
            n_games = min(len(c[measure][0]) for c in columns.values())
            if n_games >= DELTA_GAMES:
                found += _delta_effects(arm, measure, point, columns, groups, names, levels, n_games)
                continue
            draws = np.empty((RESAMPLES, *shape))
            for start in range(0, RESAMPLES, BATCH):
                size = min(BATCH, RESAMPLES - start)
                for cells_here in groups.values():
                    n_games = len(columns[cells_here[0]][measure][0])
                    weights = rng.multinomial(n_games, np.full(n_games, 1.0 / n_games), size=size).astype(float)
                    for cell in cells_here:
                        num, den = columns[cell][measure]
                        with np.errstate(invalid="ignore", divide="ignore"):
                            rows: tuple[Any, ...] = (slice(start, start + size), *cell)
                            draws[rows] = (weights @ num) / (weights @ den)
            estimates = _contrasts(point, names, levels)
            resampled = _contrasts(draws, names, levels)
            tail = (1 - LEVEL) / 2 * 100
            for (kind, term), value in estimates.items():
                low, high = np.nanpercentile(resampled[(kind, term)], [tail, 100 - tail])
                found.append(Effect(arm, measure, kind, term, Estimate(float(value[0]), float(low), float(high),
                                                                      n_games)))  # fmt: skip
    return found


def _delta_effects(
    arm: str, measure: str, point: np.ndarray, columns: Mapping[tuple[int, ...], Mapping[str, Pair]],
    groups: Mapping[tuple[int, int], Sequence[tuple[int, ...]]], names: Sequence[str], levels: Sequence[Sequence[Any]],
    n_games: int,
) -> list[Effect]:  # fmt: skip
    """Return one measure's effects with the delta method's intervals (`estimates.delta_change`, for contrasts).

    An effect is a fixed linear combination of cells, so each game's influence on it is the same
    combination of the games' influences on the cells (`linearised`): per group of cells that
    share deals, the contrasts of a (games, cells) array; groups' variances add.
    """
    shape = point.shape[1:]
    influences: dict[tuple[str, str], list[np.ndarray]] = {}
    for cells_here in groups.values():
        values = np.zeros((len(columns[cells_here[0]][measure][0]), *shape))
        for cell in cells_here:
            at: tuple[Any, ...] = (slice(None), *cell)
            values[at] = linearised(*columns[cell][measure])
        for key, influence in _contrasts(values, names, levels).items():
            influences.setdefault(key, []).append(influence)
    found = []
    for (kind, term), value in _contrasts(point, names, levels).items():
        estimate = normal_estimate(float(value[0]), influence_se(*influences[(kind, term)]), n_games)
        found.append(Effect(arm, measure, kind, term, estimate))
    return found


def effects_table(found: Sequence[Effect]) -> pd.DataFrame:
    """Return one row per arm x measure x effect: estimate, low, high, games."""
    return pd.DataFrame(
        [
            {"arm": e.arm, "measure": e.measure, "kind": e.kind, "effect": e.term, "estimate": e.estimate.value,
             "low": e.estimate.low, "high": e.estimate.high, "games": e.estimate.n}
            for e in found
        ],
        columns=["arm", "measure", "kind", "effect", "estimate", "low", "high", "games"],
    )  # fmt: skip


def cell_means(experiment: Experiment, summaries: Mapping[str, ConditionSummary], *, arm: str) -> np.ndarray:
    """Return the headline measure of each cell over the first two factors, averaged over the others."""
    shape = tuple(len(v) for v in experiment.grid.values())
    values = np.full(shape, np.nan)
    for cell, name in arms(experiment).get(arm, {}).items():
        if name in summaries:
            values[cell] = summaries[name].metrics[HEADLINE].value
    grid = values.reshape(*shape[:2], -1) if len(shape) >= 2 else values.reshape(1, shape[0], 1)
    return np.nanmean(grid, axis=2)
