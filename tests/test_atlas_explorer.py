"""The atlas's explorer from a run (issue 42 part 7): paired B − A from the shared games, and a question kept as text.

A small atlas is played (tests/mini_atlas.py) with a question a browser would run if it were
pasted in as HTML; the explorer written from it must pair its cells exactly as the delta method
does on the games they share, and show the question as written.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
from mini_atlas import SPEC
from scipy import stats

from rummysim.analysis import analyze
from rummysim.analysis.estimates import delta_change
from rummysim.experiment import parse_experiment
from rummysim.report.atlas import atlas_cells
from rummysim.report.atlas_explorer import decided_on, explorer_pairs, write_atlas_explorer
from rummysim.report.explorer import compare_text
from rummysim.report.html import chromium
from rummysim.runner import run_experiment

QUESTION = '<script>alert(1)</script> & "x"'


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    folder = tmp_path_factory.mktemp("atlas")
    spec = {**SPEC, "question": QUESTION, "games": 30}
    results = run_experiment(parse_experiment(spec, source="mini_atlas.yaml"), out=folder, n_jobs=1, quiet=True)
    analysis = analyze(results)
    return analysis, atlas_cells(analysis), results.folder  # the run, its cells, its folder


def test_each_pair_of_one_table_size_is_the_paired_delta_method_on_their_shared_games(atlas):
    analysis, cells, _ = atlas
    pairs, levels = explorer_pairs(analysis, cells)
    for measure, metric in (("first_player_edge_hand", "first_seat_advantage_hand"), ("order", "order")):
        decided = [c.bounds[metric].level for c in analysis.comparisons if metric in c.bounds]
        assert levels[measure] == (min(decided) if decided else 0.95)  # the level of the cells' own changes
    two = cells[cells["players"] == 2].reset_index(drop=True)
    a, b = two.iloc[1], two.iloc[3]  # neither is basic rummy
    frames = analysis.frames

    def edge(name: str) -> tuple[np.ndarray, np.ndarray]:
        games = frames[name]
        decided = games["decided_hands"].to_numpy(dtype=float)
        return games["hands_won_0"].to_numpy(dtype=float) - decided / 2, decided

    value, se = delta_change(edge(a["condition"]), edge(b["condition"]), paired=True)
    z = float(stats.norm.ppf(0.5 + levels["first_player_edge_hand"] / 2))
    found = pairs["first_player_edge_hand"][a["cell"], b["cell"]]
    assert found == pytest.approx((value, value - z * se, value + z * se), rel=1e-9)
    assert value == pytest.approx(b["first_player_edge_hand"] - a["first_player_edge_hand"])  # the same games

    def order(name: str) -> tuple[np.ndarray, np.ndarray]:  # cautious's Order over decided games, (w − 1/2) / (1/2)
        games = frames[name]
        decided = games["decided"].to_numpy(dtype=float)
        won = (games["winner_strategy"] == "cautious").to_numpy(dtype=float) * decided
        return (won - decided / 2) / 0.5, decided

    value, se = delta_change(order(a["skill_condition"]), order(b["skill_condition"]), paired=True)
    z = float(stats.norm.ppf(0.5 + levels["order"] / 2))  # at the level of Order's changes
    found = pairs["order"][a["cell"], b["cell"]]
    assert found == pytest.approx((value, value - z * se, value + z * se), rel=1e-9)
    assert value == pytest.approx(b["order"] - a["order"])
    # game length is decided on the log ratio (delta method at any size): against basic rummy, the pair is the change
    assert decided_on(analysis, "hands_per_game")[1]
    for _, row in two.iloc[1:].iterrows():
        found = pairs["game_length"][two["cell"][0], row["cell"]]
        assert found == pytest.approx((row["game_length_change"], row["game_length_change_low"],
                                       row["game_length_change_high"]), rel=1e-9)  # fmt: skip
    three = set(cells.loc[cells["players"] == 3, "cell"])
    assert not any({x, y} & three and not {x, y} <= three for x, y in pairs["game_length"])  # never across sizes
    assert not any(x in three for x, _ in pairs["order"])  # no 3-player skill arm


def test_the_atlas_explorer_pairs_b_minus_a_and_shows_the_question_as_written(atlas, tmp_path):
    analysis, cells, _ = atlas
    page = write_atlas_explorer(analysis, cells, tmp_path / "explorer.html")
    text = page.read_text()
    assert QUESTION not in text and f"<h1>{html.escape(QUESTION)}</h1>" in text
    found = re.search(r'<script type="application/json" id="atlas-data">(.*?)</script>', text, flags=re.S)
    assert found
    data = json.loads(found.group(1))
    two = cells[cells["players"] == 2].reset_index(drop=True)
    shown = compare_text(data, two["cell"][1], two["cell"][3])
    assert shown["first_player_edge_hand.pairing"].startswith("paired (the same deals), at ")
    assert data["words"]["stock_out"] == {"rebuild": "the stock rebuilt from the discards",
                                          "block": "block rummy (the hand ends when the stock runs out)"}  # fmt: skip


SHOWN = """<script>window.addEventListener("load", () => {
  const out = document.createElement("pre"); out.id = "shown";
  out.textContent = JSON.stringify({ title: document.querySelector("h1").firstChild.textContent,
    scripts: document.querySelectorAll("script").length });
  document.body.appendChild(out);
});</script>"""


def shown(page: Path, folder: Path) -> dict:
    """Return what a browser shows as the page's title, and how many scripts it holds (ours included)."""
    copy = folder / f"shown-{page.name}"
    copy.write_text(page.read_text().replace("</body>", SHOWN + "</body>"))
    dom = chromium("--window-size=1280,800", "--virtual-time-budget=3000", "--dump-dom", copy.as_uri())
    found = re.search(r'<pre id="shown">(.*?)</pre>', dom, flags=re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.slow
def test_a_question_in_html_is_text_in_the_atlas_explorer_and_report_html(atlas, tmp_path):
    analysis, cells, _ = atlas
    explorer = write_atlas_explorer(analysis, cells, tmp_path / "explorer.html")
    assert shown(explorer, tmp_path) == {"title": QUESTION, "scripts": 3}  # the data, the page's script, ours
    spec = {
        "name": "hostile",
        "question": QUESTION,
        "seed": 3,
        "games": 8,
        "players": ["greedy", "greedy"],
        "rules": {"target_score": 40},
        "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
    }
    from rummysim.report import build_report

    results = run_experiment(parse_experiment(spec, source="hostile.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    report = build_report(results.folder).html
    text = report.read_text()
    assert QUESTION not in text and "<script" not in text
    assert f"<title>{html.escape(QUESTION)}</title>" in text
    assert re.search(r"<h1[^>]*>" + re.escape(html.escape(QUESTION, quote=False)), text)
    assert shown(report, tmp_path) == {"title": QUESTION, "scripts": 1}  # ours alone
