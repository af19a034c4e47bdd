"""The report builds on a small run: it answers the question first, draws every chart headless, embeds them."""

from __future__ import annotations

import base64
import io
import re

import matplotlib.image as mpimg
import pandas as pd
import pytest
from click.testing import CliRunner
from synthetic import SMALL

from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.report import build_report
from rummysim.report.figures import CHARTS
from rummysim.results import load_results
from rummysim.runner import run_experiment

SPEC = SMALL


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    results = run_experiment(parse_experiment(SPEC, source="small.yaml"), out=out, n_jobs=1, quiet=True)
    return results, build_report(results.folder)


def test_report_md_opens_with_the_question_its_verdicts_and_their_picture(run):
    _, report = run
    text = report.markdown.read_text()
    lines = text.splitlines()
    assert lines[0] == "# Does ace high change who wins?"
    assert lines[2].startswith("**In short**: with aces high or low instead of aces low only (three greedy)")
    assert lines[4].startswith("| lineup | measure | aces low only | aces high or low | change [interval] |")
    full = lines.index("## The verdicts in full")
    assert lines[full + 2] == "**Aces high or low vs aces low only (three greedy)**"
    assert (
        lines[full + 4].startswith("- **") and ": with aces high or low instead of aces low only, " in lines[full + 4]
    )
    assert "](figures/answer.png)" in text.split("## What else changes")[0]
    assert "`skill_high` against `skill`" in text and "Paired: the same deals, game by game, 40 games; variance" in text
    assert "**Skill** (`cautious`): " in text and "Its Order is " in text
    heads = ["## What else changes", "## The evidence", "## Charts", "## Tables", "## Glossary"]
    assert [text.index(h) for h in heads] == sorted(text.index(h) for h in heads)


def test_descriptive_changes_are_listed_only_under_false_discovery_control(run):
    """Issue 20: every unplanned difference has a test, corrected by Benjamini-Hochberg; only those that hold show."""
    _, report = run
    text = report.markdown.read_text()
    verdicts = text.split("## What else changes")[0]
    assert "interval excludes zero" not in verdicts and "descriptive" not in verdicts
    comparisons = pd.read_csv(report.tables["comparisons"])
    descriptive = comparisons[comparisons["planned"].eq(False) & comparisons["p"].notna()]
    assert len(descriptive) and (descriptive["p_fdr"] >= descriptive["p"]).all()
    shown = descriptive[descriptive["verdict"] == "a change at a 5% false discovery rate (descriptive)"]
    assert (shown["p_fdr"] < 0.05).all() and ((shown["low"] > 0) | (shown["high"] < 0)).all()
    planned = comparisons[comparisons["planned"].eq(True)]
    assert planned["p_fdr"].isna().all() and planned["p_holm"].notna().all()


def test_every_planned_difference_says_what_it_rules_out_in_the_evidence(run):
    """Issue 13: each planned difference with the change still possible or ruled out, and the smallest detectable."""
    _, report = run
    evidence = report.markdown.read_text().split("## The evidence")[1].split("## Charts")[0]
    assert evidence.count("the run could detect a change of ") == 3  # two seat edges, one Order
    assert evidence.count("variance against an unpaired design of as many games: the first seat's edge ") == 2
    comparisons = pd.read_csv(report.tables["comparisons"])
    planned = comparisons[comparisons["metric"].isin(["first_seat_advantage_game", "order"])]
    assert set(planned["margin"]) == {0.01, 0.02} and set(planned["within_margin"]) <= {"yes", "no"}
    assert (planned["detectable"] > 0).all() and (planned["variance_ratio"] > 0).all()


def test_every_chart_is_drawn_as_png_and_svg_and_linked(run):
    results, report = run
    text = report.markdown.read_text()
    for name in CHARTS:
        png = results.folder / "figures" / f"{name}.png"
        assert mpimg.imread(png).shape[0] > 100
        assert (results.folder / "figures" / f"{name}.svg").read_text().lstrip().startswith("<?xml")
        assert f"(figures/{name}.png)" in text


def test_report_html_is_self_contained_with_every_chart_embedded(run):
    _, report = run
    html = report.html.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert re.search(r"<h1[^>]*>Does ace high change who wins\?<", html)
    images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([^"]+)"', html)
    assert len(images) == len(CHARTS) + 1  # and the answer's forest plot
    for data in images:
        assert mpimg.imread(io.BytesIO(base64.b64decode(data)), format="png").ndim == 3
    assert 'src="figures/' not in html and "http" not in html.split("<body>")[1]
    assert "<table>" in html


def test_summary_tables_are_written_as_csv(run):
    results, report = run
    comparisons = pd.read_csv(report.tables["comparisons"])
    assert set(comparisons["other"]) == {"ace_high", "skill_high"}
    assert {"exact McNemar", "Stuart-Maxwell"} <= set(comparisons["test"].dropna())
    planned = comparisons[comparisons["p_holm"].notna()]
    assert len(planned) and (planned["p_holm"] >= planned["p"]).all()
    seats = pd.read_csv(report.tables["seats"])
    assert len(seats) == 4 * 2 * 3  # conditions x levels x positions
    metrics = pd.read_csv(results.folder / "summary_metrics.csv")
    assert "order:cautious" in set(metrics["metric"])


def test_the_report_is_the_same_every_time(run):
    results, report = run
    first = report.markdown.read_text()
    assert build_report(results.folder).markdown.read_text() == first


def test_cli_report_writes_the_report_and_prints_its_paths(run, tmp_path):
    results, _ = run
    outcome = CliRunner().invoke(main, ["report", str(results.folder), "-q"])
    assert outcome.exit_code == 0, outcome.output
    assert outcome.output.splitlines() == [str(results.folder / "report.md"), str(results.folder / "report.html")]


def test_cli_report_on_a_folder_without_a_run_is_a_one_line_error(tmp_path):
    outcome = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert outcome.exit_code == 1
    assert outcome.output == f"Error: {tmp_path}: no manifest.json; not the folder of a finished run\n"


def test_cli_run_writes_the_report_unless_no_report(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text("name: tiny\nquestion: Is it fair?\nseed: 1\ngames: 6\nplayers: [greedy, greedy]\n"
                    "rules: {target_score: 40}\n")  # fmt: skip
    plain = CliRunner().invoke(main, ["run", str(spec), "--out", str(tmp_path / "a"), "-j", "1", "-q", "--no-report"])
    assert plain.exit_code == 0, plain.output
    assert not (tmp_path / "a" / "tiny" / "report.md").exists()
    full = CliRunner().invoke(main, ["run", str(spec), "--out", str(tmp_path / "b"), "-j", "1", "-q"])
    assert full.exit_code == 0, full.output
    assert (tmp_path / "b" / "tiny" / "report.md").read_text().startswith("# Is it fair?\n\nNo comparison was planned")
    assert full.output.splitlines()[-1].endswith("report.html")


def test_a_run_with_no_planned_comparison_answers_with_each_mixed_lineups_share(tmp_path):
    """No measures, one mixed lineup: the report leads with the stronger strategy's share against its fair share,
    and `run` prints the same sentence; its evidence (Order's interval) decides "more than"."""
    spec = tmp_path / "duel.yaml"
    spec.write_text("name: duel\nquestion: Who is stronger?\nseed: 3\ngames: 60\nplayers: [greedy, cautious]\n"
                    "rules: {target_score: 60}\n")  # fmt: skip
    outcome = CliRunner().invoke(main, ["run", str(spec), "--out", str(tmp_path), "-j", "1"])
    assert outcome.exit_code == 0, outcome.output
    text = (tmp_path / "duel" / "report.md").read_text()
    lead = text.split("\n\n")[1]
    games = load_results(tmp_path / "duel").games
    won = games[games["strategy"] == "cautious"]["won"].mean()
    assert lead.startswith(f"- **`cautious` wins {100 * won:.1f}% [")
    assert "of the games against `greedy`**:" in lead and "fair share of 50.0%" in lead and "60 games" in lead
    metrics = pd.read_csv(tmp_path / "duel" / "summary_metrics.csv").set_index(["condition", "metric"])
    low, high = metrics.loc[("default", "order:cautious"), ["low", "high"]]
    shown = "more than" if low > 0 else "less than" if high < 0 else "not shown to differ from"
    assert f"**: {shown} the fair share of 50.0% it would win" in lead
    said = lead.replace("**", "").replace("`", "").removeprefix("- ")
    assert said in " ".join(outcome.output.split())
    assert "No comparison was planned" not in text


@pytest.mark.slow
def test_report_html_shows_every_chart_in_headless_chromium(run, tmp_path):
    """Open report.html in headless Chromium (needs the `chromium` command: `apt install chromium`)."""
    import shutil
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    assert browser, "this slow test needs Chromium on the PATH (apt install chromium)"
    _, report = run
    probe = (
        "<script>window.addEventListener('load', () => { const i = [...document.images];"
        "document.body.setAttribute('data-loaded', i.filter(x => x.complete && x.naturalWidth > 0).length"
        " + '/' + i.length) });</script>"
    )
    page = tmp_path / "probe.html"
    page.write_text(report.html.read_text().replace("</body>", probe + "</body>"))
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    images = report.html.read_text().count("<img ")
    assert images == len(CHARTS) + 1  # every chart, and the answer's picture at the top
    assert f'data-loaded="{images}/{images}"' in dom


def test_a_change_of_rummy_bonus_is_answered_with_what_going_rummy_is_worth_r8_3(tmp_path):
    spec = {
        "name": "rummy", "question": "What is going rummy worth?", "seed": 3, "games": 30,
        "players": ["rummy_hunter", "greedy"], "rules": {"target_score": 80},
        "conditions": {"bonus": {"rules": {"rummy_multiplier": 2}}, "no_bonus": {"rules": {"rummy_multiplier": 1}}},
    }  # fmt: skip
    results = run_experiment(parse_experiment(spec, source="rummy.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    text = build_report(results.folder).markdown.read_text()
    said = next(line for line in text.splitlines() if line.startswith("**Going rummy**: "))
    assert "going rummy (R8.3) wins " in said and "of all points under `bonus`" in said
    verdict = next(line for line in text.splitlines() if "Order" in line and "instead of going rummy doubling" in line)
    assert verdict.startswith("- **") and "with no bonus for going rummy instead of" in verdict
    assert "`rummy_hunter`" in verdict  # its Order is compared: the focal strategy of the lineup


def test_cli_report_on_committed_results_without_tables_says_how_to_make_them(run, tmp_path):
    results, _ = run
    folder = tmp_path / "small"
    folder.mkdir()
    (folder / "manifest.json").write_text((results.folder / "manifest.json").read_text())
    outcome = CliRunner().invoke(main, ["report", str(folder)])
    assert outcome.exit_code == 1
    assert outcome.output == f"Error: {folder}: has no hands.parquet; play it again with: rummysim run small.yaml\n"


def test_cli_report_rewrites_a_committed_run_that_has_its_tables(tmp_path):
    """results/bots keeps its tables: its report is written again by this code, manifest from before `margin:`."""
    import shutil
    from pathlib import Path

    source = Path(__file__).parent.parent / "results" / "bots"
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("manifest.json", "hands.parquet", "games.parquet"):
        shutil.copy(source / name, folder / name)
    outcome = CliRunner().invoke(main, ["report", str(folder), "-q"])
    assert outcome.exit_code == 0, outcome.output
    answer = (folder / "report.md").read_text().split("## Tables")[0]
    assert "the run could detect a change of" in answer and "interval excludes zero" not in answer


def test_r12_3_a_report_of_block_rummy_shows_hands_ended_by_a_block(tmp_path):
    spec = {
        "name": "blocky", "question": "Does block rummy change who wins?", "seed": 5, "games": 6, "engine": "python",
        "players": ["greedy", "greedy", "greedy"], "rules": {"target_score": 60, "cards_dealt": 15},  # a stock of 6
        "conditions": {"rebuild": {}, "block": {"rules": {"stock_out": "block"}}},
    }  # fmt: skip
    results = run_experiment(parse_experiment(spec, source="blocky.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    text = build_report(results.folder).markdown.read_text()
    assert "**Block rummy (the hand ends when the stock runs out) vs the stock rebuilt from the discards" in text
    changes = text.split("## What else changes")[1].split("## The evidence")[0]
    assert "  - hands ended by a block (R12.3) +" in changes
    first = changes.split("vs the stock rebuilt from the discards")[1].split("\n")[1]
    assert first.startswith("  - hands ended by a block (R12.3) +"), first  # from none: the largest change
    assert "| ended_by_block" in text and "share of hands ended by a block (R12.3)" in text
    assert "| block       | greedy, greedy, greedy | stock_out=block |" in text
    figure = (results.folder / "figures" / "hand_endings.svg").read_text()
    assert "ended by a block (R12.3)" in figure and ">block<" in figure


def test_a_report_of_basic_rummy_has_no_block_among_how_hands_end(run):
    """No condition plays block rummy (R12.3): its ending is left out, and the report reads as before R12."""
    _, report = run
    assert "block" not in report.markdown.read_text()
    assert "ended_by_block" not in report.tables["metrics"].read_text()
    assert "block" not in (report.markdown.parent / "figures" / "hand_endings.svg").read_text()
