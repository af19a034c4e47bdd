"""The rules atlas's report (issue 23, part 2): cells against basic rummy at each table size, findings, explorer."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from mini_atlas import SPEC

from rummysim.analysis.compare import plan
from rummysim.experiment import parse_experiment
from rummysim.report import atlas
from rummysim.report.atlas import ATLAS_MEASURES, findings, largest, rule_changes, rule_finding, rule_words_of


def test_a_crossed_grid_compares_each_cell_with_its_own_conditions_first_cell():
    experiment = parse_experiment(SPEC, source="mini_atlas.yaml")
    pairs = plan(experiment.conditions)
    assert len(pairs) == 3 * 3  # three arms, three cells each besides the reference
    for reference, other, paired in pairs:
        assert reference.rpartition("|")[0] == other.rpartition("|")[0]
        assert reference.endswith("|going_out=any,stock_out=rebuild") and paired


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from rummysim.report import build_report
    from rummysim.runner import run_experiment

    folder = tmp_path_factory.mktemp("atlas")
    results = run_experiment(parse_experiment(SPEC, source="mini_atlas.yaml"), out=folder, n_jobs=1, quiet=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(atlas, "ATLAS_CONDITIONS", 4)  # 12 conditions: an atlas
        written = build_report(results.folder)
    return results, written


def test_the_atlas_cells_are_each_cells_values_and_changes_as_the_analysis_has_them(report):
    results, written = report
    cells = pd.read_csv(written.tables["cells"])
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
        found = comparisons[(comparisons["reference"] == reference) & (comparisons["other"] == name)]
        diff = found[found["metric"] == "hands_per_game"]
        assert row.game_length_change == pytest.approx(diff["difference"].item())
        assert row.game_length_change_low == pytest.approx(diff["low"].item())
        checked += 1
    assert checked == 2 * 3
    two, three = cells[cells["players"] == 2], cells[cells["players"] == 3]
    assert two["order"].notna().all()  # skill from p2_skill, merged into the 2-player cells
    assert three["order"].isna().all()  # no 3-player skill condition


def test_the_atlas_report_leads_with_findings_and_writes_the_explorer_and_heat_maps(report):
    results, written = report
    text = written.markdown.read_text()
    assert text.startswith(f"# {SPEC['question']}\n\n## What the atlas found\n")
    assert "## Each rule against basic rummy" in text and "| going out only by a discard " in text
    assert "[the explorer](explorer.html)" in text
    assert (results.folder / "explorer.html").stat().st_size > 0
    assert written.figures["game_length"].name == "atlas_game_length.png"
    levels = parse_experiment(SPEC, source="x").grid
    assert written.verdicts == tuple(findings(pd.read_csv(written.tables["cells"]), levels))


def changes_frame(changes: list[tuple[int, float, float, float]], base: float = 20.0) -> pd.DataFrame:
    return pd.DataFrame([{"players": p, "change": c, "low": lo, "high": hi, "base": base}
                         for p, c, lo, hi in changes])  # fmt: skip


GAME_LENGTH = next(m for m in ATLAS_MEASURES if m.shown.name == "game_length")
EDGE = next(m for m in ATLAS_MEASURES if m.shown.name == "first_player_edge_hand")


def test_a_rule_that_shortens_games_at_every_size_is_said_so_with_its_percentages():
    frame = changes_frame([(2, -4.0, -4.5, -3.5), (3, -2.0, -2.4, -1.6)])
    assert rule_finding("block rummy", frame, GAME_LENGTH) == (
        "With block rummy, games are 10% to 20% shorter at every table size from 2 to 3 players "
        "(2.00 to 4.00 hands a game)."
    )


def test_a_rule_whose_changes_all_lie_within_the_margin_changes_it_by_less_than_that():
    frame = changes_frame([(2, 0.001, -0.002, 0.004), (3, -0.001, -0.004, 0.002)])
    assert rule_finding("no bonus for going rummy", frame, EDGE) == (
        "With no bonus for going rummy, the first player's edge in a hand changes by less than 0.50 pp at every "
        "table size from 2 to 3 players."
    )


def test_a_rule_with_mixed_or_unresolved_changes_gets_no_sentence():
    assert rule_finding("x", changes_frame([(2, 0.01, 0.005, 0.015), (3, -0.01, -0.015, -0.005)]), EDGE) is None
    assert rule_finding("x", changes_frame([(2, 0.01, -0.02, 0.04)]), EDGE) is None


def test_settings_are_said_in_a_players_words_from_their_text():
    assert rule_words_of("rummy_multiplier", "1", [2, 1]) == "no bonus for going rummy"
    assert rule_words_of("stock_out", "block", ["rebuild", "block"]).startswith("block rummy")


def test_a_rule_that_never_binds_is_said_once_and_the_fairest_table_is_the_edge_nearest_zero():
    levels = {"take_discard": ["free", "must_use"], "ace": ["low", "high_or_low"]}
    rows = []
    for players in (2, 3):
        for take in levels["take_discard"]:
            for ace in levels["ace"]:
                edge = {("free", "low"): 0.02, ("must_use", "low"): 0.02, ("free", "high_or_low"): 0.004,
                        ("must_use", "high_or_low"): 0.004}[take, ace] * (1 if players == 2 else -1)  # fmt: skip
                row = {"cell": f"{players} {take} {ace}", "players": players, "take_discard": take, "ace": ace}
                for m in ATLAS_MEASURES:
                    name = m.shown.name
                    value = edge if name == "first_player_edge_hand" else 1.0
                    change = 0.0 if ace == "low" else (edge - 0.02 * np.sign(edge) if name == EDGE.shown.name else 0.5)
                    width = 0.0 if ace == "low" else 0.001
                    row.update({name: value, f"{name}_low": value - 0.001, f"{name}_high": value + 0.001,
                                f"{name}_change": change, f"{name}_change_low": change - width,
                                f"{name}_change_high": change + width})  # fmt: skip
                rows.append(row)
    cells = pd.DataFrame(rows)
    said = findings(cells, levels)
    assert said[0] == ("With taking the discard only to play it, nothing changes at any table size: the bots play "
                       "exactly the same hands, so the rule never binds them.")  # fmt: skip
    assert not any(s.startswith("With taking the discard") for s in said[1:])
    fairest = [s for s in said if s.startswith("The fairest")]
    assert len(fairest) == 2 and "is aces high or low: +0.40 pp" in fairest[0]
    assert "basic rummy's is +2.00 pp" in fairest[0]
    changes = rule_changes(cells, levels)
    assert set(changes["rule"]) == {"taking the discard only to play it", "aces high or low"}


def test_the_largest_firm_change_of_a_measure_is_named_with_its_table_size_and_basic_rummys_value():
    frame = changes_frame([(2, 0.004, 0.001, 0.007), (5, 0.0306, 0.0259, 0.0352), (6, 0.05, -0.01, 0.11)], base=0.0068)
    frame["rule"] = ["block rummy", "block rummy", "aces high or low"]
    assert largest(frame, EDGE) == (
        "The largest change one rule makes to the first player's edge in a hand: block rummy at 5 players, "
        "+3.06 pp [+2.59, +3.52], from +0.68 pp under basic rummy."
    )  # 6 players' larger change spans zero; 2 players' is below the 0.5 pp margin
    assert largest(frame.iloc[[0, 2]], EDGE) is None
