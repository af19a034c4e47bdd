"""explorer.html: a rules atlas (issue 23) as one page a player opens offline to pick, compare, sort and filter cells.

A *cell* is a table size and one level of each rule factor; the atlas's analysis gives each
cell one row of `cells` (see `write_explorer`). The page shows:

- cell A, picked with a selector for the table size and one per factor: each measure's
  value with its 95% interval, its change against basic rummy at the same table size (every
  factor at its first level) with its interval, and a phrase saying whether that interval
  excludes zero;
- cell B against it: A, B and B − A, whose interval sqrt(hwA² + hwB²) of the two half-widths
  treats the cells as independent, so it is wider than a paired one (the cells of one table
  size play the same deals);
- every cell in a table that sorts by any column and filters by table size and factor;
- the two cells in the address, ``explorer.html#a=<cell>&b=<cell>``, so a view can be shared.

The page is one file: the style sheet, ``explorer.js`` and the cells (JSON) are inside it,
so it fetches nothing. ``explorer.js`` formats every number with one function whose Python
twin is `estimate_text`; `cell_text` gives the strings the page shows for a cell, which is
how the tests hold the page to the Python. Formats, by `Measure.unit` (``digits`` decimals):

========= ============================ ============================
unit      value                        change
========= ============================ ============================
``pp``    ``2.31 pp [1.98, 2.64]``     ``+0.33 pp [+0.02, +0.64]``  (a proportion x 100)
``hands`` ``19.7 hands [19.4, 20.0]``  ``-1.2 hands [-1.5, -0.9]``
``""``    ``0.512 [0.498, 0.526]``     ``+0.014 [+0.001, +0.027]``
========= ============================ ============================

A missing value (NaN) shows as ``n/a`` and a missing interval not at all; a number exactly
half-way rounds to even as Python's format does (0.125 to 2 decimals is 0.12); none shows as -0.00.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from rummysim.errors import ConfigError
from rummysim.report.html import STYLE
from rummysim.results import write_text_atomic

UNITS: dict[str, tuple[float, str]] = {"pp": (100.0, " pp"), "hands": (1.0, " hands"), "": (1.0, "")}
"""Each unit's scale and the words after a value."""

BETTER = ("low", "high", "")

COLUMNS = ("", "_low", "_high", "_change", "_change_low", "_change_high")
"""The columns each measure m has in the cells frame: m, m_low, m_high, m_change, m_change_low, m_change_high."""

REFERENCE = "basic rummy"
"""What a change is measured against: the cell of the same table size with every factor at its first level."""


@dataclass(frozen=True)
class Measure:
    """One measure the page shows.

    `name` is its column stem in the cells frame, `label` its name for a reader, `unit` ``"pp"``
    (a proportion, shown x 100), ``"hands"`` or ``""``, `digits` the decimals shown, and `better`
    the direction a player would call better, ``"low"``, ``"high"`` or ``""`` (a hint in the words only).
    """

    name: str
    label: str
    unit: str
    digits: int
    better: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ConfigError(f"measure {self.name!r}: a name is letters, digits and underscores (a column stem)")
        if self.unit not in UNITS:
            raise ConfigError(f"measure {self.name}: unit {self.unit!r}, not one of 'pp', 'hands', ''", key="unit")
        if self.better not in BETTER:
            raise ConfigError(f"measure {self.name}: better {self.better!r}, not one of 'low', 'high', ''")
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 0 <= self.digits <= 12:
            raise ConfigError(f"measure {self.name}: digits {self.digits!r}, not a whole number from 0 to 12")


def number_text(x: float, digits: int, *, signed: bool = False) -> str:
    """Return `x` with `digits` decimals, a sign if `signed` or negative, never ``-0.00`` (``explorer.js``'s twin).

    >>> number_text(0.125, 2), number_text(0.375, 2), number_text(-0.125, 2, signed=True), number_text(-0.001, 2)
    ('0.12', '0.38', '-0.12', '0.00')
    """
    text = f"{abs(x):.{digits}f}"
    return ("-" if x < 0 and text.strip("0.") else "+" if signed else "") + text


def estimate_text(value: float, low: float, high: float, measure: Measure, *, signed: bool = False) -> str:
    """Return ``value unit [low, high]`` as the page shows it: ``n/a`` without a value, no brackets without an interval.

    >>> edge = Measure("edge", "Edge", "pp", 2, "low")
    >>> estimate_text(0.0231, 0.0198, 0.0264, edge), estimate_text(0.0, math.nan, math.nan, edge, signed=True)
    ('2.31 pp [1.98, 2.64]', '+0.00 pp')
    """
    if not math.isfinite(value):
        return "n/a"
    scale, unit = UNITS[measure.unit]

    def shown(x: float) -> str:
        return number_text(x * scale, measure.digits, signed=signed)

    interval = f" [{shown(low)}, {shown(high)}]" if math.isfinite(low) and math.isfinite(high) else ""
    return shown(value) + unit + interval


def change_phrase(change: float, low: float, high: float, measure: Measure) -> str:
    """Return the page's words for a change against basic rummy: which way, and whether its interval excludes zero.

    >>> change_phrase(-0.01, -0.02, -0.005, Measure("edge", "Edge", "pp", 2, "low"))
    'lower than basic rummy (better): the interval excludes zero'
    """
    if not math.isfinite(change):
        return "not measured"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"this is {REFERENCE}, the reference" if change == 0 else "no interval"
    way = "higher" if low > 0 else "lower" if high < 0 else ""
    if not way:
        return "no change shown: the interval includes zero"
    hint = "" if not measure.better else " (better)" if (way == "lower") == (measure.better == "low") else " (worse)"
    return f"{way} than {REFERENCE}{hint}: the interval excludes zero"


def _number(x: Any) -> float:
    return math.nan if pd.isna(x) else float(x)


def cell_text(cells: pd.DataFrame, cell_id: str, measures: Sequence[Measure]) -> dict[str, str]:
    """Return the strings the page shows for a cell: ``"<measure>.value"``, ``".change"`` and ``".phrase"`` of each.

    The keys name the page's elements: ``[data-measure="<measure>"][data-part="value"]`` and so on.
    """
    rows = cells[cells["cell"] == cell_id]
    if len(rows) != 1:
        raise ConfigError(f"cells: {len(rows)} rows have cell {cell_id!r}, not one", key="cell")
    row = rows.iloc[0]
    shown = {}
    for measure in measures:
        value, low, high, change, change_low, change_high = (_number(row[measure.name + c]) for c in COLUMNS)
        shown[f"{measure.name}.value"] = estimate_text(value, low, high, measure)
        shown[f"{measure.name}.change"] = estimate_text(change, change_low, change_high, measure, signed=True)
        shown[f"{measure.name}.phrase"] = change_phrase(change, change_low, change_high, measure)
    return shown


def check_cells(
    cells: pd.DataFrame, *, factors: Sequence[str], levels: Mapping[str, Sequence[str]], measures: Sequence[Measure]
) -> None:
    """Raise a one-line `ConfigError` naming the column at fault unless `cells` is one row per cell as described."""
    for factor in factors:
        if factor in ("cell", "players") or factor in {m.name for m in measures}:
            raise ConfigError(f"factors: {factor!r} is a name the cells frame uses for another column", key=factor)
        if not levels.get(factor):
            raise ConfigError(f"levels: no levels for factor {factor!r}; list them, the reference's first", key=factor)
    needed = ["cell", "players", *factors, *(m.name + c for m in measures for c in COLUMNS)]
    for column in needed:
        if column not in cells.columns:
            raise ConfigError(
                f"cells: no column {column!r}; the explorer needs cell, players, one column per factor and, for "
                "each measure m, m, m_low, m_high, m_change, m_change_low and m_change_high",
                key=column,
            )
    if cells.empty:
        raise ConfigError("cells: no rows; the explorer needs one row per cell", key="cell")
    for column in needed[2 + len(factors) :]:
        if not pd.api.types.is_numeric_dtype(cells[column]):
            raise ConfigError(f"cells: column {column!r} holds {cells[column].dtype}, not numbers", key=column)
    twice = cells["cell"][cells["cell"].duplicated()]
    if len(twice):
        raise ConfigError(f"cells: cell {twice.iloc[0]!r} is in column 'cell' more than once", key="cell")
    for cell, players in zip(cells["cell"], cells["players"], strict=True):
        if isinstance(players, bool) or not float(players).is_integer() or not 2 <= players <= 6:
            raise ConfigError(f"cells: column 'players' has {players!r} at cell {cell!r}; rummy seats 2 to 6 (R1.1)")
    for factor in factors:
        for cell, level in zip(cells["cell"], cells[factor].astype(str), strict=True):
            if level not in levels[factor]:
                choices = ", ".join(levels[factor])
                raise ConfigError(f"cells: column {factor!r} has {level!r} at cell {cell!r}, not one of {choices}")
    settings = cells[["players", *factors]].astype(str)
    same = settings.duplicated(keep=False)
    if same.any():
        first, second = cells["cell"][same].iloc[:2]
        raise ConfigError(f"cells: cells {first!r} and {second!r} have the same players and levels", key="cell")


def _data(
    cells: pd.DataFrame, *, factors: Sequence[str], levels: Mapping[str, Sequence[str]], measures: Sequence[Measure]
) -> dict[str, Any]:
    """Return what the page embeds: the factors, their levels, the measures and every cell, by table size and levels."""

    def entry(row: pd.Series) -> dict[str, Any]:
        numbers = {m.name: [_number(row[m.name + c]) for c in COLUMNS] for m in measures}
        return {
            "cell": str(row["cell"]),
            "players": int(row["players"]),
            "settings": {f: str(row[f]) for f in factors},
            "numbers": {name: [x if math.isfinite(x) else None for x in xs] for name, xs in numbers.items()},
        }

    entries = [entry(row) for _, row in cells.iterrows()]
    entries.sort(key=lambda e: (e["players"], *(list(levels[f]).index(e["settings"][f]) for f in factors)))
    return {
        "factors": list(factors),
        "levels": {f: list(levels[f]) for f in factors},
        "measures": [asdict(m) for m in measures],
        "reference": REFERENCE,
        "cells": entries,
    }


def _resource(name: str) -> str:
    return resources.files("rummysim.report").joinpath(name).read_text(encoding="utf-8")


def explorer_html(
    cells: pd.DataFrame,
    *,
    title: str,
    factors: Sequence[str],
    levels: Mapping[str, Sequence[str]],
    measures: Sequence[Measure],
    intro: str = "",
) -> str:
    """Return the explorer page for `cells` (see `write_explorer`)."""
    check_cells(cells, factors=factors, levels=levels, measures=measures)
    data = json.dumps(_data(cells, factors=factors, levels=levels, measures=measures), allow_nan=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")  # no "</script>" in it
    sizes = sorted({int(p) for p in cells["players"]})
    settings = math.prod(len(levels[f]) for f in factors)
    about = (
        f"{len(cells)} cells: table sizes {sizes[0]} to {sizes[-1]}, {settings} rule settings. Each number is a "
        f"value with its 95% interval; a change is the cell minus {REFERENCE} (every factor at its first level) "
        "at the same table size."
    )
    if any(m.unit == "pp" for m in measures):
        about += " pp: percentage points."
    lead = f'<p class="intro">{html.escape(intro)}</p>\n' if intro else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{STYLE}{_resource("explorer.css")}</style></head>
<body><main class="explorer">
<h1>{html.escape(title)}</h1>
{lead}<p class="about">{html.escape(about)}</p>
<noscript><p class="missing">This page shows its numbers with JavaScript, which is switched off.</p></noscript>
<section id="pick" aria-labelledby="pick-title"><h2 id="pick-title">Cell A</h2>
<div class="picker" data-picker="a"></div>
<p class="cell-name" id="a-name"></p>
<div class="cards" id="cell-a"></div>
</section>
<section id="versus" aria-labelledby="versus-title"><h2 id="versus-title">Cell B against cell A</h2>
<div class="picker" data-picker="b"><button type="button" id="swap">Swap A and B</button></div>
<p class="cell-name" id="b-name"></p>
<div class="cards" id="compare"></div>
<p class="note">B − A's interval, √(hwA² + hwB²) of the two half-widths, treats the cells as independent, so it is
wider than a paired interval would be: the cells of one table size play the same deals.</p>
</section>
<section id="every" aria-labelledby="every-title"><h2 id="every-title">Every cell</h2>
<p class="note">Click a column's heading to sort by it, again to reverse; A and B show a row's cell above.</p>
<div class="filters"></div>
<p id="count" aria-live="polite"></p>
<div class="table-wrap" tabindex="0"><table id="cells"><thead></thead><tbody></tbody></table></div>
</section>
</main>
<script type="application/json" id="atlas-data">{data}</script>
<script>{_resource("explorer.js")}</script>
</body></html>
"""


def write_explorer(
    cells: pd.DataFrame,
    path: Path,
    *,
    title: str,
    factors: Sequence[str],
    levels: Mapping[str, Sequence[str]],
    measures: Sequence[Measure],
    intro: str = "",
) -> Path:
    """Write the explorer page for the atlas's `cells` to `path` (``results/atlas/explorer.html``); return the path.

    `cells` has one row per cell: ``cell`` (a unique id), ``players`` (2 to 6), one column per
    factor of `factors` holding one of ``levels[factor]`` (the first the reference's), and for each
    measure m: m, m_low, m_high, m_change, m_change_low and m_change_high (NaN allowed).
    """
    page = explorer_html(cells, title=title, factors=factors, levels=levels, measures=measures, intro=intro)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(page, path)
    return path
