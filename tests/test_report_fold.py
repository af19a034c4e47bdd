"""Issue 42 part 1: each committed question's report.html, in headless Chromium, ends its answer above the fold.

The page is opened as a reader opens it (a copy with a small script that measures where the
question, "In short" and the answer's table end), at 1280x800 and at 500x900. Chromium comes
from Debian's packages (`.ci/run` installs it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
QUESTIONS = ["acehigh", "discard_to_go_out", "going_rummy"]
"""The committed reports of the three questions, played again with the one-screen answer."""
MEASURE = """<script>window.addEventListener('load', () => {
  const m = document.querySelector('main') || document.body;
  const bottom = (e) => e ? e.getBoundingClientRect().bottom : null;
  const short = [...m.querySelectorAll('p')].find((p) => p.textContent.startsWith('In short'));
  const out = document.createElement('pre'); out.id = 'fold';
  out.textContent = JSON.stringify({top: m.querySelector('h1').getBoundingClientRect().top,
    question: bottom(m.querySelector('h1')), short: bottom(short), table: bottom(m.querySelector('table.answer')),
    right: m.querySelector('table.answer').getBoundingClientRect().right, width: window.innerWidth});
  document.body.appendChild(out);
});</script>"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)"
    return found


def measured(page: Path, tmp_path: Path, width: int, height: int) -> dict[str, float]:
    """Return where the page's question, In short and answer table end, in CSS pixels from the top."""
    copy = tmp_path / f"{page.parent.name}.html"
    copy.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    dom = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={width},{height}", "--virtual-time-budget=3000", "--dump-dom", copy.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="fold">([^<]*)</pre>', dom)
    assert found, f"{page}: the measuring script did not run"
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.parametrize("name", QUESTIONS)
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (500, 900)])
def test_the_question_in_short_and_the_answer_table_end_above_the_fold(name, width, height, tmp_path):
    at = measured(ROOT / "results" / name / "report.html", tmp_path, width, height)
    assert at["top"] < 150, at  # the question first, not the contents
    assert at["question"] < at["short"] < at["table"] <= height, at
    assert at["right"] <= at["width"], at  # the table fits the page's width: no column hidden to the side


@pytest.mark.parametrize("name", QUESTIONS)
def test_each_committed_answer_is_short_in_a_players_words(name):
    """At most 60 words of "In short", 160 of prose before the first section, and no Holm, Order, pp or margin in
    "In short" (issue 42 part 1), on the committed reports themselves."""
    from test_report_short import words

    text = (ROOT / "results" / name / "report.md").read_text()
    first = text[: text.index("\n## ")]
    short = next(p for p in first.split("\n\n") if p.startswith("**In short**"))
    assert words(short) <= 60, (words(short), short)
    assert words(first) <= 160, words(first)
    for jargon in ("Holm", "Order", " pp ", "margin"):
        assert jargon not in short, jargon
