"""The report's charts, drawn headless with matplotlib and saved as PNG and SVG.

Each function draws one chart of an `Analysis` and returns its figure; `draw_all` saves
them under ``figures/`` with `save`. Error bars are the 95% intervals of the analysis.
Legends sit outside the axes, in the figure's margin, so they never cover a bar or a line.
`forest_plot` (from `rummysim.report.forest`) draws a report's answer from `ForestRow`s;
save it with `save` too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: no display is needed, or used

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.typing import RcKeyType

from rummysim.analysis import Analysis, Estimate
from rummysim.analysis.frames import ENDINGS
from rummysim.analysis.grid import arms, cell_means
from rummysim.report.forest import ForestRow, forest_plot

__all__ = ["CHARTS", "GRID_CHARTS", "RC", "ForestRow", "charts_for", "draw_all", "forest_plot", "save"]

COLORS = [plt.get_cmap("tab10")(i) for i in range(10)]
RC: dict[RcKeyType, Any] = {"svg.hashsalt": "rummysim", "svg.fonttype": "none", "font.size": 9}
"""The charts' matplotlib settings: a fixed SVG salt so the same run gives the same files, text kept as text."""


def _errors(estimates: list[Estimate], scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    values = np.array([e.value for e in estimates]) * scale
    low = np.array([e.low for e in estimates]) * scale
    high = np.array([e.high for e in estimates]) * scale
    # clip: an interval's end can sit a rounding error past its value (a share of 0 or 1)
    return values, np.clip(np.vstack([np.nan_to_num(values - low), np.nan_to_num(high - values)]), 0.0, None)


def _names(analysis: Analysis) -> list[str]:
    return [c.name for c in analysis.conditions]


def _figure(width: float = 8.0, height: float = 4.5) -> tuple[Figure, plt.Axes]:
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    ax.grid(axis="y", alpha=0.3)
    return fig, ax


def _legend(fig: Figure, handles: Sequence[Artist], labels: Sequence[str]) -> None:
    """Put the legend in the figure's margin, outside every axes (constrained layout makes room for it).

    Short labels go to the right; long ones below, in two columns, the figure growing by their rows.
    """
    if max(map(len, labels), default=0) <= 24:
        fig.legend(handles, labels, loc="outside right upper", fontsize=8, frameon=False,
                   ncol=math.ceil(len(labels) / 18))  # fmt: skip
        return
    columns = min(2, len(labels))
    fig.set_figheight(fig.get_figheight() + 0.18 * math.ceil(len(labels) / columns) + 0.1)
    fig.legend(handles, labels, loc="outside lower center", fontsize=8, frameon=False, ncol=columns)


def _condition_axis(ax: plt.Axes, names: list[str]) -> None:
    ax.set_xticks(
        range(len(names)), names, rotation=20 if len(names) > 3 else 0, ha="right" if len(names) > 3 else "center"
    )


def seat_win_share(analysis: Analysis) -> Figure:
    """Seats' win shares (hand and game level) per condition, with the fair share 1/n."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained", sharey=True)
    names = _names(analysis)
    widest = max(c.n_players for c in analysis.conditions)
    width = 0.8 / widest
    for ax, level in zip(axes, ("hand", "game"), strict=True):
        for i, c in enumerate(analysis.conditions):
            shares = c.seat_hand if level == "hand" else c.seat_game
            values, errors = _errors(shares, 100)
            x = i + (np.arange(c.n_players) - (c.n_players - 1) / 2) * width
            ax.bar(x, values, width * 0.9, yerr=errors, capsize=2, color=[COLORS[p] for p in range(c.n_players)])
            ax.hlines(100 / c.n_players, i - 0.45, i + 0.45, colors="black", linestyles="dashed", linewidth=1)
        _condition_axis(ax, names)
        interval = "over games" if level == "hand" else "Wilson"
        where = "in the hand" if level == "hand" else "in the first hand"
        ax.set_title(f"{level} level: position {where}\n95% interval: {interval}", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    ends = [e for c in analysis.conditions for e in (*c.seat_hand, *c.seat_game) if not np.isnan(e.low)]
    if ends:  # zoom on the differences: bars from zero would hide them
        axes[0].set_ylim(max(0.0, min(e.low for e in ends) * 100 - 3), max(e.high for e in ends) * 100 + 3)
    axes[0].set_ylabel("win share, % (95% interval)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS[p]) for p in range(widest)]
    _legend(fig, handles, [f"position {p}" for p in range(widest)])
    fig.suptitle("Seat win share by turn position (0 plays first, n − 1 deals); dashed: the fair share 1/n")
    return fig


def strategy_win_share(analysis: Analysis) -> Figure:
    """Each strategy's game win share per seat it holds, against the fair share 1/n."""
    fig, ax = _figure()
    names = _names(analysis)
    labels = sorted({s.strategy for c in analysis.conditions for s in c.strategies})
    width = 0.8 / max(len(labels), 1)
    for j, label in enumerate(labels):
        xs, shares = [], []
        for i, c in enumerate(analysis.conditions):
            for s in c.strategies:
                if s.strategy == label:
                    xs.append(i + (j - (len(labels) - 1) / 2) * width)
                    shares.append(s.per_seat)
        values, errors = _errors(shares, 100)
        ax.bar(xs, values, width * 0.9, yerr=errors, capsize=2, label=label, color=COLORS[j % 10])
    for i, c in enumerate(analysis.conditions):
        ax.hlines(100 / c.n_players, i - 0.45, i + 0.45, colors="black", linestyles="dashed", linewidth=1)
    _condition_axis(ax, names)
    ax.set_ylim(0, 100)
    ax.set_ylabel("games won per seat held, % (95% interval)")
    ax.set_title("Strategy win share, seats rotated; dashed: the fair share 1/n")
    _legend(fig, *ax.get_legend_handles_labels())
    return fig


def _metric_bars(analysis: Analysis, metric: str, *, ylabel: str, title: str, scale: float = 1.0) -> Figure:
    fig, ax = _figure()
    values, errors = _errors([c.metrics[metric] for c in analysis.conditions], scale)
    ax.bar(range(len(values)), values, 0.6, yerr=errors, capsize=4, color=COLORS[0])
    _condition_axis(ax, _names(analysis))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig


def points_per_hand(analysis: Analysis) -> Figure:
    """Mean points scored per hand (R8)."""
    return _metric_bars(
        analysis, "points_per_hand", ylabel="points per hand (95% interval)", title="Points per hand (R8)"
    )


def hand_length(analysis: Analysis) -> Figure:
    """Mean turns per hand."""
    return _metric_bars(
        analysis, "turns_per_hand", ylabel="turns per hand, all seats (95% interval)", title="Hand length"
    )


ENDING_COLORS = dict(zip(("discard", "meld", "lay_off", "stalled", "block"), COLORS, strict=False))
"""Each ending's color: the same in every report (a block, R12.3, only where a condition plays it)."""


def hand_endings(analysis: Analysis) -> Figure:
    """How hands end: by discard, meld, lay-off (R7), a block (R12.3) where the rules have one, or stalled (R10.2)."""
    fig, ax = _figure()
    bottom = np.zeros(len(analysis.conditions))
    shown = [end for end in ENDINGS if all(f"ended_by_{end}" in c.metrics for c in analysis.conditions)]
    for end in shown:
        values = np.array([c.metrics[f"ended_by_{end}"].value for c in analysis.conditions]) * 100
        ax.bar(range(len(values)), values, 0.6, bottom=bottom, label=end.replace("_", "-"), color=ENDING_COLORS[end])
        bottom += values
    _condition_axis(ax, _names(analysis))
    ax.set_ylabel("share of hands, %")
    if "block" in shown:
        ax.set_title("How hands end: out by ... (R7), ended by a block (R12.3), or stalled (R10.2)")
    else:
        ax.set_title("How hands end: the winner's last card left by ... (R7), or stalled (R10.2)")
    handles, labels = ax.get_legend_handles_labels()
    _legend(fig, handles[::-1], labels[::-1])  # top to bottom, as the bars stack
    return fig


def rummy_value(analysis: Analysis) -> Figure:
    """The value of going rummy (R8.3): its rate and its share of all points."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    for ax, metric, label in zip(
        axes, ("rummy_rate", "rummy_point_share"), ("share of decided hands won by rummy, %", "share of all points, %"),
        strict=True,
    ):  # fmt: skip
        values, errors = _errors([c.metrics[metric] for c in analysis.conditions], 100)
        ax.bar(range(len(values)), values, 0.6, yerr=errors, capsize=4, color=COLORS[3])
        _condition_axis(ax, _names(analysis))
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("The value of going rummy (R8.3), with 95% intervals")
    return fig


def game_length(analysis: Analysis) -> Figure:
    """The distribution of hands per game (R11), out to the longest game of every condition."""
    fig, ax = _figure()
    longest = {c.name: int(analysis.frames[c.name]["hands"].max()) for c in analysis.conditions}
    reach = max(longest.values(), default=1)
    step = max(1, math.ceil(reach / 120))  # one bar per hand, unless that makes the bars too thin to see
    bins = [0.5 + step * k for k in range(math.ceil(reach / step) + 1)]  # the last edge is past the longest game
    for j, c in enumerate(analysis.conditions):
        mean = c.metrics["hands_per_game"].value
        ax.hist(analysis.frames[c.name]["hands"], bins=bins, histtype="step", density=True, linewidth=1.5,
                color=COLORS[j % 10], label=f"{c.name} (mean {mean:.1f}, longest {longest[c.name]})")  # fmt: skip
    ax.set_xlim(0, bins[-1] + step / 2)
    ax.set_xlabel("hands in the game" + (f" (bins of {step} hands)" if step > 1 else ""))
    ax.set_ylabel("share of games" + (" per hand" if step > 1 else ""))
    ax.set_title("Game length (R11)")
    _legend(fig, *ax.get_legend_handles_labels())
    return fig


def score_trajectories(analysis: Analysis) -> Figure:
    """Mean score after each hand of the game's eventual winner and of the other seats."""
    fig, ax = _figure()
    handles: list[Artist] = []
    for j, c in enumerate(analysis.conditions):
        path = analysis.trajectories[c.name]
        color = COLORS[j % 10]
        handles += ax.plot(path["hand"] + 1, path["winner"], color=color)
        ax.plot(path["hand"] + 1, path["others"], color=color, linestyle="dashed")
    target = analysis.experiment.conditions[0].rules.target_score
    if target:
        ax.axhline(target, color="black", linewidth=0.8)
    ax.set_xlabel("after hand")
    ax.set_ylabel("mean score (R11)")
    ax.set_title("Score trajectories: the eventual winner (solid) and the other seats (dashed)")
    styles = [Line2D([], [], color="black"), Line2D([], [], color="black", linestyle="dashed")]
    _legend(fig, [*handles, *styles], [*_names(analysis), "eventual winner", "other seats"])
    return fig


def grid_heatmap(analysis: Analysis) -> Figure:
    """The first seat's game-level edge in each cell of a grid, over its first two factors (others averaged)."""
    experiment = analysis.experiment
    names, levels = list(experiment.grid), [list(v) for v in experiment.grid.values()]
    found = list(arms(experiment))
    fig, axes = plt.subplots(1, len(found), figsize=(4.5 * len(found) + 1.5, 4.0), layout="constrained", squeeze=False)
    summaries = {c.name: c for c in analysis.conditions}
    grids = [cell_means(experiment, summaries, arm=arm) * 100 for arm in found]
    reach = max([float(np.nanmax(np.abs(g))) for g in grids if np.isfinite(g).any()] + [0.5])
    image = None
    for ax, arm, values in zip(axes[0], found, grids, strict=True):
        image = ax.imshow(values, cmap="RdBu_r", vmin=-reach, vmax=reach, aspect="auto")
        rows = levels[0] if len(names) >= 2 else [""]
        columns = levels[1] if len(names) >= 2 else levels[0]
        ax.set_xticks(range(len(columns)), [str(v) for v in columns])
        ax.set_yticks(range(len(rows)), [str(v) for v in rows])
        ax.set_xlabel(names[1] if len(names) >= 2 else names[0])
        if len(names) >= 2:
            ax.set_ylabel(names[0])
        for (i, j), value in np.ndenumerate(values):
            dark = np.isfinite(value) and abs(value) > reach / 2  # white on the dark cells
            ax.text(j, i, "n/a" if np.isnan(value) else f"{value:+.2f}", ha="center", va="center", fontsize=9,
                    color="white" if dark else "black")  # fmt: skip
        ax.set_title(arm or "every cell")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), label="first seat's edge r₀ − 1/n, pp (game level)")
    rest = f"; averaged over {', '.join(names[2:])}" if len(names) > 2 else ""
    fig.suptitle(f"The first seat's edge in each cell of the grid{rest}")
    return fig


CHARTS: dict[str, tuple[Callable[[Analysis], Figure], str]] = {
    "seat_win_share": (seat_win_share, "Seat win share by position, hand and game level"),
    "strategy_win_share": (strategy_win_share, "Strategy win share per seat held"),
    "points_per_hand": (points_per_hand, "Points per hand"),
    "hand_length": (hand_length, "Hand length in turns"),
    "hand_endings": (hand_endings, "How hands end"),
    "rummy_value": (rummy_value, "The value of going rummy"),
    "game_length": (game_length, "Game length in hands"),
    "score_trajectories": (score_trajectories, "Score trajectories"),
}


GRID_CHARTS: dict[str, tuple[Callable[[Analysis], Figure], str]] = {
    "grid_heatmap": (grid_heatmap, "Grid: the first seat's edge over two factors"),
}
"""The charts of a `grid` experiment only."""


def charts_for(analysis: Analysis) -> dict[str, tuple[Callable[[Analysis], Figure], str]]:
    """Return the charts of a run: every one of `CHARTS`, and `GRID_CHARTS` for a grid."""
    return {**CHARTS, **(GRID_CHARTS if analysis.experiment.grid else {})}


def save(fig: Figure, folder: Path, name: str) -> Path:
    """Save `fig` as `folder`/`name`.png and .svg (the same bytes for the same chart), close it; return the PNG."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with plt.rc_context(RC):
            fig.savefig(folder / f"{name}.png", dpi=110)
            fig.savefig(folder / f"{name}.svg", metadata={"Date": None})
    finally:
        plt.close(fig)  # pyplot keeps every figure it made until it is closed
    return folder / f"{name}.png"


def draw_all(analysis: Analysis, folder: Path) -> dict[str, Path]:
    """Draw every chart into `folder` as PNG and SVG; return the PNG paths by chart name."""
    paths = {}
    with plt.rc_context(RC):
        for name, (draw, _) in charts_for(analysis).items():
            paths[name] = save(draw(analysis), folder, name)
    return paths
