"""What long commands say while they work (issue 20): the compile line, the analysis bar, a wave's widths in units."""

from __future__ import annotations

import io
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import rummysim.compiled as compiled
import rummysim.progress as progress
import rummysim.results as results
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


# --- the merge -----------------------------------------------------------------------------------------


def cut_into_chunks(folder, into, *, games_a_chunk: int = 4) -> list:
    """Write a finished run's tables again as chunks of `games_a_chunk` games each; return the chunk folders."""
    tables = {kind: pq.read_table(folder / f"{kind}.parquet") for kind in ("hands", "games")}
    keys = tables["games"].select(["condition", "game"]).to_pandas().drop_duplicates()
    into.mkdir()
    made = []
    for number, (name, game) in enumerate(keys.itertuples(index=False)):
        if game % games_a_chunk:
            continue
        picked = {}
        for kind, table in tables.items():
            frame = table.to_pandas()
            mine = frame[(frame.condition == name) & (frame.game >= game) & (frame.game < game + games_a_chunk)]
            picked[kind] = pa.Table.from_pandas(mine, schema=results.SCHEMAS[kind], preserve_index=False)
        results.write_chunk(into, f"c{number:04d}", picked)
        made.append(into / f"c{number:04d}")
    return made


def test_the_merge_tells_its_progress_every_row_once_and_writes_the_same_bytes(small, tmp_path, monkeypatch):
    chunks = cut_into_chunks(small.folder, tmp_path / "chunks")
    kinds = ["hands", "games"]
    rows = {kind: pq.ParquetFile(small.folder / f"{kind}.parquet").metadata.num_rows for kind in kinds}
    assert len(chunks) > 2 and progress.merge_rows(chunks, kinds) == sum(rows.values())
    (tmp_path / "heard").mkdir()
    heard: list[int] = []
    results.merge_chunks(chunks, tmp_path / "heard", kinds, progress=heard.append)
    assert sum(heard) == sum(rows.values())
    for kind in kinds:  # one row group of the defaults' size: the run's own bytes, cut into chunks or not
        assert (tmp_path / "heard" / f"{kind}.parquet").read_bytes() == (small.folder / f"{kind}.parquet").read_bytes()
    monkeypatch.setattr(results, "ROW_GROUP_ROWS", 50)  # many row groups, each heard as it is written
    for name, hears in (("unheard", None), ("heard", [])):
        (tmp_path / name).mkdir(exist_ok=True)
        results.merge_chunks(chunks, tmp_path / name, kinds, progress=None if hears is None else hears.append)
    groups = [[50] * (n // 50) + [n % 50] * bool(n % 50) for n in rows.values()]
    assert hears == groups[0] + groups[1]  # the hands' groups, then the games'
    for kind in kinds:
        assert (tmp_path / "heard" / f"{kind}.parquet").read_bytes() == (
            tmp_path / "unheard" / f"{kind}.parquet"
        ).read_bytes()
        assert pq.ParquetFile(tmp_path / "heard" / f"{kind}.parquet").metadata.num_row_groups == len(
            groups[kinds.index(kind)]
        )


def test_the_merge_bar_draws_rows_of_the_total_on_a_terminal_only(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress.MergeBar(48_000_000, quiet=False) as bar:
        bar(12_300_000)
        bar.bar.refresh()
    assert "merging the tables" in terminal.getvalue() and "12.3M/48.0M" in terminal.getvalue()
    monkeypatch.setattr(sys, "stderr", quiet := Terminal())
    with progress.MergeBar(10, quiet=True) as bar:
        bar(10)
    monkeypatch.setattr(sys, "stderr", piped := io.StringIO())
    with progress.MergeBar(10, quiet=False) as bar:
        bar(10)
    assert quiet.getvalue() == piped.getvalue() == ""


# --- verify's steps -------------------------------------------------------------------------------------


def test_the_step_bar_draws_each_step_counted_or_timed_on_a_terminal_only(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress.StepBar(quiet=False) as bar:
        bar.phase("checking the checksums")
        bar.bar.refresh()
        timed = terminal.getvalue()
        bar.phase("checking the rows", 2_000_000, "row")
        bar(500_000)
        bar.bar.refresh()
        counted = terminal.getvalue()[len(timed) :]
        bar.phase("replaying the hands", 5, "hand")
        bar(2)
        bar.bar.refresh()
        replaying = terminal.getvalue()[len(timed) + len(counted) :]
    assert "verifying: checking the checksums [00:00]" in timed
    assert "verifying: checking the rows" in counted and "500k/2.00M" in counted and "row/s" in counted
    assert "verifying: replaying the hands" in replaying and "2/5" in replaying and "hand/s" in replaying
    for stderr, quiet in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stderr)
        with progress.StepBar(quiet=quiet) as bar:
            bar.phase("checking the rows", 10, "row")
            bar(10)
            bar.phase("checking the turns")
        assert stderr.getvalue() == ""


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
