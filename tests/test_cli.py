"""The command line: exact output, one-line errors, exit codes, help on every command."""

from __future__ import annotations

import functools
import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from click.testing import CliRunner

import rummysim.chunks as chunks
from rummysim.cli import main

TINY = {
    "name": "tiny", "question": "Does it stop?", "seed": 11, "games": 8, "players": ["greedy", "uniform"],
    "rules": {"target_score": 40}, "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}  # fmt: skip


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


# --- Ctrl-C ---------------------------------------------------------------------------------------


def test_ctrl_c_stops_a_run_in_one_line_with_the_command_that_resumes_it_and_exit_130(runner, tmp_path, monkeypatch):
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(TINY))
    out = tmp_path / "out"
    real, calls = chunks.play_chunk, {"n": 0}

    def interrupted(chunk):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(chunks, "play_chunk", interrupted)
    args = ["run", str(path), "--force", "--out", str(out), "-j", "1", "--chunk-games", "2", "--quiet", "--no-report"]
    result = runner.invoke(main, args)
    assert result.exit_code == 130
    resume = f"rummysim run {path} --out {out} --jobs 1 --chunk-games 2 --quiet --no-report"  # as typed, but --force
    assert result.output == f"stopped; the same command resumes: {resume}\n"
    assert len(list((out / "tiny" / "chunks").iterdir())) == 2  # the finished chunks are kept
    monkeypatch.setattr(chunks, "play_chunk", real)
    resumed = runner.invoke(main, shlex.split(resume)[1:])
    assert resumed.exit_code == 0 and resumed.output == f"{out / 'tiny'}\n"
    fresh = runner.invoke(main, ["run", str(path), "--out", str(tmp_path / "fresh"), "-j", "1", "-q", "--no-report"])
    assert fresh.exit_code == 0
    for table in ("hands", "games"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / "tiny" / f"{table}.parquet"),
            pd.read_parquet(tmp_path / "fresh" / "tiny" / f"{table}.parquet"),
        )


def test_a_real_sigint_to_a_run_and_its_workers_prints_one_line_and_no_traceback(tmp_path):
    """Ctrl-C at a terminal signals the whole process group: the run and its loky workers."""
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps({**TINY, "games": 3000, "engine": "python"}))
    command = ["run", str(path), "--out", str(tmp_path), "--jobs", "2", "--chunk-games", "1", "--no-report"]
    at_a_terminal = functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL)  # even if this suite's is ignored
    process = subprocess.Popen([sys.executable, "-m", "rummysim", *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=at_a_terminal)  # fmt: skip
    folder = tmp_path / "tiny" / "chunks"
    deadline = time.time() + 120
    while time.time() < deadline and (not folder.exists() or len(list(folder.glob("c*"))) < 3):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err  # what the run said, should it end otherwise
    assert err == f"stopped; the same command resumes: rummysim {shlex.join(command)}\n"
    assert out == "" and len(list(folder.glob("c*"))) >= 3
