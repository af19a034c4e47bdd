"""explorer.html: a rules atlas (issue 23) as one page a player opens offline to pick, compare, sort and filter cells.

A *cell* is a table size and one level of each rule factor; the atlas's analysis gives each
cell one row of `cells` (see `write_explorer`). The page shows:

- cell A, picked with a selector for the table size and one per factor, each level in a
  player's words (`level_words`): each measure's value with its 95% interval, its change
  against basic rummy at the same table size (every factor at its first level) with its
  interval, and a phrase saying whether that interval excludes zero and, where the measure
  has a better direction, whether the change is better or worse (`change_phrase`);
- cell B against it: A, B and B − A (`difference_of`). Two cells of one table size play the
  same deals, so their B − A is *paired*: against basic rummy it is the cell's own change;
  between two other cells, the interval `pairs` gives (`rummysim.analysis.pairs`), at the
  level of the changes. Cells of two table sizes are dealt different cards: their B − A is
  *unpaired*, √(hwA² + hwB²) of the two values' 95% half-widths, as if independent, and the
  page says so;
- every cell in a table that sorts by any column and filters by table size and factor;
- the two cells in the address, ``explorer.html#a=<cell>&b=<cell>``, so a view can be shared.

The page is one file: the style sheet, ``explorer.js`` and the cells (JSON, `page_data`) are
inside it, so it fetches nothing. Every text the page writes from data is set as text, never
parsed as HTML. ``explorer.js`` formats every number with one function whose Python twin is
`estimate_text`; `cell_text` and `compare_text` give the strings the page shows, which is how
the tests hold the page to the Python. Formats, by `Measure.unit` (``digits`` decimals):

========= ============================ ============================
unit      value                        change
========= ============================ ============================
``pp``    ``2.31 pp [1.98, 2.64]``     ``+0.33 pp [+0.02, +0.64]``  (a proportion x 100)
``hands`` ``19.7 hands [19.4, 20.0]``  ``-1.2 hands [-1.5, -0.9]``
``""``    ``0.512 [0.498, 0.526]``     ``+0.014 [+0.001, +0.027]``
========= ============================ ============================

A missing value (NaN) shows as ``n/a`` and a missing interval, or one whose ends are equal,
not at all; a number exactly half-way rounds to even as Python's format does (0.125 to 2
decimals is 0.12); none shows as -0.00.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from rummysim.errors import ConfigError
from rummysim.report.explorer_text import (
    BETTER,
    REFERENCE,
    UNITS,
    Measure,
    change_phrase,
    estimate_text,
    level_text,
    level_words,
    number_text,
)
from rummysim.report.html import STYLE
from rummysim.results import write_text_atomic

__all__ = [
    "BETTER", "COLUMNS", "REFERENCE", "UNITS", "Measure", "cell_text", "change_phrase", "compare_text",
    "difference_of", "estimate_text", "explorer_html", "level_text", "level_words", "number_text", "page_data",
    "write_explorer",
]  # fmt: skip
"""The explorer's words and numbers live in `rummysim.report.explorer_text`; they are named here too."""

COLUMNS = ("", "_low", "_high", "_change", "_change_low", "_change_high")
"""The columns each measure m has in the cells frame: m, m_low, m_high, m_change, m_change_low, m_change_high."""

KEPT = 4
"""Decimals a pair's numbers keep in the page beyond those it shows: the page and `compare_text` read the same ones."""

Triple = tuple[float, float, float]
"""A difference with its interval: (value, low, high)."""


def _number(x: Any) -> float:
    return math.nan if pd.isna(x) else float(x)


def cell_text(cells: pd.DataFrame, cell_id: str, measures: Sequence[Measure]) -> dict[str, str]:
    """Return the strings the page shows for a cell: ``"<measure>.value"``, ``".change"`` and ``".phrase"`` of each.

    The keys name the page's elements: ``[data-measure="<measure>"][data-part="value"]`` and so on.
    A ``zero`` measure's better or worse is judged from basic rummy's level, the value less the change.
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
        phrase = change_phrase(change, change_low, change_high, measure, base=value - change)
        shown[f"{measure.name}.phrase"] = phrase
    return shown


def check_cells(
    cells: pd.DataFrame, *, factors: Sequence[str], levels: Mapping[str, Sequence[object]], measures: Sequence[Measure]
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
        names = [str(v) for v in levels[factor]]
        for cell, level in zip(cells["cell"], cells[factor].astype(str), strict=True):
            if level not in names:
                raise ConfigError(f"cells: column {factor!r} has {level!r} at cell {cell!r}, not one of "
                                  f"{', '.join(names)}")  # fmt: skip
    settings = cells[["players", *factors]].astype(str)
    same = settings.duplicated(keep=False)
    if same.any():
        first, second = cells["cell"][same].iloc[:2]
        raise ConfigError(f"cells: cells {first!r} and {second!r} have the same players and levels", key="cell")


def _triangle(i: int, j: int, n: int) -> int:
    """Return where pair i < j of n cells sits in a row-major upper triangle: (0, 1), (0, 2), ..., (1, 2), ..."""
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


def _packed(
    pairs: Mapping[tuple[str, str], Triple], *, measure: Measure, at: Mapping[str, tuple[int, int]],
    sizes: Mapping[int, int],
) -> dict[str, list[float | None]]:  # fmt: skip
    """Return one measure's pairs as the page holds them: per table size, a flat upper triangle of (B − A, low, high).

    Entry (i, j), i < j in the page's order, is cell j − cell i, each number kept to `KEPT`
    decimals beyond those shown; a pair given the other way round is turned (−d, −high, −low).
    """
    decimals = measure.digits + KEPT + (2 if measure.unit == "pp" else 0)
    packed: dict[str, list[float | None]] = {}
    for (a, b), triple in pairs.items():
        for cell in (a, b):
            if cell not in at:
                raise ConfigError(f"pairs: {measure.name}: no cell {cell!r} among the cells", key="pairs")
        (pa, i), (pb, j) = at[a], at[b]
        if pa != pb or i == j:
            why = "is the same cell twice" if i == j and pa == pb else f"has {pa} and {pb} players: no shared deals"
            raise ConfigError(f"pairs: {measure.name}: pair {a!r}, {b!r} {why}", key="pairs")
        d, low, high = (float(x) for x in triple)
        if i > j:
            i, j, d, low, high = j, i, -d, -high, -low
        n = sizes[pa]
        flat = packed.setdefault(str(pa), [None] * (3 * n * (n - 1) // 2))
        k = 3 * _triangle(i, j, n)
        flat[k : k + 3] = [round(x, decimals) if math.isfinite(x) else None for x in (d, low, high)]
    return packed


def page_data(
    cells: pd.DataFrame, *, factors: Sequence[str], levels: Mapping[str, Sequence[object]], measures: Sequence[Measure],
    pairs: Mapping[str, Mapping[tuple[str, str], Triple]] | None = None,
    change_levels: Mapping[str, float] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Return what the page embeds: the factors, their levels in words, the measures, every cell, the pairs.

    Cells are in the page's order: by table size, then by the index of each factor's level, so
    basic rummy comes first at each size. See `write_explorer` for `pairs` and `change_levels`.
    """
    check_cells(cells, factors=factors, levels=levels, measures=measures)
    names = {f: [str(v) for v in levels[f]] for f in factors}
    known = {m.name: m for m in measures}
    for name in [*(pairs or {}), *(change_levels or {})]:
        if name not in known:
            where = "pairs" if name in (pairs or {}) else "change_levels"
            raise ConfigError(f"{where}: {name!r} is not one of the measures ({', '.join(known)})", key=where)

    def entry(row: pd.Series) -> dict[str, Any]:
        numbers = {m.name: [_number(row[m.name + c]) for c in COLUMNS] for m in measures}
        return {
            "cell": str(row["cell"]),
            "players": int(row["players"]),
            "settings": {f: str(row[f]) for f in factors},
            "numbers": {name: [x if math.isfinite(x) else None for x in xs] for name, xs in numbers.items()},
        }

    entries = [entry(row) for _, row in cells.iterrows()]
    entries.sort(key=lambda e: (e["players"], *(names[f].index(e["settings"][f]) for f in factors)))
    at: dict[str, tuple[int, int]] = {}
    sizes: dict[int, int] = {}
    for e in entries:
        e["index"] = sizes.get(e["players"], 0)
        sizes[e["players"]] = e["index"] + 1
        at[e["cell"]] = (e["players"], e["index"])
    level_of = {m.name: float((change_levels or {}).get(m.name, 0.95)) for m in measures}
    return {
        "factors": list(factors),
        "levels": names,
        "words": {f: {str(v): level_words(f, v, levels[f]) for v in levels[f]} for f in factors},
        "measures": [
            {**asdict(m), "level": level_of[m.name], "levelText": level_text(level_of[m.name])} for m in measures
        ],
        "reference": REFERENCE,
        "cells": entries,
        "pairs": {m: _packed(p, measure=known[m], at=at, sizes=sizes) for m, p in (pairs or {}).items()},
    }


def cell_name(data: Mapping[str, Any], cell: str) -> str:
    """Return a cell as the page names it: ``3 players: basic rummy``, ``5 players: aces high or low, ...``."""
    entry = next(e for e in data["cells"] if e["cell"] == cell)
    words = [data["words"][f][entry["settings"][f]] for f in data["factors"]
             if entry["settings"][f] != data["levels"][f][0]]  # fmt: skip
    return f"{entry['players']} players: {', '.join(words) if words else REFERENCE}"


def _is_reference(data: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    return all(entry["settings"][f] == data["levels"][f][0] for f in data["factors"])


def _numbers(entry: Mapping[str, Any], measure: str) -> list[float]:
    return [math.nan if x is None else float(x) for x in entry["numbers"][measure]]


def difference_of(data: Mapping[str, Any], a: str, b: str, measure: str) -> tuple[float, float, float, str]:
    """Return the page's B − A of one measure with its interval, and how it was found (``explorer.js``'s twin).

    How: ``paired`` (one table size: the cell's own change where A or B is basic rummy, else
    the pair's given interval), ``same`` (one cell twice), ``unpaired`` (one table size, no
    pair given) or ``sizes`` (two table sizes: dealt different cards); the last two combine the
    values' 95% half-widths as if the cells were independent, √(hwA² + hwB²).
    """
    x, y = (next(e for e in data["cells"] if e["cell"] == c) for c in (a, b))
    va, vb = _numbers(x, measure), _numbers(y, measure)
    if a == b:
        return 0.0 if math.isfinite(va[0]) else math.nan, math.nan, math.nan, "same"
    if x["players"] == y["players"]:
        if _is_reference(data, x):
            return vb[3], vb[4], vb[5], "paired"
        if _is_reference(data, y):
            return -va[3], -va[5], -va[4], "paired"
        flat = data["pairs"].get(measure, {}).get(str(x["players"]))
        if flat is not None:
            i, j = sorted((x["index"], y["index"]))
            n = sum(e["players"] == x["players"] for e in data["cells"])
            k = 3 * _triangle(i, j, n)
            d, low, high = (math.nan if v is None else float(v) for v in flat[k : k + 3])
            if math.isfinite(d):
                return (d, low, high, "paired") if x["index"] < y["index"] else (-d, -high, -low, "paired")
    d = vb[0] - va[0]
    hw = math.sqrt(((va[2] - va[1]) / 2) ** 2 + ((vb[2] - vb[1]) / 2) ** 2)
    return d, d - hw, d + hw, "sizes" if x["players"] != y["players"] else "unpaired"


def pairing_text(how: str, level: str, players: tuple[int, int]) -> str:
    """Return the page's words for how B − A's interval was found (`difference_of`)."""
    return {
        "paired": f"paired (the same deals), at {level} as every change",
        "same": "A and B are the same cell",
        "unpaired": "unpaired: no paired interval for these two cells; 95%, as if independent (wider)",
        "sizes": f"unpaired: {players[0]} and {players[1]} players are dealt different cards; 95%, as if independent",
    }[how]


def compare_text(data: Mapping[str, Any], a: str, b: str) -> dict[str, str]:
    """Return the strings the page shows for B against A: ``"<measure>.a"``, ``".b"``, ``".difference"``,
    ``".pairing"`` and ``".phrase"`` of each measure (a ``zero`` measure's better or worse judged from A's value)."""
    x, y = (next(e for e in data["cells"] if e["cell"] == c) for c in (a, b))
    shown = {}
    for spec in data["measures"]:
        m, name = Measure(**{k: spec[k] for k in ("name", "label", "unit", "digits", "better")}), spec["name"]
        va, vb = _numbers(x, name), _numbers(y, name)
        d, low, high, how = difference_of(data, a, b, name)
        shown[f"{name}.a"] = estimate_text(va[0], va[1], va[2], m)
        shown[f"{name}.b"] = estimate_text(vb[0], vb[1], vb[2], m)
        shown[f"{name}.difference"] = estimate_text(d, low, high, m, signed=True)
        shown[f"{name}.pairing"] = pairing_text(how, spec["levelText"], (x["players"], y["players"]))
        shown[f"{name}.phrase"] = change_phrase(d, low, high, m, base=va[0], against="A")
    return shown


def _resource(name: str) -> str:
    return resources.files("rummysim.report").joinpath(name).read_text(encoding="utf-8")


def _about(cells: pd.DataFrame, data: Mapping[str, Any]) -> str:
    """Return the page's note on what it shows: cells, rule sets, and the level of each kind of interval."""
    sizes = sorted({int(p) for p in cells["players"]})
    settings = math.prod(len(v) for v in data["levels"].values())
    levels = {m["levelText"] for m in data["measures"]}
    if len(levels) == 1:
        level = next(iter(levels))
        at = f"at {level}" + (", so that all of them hold at once" if level != "95%" else "")
    else:
        at = "at " + ", ".join(f"{m['levelText']} ({m['label']})" for m in data["measures"])
    about = (
        f"{len(cells)} cells: table sizes {sizes[0]} to {sizes[-1]}, {settings} rule sets. Each value has its 95% "
        f"interval. A change is the cell minus {REFERENCE} (every rule at its first setting) at the same table size, "
        f"on the same deals, with its interval {at}."
    )
    return about + (" pp: percentage points." if any(m["unit"] == "pp" for m in data["measures"]) else "")


def explorer_html(
    cells: pd.DataFrame, *, title: str, factors: Sequence[str], levels: Mapping[str, Sequence[object]],
    measures: Sequence[Measure], intro: str = "", pairs: Mapping[str, Mapping[tuple[str, str], Triple]] | None = None,
    change_levels: Mapping[str, float] | None = None,
) -> str:  # fmt: skip
    """Return the explorer page for `cells` (see `write_explorer`)."""
    data = page_data(cells, factors=factors, levels=levels, measures=measures, pairs=pairs, change_levels=change_levels)
    about = _about(cells, data)
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")  # no "</script>" in it
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
<p class="note">Two cells of one table size play the same deals, so B − A is paired: against {REFERENCE} it is the
cell's own change, and between two other cells its interval comes from the same games, at the level of every change.
Cells of two table sizes are dealt different cards: their B − A is unpaired, B − A ± √(hwA² + hwB²) of the two values'
95% half-widths, as if independent, and says so.</p>
</section>
<section id="every" aria-labelledby="every-title"><h2 id="every-title">Every cell</h2>
<p class="note">Click a column's heading to sort by it, again to reverse; A and B show a row's cell above.</p>
<div class="filters"></div>
<p id="count" aria-live="polite"></p>
<div class="table-wrap" tabindex="0"><table id="cells"><thead></thead><tbody></tbody></table></div>
</section>
</main>
<script type="application/json" id="atlas-data">{text}</script>
<script>{_resource("explorer.js")}</script>
</body></html>
"""


def write_explorer(
    cells: pd.DataFrame, path: Path, *, title: str, factors: Sequence[str], levels: Mapping[str, Sequence[object]],
    measures: Sequence[Measure], intro: str = "", pairs: Mapping[str, Mapping[tuple[str, str], Triple]] | None = None,
    change_levels: Mapping[str, float] | None = None,
) -> Path:  # fmt: skip
    """Write the explorer page for the atlas's `cells` to `path` (``results/atlas/explorer.html``); return the path.

    `cells` has one row per cell: ``cell`` (a unique id), ``players`` (2 to 6), one column per
    factor of `factors` holding one of ``levels[factor]`` (the first the reference's; typed as the
    experiment file has them, so that `level_words` says them right), and for each measure m: m,
    m_low, m_high, m_change, m_change_low and m_change_high (NaN allowed).

    `pairs`: per measure, (cell A, cell B) -> (B − A, low, high) for cells of one table size, on
    their shared deals (`rummysim.report.atlas_explorer.explorer_pairs`); a pair not given is
    shown unpaired, and says so. `change_levels`: per measure, the confidence level of the
    changes' and the pairs' intervals (95% if not given).
    """
    page = explorer_html(cells, title=title, factors=factors, levels=levels, measures=measures, intro=intro,
                         pairs=pairs, change_levels=change_levels)  # fmt: skip
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(page, path)
    return path
