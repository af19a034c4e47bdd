"""What long commands say while they work (issue 20): the compile line, the analysis bar, a wave's widths in units."""

from __future__ import annotations

import io
import json
import sys

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import rummysim.compiled as compiled
import rummysim.progress as progress
from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.precision import Width
from rummysim.report import build_report
from rummysim.runner import run_experiment
from rummysim.waves import too_wide

SPEC = {
    "name": "small", "question": "Does it show?", "seed": 4, "games": 30, "players": ["greedy", "greedy"],
    "rules": {"target_score": 60}, "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}  # fmt: skip


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("small")
    return run_experiment(parse_experiment(SPEC, source="small.yaml"), out=out, n_jobs=1, engine="python")


class Heard:
    """A progress that keeps what it hears."""

    def __init__(self) -> None:
        self.rows = 0
        self.phases: list[str] = []

    def __call__(self, rows: int) -> None:
        assert not self.phases, "rows are read before any later phase"
        self.rows += rows

    def phase(self, name: str) -> None:
        self.phases.append(name)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- the analysis and the report -----------------------------------------------------------------------


def test_the_report_says_the_rows_read_of_the_files_total_then_each_phase(small):
    heard = Heard()
    build_report(small.folder, progress=heard)
    assert heard.rows == pq.ParquetFile(small.folder / "hands.parquet").metadata.num_rows
    assert heard.rows == progress.hand_rows(small.folder) == len(small.hands) > 0
    assert heard.phases == ["comparing", "drawing the charts", "writing the report"]


def test_the_analysis_bar_draws_rows_then_phases_on_a_terminal_only(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress.AnalysisBar(2_000_000, quiet=False) as bar:
        bar(500_000)
        bar.bar.refresh()
        reading = terminal.getvalue()
        bar(1_500_000)
        bar.phase("comparing")
    shown = terminal.getvalue()
    assert "analysing: reading the hands" in reading and "500k/2.00M" in reading and "row" in reading
    assert "analysing: comparing [" in shown[len(reading) :]
    monkeypatch.setattr(sys, "stderr", quiet := Terminal())
    with progress.AnalysisBar(10, quiet=True) as bar:
        bar(10)
        bar.phase("comparing")
    monkeypatch.setattr(sys, "stderr", piped := io.StringIO())
    with progress.AnalysisBar(10, quiet=False) as bar:
        bar(10)
        bar.phase("comparing")
    assert quiet.getvalue() == piped.getvalue() == ""


def test_rummysim_report_says_one_line_when_stderr_is_not_a_terminal_and_nothing_quiet(small):
    said = CliRunner().invoke(main, ["report", str(small.folder)])
    assert said.exit_code == 0 and said.stderr == "analysing the tables and drawing the report ...\n"
    quiet = CliRunner().invoke(main, ["report", str(small.folder), "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


# --- the compile line -----------------------------------------------------------------------------------


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A cache folder of its own, empty: the kernels have not been compiled here."""
    folder = tmp_path / "cache" / "numba-test"
    folder.mkdir(parents=True)
    monkeypatch.setattr(compiled, "cache_dir", lambda: folder)
    return folder


def test_a_cold_cache_says_the_compile_before_it_and_times_it_for_next_time(cold):
    said: list[str] = []
    with compiled.announcing(said.append), compiled._compiling("engine", "the engine"):
        pass
    assert said == ["compiling the engine, once: about 35 s"]  # never timed here: the guess
    timings = json.loads((cold.parent / compiled.TIMINGS).read_text())
    assert set(timings) == {"engine"}
    (cold.parent / compiled.TIMINGS).write_text(json.dumps({"engine": 123.4}))
    with compiled.announcing(said.append), compiled._compiling("engine", "the engine"):
        pass
    assert said[-1] == "compiling the engine, once: about 125 s"  # the last first compile, to 5 s
    (cold / "compiled_x").mkdir()
    (cold / "compiled_x" / "game.play_games-232.py311.nbi").write_text("")  # what numba leaves once compiled
    with compiled.announcing(said.append), compiled._compiling("engine", "the engine"):
        pass
    assert len(said) == 2  # warm: read from the cache, nothing said
    with compiled._compiling("playouts", "montecarlo's playouts"):
        pass  # outside `announcing`, nothing is said either
    assert len(said) == 2


def test_rummysim_run_says_the_compile_unless_quiet(cold, tmp_path, monkeypatch):
    tried: list[int] = []

    def compiling():  # as `load`: a first try compiles, a failed one is not tried again
        if not tried:
            tried.append(1)
            with compiled._compiling("engine", "the engine"):
                pass
        raise RuntimeError("the compiled engine cannot load here (a test)")

    monkeypatch.setattr(compiled, "load", compiling)
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps({**SPEC, "games": 2}))
    fallback = "rummysim: the compiled engine cannot load here (a test); playing on the reference engine, with the same"
    for quiet in (False, True):
        tried.clear()
        args = ["run", str(path), "--out", str(tmp_path / "out"), "-j", "1", "--no-report", "--force"] + ["-q"] * quiet
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        said = [] if quiet else ["rummysim: compiling the engine, once: about 35 s"]
        assert result.stderr.splitlines() == [*said, f"{fallback} results"]
        assert tried == [1]


def test_rummysim_validate_says_the_compile_its_pilot_makes(cold, tmp_path, monkeypatch):
    tried: list[int] = []

    def compiling():
        if not tried:
            tried.append(1)
            with compiled._compiling("engine", "the engine"):
                pass
        raise RuntimeError("the compiled engine cannot load here (a test)")

    monkeypatch.setattr(compiled, "load", compiling)
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps({**SPEC, "games": 40, "max_games": 1000, "precision": {"first_seat_edge": "5 pp"}}))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "20"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "rummysim: compiling the engine, once: about 35 s"
    assert "precision: a pilot of 20 games a condition" in result.stdout


# --- a wave's widths ------------------------------------------------------------------------------------


def test_a_waves_widest_interval_is_said_in_its_measures_unit():
    found = [
        Width("basic", "ace_high", "first_seat_edge", 0.9134, 0.25, 20_000),
        Width("basic", "ace_high", "order", 0.004, 0.01, 12_000),
        Width("basic_skill", "ace_high_skill", "order", 0.0123, 0.01, 12_000),
    ]
    assert too_wide(found) == (
        "2 of 3 planned intervals wider than asked (widest: ace_high against basic, the first seat's edge over a whole "
        "game: ±0.913 pp, target ±0.25 pp)"
    )
    assert too_wide(found[2:]) == (
        "1 of 1 planned intervals wider than asked (widest: ace_high_skill against basic_skill, how much more than its "
        "share the better player wins: ±0.0123, target ±0.01)"
    )
