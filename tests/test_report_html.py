"""report.html built for reading: contents, tables that scroll in their own box, verdicts boxed, all offline."""

from __future__ import annotations

import base64
import html
import json
import re
import struct

import matplotlib.pyplot as plt
import pytest

from rummysim.errors import RummysimError
from rummysim.report import html as page
from rummysim.report.html import VERDICT_COLORS, render_html, screenshot

WIDE = "| " + " | ".join(f"column {i}" for i in range(14)) + " |\n|" + "---:|" * 14 + "\n"
WIDE += "| " + " | ".join(f"-0.{i:03d} [-0.26{i}, +0.23{i}]" for i in range(14)) + " |\n"
WIDE += "| " + " | ".join(f"first_seat_advantage_game_{i}" for i in range(14)) + " |\n"  # words that cannot break

TEXT = f"""# Does <ace> high & low change who wins?

## Answer

- **Yes**: games are shorter, by 7.26 hands [7.23, 7.29].
- **No**: the first seat's edge changes by less than the margin of 1 [pp](#glossary).
- **Can't tell**: whether skill shows more.
- **Yes, but small**: the first player's edge in a hand grows a little.

### `ace_high` against `basic` (paired)

**No**: the first seat's edge changes by -0.02 pp [-0.26, +0.23], and **No** other word is a verdict here.

- an item
- **Yes**: but not every item opens with a verdict, so this list is no box

## Tables

| condition | games | what it is |
|:--|--:|:--|
| basic | 300 | the win share of the seat that plays first in a game's first hand, less 1/n |

### Every metric by condition

{WIDE}
## Charts

### Game length

![Game length](figures/game_length.png)

## Glossary

**Yes**: a real change, beyond the margin.

**Can't tell**: the data allow a change beyond the margin.

pp: percentage points.
"""


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "figures").mkdir()
    fig = plt.figure(figsize=(16, 3))  # wider than any screen's column: it must shrink to fit
    fig.savefig(tmp_path / "figures" / "game_length.png", dpi=110)
    plt.close(fig)
    return tmp_path


@pytest.fixture()
def rendered(folder):
    return render_html(TEXT, title="Does <ace> high & low change who wins?", folder=folder)


def _main(text: str) -> str:
    return text.split("<main>")[1].split("</main>")[0]


def test_the_contents_list_links_to_every_h2_and_h3(rendered):
    headings = re.findall(r'<h([23]) id="([^"]+)">', _main(rendered))
    nav = re.search(r'<nav class="contents".*?</nav>', rendered, flags=re.DOTALL)
    assert nav and len(headings) == 7
    links = re.findall(r'<a href="#([^"]+)"', nav.group(0))
    assert links == [slug for _, slug in headings]
    assert "<h1" not in nav.group(0).replace("<h2>Contents</h2>", "")
    # an h3 sits in its h2's own list: Answer > the comparison
    assert re.search(r'href="#answer".*?</a><ol><li><a href="#ace_high-against-basic-paired"', nav.group(0))


def test_headings_have_anchors_so_a_glossary_link_works(rendered):
    assert '<a href="#glossary">pp</a>' in rendered
    assert '<h2 id="glossary">' in rendered


def test_every_table_sits_in_a_box_that_scrolls_sideways(rendered):
    tables = rendered.count("<table>")
    assert tables == 2
    assert len(re.findall(r'<div class="table-wrap" tabindex="0">\s*<table>', rendered)) == tables
    assert re.search(r"\.table-wrap \{[^}]*overflow-x: auto", page.STYLE)
    # an interval in a cell is kept on one line; a cell of words is kept wide enough to read
    assert '<span class="nobr">-0.000 [-0.260, +0.230]</span>' in rendered
    assert '<td class="words" style="text-align: left;">the win share' in rendered


def test_the_verdict_list_is_a_box_and_each_verdict_a_coloured_badge(rendered):
    boxes = re.findall(r'<div class="verdicts">(.*?)</div>', rendered, flags=re.DOTALL)
    assert len(boxes) == 1  # the Answer's list; the Glossary's verdict paragraphs get badges only
    badges = re.findall(r'<li><strong class="verdict verdict-([a-z-]+)">([^<]+)</strong>', boxes[0])
    assert badges == [("yes", "Yes"), ("no", "No"), ("cant-tell", "Can't tell"), ("small", "Yes, but small")]
    glossary = rendered.split('<h2 id="glossary">')[1]
    assert glossary.count('<p><strong class="verdict verdict-') == 2
    for slug, word in (("yes", "Yes"), ("small", "Yes, but small"), ("no", "No"), ("cant-tell", "Can't tell")):
        assert f".verdict-{slug} {{ background: {VERDICT_COLORS[word]}; }}" in page.STYLE
    assert re.search(r"\.verdicts \{[^}]*border-left: 6px solid", page.STYLE)


def test_a_verdict_opening_a_paragraph_gets_its_badge_but_no_box_and_other_bold_words_stay_plain(rendered):
    section = _main(rendered).split('id="ace_high-against-basic-paired"')[1].split('<h2 id="tables"')[0]
    assert '<p><strong class="verdict verdict-no">No</strong>: the first seat' in section
    assert "and <strong>No</strong> other word" in section  # mid-sentence: not a verdict
    assert 'class="verdicts"' not in section  # one verdict paragraph among others, and a mixed list: no box
    assert '<li><strong class="verdict verdict-yes">Yes</strong>: but not every item' in section


def test_nothing_is_fetched_from_the_network(rendered):
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", rendered)
    assert not re.search(r"<link|<script|@import|url\(", rendered, flags=re.IGNORECASE)
    assert "@media print" in rendered


def test_images_are_embedded_and_sized_to_the_column(rendered, folder):
    sources = re.findall(r'<img alt="Game length" src="([^"]+)"', rendered)
    assert len(sources) == 1 and sources[0].startswith("data:image/png;base64,")
    assert base64.b64decode(sources[0].split(",", 1)[1]) == (folder / "figures" / "game_length.png").read_bytes()
    assert "figures/game_length.png" not in rendered
    assert re.search(r"<figure>\s*<img", rendered)  # alone in its paragraph: the column's width, not the prose's
    assert re.search(r"img \{[^}]*max-width: 100%; height: auto", page.STYLE)


def test_the_title_is_escaped(rendered):
    assert "<title>Does &lt;ace&gt; high &amp; low change who wins?</title>" in rendered


def test_screenshot_without_chromium_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setattr(page.shutil, "which", lambda name: None)
    with pytest.raises(RummysimError) as error:
        screenshot(tmp_path / "report.html", tmp_path / "report.png")
    assert str(error.value) == "chromium is not installed: install Debian's chromium (apt-get install chromium)"


MEASURE = """<script>
window.addEventListener("load", () => {
  const wide = [...document.querySelectorAll(".table-wrap")].pop();  // the 14-column table
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify({
    page: document.documentElement.scrollWidth, viewport: window.innerWidth, box: wide.clientWidth,
    table: wide.scrollWidth, image: document.querySelector("img").getBoundingClientRect().right,
    main: document.querySelector("main").getBoundingClientRect().right,
  });
  document.body.appendChild(out);
});
</script></body>"""


@pytest.mark.slow
def test_at_1280_px_nothing_overflows_the_page_but_the_wide_table_scrolls_in_its_box(rendered, tmp_path):
    """Headless chromium lays the page out at 1280 px; a script writes what it measured into the DOM."""
    path = tmp_path / "measure.html"
    path.write_text(rendered.replace("</body>", MEASURE))
    dom = page.chromium("--window-size=1280,2000", "--virtual-time-budget=5000", "--dump-dom", path.as_uri())
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, flags=re.DOTALL)
    assert found, dom[-2000:]
    measured = json.loads(html.unescape(found.group(1)))
    assert measured["viewport"] == 1280
    assert measured["page"] <= 1280  # nothing sticks out of the page sideways
    assert measured["table"] > measured["box"]  # the wide table is wider than its box: it scrolls in there
    assert measured["image"] <= measured["main"] + 0.5  # the 1760-px chart shrinks to the column

    png = screenshot(path, tmp_path / "shot.png", width=1280, height=900)
    width, height = struct.unpack(">II", png.read_bytes()[16:24])  # the PNG header's IHDR
    assert (width, height) == (1280, 900)
