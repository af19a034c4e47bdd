"""The answer as a picture: a forest plot of the planned changes, one thin axis per row.

Each `ForestRow` is one measured change (other − reference) with the interval that decided
its verdict (simultaneous over the run's planned changes) and its margin, in the units it is
shown in (a relative measure's change in %). Rows of different units cannot share an x-axis, so
each row gets its own, scaled to show zero, the interval and the margin band:

    label of the measure   |----[===o===]-----|    −7.26 hands       Yes
                           0   (shaded ±margin)    [−7.29, −7.23]

Rows are grouped under their comparison (`ForestRow.group`), groups in the order they
first appear; the axes are made top to bottom in that order, each labelled with its
row's label (`Axes.get_label`). Save the figure with `rummysim.report.figures.save`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # headless: no display is needed, or used

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from rummysim.analysis.estimates import Estimate
from rummysim.errors import ConfigError
from rummysim.report.html import VERDICT_COLORS
from rummysim.report.wording import percent_text, signed

# the page, in inches: label column, the row's axis, the value's text, the verdict
WIDTH = 8.6  # 946 px at the report's 110 dpi: the HTML report's column shows it at its own size
LABEL_X, AXIS_X, AXIS_W, VALUE_X, VERDICT_X = 0.12, 3.1, 2.8, 6.05, 7.3
ROW, AXIS_H, GROUP, HEADER, FOOTER = 0.62, 0.26, 0.34, 0.3, 0.5
TITLE = 0.45
HEADING, LINE = 100, 0.17
"""A group's heading wraps at this many characters (the page's width at 9.5 pt bold), each further line this high."""
INK, MUTED, RULE, BAND = "#1f2328", "#59636e", "#d0d7de", "#e6ebf1"
NOTE = "Line: no change. Shaded: ± the margin, the smallest change worth reporting. Each row has its own scale."


@dataclass(frozen=True)
class ForestRow:
    """One planned change, other − reference, with the interval that decided it, all in display units (pp, %, ...)."""

    label: str
    """The measure in words: "first player's edge in a hand"."""
    group: str
    """The comparison: "aces high or low vs low only"."""
    value: float
    low: float
    """The interval's ends (simultaneous: the verdict's own); NaN when there is none."""
    high: float
    margin: float
    """The smallest change worth reporting, in display units; NaN if none."""
    unit: str
    """"pp", "hands", "turns", "points", "" ..."""
    verdict: str
    """One of `rummysim.report.html.VERDICTS`: "Yes", "Yes, of unclear size", "Yes, but small", "No",
    "Can't tell"."""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICT_COLORS:
            valid = ", ".join(f'"{v}"' for v in VERDICT_COLORS)
            raise ConfigError(f"ForestRow {self.label!r}: verdict {self.verdict!r} is not one of {valid}")
        if self.low > self.high:  # False when either is NaN
            raise ConfigError(f"ForestRow {self.label!r}: the interval [{self.low}, {self.high}] ends below its start")


def value_text(row: ForestRow) -> tuple[str, str]:
    """Return the row's change and its interval as text: ("−7.26 hands", "[−7.29, −7.23]")."""
    if not math.isfinite(row.value):
        return "n/a", ""
    e = Estimate(row.value, row.low, row.high, 0)
    if row.unit == "%":
        change, interval = (part.replace("-", "\u2212") for part in percent_text(e))
        return change, interval or "no interval"
    unit = f" {row.unit}" if row.unit else ""
    change, *ends = signed(e).replace("-", "\u2212").split(" ", 1)
    return f"{change}{unit}", ends[0] if ends else "no interval"


def x_range(row: ForestRow) -> tuple[float, float]:
    """Return an x-range that shows zero, the value, the interval and the ±margin band, with room at both ends."""
    margin = abs(row.margin) if math.isfinite(row.margin) else 0.0
    ends = [x for x in (0.0, row.value, row.low, row.high, -margin, margin) if math.isfinite(x)]
    low, high = min(ends), max(ends)
    span = high - low or 1.0  # all at zero: a unit either side
    return low - 0.08 * span, high + 0.08 * span


def _grouped(rows: Sequence[ForestRow]) -> list[tuple[str, list[ForestRow]]]:
    groups: dict[str, list[ForestRow]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    return list(groups.items())


def _draw_row(ax: Axes, row: ForestRow) -> None:
    color = VERDICT_COLORS[row.verdict]
    ax.set_xlim(*x_range(row))
    ax.set_ylim(-1, 1)
    if math.isfinite(row.margin) and row.margin:
        ax.axvspan(-abs(row.margin), abs(row.margin), color=BAND, zorder=0, linewidth=0)
    ax.axvline(0, color=INK, linewidth=0.9, zorder=1)
    if math.isfinite(row.low) and math.isfinite(row.high):
        ax.hlines(0, row.low, row.high, color=color, linewidth=2.2, zorder=2)
        for end in (row.low, row.high):
            ax.vlines(end, -0.45, 0.45, color=color, linewidth=1.4, zorder=2)
    if math.isfinite(row.value):
        ax.plot([row.value], [0], "o", color=color, markersize=6.5, markeredgecolor="white", zorder=3)
    ax.set_yticks([])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.tick_params(axis="x", labelsize=7, length=2.5, pad=1.5, colors=MUTED)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(RULE)
    ax.set_facecolor("none")
    ax.set_label(row.label)


def forest_plot(rows: Sequence[ForestRow], *, title: str = "") -> Figure:
    """Return the planned changes as a forest plot: a thin axis per row, grouped by comparison (see the module doc)."""
    if not rows:
        raise ConfigError("forest_plot: no rows to draw; give at least one ForestRow")
    groups = _grouped(rows)
    headed = any(group for group, _ in groups)
    heads = [textwrap.wrap(group or "(no group)", HEADING) for group, _ in groups]  # wrapped, never cut short
    extra = sum(len(lines) - 1 for lines in heads) * LINE if headed else 0.0
    height = (TITLE if title else 0.15) + HEADER + len(rows) * ROW + (GROUP * len(groups) if headed else 0) + FOOTER
    height += extra
    fig = plt.figure(figsize=(WIDTH, height))

    def at(x: float, y: float) -> tuple[float, float]:  # inches from the top left, to figure fractions
        return x / WIDTH, 1 - y / height

    y = 0.15
    if title:
        fig.text(*at(LABEL_X, y + 0.05), title, fontsize=11, weight="bold", va="top", color=INK)
        y += TITLE - 0.15
    for x, text, align in ((AXIS_X + AXIS_W / 2, "change (other \u2212 reference), the verdict's interval", "center"),
                           (VALUE_X, "change", "left"), (VERDICT_X, "verdict", "left")):  # fmt: skip
        fig.text(*at(x, y + HEADER - 0.05), text, ha=align, va="bottom", fontsize=7.5, color=MUTED)
    y += HEADER
    for n, (_, members) in enumerate(groups):
        if headed:
            if n:
                fig.add_artist(Line2D([at(LABEL_X, 0)[0], at(WIDTH - LABEL_X, 0)[0]], [at(0, y + 0.04)[1]] * 2,
                                      color=RULE, linewidth=0.8))  # fmt: skip
            y += LINE * (len(heads[n]) - 1)
            fig.text(*at(LABEL_X, y + GROUP - 0.06), "\n".join(heads[n]), fontsize=9.5, weight="bold", va="bottom",
                     color=INK, linespacing=1.15)  # fmt: skip
            y += GROUP
        for row in members:
            middle = y + ROW / 2 - 0.06  # a little above the middle: the tick labels hang below the axis
            ax = fig.add_axes((AXIS_X / WIDTH, 1 - (middle + AXIS_H / 2) / height, AXIS_W / WIDTH, AXIS_H / height))
            _draw_row(ax, row)
            indent = 0.2 if headed else 0.0
            label = textwrap.fill(row.label, width=40 if headed else 43)
            fig.text(*at(LABEL_X + indent, middle), label, fontsize=9, va="center", color=INK, linespacing=1.15)
            change, interval = value_text(row)
            fig.text(*at(VALUE_X, middle - 0.02), change, fontsize=9, va="bottom", color=INK, weight="bold")
            fig.text(*at(VALUE_X, middle + 0.02), interval, fontsize=8, va="top", color=MUTED)
            said = row.verdict.replace(", of ", ",\nof ")  # "Yes, of unclear size" on two lines: the page's edge
            fig.text(*at(VERDICT_X, middle), said, fontsize=9.5, va="center", weight="bold",
                     color=VERDICT_COLORS[row.verdict])  # fmt: skip
            y += ROW
    fig.text(*at(LABEL_X, height - 0.12), NOTE, fontsize=7.5, color=MUTED, va="bottom")
    return fig
