"""The atlas's heat maps: each measure's rule-by-rule changes against basic rummy, a column per table size."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rummysim.report import atlas_findings as said
from rummysim.report.atlas import ATLAS_MEASURES, AtlasMeasure, change_digits, change_scale, change_unit
from rummysim.report.wording import rounded


def change_heatmap(changes: pd.DataFrame, measure: AtlasMeasure, *, level: float) -> Figure:
    """Return a heat map of one measure's rule-by-rule changes (rows) at each table size (columns), annotated."""
    shown, part = measure.shown, changes[changes["measure"] == measure.shown.name]
    part = part.assign(sure=said.firm_changes(part))
    grid = part.pivot(index="rule", columns="players", values="shown_change").reindex(part["rule"].drop_duplicates())
    sure = part.pivot(index="rule", columns="players", values="sure").reindex(grid.index)
    values = grid.to_numpy(dtype=float) * change_scale(shown)
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(grid) + 1.4), layout="constrained")
    limit = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit or -1, vmax=limit or 1, aspect="auto")
    for (i, j), x in np.ndenumerate(values):
        if math.isfinite(x):
            mark = "" if bool(sure.iloc[i, j]) or x == 0 else "?"
            text = "0" if x == 0 else f"{rounded(x, least=change_digits(shown), sign='+')[0]}{mark}"
            color = "white" if abs(x) > 0.6 * limit else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks(range(len(grid.columns)), [f"{p} players" for p in grid.columns])
    ax.set_yticks(range(len(grid)), [str(r).split(" (")[0] for r in grid.index])
    unit = {"%": " (%)", " pp": " (pp)"}.get(change_unit(shown), "")
    at = said.level_text(level)
    ax.set_title(f"{shown.label}{unit}: each rule's change against basic rummy\n"
                 f"(? : the sign is not shown at {at}, every change at once)", fontsize=9)  # fmt: skip
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def draw_atlas(changes: pd.DataFrame, folder: Path, *, level: float = 0.95) -> dict[str, Path]:
    """Draw each atlas measure's rule-by-size heat map of `rule_changes` into `folder`; return the PNGs by measure."""
    from rummysim.report.figures import RC, save

    paths = {}
    with plt.rc_context(RC):
        for measure in ATLAS_MEASURES:
            part = changes[changes["measure"] == measure.shown.name]
            if len(part) and part["change"].notna().any():
                name = measure.shown.name
                paths[name] = save(change_heatmap(changes, measure, level=level), folder, f"atlas_{name}")
    return paths
