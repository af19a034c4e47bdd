"""The players' cheat sheet (issue 42, part 5): one page from the committed atlas, its marks the atlas's answers."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.report.cheatsheet import cheat_sheet
from rummysim.report.lint import lint

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def test_the_committed_cheat_sheet_is_the_one_the_command_writes_from_the_committed_atlas(tmp_path):
    result = CliRunner().invoke(main, ["cheatsheet", "--results", str(RESULTS), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "cheatsheet.md").read_text()
    assert written == (RESULTS / "cheatsheet.md").read_text()  # committed, and up to date
    assert (tmp_path / "cheatsheet.html").read_text().startswith("<!DOCTYPE html>")
    assert not lint(written)


def test_it_has_a_row_per_rule_the_bots_and_the_target_score():
    text = cheat_sheet(RESULTS / "atlas")
    assert "every game to 100 points" in text and "greedy" in text and "cautious" in text
    for rule in (
        "aces high or low",
        "going out only by a discard",
        "no bonus for going rummy",
        "laying off only after your first meld",
        "taking the discard only to play it",
        "block rummy",
    ):
        assert len(re.findall(rf"^\| {re.escape(rule)}", text, flags=re.M)) == 4, rule  # one row in each table


def test_r12_3_block_rummys_marks_are_the_atlas_answers():
    cells = pd.read_csv(RESULTS / "atlas" / "atlas_cells.csv", dtype=str, keep_default_na=False)
    basic = {"ace": "low", "going_out": "any", "rummy_multiplier": "2", "lay_off": "any", "take_discard": "free"}
    block = cells[
        (cells["stock_out"] == "block") & pd.concat([cells[f] == v for f, v in basic.items()], axis=1).all(axis=1)
    ]
    text = cheat_sheet(RESULTS / "atlas")
    dealer = text.split("## The dealer's share of hands won")[1].split("##")[0]
    row = next(line for line in dealer.splitlines() if line.startswith("| block rummy"))
    entries = [e.strip() for e in row.strip("|").split("|")[1:]]
    for entry, (_, cell) in zip(entries, block.sort_values("players").iterrows(), strict=True):
        answer = cell["dealer_edge_hand_answer"]
        mark = "" if answer.startswith("Yes") else "=" if answer == "No" else "?"
        assert entry.endswith("%" + (f" {mark}" if mark else "")), (entry, answer)
        share = float(cell["dealer_edge_hand"]) + 1 / int(cell["players"])
        assert entry.startswith(f"{share * 100:.1f}%")


def test_a_folder_without_an_atlas_is_refused_in_one_line_naming_the_file(tmp_path):
    result = CliRunner().invoke(main, ["cheatsheet", "--results", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output == (f"Error: {tmp_path / 'atlas' / 'atlas_cells.csv'}: not found; the cheat sheet is made "
                             "from a finished atlas (rummysim run experiments/atlas.yaml writes it)\n")  # fmt: skip
    assert not (tmp_path / "cheatsheet.md").exists()
