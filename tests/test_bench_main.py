"""`rummysim bench --main` (issue 44, part 6): the main command timed in processes of its own, fresh and warm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rummysim.bench_main import ORDER, bench_main, lines
from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.phases import PHASES, phase, seconds

TINY = """\
name: tiny
question: Does playing aces high or low (R9) change who wins?
seed: 7
games: 12
players: [greedy, greedy]
conditions:
  basic: {}
  ace_high:
    rules: {ace: high_or_low}
"""


def test_a_phase_adds_its_wall_time_and_the_totals_are_written_at_exit(tmp_path):
    before = seconds.get("test-phase", 0.0)
    with phase("test-phase"):
        sum(range(10_000))
    with phase("test-phase"):
        pass
    assert seconds["test-phase"] > before
    written = tmp_path / "phases.json"
    code = "from rummysim.phases import phase\nwith phase('x'):\n    import time; time.sleep(0.05)\n"
    subprocess.run([sys.executable, "-c", code], env=os.environ | {PHASES: str(written)}, check=True)
    assert json.loads(written.read_text())["x"] >= 0.05
    subprocess.run([sys.executable, "-c", code], env={k: v for k, v in os.environ.items() if k != PHASES}, check=True)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("RUMMYSIM_COMPILED", "0")  # the reference engine: nothing to compile, seconds not minutes
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def test_the_main_command_is_timed_fresh_and_warm_with_its_phases(tiny):
    figures = bench_main(tiny)
    assert figures["same_tables"] is True  # both runs wrote the same hands, byte for byte
    for run in ("fresh", "warm"):
        f = figures[run]
        assert f["play_seconds"] > 0 and f["report_seconds"] > 0 and f["merge_seconds"] > 0
        assert f["cpu_seconds"] > 0 and 0 < f["peak_gb"] < 24
        assert f["wall_seconds"] >= sum(f[f"{name}_seconds"] for name in ORDER) - 0.05  # the phases are inside it
    table = lines(figures)
    assert table[0] == f"rummysim run {tiny}" and table[-1].endswith("yes")
    assert table[2].startswith("fresh") and table[3].startswith("warm")


def test_a_failing_main_command_is_one_line_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RUMMYSIM_COMPILED", "0")
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY.replace("games: 12", "games: -3"))
    with pytest.raises(ConfigError, match=r"bad\.yaml: the main command failed \(exit status 1\): .*games: -3"):
        bench_main(bad)
    with pytest.raises(ConfigError, match="no such experiment file"):
        bench_main(tmp_path / "missing.yaml")


def test_bench_main_from_the_command_line_prints_the_table(tiny):
    result = CliRunner().invoke(main, ["bench", "--main", str(tiny), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert set(figures) == {"main_file", "fresh", "warm", "same_tables"}
    assert Path(figures["main_file"]) == tiny


def test_bench_main_of_a_missing_file_or_a_folder_is_one_line(tmp_path):
    for given, said in ((tmp_path / "missing.yaml", "no such experiment file"), (tmp_path, "is a directory")):
        result = CliRunner().invoke(main, ["bench", "--main", str(given)])
        assert result.exit_code != 0 and "Traceback" not in result.output
        [line] = result.output.strip().splitlines()
        assert line.startswith(f"Error: {given}: {said}")
