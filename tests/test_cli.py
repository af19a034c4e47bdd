"""The command line: exact output, one-line errors, exit codes, help on every command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rummysim.cli import main


@pytest.fixture
def runner():
    return CliRunner()


def test_every_command_has_help_with_an_example(runner):
    for name, command in main.commands.items():
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert command.help and "Example" in result.output, name


def test_deadwood_prints_the_best_arrangement(runner):
    result = runner.invoke(main, ["deadwood", "AS 2S 3S 7H 7D 7C KH"])
    assert result.exit_code == 0
    assert result.output == "7C 7D 7H | AS 2S 3S | deadwood KH (10)\n"


def test_deadwood_ace_high_r9_1(runner):
    result = runner.invoke(main, ["deadwood", "QH KH AH 5C", "--ace", "high_or_low"])
    assert result.output == "QH KH AH | deadwood 5C (5)\n"
    result = runner.invoke(main, ["deadwood", "QH KH AH 5C"])
    assert result.output == "deadwood 5C AH QH KH (26)\n"


def test_bad_card_is_one_line_error_with_exit_status_1(runner):
    result = runner.invoke(main, ["deadwood", "AS 1S"])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert result.output.startswith("Error: card code '1S' is not a card")
    assert "(R1.2)" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_bench_json_prints_the_figures(runner):
    result = runner.invoke(main, ["bench", "--json", "--quick"])
    assert result.exit_code == 0
    figures = json.loads(result.output)
    assert figures["hands_per_second"] > 0
    assert figures["min_deadwood_per_second"] > 0
    assert len(figures["hands_runs"]) == 3
    assert figures["compiled_hands_per_second"] == figures["compiled_bots"]["greedy"]["hands_per_second"] > 0
    assert set(figures["compiled_bots"]) == {"uniform", "greedy", "rummy_hunter", "cautious"}
