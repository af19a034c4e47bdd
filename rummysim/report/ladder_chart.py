"""The ladder's chart: each strategy's rating with its 95% interval, strongest on top (`draw_ladder`).

It draws the fit (`rummysim.analysis.ladder`), not the measured shares: those lead the ladder's
section of the report (`rummysim.report.ladder`). A bounded rating is an arrow from its bound. The
top axis reads a rating as its forecast chance to beat the reference, drawn only where every such
forecast holds (`Ladder.chance_holds`).
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display is needed, or used

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit, logit

from rummysim.analysis.ladder import Ladder, Rating, Status

COLOR = plt.get_cmap("tab10")(0)


def draw_ladder(ladder: Ladder, path_without_suffix: Path | str) -> Path:
    """Draw the ladder (ratings with 95% intervals, strongest on top) as PNG and SVG; return the PNG's path."""
    path = Path(path_without_suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    ratings = list(ladder.ratings)
    with plt.rc_context({"svg.hashsalt": "rummysim", "svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(8.0, 1.2 + 0.45 * len(ratings)), layout="constrained")
        try:
            _draw(ax, ladder, ratings)
            handles, labels = ax.get_legend_handles_labels()
            order = sorted(range(len(labels)), key=lambda i: not labels[i].startswith("rating"))
            fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="outside lower center", ncol=2,
                       fontsize=8)  # fmt: skip
            fig.savefig(path.with_suffix(".png"), dpi=110)
            fig.savefig(path.with_suffix(".svg"), metadata={"Date": None})
        finally:
            plt.close(fig)
    return path.with_suffix(".png")


def _draw(ax: plt.Axes, ladder: Ladder, ratings: list[Rating]) -> None:
    y = np.arange(len(ratings))[::-1]
    ends = [x for r in ratings for x in (r.rating.value, r.rating.low, r.rating.high) if math.isfinite(x)]
    span = (max(ends) - min(ends)) or 1.0
    shown = fitted = False
    for yi, r in zip(y, ratings, strict=True):
        e = r.rating
        if r.status in (Status.FITTED, Status.REFERENCE):
            error = [[max(e.value - e.low, 0.0)], [max(e.high - e.value, 0.0)]] if math.isfinite(e.low) else None
            ax.errorbar(e.value, yi, xerr=error, fmt="o", color=COLOR, capsize=4,
                        label=None if fitted else "rating, 95% bootstrap interval")  # fmt: skip
            fitted = True
        elif r.status in (Status.AT_LEAST, Status.AT_MOST):
            bound, way = (e.low, 1) if r.status is Status.AT_LEAST else (e.high, -1)
            ax.annotate("", xy=(bound + way * 0.15 * span, yi), xytext=(bound, yi),
                        arrowprops={"arrowstyle": "->", "color": "grey"})  # fmt: skip
            ax.plot(bound, yi, "|", color="grey", markersize=12, label=None if shown else "one-sided 95% bound")
            shown = True
        else:
            ax.text(min(ends) if ends else 0.0, yi, "not estimable", va="center", fontsize=8, color="grey")
    ax.axvline(0.0, color="black", linewidth=0.8, linestyle="dashed")
    ax.set_yticks(y, [r.strategy for r in ratings])
    ax.set_xlim(min(ends) - 0.2 * span, max(ends) + 0.2 * span)
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    ax.set_xlabel(f"rating: log-strength against {ladder.reference} (dashed, 0)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("The ladder: maximum-likelihood ratings (Bradley-Terry, Plackett-Luce)", fontsize=9)
    if not all(ladder.chance_holds(r.strategy) for r in ratings if r.status is Status.FITTED):
        return  # a forecast chance the report drops is not drawn as an axis to read it from either (issue 42)
    top = ax.secondary_xaxis(
        "top", functions=(lambda x: 100 * expit(x), lambda p: logit(np.clip(np.asarray(p) / 100, 1e-12, 1 - 1e-12)))
    )
    low, high = ax.get_xlim()
    ticks = [t for t in (0.1, 1, 5, 20, 50, 80, 95, 99, 99.9) if low <= logit(t / 100) <= high]
    top.set_xticks(ticks, [f"{t:g}" for t in ticks])
    top.set_xlabel(f"forecast chance to beat {ladder.reference} in a two-player game, %")
