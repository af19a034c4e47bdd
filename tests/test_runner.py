"""The runner: results depend on the experiment and its seed alone; runs resume; folders lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pyarrow.parquet as pq
import pytest

from rummysim.chunks import plan
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.results import load_results
from rummysim.resume import lock as _lock
from rummysim.runner import run_experiment
from rummysim.seating import seated

SPEC = {
    "name": "tiny",
    "question": "Does it run?",
    "seed": 11,
    "games": 12,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}


def experiment(**changes):
    return parse_experiment({**SPEC, **changes}, source="tiny.yaml")


def tables(results):
    return results.hands, results.games


def assert_same_tables(a, b):
    for left, right in zip(tables(a), tables(b), strict=True):
        pd.testing.assert_frame_equal(left, right)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    return run_experiment(experiment(), out=out, n_jobs=1, chunk_games=100)


def test_tables_have_a_row_per_hand_x_seat_and_per_game_x_seat(reference):
    hands, games = tables(reference)
    assert list(hands.columns[:3]) == ["condition", "game", "hand"]
    assert set(hands.condition) == {"basic", "ace_high"}
    assert len(games) == 2 * 12 * 2
    per_game = hands.groupby(["condition", "game"]).hand.nunique()
    assert (games.groupby(["condition", "game"]).n_hands.first() == per_game).all()
    assert (hands.groupby(["condition", "game", "hand"]).seat.count() == 2).all()
    assert "holding_end" in hands.columns


@pytest.mark.parametrize(("n_jobs", "chunk_games", "backend"), [(2, 1, "loky"), (2, 5, "loky"), (1, 7, "sequential")])
def test_tables_do_not_depend_on_workers_chunks_or_backend(tmp_path, reference, n_jobs, chunk_games, backend):
    results = run_experiment(experiment(), out=tmp_path, n_jobs=n_jobs, chunk_games=chunk_games, backend=backend)
    assert_same_tables(results, reference)
    for kind in ("hands", "games"):  # the same bytes too: row groups do not follow the chunks
        assert results.manifest["tables"][kind]["sha256"] == reference.manifest["tables"][kind]["sha256"]


def test_merged_tables_are_the_same_bytes_however_the_games_were_chunked(tmp_path, reference, monkeypatch):
    """Row groups of a fixed size (here 7 rows, so tables span many), whatever the chunks' sizes."""
    import rummysim.results as results_module

    monkeypatch.setattr(results_module, "ROW_GROUP_ROWS", 7)
    digests = set()
    for chunk_games in (1, 5, 12):
        folder = tmp_path / str(chunk_games)
        made = run_experiment(experiment(), out=folder, n_jobs=1, chunk_games=chunk_games, backend="sequential")
        digests.add((made.manifest["tables"]["hands"]["sha256"], made.manifest["tables"]["games"]["sha256"]))
        groups = pq.ParquetFile(made.folder / "hands.parquet").metadata
        sizes = [groups.row_group(i).num_rows for i in range(groups.num_row_groups)]
        assert set(sizes[:-1]) == {7} and 0 < sizes[-1] <= 7
    assert len(digests) == 1


def test_tables_are_the_same_on_a_local_dask_cluster(tmp_path, reference):
    import distributed

    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as c:
        results = run_experiment(
            experiment(), out=tmp_path, backend="dask", scheduler=c.scheduler_address, chunk_games=3
        )
    assert_same_tables(results, reference)
    assert results.manifest["backend"] == "dask"


def test_conditions_with_the_same_rules_play_the_same_deals(tmp_path):
    same = experiment(conditions={"a": {}, "b": {}})
    hands = run_experiment(same, out=tmp_path, n_jobs=1).hands
    a = hands[hands.condition == "a"].drop(columns="condition").reset_index(drop=True)
    b = hands[hands.condition == "b"].drop(columns="condition").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_seats_rotate_so_every_strategy_sits_in_every_seat_equally(reference):
    games = reference.games
    counts = games.groupby(["condition", "strategy", "seat"]).size()
    assert (counts == 6).all() and len(counts) == 2 * 2 * 2
    assert seated(({"strategy": "a"}, {"strategy": "b"}, {"strategy": "c"}), 1) == [
        {"strategy": "b"},
        {"strategy": "c"},
        {"strategy": "a"},
    ]


def test_seed_changes_the_tables(tmp_path, reference):
    other = run_experiment(experiment(), out=tmp_path, seed=12, n_jobs=1)
    assert not other.hands.equals(reference.hands)
    assert other.manifest["overrides"] == {"seed": 12}
    assert other.manifest["experiment"]["seed"] == 12


def test_manifest_records_what_the_run_was(reference):
    manifest = reference.manifest
    for key in ("rummysim_version", "git_commit", "experiment", "seeds", "started", "seconds", "host", "backend"):
        assert key in manifest
    conditions = manifest["experiment"]["conditions"]
    assert conditions[1]["rules"]["ace_points"] == 15  # defaults are filled in
    assert manifest["tables"]["hands"]["rows"] == len(reference.hands)
    assert load_results(reference.folder).games.equals(reference.games)


def test_trace_writes_a_row_per_turn(tmp_path):
    results = run_experiment(experiment(games=2), out=tmp_path, n_jobs=1, trace=True)
    turns = results.turns
    assert len(turns) == results.hands.drop_duplicates(["condition", "game", "hand"]).turns.sum()
    assert {"pile", "drew", "plays", "discard", "holding"} <= set(turns.columns)


def test_interrupted_run_resumes_to_the_same_tables(tmp_path, reference, monkeypatch):
    import rummysim.chunks as chunks

    real = chunks.play_chunk
    calls = {"n": 0}

    def flaky(chunk):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(chunks, "play_chunk", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment(), out=tmp_path, n_jobs=1, chunk_games=2)
    kept = sorted(p.name for p in (tmp_path / "tiny" / "chunks").iterdir())
    assert len(kept) == 3
    assert not (tmp_path / "tiny" / "manifest.json").exists()
    monkeypatch.setattr(chunks, "play_chunk", real)
    resumed = run_experiment(experiment(), out=tmp_path, n_jobs=1, chunk_games=5)
    assert resumed.manifest["resumed_chunks"] == 3
    assert_same_tables(resumed, reference)


def test_killed_run_resumes_to_the_same_tables(tmp_path, reference):
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps({**SPEC, "games": 300}))
    command = [sys.executable, "-m", "rummysim", "run", str(path), "--out", str(tmp_path), "--jobs", "1", "--no-report"]
    chunks = tmp_path / "tiny" / "chunks"
    process = subprocess.Popen([*command, "--chunk-games", "1", "--quiet"], stdout=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and (not chunks.exists() or len(list(chunks.glob("c*"))) < 3):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not (tmp_path / "tiny" / "manifest.json").exists()
    done = subprocess.run([*command, "--quiet"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == str(tmp_path / "tiny")
    resumed = load_results(tmp_path / "tiny")
    assert resumed.manifest["resumed_chunks"] >= 3
    uninterrupted = run_experiment(experiment(games=300), out=tmp_path / "again", n_jobs=2)
    assert_same_tables(resumed, uninterrupted)


def test_a_changed_experiment_refuses_to_resume_unless_forced(tmp_path):
    run_experiment(experiment(games=2), out=tmp_path, n_jobs=1)
    with pytest.raises(ConfigError, match=r"holds results of a different experiment .* --force"):
        run_experiment(experiment(games=2, seed=SPEC["seed"] + 1), out=tmp_path, n_jobs=1)
    forced = run_experiment(experiment(games=3, seed=SPEC["seed"] + 1), out=tmp_path, n_jobs=1, force=True)
    assert forced.games.game.nunique() == 3


@pytest.mark.parametrize("then", [5, 2])
def test_more_or_fewer_games_on_a_finished_run_extend_or_cut_it_to_a_fresh_runs_tables(tmp_path, then):
    """Game g is the same game however many are played, so games are not in the fingerprint."""
    run_experiment(experiment(games=3), out=tmp_path / "kept", n_jobs=1, chunk_games=2)
    changed = run_experiment(experiment(games=then), out=tmp_path / "kept", n_jobs=1, chunk_games=2)
    fresh = run_experiment(experiment(games=then), out=tmp_path / "fresh", n_jobs=1)
    assert changed.games.game.nunique() == then
    assert_same_tables(changed, fresh)
    assert changed.manifest["resumed_chunks"] == len(changed.experiment.conditions)  # the finished games, kept


def test_a_folder_with_a_manifest_but_no_tables_is_played_again(tmp_path, reference):
    """Committed results keep manifest.json and run.json, not the tables: a run there replays them exactly."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    for name in ("manifest.json", "run.json"):
        (folder / name).write_text((reference.folder / name).read_text())
    again = run_experiment(experiment(), out=tmp_path, n_jobs=1)
    assert_same_tables(again, reference)
    assert (folder / "hands.parquet").exists() and again.manifest["hands_played_this_run"] > 0


def test_a_second_run_into_the_same_folder_refuses_while_one_runs(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    with _lock(folder), pytest.raises(ConfigError, match="another rummysim run is writing these results"):
        run_experiment(experiment(), out=tmp_path, n_jobs=1)


def test_plan_covers_every_game_once_around_finished_chunks():
    exp = experiment(games=10)
    done = {"c000-g000000002-000000005", "c001-g000000000-000000010"}
    chunks = plan(exp, chunk_games=4, trace=False, done=done)
    spans = [(c.number, c.start, c.stop) for c in chunks]
    assert spans == [(0, 0, 2), (0, 5, 9), (0, 9, 10)]


def test_plan_sizes_each_conditions_chunks_by_its_engine():
    exp = experiment(games=10, conditions={"slow": {}, "fast": {}})
    sizes = {"python": 3, "compiled": 10}
    chunks = plan(exp, chunk_games=sizes, trace=False, done=set(), engines=["python", "compiled"])
    spans = [(c.number, c.start, c.stop, c.engine) for c in chunks]
    assert spans == [(0, 0, 3, "python"), (0, 3, 6, "python"), (0, 6, 9, "python"), (0, 9, 10, "python"),
                     (1, 0, 10, "compiled")]  # fmt: skip


def test_default_chunks_give_every_worker_several_chunks_of_the_smallest_condition():
    from rummysim.chunks import default_chunk_games

    exp = experiment(games=2000, conditions={"big": {}, "small": {"games": 100}})
    assert default_chunk_games(exp, n_jobs=2, backend="loky") == {"python": 13, "compiled": 13}
    assert default_chunk_games(experiment(games=100_000), n_jobs=2, backend="loky") == {"python": 100, "compiled": 2000}
    assert default_chunk_games(experiment(games=10_000), n_jobs=2, backend="loky") == {"python": 100, "compiled": 1250}
    assert default_chunk_games(experiment(games=3), n_jobs=8, backend="loky") == {"python": 1, "compiled": 1}


def test_an_unreachable_dask_scheduler_is_a_one_line_error(tmp_path):
    import dask

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(ConfigError, match=r"^--scheduler tcp://127.0.0.1:1: cannot reach the Dask scheduler"),
    ):
        run_experiment(experiment(games=2), out=tmp_path, backend="dask", scheduler="tcp://127.0.0.1:1")
