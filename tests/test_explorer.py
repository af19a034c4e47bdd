"""explorer.html: the rules atlas in one offline page; every number it shows is the Python's (`cell_text`)."""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import struct
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest

from rummysim.errors import ConfigError
from rummysim.report.explorer import COLUMNS, Measure, cell_text, estimate_text, write_explorer
from rummysim.report.html import chromium, screenshot

FACTORS = ["ace", "going_out", "rummy_multiplier"]
LEVELS = {"ace": ["low", "high_or_low"], "going_out": ["any", "discard"], "rummy_multiplier": ["2", "1"]}
MEASURES = [
    Measure("first_player_edge_hand", "First player's edge, per hand", "pp", 2, "low"),
    Measure("game_length", "Game length", "hands", 1, ""),
    Measure("strength", "Cautious's strength", "", 3, "high"),
]
EDGE, LENGTH, STRENGTH = MEASURES
TIE = "5 players/ace=high_or_low&going_out=any&rummy_multiplier=2"
"""A cell of numbers exactly half-way between two shown ones, which Python rounds to even and toFixed up."""


def atlas() -> pd.DataFrame:
    """Two table sizes x three factors of two levels: 16 cells of random numbers, and a few awkward ones."""
    rng = np.random.default_rng(23)
    rows = []
    for players, settings in itertools.product((3, 5), itertools.product(*(LEVELS[f] for f in FACTORS))):
        name = "&".join(f"{f}={level}" for f, level in zip(FACTORS, settings, strict=True))
        row = {"cell": f"{players} players/{name}", "players": players, **dict(zip(FACTORS, settings, strict=True))}
        reference = all(level == LEVELS[f][0] for f, level in zip(FACTORS, settings, strict=True))
        for measure, centre, spread in ((EDGE, 0.02, 0.01), (LENGTH, 20.0, 3.0), (STRENGTH, 0.3, 0.1)):
            value, half, change = rng.normal(centre, spread), rng.uniform(0.1, 0.4) * spread, rng.normal(0, spread)
            change = 0.0 if reference else change
            ends = (math.nan, math.nan) if reference else (change - 1.4 * half, change + 1.4 * half)
            numbers = (value, value - half, value + half, change, *ends)
            row.update({measure.name + c: x for c, x in zip(COLUMNS, numbers, strict=True)})
        rows.append(row)
    cells = pd.DataFrame(rows)
    cells["rummy_multiplier"] = cells["rummy_multiplier"].astype(int)  # levels as the grid writes them
    tie = cells.index[cells["cell"] == TIE][0]
    cells.loc[tie, [STRENGTH.name + c for c in COLUMNS]] = [0.0625, 0.0625, 0.3125, -0.0625, -0.5625, -0.0004]
    cells.loc[tie, [LENGTH.name + c for c in COLUMNS]] = [20.25, 19.75, 20.75, 0.25, math.nan, math.nan]
    cells.loc[2, EDGE.name] = math.nan  # a value the analysis could not measure
    return cells


def write(cells: pd.DataFrame, folder: Path) -> Path:
    return write_explorer(
        cells, folder / "atlas" / "explorer.html", title="The rules atlas", factors=FACTORS, levels=LEVELS,
        measures=MEASURES, intro="Basic rummy under every rule setting.",
    )  # fmt: skip


@pytest.fixture()
def cells() -> pd.DataFrame:
    return atlas()


# The page, without a browser


def test_the_page_is_one_file_that_fetches_nothing(cells, tmp_path):
    path = write(cells, tmp_path)
    assert path == tmp_path / "atlas" / "explorer.html" and list(path.parent.iterdir()) == [path]
    text = path.read_text()
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"""\b(src|href)\s*=|<link|@import|url\(|fetch\(|XMLHttpRequest""", text, flags=re.I)
    assert text.count("<script") == 2 and "<style>" in text  # the data and the page's script, inline


def test_the_page_embeds_every_cell_and_a_script_tag_in_a_name_cannot_end_its_data(cells, tmp_path):
    cells.loc[4, "cell"] = "</script><b>odd</b>"
    text = write(cells, tmp_path).read_text()
    found = re.search(r'<script type="application/json" id="atlas-data">(.*?)</script>', text, flags=re.S)
    assert found
    data = json.loads(found.group(1))
    assert sorted(c["cell"] for c in data["cells"]) == sorted(cells["cell"])
    for entry in data["cells"]:
        row = cells[cells["cell"] == entry["cell"]].iloc[0]
        assert entry["players"] == row["players"] and entry["settings"] == {f: str(row[f]) for f in FACTORS}
        for m in MEASURES:
            numbers = [row[m.name + c] for c in COLUMNS]
            assert entry["numbers"][m.name] == [None if math.isnan(x) else x for x in numbers]


@pytest.mark.parametrize("column", ["cell", "players", "going_out", "game_length", "strength_change_high"])
def test_a_frame_missing_a_column_is_refused_in_one_line_naming_it(cells, tmp_path, column):
    with pytest.raises(ValueError) as error:
        write(cells.drop(columns=[column]), tmp_path)
    assert isinstance(error.value, ConfigError)
    assert str(error.value).startswith(f"cells: no column {column!r}; ") and "\n" not in str(error.value)
    assert not (tmp_path / "atlas").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({(1, "cell"): "3 players/ace=low&going_out=any&rummy_multiplier=2"},
         "cells: cell '3 players/ace=low&going_out=any&rummy_multiplier=2' is in column 'cell' more than once"),
        ({(1, "ace"): "high"}, "cells: column 'ace' has 'high' at cell "
         "'3 players/ace=low&going_out=any&rummy_multiplier=1', not one of low, high_or_low"),
        ({(0, "players"): 7}, "cells: column 'players' has 7 at cell "
         "'3 players/ace=low&going_out=any&rummy_multiplier=2'; rummy seats 2 to 6 (R1.1)"),
        ({(1, "rummy_multiplier"): 2}, "cells: cells '3 players/ace=low&going_out=any&rummy_multiplier=2' and "
         "'3 players/ace=low&going_out=any&rummy_multiplier=1' have the same players and levels"),
        ({(0, "game_length_low"): "short"}, "cells: column 'game_length_low' holds object, not numbers"),
    ],
)  # fmt: skip
def test_a_bad_frame_is_refused_in_one_line_naming_the_column(cells, tmp_path, change, message):
    for (row, column), value in change.items():
        cells[column] = cells[column].astype(object)
        cells.loc[row, column] = value
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        write(cells, tmp_path)


def test_a_measure_checks_its_unit_and_direction():
    with pytest.raises(ConfigError, match=r"^measure edge: unit 'percent', not one of 'pp', 'hands', ''$"):
        Measure("edge", "Edge", "percent", 2, "low")
    with pytest.raises(ConfigError, match=r"^measure edge: better 'fair', not one of 'low', 'high', ''$"):
        Measure("edge", "Edge", "pp", 2, "fair")


def test_cell_text_formats_values_changes_units_and_missing_numbers(cells):
    reference = cell_text(cells, "3 players/ace=low&going_out=any&rummy_multiplier=2", MEASURES)
    assert reference[f"{EDGE.name}.change"] == "+0.00 pp"
    assert reference[f"{LENGTH.name}.change"] == "+0.0 hands"
    assert reference[f"{STRENGTH.name}.phrase"] == "this is basic rummy, the reference"
    tie = cell_text(cells, TIE, MEASURES)  # half-way numbers round to even; no -0.000
    assert tie[f"{STRENGTH.name}.value"] == "0.062 [0.062, 0.312]"
    assert tie[f"{STRENGTH.name}.change"] == "-0.062 [-0.562, +0.000]"
    assert tie[f"{STRENGTH.name}.phrase"] == "lower than basic rummy (worse): the interval excludes zero"
    assert tie[f"{LENGTH.name}.value"] == "20.2 hands [19.8, 20.8]"
    assert (tie[f"{LENGTH.name}.change"], tie[f"{LENGTH.name}.phrase"]) == ("+0.2 hands", "no interval")
    missing = cell_text(cells, cells["cell"][2], MEASURES)
    assert missing[f"{EDGE.name}.value"] == "n/a"
    row = cells.iloc[9]
    shown = cell_text(cells, row["cell"], MEASURES)
    e = {c: row[EDGE.name + c] * 100 for c in COLUMNS}
    assert shown[f"{EDGE.name}.value"] == f"{e['']:.2f} pp [{e['_low']:.2f}, {e['_high']:.2f}]"
    assert shown[f"{EDGE.name}.change"] == f"{e['_change']:+.2f} pp [{e['_change_low']:+.2f}, {e['_change_high']:+.2f}]"
    assert estimate_text(0.5, 0.25, 0.75, Measure("x", "X", "", 0, "")) == "0 [0, 1]"  # 0.5 to even, 0.75 up


# The page in headless chromium: a script picks cells as a reader would and writes what the page shows into the DOM

READ = """
const read = (scope, parts) => Object.fromEntries(
  [...document.querySelectorAll(`${scope} [data-measure][data-part]`)].filter((e) => parts.includes(e.dataset.part))
    .map((e) => [`${e.dataset.measure}.${e.dataset.part}`, e.textContent]));
const pick = (which, settings) => {
  for (const [key, value] of Object.entries(settings)) {
    const select = document.querySelector(`select[data-pick="${which}"][data-key="${key}"]`);
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  }
};
const rows = () => [...document.querySelectorAll("#cells tbody tr")].map((tr) => tr.dataset.cell);
const report = (found) => {
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
};
"""


def measure(page: Path, script: str, folder: Path, *, hash: str = "") -> dict:
    """Open a copy of `page` (at `hash`) in headless chromium with `script` run on load; return what it reported."""
    copy = folder / "measured.html"
    copy.write_text(page.read_text().replace("</body>", f"<script>{READ}\n{script}</script></body>"))
    uri = copy.as_uri() + hash
    dom = chromium("--window-size=1280,1000", "--virtual-time-budget=5000", "--dump-dom", uri)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, flags=re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def settings(cells: pd.DataFrame, cell: str) -> dict[str, str]:
    row = cells[cells["cell"] == cell].iloc[0]
    return {"players": str(row["players"]), **{f: str(row[f]) for f in FACTORS}}


def difference_text(cells: pd.DataFrame, a: str, b: str) -> dict[str, str]:
    """B − A and its interval from the half-widths, sqrt(hwA² + hwB²), as if the cells were independent."""
    x, y = (cells[cells["cell"] == cell].iloc[0] for cell in (a, b))
    shown = {}
    for m in MEASURES:
        d = y[m.name] - x[m.name]
        hx, hy = (x[m.name + "_high"] - x[m.name + "_low"]) / 2, (y[m.name + "_high"] - y[m.name + "_low"]) / 2
        hw = math.sqrt(hx * hx + hy * hy)
        shown[f"{m.name}.difference"] = estimate_text(d, d - hw, d + hw, m, signed=True)
    return shown


def values(cells: pd.DataFrame, cell: str, part: str) -> dict[str, str]:
    """What the comparison shows as A or B: the cell's values."""
    shown = cell_text(cells, cell, MEASURES)
    return {f"{m.name}.{part}": shown[f"{m.name}.value"] for m in MEASURES}


@pytest.mark.slow
def test_picking_a_and_b_shows_their_numbers_and_b_minus_a_and_puts_both_in_the_address(cells, tmp_path):
    a, b = cells["cell"][11], cells["cell"][6]  # neither is a default
    script = f"""window.addEventListener("load", () => {{
      pick("a", {json.dumps(settings(cells, a))});
      pick("b", {json.dumps(settings(cells, b))});
      report({{ a: read("#cell-a", ["value", "change", "phrase"]), compare: read("#compare", ["a", "b", "difference"]),
                named: [document.getElementById("a-name").dataset.cell, document.getElementById("b-name").dataset.cell],
                hash: location.hash }});
    }});"""
    found = measure(write(cells, tmp_path), script, tmp_path)
    assert found["a"] == cell_text(cells, a, MEASURES)
    assert found["compare"] == values(cells, a, "a") | values(cells, b, "b") | difference_text(cells, a, b)
    assert found["named"] == [a, b]
    assert found["hash"] == f"#a={quote(a, safe='')}&b={quote(b, safe='')}"


@pytest.mark.slow
def test_a_deep_link_shows_its_cells_and_the_page_rounds_half_way_numbers_as_python_does(cells, tmp_path):
    a, b = TIE, cells["cell"][2]  # b's first player's edge is missing
    script = """window.addEventListener("load", () => report({
      a: read("#cell-a", ["value", "change", "phrase"]), compare: read("#compare", ["a", "b", "difference"]),
      picked: [...document.querySelectorAll("select[data-pick]")].map((s) => s.value) }));"""
    hash = f"#a={quote(a, safe='')}&b={quote(b, safe='')}"
    found = measure(write(cells, tmp_path), script, tmp_path, hash=hash)
    assert found["a"] == cell_text(cells, a, MEASURES)
    assert found["a"][f"{STRENGTH.name}.value"] == "0.062 [0.062, 0.312]"  # toFixed alone says 0.063 [0.063, 0.313]
    assert found["compare"] == values(cells, a, "a") | values(cells, b, "b") | difference_text(cells, a, b)
    assert found["compare"][f"{EDGE.name}.difference"] == "n/a"
    assert found["picked"] == [*settings(cells, a).values(), *settings(cells, b).values()]


@pytest.mark.slow
def test_a_column_heading_sorts_the_rows_and_a_filter_shows_exactly_the_matching_cells(cells, tmp_path):
    script = f"""window.addEventListener("load", () => {{
      const sort = (key) => document.querySelector(`button[data-sort="${{key}}"]`).click();
      const found = {{ first: rows() }};
      sort("{EDGE.name}.value"); found.up = rows();
      sort("{EDGE.name}.value"); found.down = rows();
      sort("{LENGTH.name}.change"); found.change = rows();
      for (const [key, value] of [["players", "5"], ["ace", "high_or_low"]]) {{
        const select = document.querySelector(`select[data-filter][data-key="${{key}}"]`);
        select.value = value;
        select.dispatchEvent(new Event("change", {{ bubbles: true }}));
      }}
      found.filtered = rows();
      found.count = [document.getElementById("count").textContent, document.getElementById("count").dataset.shown];
      report(found);
    }});"""
    found = measure(write(cells, tmp_path), script, tmp_path)
    by_cell = cells.set_index("cell")
    assert sorted(found["first"]) == sorted(cells["cell"])

    def in_order(order: list[str], column: str, *, down: bool = False) -> None:
        numbers = by_cell.loc[order, column].to_numpy()
        known = numbers[~np.isnan(numbers)]
        assert np.isnan(numbers[len(known) :]).all()  # the missing last, whichever the direction
        assert (np.diff(known) <= 0).all() if down else (np.diff(known) >= 0).all()

    assert sorted(found["up"]) == sorted(cells["cell"]) and found["up"] != found["first"]
    in_order(found["up"], EDGE.name)
    in_order(found["down"], EDGE.name, down=True)
    assert found["down"][-1] == cells["cell"][2]  # the missing value
    in_order(found["change"], LENGTH.name + "_change")
    matching = cells[(cells["players"] == 5) & (cells["ace"] == "high_or_low")]
    assert sorted(found["filtered"]) == sorted(matching["cell"])
    in_order(found["filtered"], LENGTH.name + "_change")  # the sort holds under the filter
    assert found["count"] == [f"{len(matching)} of {len(cells)} cells shown", str(len(matching))]


PHONE = """<!DOCTYPE html><html><body style="margin: 0">
<iframe id="phone" style="width: 375px; height: 800px; border: 0" srcdoc="{page}"></iframe><script>{read}
window.addEventListener("load", () => {{
  const phone = document.getElementById("phone").contentWindow;
  report({{ viewport: phone.innerWidth, page: phone.document.documentElement.scrollWidth,
            table: phone.document.querySelector("#every .table-wrap").scrollWidth,
            cards: phone.document.querySelectorAll("#cell-a .card").length }});
}});
</script></body></html>"""


@pytest.mark.slow
def test_the_page_fits_a_phone_and_a_screenshot_shows_it(cells, tmp_path):
    """A phone's 375 px, in a frame (headless chromium's window is at least 500 px wide); then a screenshot."""
    page = write(cells, tmp_path)
    phone = tmp_path / "phone.html"
    phone.write_text(PHONE.format(page=html.escape(page.read_text()), read=READ))
    dom = chromium("--window-size=800,1000", "--virtual-time-budget=5000", "--dump-dom", phone.as_uri())
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, flags=re.S)
    assert found, dom[-2000:]
    measured = json.loads(html.unescape(found.group(1)))
    assert measured["viewport"] == 375 and measured["cards"] == len(MEASURES)
    assert measured["page"] <= 375 < measured["table"]  # nothing sticks out; the table scrolls in its own box
    png = screenshot(page, tmp_path / "explorer.png", width=1280, height=900)
    assert struct.unpack(">II", png.read_bytes()[16:24]) == (1280, 900)  # the PNG header's IHDR
