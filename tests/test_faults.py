"""Faults as a user meets them (issue 14): a full disk or a refused write at each stage, damaged and missing chunks.

Each fault is made to happen, ends in one exact line, leaves no temporary file, and once
it is fixed the same command ends with the tables of an uninterrupted run.
"""

from __future__ import annotations

import errno
import hashlib
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import stop_chunks_after

import rummysim.chunks as chunks
import rummysim.chunks as playing  # where a chunk is played and written
from rummysim.cli import main
from rummysim.errors import DiskError
from rummysim.experiment import parse_experiment
from rummysim.ledger import LEDGER, Ledger
from rummysim.results import load_results
from rummysim.runner import run_experiment

SPEC = {
    "name": "tiny",
    "question": "Does it survive?",
    "seed": 11,
    "games": 8,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}
RESUME = "run the same command again to resume"


def experiment(**changes):
    return parse_experiment({**SPEC, **changes}, source="tiny.yaml")


def run(out, **options):
    return run_experiment(experiment(), out=out, n_jobs=1, chunk_games=2, **options)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return run_experiment(experiment(), out=tmp_path_factory.mktemp("reference"), n_jobs=1, chunk_games=100)


def assert_same_tables(results, reference):
    pd.testing.assert_frame_equal(results.hands, reference.hands)
    pd.testing.assert_frame_equal(results.games, reference.games)


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if ".tmp" in p.name)


def full_disk() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


def fill_on_call(monkeypatch, owner, name, *, call, error=full_disk, partial=True, match=None):
    """Make `owner.name` fail like a full disk on its `call`-th use (matching `match`), after writing a partial file."""
    real = getattr(owner, name)
    calls = {"n": 0}

    def filling(*args, **kwargs):
        where = next((a for a in args if isinstance(a, str | Path)), None)
        if match is None or (where is not None and match in Path(where).name):
            calls["n"] += 1
            if calls["n"] == call:
                if partial and where is not None:
                    Path(where).write_bytes(b"PAR1 what fitted")
                raise error()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, filling)


def test_a_full_disk_while_writing_chunks_is_one_line_and_resumes_to_the_same_tables(tmp_path, reference, monkeypatch):
    fill_on_call(monkeypatch, pq, "write_table", call=3)
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    folder = tmp_path / "tiny"
    assert str(caught.value) == (
        f"{folder}/chunks: no space left on the device while writing chunks; free some space, then {RESUME}"
    )
    assert leftovers(folder) == []
    assert [p.name for p in (folder / "chunks").iterdir()] == ["c000-g000000000-000000002"]
    monkeypatch.undo()
    resumed = run(tmp_path)
    assert resumed.manifest["resumed_chunks"] == 1
    assert_same_tables(resumed, reference)


def test_a_full_disk_while_merging_is_one_line_and_resumes_to_the_same_tables(tmp_path, reference, monkeypatch):
    real = pq.ParquetWriter.write_table
    calls = {"n": 0}

    def filling(self, table, *args, **kwargs):
        if ".parquet.tmp-" in str(self.where):  # the merge's writers, not the chunks'
            calls["n"] += 1
            if calls["n"] == 2:  # hands.parquet is in place (one row group), games.parquet is being written
                raise full_disk()
        return real(self, table, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", filling)
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    folder = tmp_path / "tiny"
    assert str(caught.value) == (
        f"{folder}: no space left on the device while merging the tables; free some space, then {RESUME}"
    )
    assert leftovers(folder) == []
    assert (folder / "hands.parquet").exists() and not (folder / "games.parquet").exists()
    assert not (folder / "manifest.json").exists()
    monkeypatch.undo()
    resumed = run(tmp_path)
    assert resumed.manifest["resumed_chunks"] == 8 and resumed.manifest["hands_played_this_run"] == 0
    assert_same_tables(resumed, reference)


def test_a_full_disk_while_writing_the_manifest_is_one_line_and_resumes(tmp_path, reference, monkeypatch):
    real_write_text = Path.write_text
    monkeypatch.setattr(Path, "write_text", lambda self, data, *a, **k: _partial(self, data, real_write_text, *a, **k))
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    folder = tmp_path / "tiny"
    assert str(caught.value) == (
        f"{folder}: no space left on the device while writing the manifest; free some space, then {RESUME}"
    )
    assert leftovers(folder) == []
    monkeypatch.undo()
    assert_same_tables(run(tmp_path), reference)


def _partial(path, data, real, *args, **kwargs):
    """Write what fits of the manifest, then fail as a full disk does."""
    if path.name.startswith(".manifest.json.tmp"):
        real(path, data[:20], *args, **kwargs)
        raise full_disk()
    return real(path, data, *args, **kwargs)


def test_a_full_disk_while_writing_the_report_is_one_line_and_exit_1(tmp_path, reference, monkeypatch):
    results = run(tmp_path)
    folder = results.folder
    real_write_text = Path.write_text

    def filling(path, data, *args, **kwargs):
        if path.name.startswith(".report.md.tmp"):
            real_write_text(path, data[:50], *args, **kwargs)
            raise full_disk()
        return real_write_text(path, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", filling)
    result = CliRunner().invoke(main, ["report", str(folder), "--quiet"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {folder}: no space left on the device while writing the report; free some space, "
        f"then run: rummysim report {folder}\n"
    )
    assert leftovers(folder) == [] and not (folder / "report.md").exists()
    monkeypatch.undo()
    result = CliRunner().invoke(main, ["report", str(folder), "--quiet"])
    assert result.exit_code == 0 and (folder / "report.md").read_text().startswith("# Does it survive?")
    assert_same_tables(load_results(folder), reference)


def test_cli_run_on_a_full_disk_exits_1_with_one_line(tmp_path, monkeypatch):
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(SPEC))
    fill_on_call(monkeypatch, pq, "write_table", call=1)
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "--jobs", "1", "--quiet"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {tmp_path}/tiny/chunks: no space left on the device while writing chunks; free some space, "
        f"then {RESUME}\n"
    )


def test_a_read_only_results_folder_is_one_line_and_runs_once_writable(tmp_path, reference, monkeypatch):
    """Tests may run as root, where chmod stops no write: the file system's answer is made to happen instead."""
    real_mkdir = Path.mkdir

    def read_only(path, *args, **kwargs):
        if path == tmp_path / "tiny":
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}/tiny: the file system is read-only while preparing the results folder; remount it writable "
        "(or give another --out), then run the same command again"
    )
    monkeypatch.undo()
    assert_same_tables(run(tmp_path), reference)


def test_permission_denied_while_writing_chunks_is_one_line_and_resumes(tmp_path, reference, monkeypatch):
    fill_on_call(monkeypatch, pq, "write_table", call=5, partial=False,
                 error=lambda: OSError(errno.EACCES, "Permission denied"))  # fmt: skip
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}/tiny/chunks: permission denied while writing chunks; make it writable (or give another --out), "
        f"then {RESUME}"
    )
    assert leftovers(tmp_path / "tiny") == []
    monkeypatch.undo()
    resumed = run(tmp_path)
    assert resumed.manifest["resumed_chunks"] == 2
    assert_same_tables(resumed, reference)


def interrupted(tmp_path, monkeypatch, *, after: int) -> Path:
    """Stop a run (Ctrl-C) after `after` chunks; return its chunks folder."""
    real = stop_chunks_after(monkeypatch, after)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path)
    monkeypatch.setattr(chunks, "play_chunk", real)
    return tmp_path / "tiny" / "chunks"


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("rummysim: chunk ")]


def test_truncated_bit_flipped_and_missing_chunks_are_played_again_on_resume(tmp_path, reference, monkeypatch, capsys):
    chunks = interrupted(tmp_path, monkeypatch, after=4)
    truncated = chunks / "c000-g000000000-000000002" / "hands.parquet"
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    flipped = chunks / "c000-g000000002-000000004" / "games.parquet"
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x10
    flipped.write_bytes(bytes(data))
    for path in (chunks / "c000-g000000004-000000006").iterdir():
        path.unlink()
    (chunks / "c000-g000000004-000000006").rmdir()
    capsys.readouterr()
    resumed = run(tmp_path)
    assert notices(capsys.readouterr().err) == [
        f"rummysim: chunk c000-g000000000-000000002 (condition basic, games 0 to 1) in {chunks} is damaged: "
        "hands.parquet does not match its checksum; playing its games again",
        f"rummysim: chunk c000-g000000002-000000004 (condition basic, games 2 to 3) in {chunks} is damaged: "
        "games.parquet does not match its checksum; playing its games again",
        f"rummysim: chunk c000-g000000004-000000006 (condition basic, games 4 to 5) in {chunks} is missing; "
        "playing its games again",
    ]
    assert resumed.manifest["resumed_chunks"] == 1
    assert_same_tables(resumed, reference)


def test_a_chunk_damaged_after_it_was_written_is_caught_before_the_merge(tmp_path, reference, monkeypatch, capsys):
    real = playing.write_chunk
    damaged = []

    def damaging(folder, chunk_id, tables):
        record = real(folder, chunk_id, tables)
        if chunk_id == "c001-g000000002-000000004" and not damaged:
            path = folder / chunk_id / "hands.parquet"
            path.write_bytes(path.read_bytes()[:-8])  # a disk that loses the file's tail
            damaged.append(chunk_id)
        return record

    monkeypatch.setattr(playing, "write_chunk", damaging)
    results = run(tmp_path)
    chunks = tmp_path / "tiny" / "chunks"
    assert notices(capsys.readouterr().err) == [
        f"rummysim: chunk c001-g000000002-000000004 (condition ace_high, games 2 to 3) in {chunks} is damaged: "
        "hands.parquet does not match its checksum; playing its games again"
    ]
    assert_same_tables(results, reference)


def test_a_chunks_folder_removed_during_the_run_is_noticed_and_its_games_played_again(
    tmp_path, reference, monkeypatch, capsys
):
    real = chunks.play_chunk
    calls = {"n": 0}

    def removing(chunk):
        calls["n"] += 1
        if calls["n"] == 3:  # something else clears the folder under the run
            shutil.rmtree(tmp_path / "tiny" / "chunks")
        return real(chunk)

    monkeypatch.setattr(chunks, "play_chunk", removing)
    results = run(tmp_path)
    chunk_dir = tmp_path / "tiny" / "chunks"
    assert notices(capsys.readouterr().err) == [
        f"rummysim: chunk c000-g00000000{a}-00000000{a + 2} (condition basic, games {a} to {a + 1}) in {chunk_dir} "
        "is missing; playing its games again"
        for a in (0, 2)
    ]
    assert_same_tables(results, reference)


def test_a_disk_that_keeps_damaging_a_chunk_stops_the_run_with_one_line(tmp_path, monkeypatch):
    real = playing.write_chunk

    def damaging(folder, chunk_id, tables):
        record = real(folder, chunk_id, tables)
        if chunk_id == "c000-g000000000-000000002":
            (folder / chunk_id / "games.parquet").write_bytes(b"")
        return record

    monkeypatch.setattr(playing, "write_chunk", damaging)
    with pytest.raises(DiskError) as caught:
        run(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}/tiny/chunks: chunks were still damaged after being played 3 times; the disk may be failing: "
        f"check it, then {RESUME}"
    )


def test_the_ledger_drops_a_torn_line_and_a_chunk_with_no_line_is_played_again(tmp_path, reference, monkeypatch):
    chunks = interrupted(tmp_path, monkeypatch, after=3)
    ledger = tmp_path / "tiny" / LEDGER
    lines = ledger.read_text().splitlines()
    assert len(lines) == 3
    ledger.write_text("\n".join(lines[:2]) + "\n" + lines[2][:25])  # stopped mid-append
    assert set(Ledger(tmp_path / "tiny").records) == {"c000-g000000000-000000002", "c000-g000000002-000000004"}
    resumed = run(tmp_path)
    assert resumed.manifest["resumed_chunks"] == 2
    assert not chunks.exists() and not ledger.exists()
    assert_same_tables(resumed, reference)


def test_the_manifest_records_each_tables_checksum_the_libraries_and_a_plug_in_bots_source(tmp_path):
    bot = tmp_path / "stocky.py"
    bot.write_text(
        "from rummysim import Pile, Strategy\n\n\nclass Stocky(Strategy):\n    name = 'stocky'\n\n"
        "    def draw(self, view):\n        return Pile.STOCK\n\n    def play(self, view):\n        return []\n\n"
        "    def discard(self, view):\n        return view.drawn\n"
    )
    spec = {**SPEC, "games": 2, "players": [f"{bot}:Stocky", "greedy"], "conditions": {"basic": {}}}
    results = run_experiment(parse_experiment(spec, source="tiny.yaml"), out=tmp_path, n_jobs=1)
    manifest = results.manifest
    for kind in ("hands", "games"):
        data = (results.folder / f"{kind}.parquet").read_bytes()
        assert manifest["tables"][kind]["sha256"] == hashlib.sha256(data).hexdigest()
    assert re.fullmatch(r"\d+\.\d+.*", manifest["libraries"]["pyarrow"])
    assert set(manifest["libraries"]) >= {"numpy", "pandas", "pyarrow", "scipy", "statsmodels"}
    assert manifest["plugins"] == {
        f"{bot}:Stocky": {
            "class": manifest["plugins"][f"{bot}:Stocky"]["class"],
            "file": str(bot),
            "sha256": hashlib.sha256(bot.read_bytes()).hexdigest(),
        }
    }
    assert manifest["plugins"][f"{bot}:Stocky"]["class"].endswith("Stocky")
