"""Issue 42 part 1: the answer fits on one screen: "In short", one compact table, and verdicts.json beside them."""

from __future__ import annotations

import json
import math
import re

import pytest
from synthetic import SMALL

from rummysim.analysis import analyze
from rummysim.analysis.compare import Answer
from rummysim.analysis.equivalence import Bounds, Spread
from rummysim.analysis.estimates import Estimate
from rummysim.experiment import parse_experiment
from rummysim.report import build_report
from rummysim.report.short import in_short
from rummysim.report.verdicts import verdicts
from rummysim.results import load_results
from rummysim.runner import run_experiment


def words(markdown: str) -> int:
    """Return the words of a markdown text's prose: tables, headings and images left out."""
    kept = [line for line in markdown.splitlines() if line.strip() and not line.startswith(("|", "#", "!["))]
    return len(re.sub(r"[*`]", "", " ".join(kept)).split())


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("short")
    results = run_experiment(parse_experiment(SMALL, source="small.yaml"), out=out, n_jobs=1, quiet=True)
    return results, build_report(results.folder)


def test_the_first_screen_is_the_question_in_short_the_table_and_what_they_rest_on(small):
    _, report = small
    text = report.markdown.read_text()
    first = text[: text.index("\n## ")]
    short = next(p for p in first.split("\n\n") if p.startswith("**In short**"))
    assert words(short) <= 60, short
    assert words(first) <= 160, first
    assert "These are the answers of the bots named (`cautious`, `greedy`), not of people." in first
    for jargon in ("Holm", "Order", " pp ", "margin"):  # kept off the first screen's prose, or explained there
        assert jargon not in short, jargon
    table = [line for line in first.splitlines() if line.startswith("| ")]
    assert table[0] == "| lineup | measure | aces low only | aces high or low | change [interval] | verdict |"
    assert len(table) == 2 + len(verdicts(analyze(load_results(report.markdown.parent))))
    lineups = [row.split(" | ")[0].removeprefix("| ").strip() for row in table[2:]]
    assert lineups == ["three greedy", "cautious against two greedy", ""]  # each lineup named once, at its first row
    assert "\n\nStrong players: not checked (the file's `strong: true` conditions play them).\n\n" in first


def test_verdicts_json_holds_every_verdict_with_the_numbers_printed(small):
    results, report = small
    found = verdicts(analyze(results))
    records = json.loads((report.markdown.parent / "verdicts.json").read_text())
    assert [r["answer"] for r in records] == [v.answer.value for v in found]
    for record, v in zip(records, found, strict=True):
        assert record["sentence"] == v.sentence.replace("`", "")
        assert math.isclose(record["low"], v.change.low) and math.isclose(record["high"], v.change.high)
        assert record["level"] == pytest.approx(1 - 0.05 / len(found))
        assert (record["low"] <= 0 <= record["high"]) is (record["answer"] in ("No", "Can't tell"))
    assert report.verdicts[0].startswith("In short: ") and report.verdicts[1].startswith("- three greedy, ")


def test_in_short_says_a_real_change_as_shares_won_against_the_fair_share(small):
    """A shown change of the first seat's edge reads as the share of games it wins, beside the fair share."""
    results, _ = small
    analysis = analyze(results)
    comp = next(c for c in analysis.comparisons if c.reference == "basic")
    metric = "first_seat_advantage_game"
    d = comp.differences[metric]
    comp.bounds[metric] = Bounds(metric, Estimate(d.value, 0.02, 0.03, d.n), 0.005, Spread(0, 0, 0), 0.0, 0.99)
    assert comp.answer(metric) is Answer.YES
    text = in_short(analysis, verdicts(analysis))
    a, b = (analysis.condition(n).metrics[metric].value + 1 / 3 for n in ("basic", "ace_high"))
    assert f"the first seat wins {100 * b:.1f}% of games instead of {100 * a:.1f}% (fair share 33.3%)" in text
    assert text.startswith("**In short**: with aces high or low instead of aces low only (three greedy), ")
