"""The atlas's explorer.html: its cells (`rummysim.report.atlas.atlas_cells`), every rule in words, paired B − A.

`write_atlas_explorer` writes ``results/atlas/explorer.html`` (`rummysim.report.explorer`) from a
run's analysis and its cells. What it adds to the cells:

- **pairs** (`explorer_pairs`): for every two cells of one table size, of every measure, B − A
  on the games they share, with the paired delta method's interval
  (`rummysim.analysis.pairs.paired_differences`) at the level of the run's changes: a measure
  decided on the log ratio (game length) is paired on it too, as its changes are. The cells'
  per-game numerators and denominators are the grid's (`rummysim.analysis.grid`), the skill
  measure's Order that of `rummysim.analysis.metrics.skill_order` over decided games;
- **directions**: a seat's edge is fairer nearer zero (`EDGES`), so the page says "(better)" of a
  change that brings it nearer and "(worse)" of one that takes it further (docs/atlas.md);
- **words**: each factor's levels typed as the experiment file has them, so the page says
  "no bonus for going rummy", not ``rummy_multiplier 1``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from rummysim.analysis import Analysis
from rummysim.analysis.estimates import LEVEL, Pair
from rummysim.analysis.grid import per_game_measures
from rummysim.analysis.pairs import paired_differences
from rummysim.analysis.skill import measured
from rummysim.report.atlas import ATLAS_MEASURES, AtlasMeasure
from rummysim.report.explorer import Measure, Triple, write_explorer

EDGES = ("first_player_edge_hand", "dealer_edge_hand")
"""The measures whose fair value is zero (a seat's share of hands won less 1/n): nearer zero is better."""


def atlas_measures() -> list[Measure]:
    """Return how the explorer shows each atlas measure: `ATLAS_MEASURES`' own, the edges better nearer zero."""
    return [replace(m.shown, better="zero") if m.shown.name in EDGES else m.shown for m in ATLAS_MEASURES]


def decided_on(analysis: Analysis, metric: str) -> tuple[float, bool]:
    """Return the level of a metric's changes in the run, and whether they are decided on the log ratio.

    The changes' simultaneous intervals (`rummysim.analysis.compare.rule_out`), or 95% on the
    difference where the metric has none (not planned), as `atlas_cells` prints them.
    """
    found = [c.bounds[metric] for c in analysis.comparisons if metric in c.bounds]
    if not found:
        return LEVEL, False
    return min(b.level for b in found), any(b.relative for b in found)


def _per_game(analysis: Analysis, name: str, games: pd.DataFrame, measure: AtlasMeasure) -> Pair:
    """Return one cell's per-game (numerator, denominator) of `measure` over `games`: its value is their ratio."""
    summary = analysis.condition(name)
    n = summary.n_players
    if measure.metric != "order":
        return per_game_measures(games, n=n, strategy=None, seats=1)[measure.metric]
    focal = measured(summary, analysis.experiment.skill)
    seats = next((s.seats for s in summary.strategies if s.strategy == focal), 0)
    decided = games["decided"].to_numpy(dtype=float)
    if focal is None or not 0 < seats < n:
        return np.full(len(games), np.nan), decided
    won = (games["winner_strategy"] == focal).to_numpy(dtype=float) * decided
    fair = seats / n  # Order (w − k/n) / (1 − k/n) over decided games (`metrics.skill_order`)
    return (won - fair * decided) / (1.0 - fair), decided


def explorer_pairs(
    analysis: Analysis, cells: pd.DataFrame
) -> tuple[dict[str, dict[tuple[str, str], Triple]], dict[str, float]]:
    """Return, per measure, (cell A, cell B) -> (B − A, low, high) for every two cells that share deals, and its level.

    Cells share deals when their conditions have the same table size and cards dealt; the pair
    is measured on the games every such cell of its lineup played (as the grid's effects are).
    The level is that of the run's changes (`decided_on`), so a B − A against basic rummy and the
    cell's own change are read at one level.
    """
    experiment, frames = analysis.experiment, analysis.frames
    pairs: dict[str, dict[tuple[str, str], Triple]] = {}
    levels: dict[str, float] = {}
    for measure in ATLAS_MEASURES:
        name = measure.shown.name
        column = "skill_condition" if measure.skill else "condition"
        level, relative = decided_on(analysis, measure.metric)
        levels[name], found = level, pairs.setdefault(name, {})
        if column not in cells:
            continue
        groups: dict[tuple[int, int], list[tuple[str, str]]] = {}
        for cell, condition in zip(cells["cell"], cells[column], strict=True):
            if isinstance(condition, str) and condition in frames:
                rules = experiment.condition(condition).rules
                groups.setdefault((rules.n_players, rules.n_dealt), []).append((str(cell), condition))
        for group in groups.values():
            index = frames[group[0][1]].index
            for _, condition in group[1:]:
                index = index.intersection(frames[condition].index)
            columns = [_per_game(analysis, c, frames[c].loc[index], measure) for _, c in group]
            paired = paired_differences(columns, level=level, relative=relative)
            for i, j in zip(*np.triu_indices(len(group), k=1), strict=True):
                found[group[i][0], group[j][0]] = (
                    float(paired.difference[i, j]), float(paired.low[i, j]), float(paired.high[i, j])
                )  # fmt: skip
    return pairs, levels


def write_atlas_explorer(analysis: Analysis, cells: pd.DataFrame, path: Path) -> Path:
    """Write the atlas's explorer.html for its `cells` (`atlas_cells`) to `path`; return the path."""
    experiment = analysis.experiment
    grid = dict(experiment.grid)  # the levels typed as the file has them, the reference's first
    pairs, change_levels = explorer_pairs(analysis, cells)
    intro = (
        f"Experiment {experiment.name}, seed {experiment.seed}: every cell is a table size and a set of rules; each "
        "change is against basic rummy at the same table size, on the same deals."
    )
    return write_explorer(
        cells, path, title=analysis.question, factors=list(grid), levels=grid, measures=atlas_measures(),
        intro=intro, pairs=pairs, change_levels=change_levels,
    )  # fmt: skip
