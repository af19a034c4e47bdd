"""explorer.html: the rules atlas in one offline page; every text it shows is the Python's (`cell_text` and co.).

B − A is paired within a table size (issue 42 part 7), settings are said in words, a measure's better or
worse is its own direction (docs/atlas.md), the title comes first at 500 px, and every text from data is text.
"""

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
from rummysim.report.atlas_explorer import atlas_measures
from rummysim.report.explorer import (
    COLUMNS,
    Measure,
    cell_name,
    cell_text,
    compare_text,
    estimate_text,
    page_data,
    write_explorer,
)
from rummysim.report.html import chromium, screenshot

FACTORS = ["ace", "going_out", "rummy_multiplier"]
LEVELS = {"ace": ["low", "high_or_low"], "going_out": ["any", "discard"], "rummy_multiplier": [2, 1]}
"""The levels as an experiment file types them (the rummy bonus a number), so that the page says them in words."""
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


def cell_at(players: int, **settings: object) -> str:
    """Return the id of the cell at `players` with `settings` (every other factor at its first level)."""
    levels = {f: settings.get(f, LEVELS[f][0]) for f in FACTORS}
    return f"{players} players/" + "&".join(f"{f}={levels[f]}" for f in FACTORS)


BASIC3 = cell_at(3)
A1, A2, A3 = (
    cell_at(3, ace="high_or_low"),
    cell_at(3, going_out="discard"),
    cell_at(3, ace="high_or_low", rummy_multiplier=1),
)
PAIRS = {
    EDGE.name: {(A3, A1): (-0.003, -0.0051, -0.0009)},  # given B = A1 against A = A3: the page turns it for A1, A3
    LENGTH.name: {(A1, A2): (0.5, 0.1, 0.9), (A1, A3): (0.25, 0.25, 0.25)},  # the second: alike in every game
}
"""Paired B − A for a few cells of one table size, as `rummysim.report.atlas_explorer.explorer_pairs` gives them."""


def write(cells: pd.DataFrame, folder: Path, **options) -> Path:
    given = {"title": "The rules atlas", "factors": FACTORS, "levels": LEVELS, "measures": MEASURES,
             "intro": "Basic rummy under every rule setting.", "pairs": PAIRS, **options}  # fmt: skip
    return write_explorer(cells, folder / "atlas" / "explorer.html", **given)


def data_of(cells: pd.DataFrame, **options) -> dict:
    """Return what the page embeds, as `write` writes it."""
    given = {"factors": FACTORS, "levels": LEVELS, "measures": MEASURES, "pairs": PAIRS, **options}
    return page_data(cells, **given)


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
    text = write(cells, tmp_path, pairs={}).read_text()
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
    with pytest.raises(ConfigError, match=r"^measure edge: better 'fair', not one of 'low', 'high', 'zero', ''$"):
        Measure("edge", "Edge", "pp", 2, "fair")


def test_cell_text_formats_values_changes_units_and_missing_numbers(cells):
    reference = cell_text(cells, "3 players/ace=low&going_out=any&rummy_multiplier=2", MEASURES)
    assert reference[f"{EDGE.name}.change"] == "0 pp"  # basic rummy against itself: an exact zero, never +0.00
    assert reference[f"{LENGTH.name}.change"] == "0 hands"
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


def test_b_minus_a_is_paired_within_a_table_size_and_against_basic_rummy_is_the_cells_own_change(cells):
    data = data_of(cells, change_levels={EDGE.name: 0.999})
    turned = compare_text(data, A1, A3)  # PAIRS gives A1 − A3: the page shows A3 − A1, turned
    assert (
        turned[f"{EDGE.name}.difference"]
        == estimate_text(0.003, 0.0009, 0.0051, EDGE, signed=True)
        == ("+0.30 pp [+0.09, +0.51]")
    )
    assert turned[f"{EDGE.name}.pairing"] == "paired (the same deals), at 99.9% as every change"
    assert turned[f"{EDGE.name}.phrase"] == "higher than A (worse): the interval excludes zero"  # EDGE: low is better
    assert compare_text(data, A3, A1)[f"{EDGE.name}.difference"] == "-0.30 pp [-0.51, -0.09]"
    assert compare_text(data, A1, A2)[f"{LENGTH.name}.difference"] == "+0.5 hands [+0.1, +0.9]"
    alike = compare_text(data, A1, A3)  # an interval of zero width is none: the same in every game
    assert alike[f"{LENGTH.name}.difference"] == "+0.2 hands" and alike[f"{LENGTH.name}.phrase"] == "no interval"
    # against basic rummy, B − A is the cell's own change, word for word, either way round: one change, one interval
    own = cell_text(cells, A2, MEASURES)
    for m in MEASURES:
        against = compare_text(data, BASIC3, A2)
        assert against[f"{m.name}.difference"] == own[f"{m.name}.change"]
        assert against[f"{m.name}.pairing"].startswith("paired (the same deals)")
        row = cells[cells["cell"] == A2].iloc[0]
        back = estimate_text(-row[m.name + "_change"], -row[m.name + "_change_high"], -row[m.name + "_change_low"], m,
                             signed=True)  # fmt: skip
        assert compare_text(data, A2, BASIC3)[f"{m.name}.difference"] == back


def test_b_minus_a_without_shared_deals_or_a_given_pair_is_unpaired_and_says_so(cells):
    data = data_of(cells)
    x, y = cells[cells["cell"] == A1].iloc[0], cells[cells["cell"] == cell_at(5, going_out="discard")].iloc[0]
    shown = compare_text(data, A1, y["cell"])
    d = y[LENGTH.name] - x[LENGTH.name]
    hw = math.hypot((x[LENGTH.name + "_high"] - x[LENGTH.name + "_low"]) / 2,
                    (y[LENGTH.name + "_high"] - y[LENGTH.name + "_low"]) / 2)  # fmt: skip
    assert shown[f"{LENGTH.name}.difference"] == estimate_text(d, d - hw, d + hw, LENGTH, signed=True)
    assert shown[f"{LENGTH.name}.pairing"] == (
        "unpaired: 3 and 5 players are dealt different cards; 95%, as if independent"
    )
    missing = compare_text(data, A2, A3)[f"{EDGE.name}.pairing"]  # one table size, but no pair given
    assert missing == "unpaired: no paired interval for these two cells; 95%, as if independent (wider)"
    assert compare_text(data, A2, A2)[f"{EDGE.name}.pairing"] == "A and B are the same cell"


def test_a_pair_of_two_table_sizes_or_an_unknown_cell_is_refused_in_one_line(cells, tmp_path):
    other = cell_at(5)
    with pytest.raises(ConfigError, match=re.escape(f"pairs: {EDGE.name}: pair {A1!r}, {other!r} has 3 and 5 players: "
                                                    "no shared deals")):  # fmt: skip
        write(cells, tmp_path, pairs={EDGE.name: {(A1, other): (0.0, -0.1, 0.1)}})
    with pytest.raises(ConfigError, match=r"^pairs: first_player_edge_hand: no cell 'nowhere' among the cells$"):
        write(cells, tmp_path, pairs={EDGE.name: {(A1, "nowhere"): (0.0, -0.1, 0.1)}})
    with pytest.raises(ConfigError, match=r"^pairs: 'speed' is not one of the measures"):
        write(cells, tmp_path, pairs={"speed": {}})


def test_settings_are_said_in_words_never_as_keys(cells):
    data = data_of(cells)
    assert data["words"]["rummy_multiplier"] == {
        "2": "going rummy doubling the points",
        "1": "no bonus for going rummy",
    }
    assert data["words"]["ace"] == {"low": "aces low only", "high_or_low": "aces high or low"}
    assert cell_name(data, A3) == "3 players: aces high or low, no bonus for going rummy"
    assert cell_name(data, BASIC3) == "3 players: basic rummy"


def test_better_or_worse_is_the_measures_own_direction_as_docs_atlas_md_says():
    """docs/atlas.md: an edge is fairer nearer zero (either sign), skill better higher, game length neither."""
    first, dealer, length, order = atlas_measures()
    assert (first.better, dealer.better, length.better, order.better) == ("zero", "zero", "", "high")
    rows = []
    for name, m, base, change in (
        ("first up", first, 0.0065, (0.0033, 0.0002, 0.0064)),  # docs/atlas.md's "+0.33 pp [+0.02, +0.64]"
        ("first down", first, 0.0065, (-0.0030, -0.0051, -0.0009)),  # nearer zero at every end
        ("first across", first, 0.0010, (-0.0030, -0.0051, -0.0009)),  # may end either side of zero: no word
        ("dealer down", dealer, -0.0062, (-0.0030, -0.0051, -0.0009)),  # lower, but further from zero
        ("length", length, 20.0, (-1.0, -1.5, -0.5)),
        ("order", order, 0.30, (-0.05, -0.08, -0.02)),
    ):
        row = {"cell": name, "players": 4}
        for other in (first, dealer, length, order):
            numbers = (base + change[0], math.nan, math.nan, *change) if other is m else (math.nan,) * 6
            row.update({other.name + c: x for c, x in zip(COLUMNS, numbers, strict=True)})
        rows.append((name, m, row))
    frame = pd.DataFrame([row for _, _, row in rows])
    said = {name: cell_text(frame, name, [m])[f"{m.name}.phrase"] for name, m, _ in rows}
    assert said == {
        "first up": "higher than basic rummy (worse): the interval excludes zero",
        "first down": "lower than basic rummy (better): the interval excludes zero",
        "first across": "lower than basic rummy: the interval excludes zero",
        "dealer down": "lower than basic rummy (worse): the interval excludes zero",
        "length": "lower than basic rummy: the interval excludes zero",
        "order": "lower than basic rummy (worse): the interval excludes zero",
    }


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
const COMPARED = ["a", "b", "difference", "phrase", "pairing"];
const report = (found) => {
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
};
"""


def measure(page: Path, script: str, folder: Path, *, hash: str = "", size: str = "1280,1000") -> dict:
    """Open a copy of `page` (at `hash`) in headless chromium with `script` run on load; return what it reported."""
    copy = folder / "measured.html"
    copy.write_text(page.read_text().replace("</body>", f"<script>{READ}\n{script}</script></body>"))
    uri = copy.as_uri() + hash
    dom = chromium(f"--window-size={size}", "--virtual-time-budget=5000", "--dump-dom", uri)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, flags=re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def settings(cells: pd.DataFrame, cell: str) -> dict[str, str]:
    row = cells[cells["cell"] == cell].iloc[0]
    return {"players": str(row["players"]), **{f: str(row[f]) for f in FACTORS}}


@pytest.mark.slow
def test_picking_a_and_b_shows_their_numbers_and_b_minus_a_and_puts_both_in_the_address(cells, tmp_path):
    a, b = cells["cell"][11], cells["cell"][6]  # neither is a default
    script = f"""window.addEventListener("load", () => {{
      pick("a", {json.dumps(settings(cells, a))});
      pick("b", {json.dumps(settings(cells, b))});
      report({{ a: read("#cell-a", ["value", "change", "phrase"]), compare: read("#compare", COMPARED),
                named: [document.getElementById("a-name").dataset.cell, document.getElementById("b-name").dataset.cell],
                names: [document.getElementById("a-name").textContent, document.getElementById("b-name").textContent],
                hash: location.hash }});
    }});"""
    found = measure(write(cells, tmp_path), script, tmp_path)
    assert found["a"] == cell_text(cells, a, MEASURES)
    assert found["compare"] == compare_text(data_of(cells), a, b)
    assert found["compare"][f"{EDGE.name}.pairing"].startswith("unpaired: 5 and 3 players are dealt different cards")
    assert found["named"] == [a, b]
    assert found["names"] == [cell_name(data_of(cells), a), cell_name(data_of(cells), b)]
    assert found["hash"] == f"#a={quote(a, safe='')}&b={quote(b, safe='')}"


@pytest.mark.slow
def test_a_deep_link_shows_its_cells_and_the_page_rounds_half_way_numbers_as_python_does(cells, tmp_path):
    a, b = TIE, cells["cell"][2]  # b's first player's edge is missing
    script = """window.addEventListener("load", () => report({
      a: read("#cell-a", ["value", "change", "phrase"]), compare: read("#compare", COMPARED),
      picked: [...document.querySelectorAll("select[data-pick]")].map((s) => s.value) }));"""
    hash = f"#a={quote(a, safe='')}&b={quote(b, safe='')}"
    found = measure(write(cells, tmp_path), script, tmp_path, hash=hash)
    assert found["a"] == cell_text(cells, a, MEASURES)
    assert found["a"][f"{STRENGTH.name}.value"] == "0.062 [0.062, 0.312]"  # toFixed alone says 0.063 [0.063, 0.313]
    assert found["compare"] == compare_text(data_of(cells), a, b)
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


@pytest.mark.slow
def test_the_page_shows_paired_and_unpaired_b_minus_a_as_the_python_does(cells, tmp_path):
    views = [(A1, A3), (A3, A1), (BASIC3, A2), (A2, BASIC3), (A2, A3), (A1, cell_at(5, ace="high_or_low"))]
    script = f"""window.addEventListener("load", () => {{
      const shown = [];
      for (const [a, b] of {json.dumps([[settings(cells, a), settings(cells, b)] for a, b in views])}) {{
        pick("a", a); pick("b", b); shown.push(read("#compare", COMPARED));
      }}
      report(shown);
    }});"""
    found = measure(write(cells, tmp_path, change_levels={EDGE.name: 0.999}), script, tmp_path)
    data = data_of(cells, change_levels={EDGE.name: 0.999})
    assert found == [compare_text(data, a, b) for a, b in views]
    assert found[0][f"{EDGE.name}.difference"] == "+0.30 pp [+0.09, +0.51]"


@pytest.mark.slow
def test_every_setting_on_the_page_is_in_words(cells, tmp_path):
    script = """window.addEventListener("load", () => report({
      text: document.body.innerText,
      options: Object.fromEntries([...document.querySelectorAll('select[data-pick="a"]')]
        .map((s) => [s.dataset.key, [...s.options].map((o) => o.textContent)])),
      labels: [...document.querySelectorAll('.picker[data-picker="a"] label > span')].map((s) => s.textContent),
      rules: [...document.querySelectorAll("#cells tbody tr")].map((tr) => tr.children[2].textContent) }));"""
    found = measure(write(cells, tmp_path), script, tmp_path, hash=f"#a={quote(A3, safe='')}")
    assert found["options"]["rummy_multiplier"] == ["going rummy doubling the points", "no bonus for going rummy"]
    assert found["options"]["players"] == ["3 players", "5 players"]
    assert found["labels"] == ["table size", "ace", "going out", "rummy multiplier"]
    assert "3 players: aces high or low, no bonus for going rummy" in found["text"]
    assert found["rules"][0] == "basic rummy" and "aces high or low, no bonus for going rummy" in found["rules"]
    for key in ("rummy_multiplier", "high_or_low", "=2", " 2,", "going_out"):  # no key, level or id on the page
        assert key not in found["text"], key


TOP = """window.addEventListener("load", () => {
  const box = (e) => e.getBoundingClientRect();
  const seen = [...document.querySelectorAll("main *")].filter((e) => box(e).height > 0 && !e.closest("h1"));
  report({ title: [box(document.querySelector("h1")).top, box(document.querySelector("h1")).bottom],
           first: Math.min(...seen.map((e) => box(e).top)), picker: box(document.querySelector(".picker")).top,
           width: document.documentElement.scrollWidth });
});"""


@pytest.mark.slow
@pytest.mark.parametrize("size", ["500,900", "1280,800"])
def test_the_title_comes_first_on_the_first_screen_then_cell_as_selectors(cells, tmp_path, size):
    """Issue 42 part 7: at 500 px the title is the page's first thing, at its top, with cell A's selectors below."""
    title = "How does each rule and house rule change fairness, game length and skill, at 2 to 6 players?"
    found = measure(write(cells, tmp_path, title=title), TOP, tmp_path, size=size)
    width, height = (int(x) for x in size.split(","))
    top, bottom = found["title"]
    assert top < 40 and bottom < found["first"], found  # nothing above the title, nothing beside it
    assert bottom < found["picker"] < height, found  # the title and cell A's selectors on the first screen
    assert found["width"] <= width


HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> & "x"'


@pytest.mark.slow
def test_every_text_from_data_is_text_never_html(cells, tmp_path):
    hostile = cells.copy()
    hostile["going_out"] = hostile["going_out"].replace({"discard": HOSTILE})
    hostile["cell"] = hostile["cell"].str.replace("discard", HOSTILE)
    levels = {**LEVELS, "going_out": ["any", HOSTILE]}
    label = Measure(EDGE.name, HOSTILE, EDGE.unit, EDGE.digits, EDGE.better)
    page = write(hostile, tmp_path, title=HOSTILE, intro=HOSTILE, levels=levels, pairs={},
                 measures=[label, LENGTH, STRENGTH])  # fmt: skip
    text = page.read_text()
    assert HOSTILE not in text and "<img" not in text and text.count("<script") == 2
    assert f"<h1>{html.escape(HOSTILE)}</h1>" in text
    a = hostile["cell"][hostile["going_out"] == HOSTILE].iloc[0]
    script = """window.addEventListener("load", () => {
      document.querySelector("#cells thead button").click();  // the table drawn again
      report({ pwned: window.pwned ?? null, images: document.querySelectorAll("img").length,
               scripts: document.querySelectorAll("script").length, title: document.querySelector("h1").textContent,
               intro: document.querySelector(".intro").textContent, name: document.getElementById("a-name").textContent,
               card: document.querySelector("#cell-a .card h3").textContent,
               options: [...document.querySelectorAll('select[data-key="going_out"] option')].map((o) => o.textContent),
               row: document.querySelector(`#cells tbody tr[data-cell="${CSS.escape(location.hash.slice(3))}"]`)
                 ?.dataset.cell ?? null });
    });"""
    found = measure(page, script, tmp_path, hash=f"#a={quote(a, safe='')}")
    assert found["pwned"] is None and found["images"] == 0 and found["scripts"] == 3  # the page's two and ours
    assert found["title"] == found["intro"] == found["card"] == HOSTILE
    assert found["name"] == f"3 players: going out {HOSTILE}"
    assert f"going out {HOSTILE}" in found["options"]
