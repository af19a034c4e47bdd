"""The rules atlas's report (issue 23, part 2): cells against basic rummy at each table size, findings, explorer."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from mini_atlas import SPEC

from rummysim.analysis.compare import plan
from rummysim.experiment import parse_experiment
from rummysim.report.atlas import rule_words_of


def test_a_crossed_grid_compares_each_cell_with_its_own_conditions_first_cell():
    experiment = parse_experiment(SPEC, source="mini_atlas.yaml")
    pairs = plan(experiment.conditions)
    assert len(pairs) == 3 * 3  # three arms, three cells each besides the reference
    for reference, other, paired in pairs:
        assert reference.rpartition("|")[0] == other.rpartition("|")[0]
        assert reference.endswith("|going_out=any,stock_out=rebuild") and paired


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from rummysim.analysis import atlas as analysis_atlas
    from rummysim.report import build_report
    from rummysim.runner import run_experiment

    folder = tmp_path_factory.mktemp("atlas")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analysis_atlas, "ATLAS_CONDITIONS", 4)  # 12 conditions: an atlas
        results = run_experiment(parse_experiment(SPEC, source="mini_atlas.yaml"), out=folder, n_jobs=1, quiet=True)
        written = build_report(results.folder)
    return results, written


def test_the_atlas_cells_carry_the_runs_simultaneous_intervals_and_answers(report):
    results, written = report
    cells = pd.read_csv(written.tables["cells"], keep_default_na=False, na_values=[""])
    assert len(cells) == 2 * 4  # two table sizes x four rule sets
    assert set(cells["players"]) == {2, 3}
    comparisons = pd.read_csv(results.folder / "summary_comparisons.csv")
    metrics = pd.read_csv(results.folder / "summary_metrics.csv")
    checked = 0
    for row in cells.itertuples():
        arm = f"p{row.players}"
        name = f"{arm}|going_out={row.going_out},stock_out={row.stock_out}"
        reference = f"{arm}|going_out=any,stock_out=rebuild"
        value = metrics[(metrics["condition"] == name) & (metrics["metric"] == "hands_per_game")]["value"].item()
        assert row.game_length == pytest.approx(value)
        if name == reference:
            assert row.game_length_change == 0 and math.isnan(row.game_length_change_low)
            continue
        base = metrics[(metrics["condition"] == reference) & (metrics["metric"] == "hands_per_game")]["value"].item()
        found = comparisons[(comparisons["reference"] == reference) & (comparisons["other"] == name)]
        diff = found[found["metric"] == "hands_per_game"].iloc[0]
        assert diff["scale"] == "log ratio"  # game length: 5% of basic rummy's, decided on the log ratio
        assert row.game_length_change == pytest.approx(diff["difference"])
        assert row.game_length_change_low == pytest.approx(base * math.expm1(diff["decided_low"]))
        assert row.game_length_change_high == pytest.approx(base * math.expm1(diff["decided_high"]))
        assert row.game_length_answer == diff["answer"]
        checked += 1
    assert checked == 2 * 3
    two, three = cells[cells["players"] == 2], cells[cells["players"] == 3]
    assert two["order"].notna().all()  # skill from p2_skill, merged into the 2-player cells
    assert three["order"].isna().all()  # no 3-player skill condition


def test_the_atlas_report_says_who_played_to_what_score_then_its_findings(report):
    results, written = report
    text = written.markdown.read_text()
    assert text.startswith(f"# {SPEC['question']}\n\n**Who played:** the bots, not people:")
    first = text.split("## What the atlas found")[0]
    assert "played to 40 points (`target_score: 40`)" in first and "greedy" in first and "cautious" in first
    assert "## Each rule against basic rummy" in text and "| going out only by a discard " in text
    assert "[the explorer](explorer.html)" in text
    assert (results.folder / "explorer.html").stat().st_size > 0
    assert written.figures["game_length"].name == "atlas_game_length.png"
    for sentence in written.verdicts:
        assert f"- {sentence}" in text


def test_settings_are_said_in_a_players_words_from_their_text():
    assert rule_words_of("rummy_multiplier", "1", [2, 1]) == "no bonus for going rummy"
    assert rule_words_of("stock_out", "block", ["rebuild", "block"]).startswith("block rummy")
