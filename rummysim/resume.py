"""What lets a run stop and resume: its results folder, locked, and what the folder holds between runs.

A run records its experiment in ``run.json`` (`STATE`) before any game is played, so a
stopped or failed run resumes, or replays a bot's failure, from it; it plays into
``chunks/``, and on resume keeps only the finished chunks whose bytes match the ledger
(`rummysim.ledger`), cut to the games asked. A finished run asked for more games, or
fewer, is reopened: its tables become chunks again. A failed write is one line naming
the folder (`writing`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from rummysim.design import Experiment, check_streams
from rummysim.errors import ConfigError, disk_error
from rummysim.ledger import LEDGER, Ledger, chunk_name, chunk_span
from rummysim.results import (
    MANIFEST,
    Results,
    drop_dataset,
    finished_chunks,
    load_results,
    remove_leftovers,
    split_tables,
    trim_chunk,
    write_text_atomic,
)
from rummysim.secret_seed import SECRET_FILE, commitment_fields, keep
from rummysim.seeding import STREAMS, Secret
from rummysim.version import __version__

STATE = "run.json"
LOCK = ".lock"
# what a one-line error of the folder tells the user to do next
RESUME = "run the same command again to resume"
AGAIN = "run the same command again"
FORCE = "rerun with --force to play it again"


@contextlib.contextmanager
def writing(folder: Path, doing: str, then: str = RESUME) -> Iterator[None]:
    """Turn a failed write (no space, no permission, read-only, a folder gone) into one line naming `folder`."""
    try:
        yield
    except OSError as error:
        raise disk_error(error, folder=folder, doing=doing, then=then) from error


@contextlib.contextmanager
def lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on the results folder; the OS frees it if the process dies."""
    import fcntl

    with writing(folder, "preparing the results folder", then=AGAIN):
        handle = open(folder / LOCK, "a+")  # noqa: SIM115 - held for the whole run
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ConfigError(
            f"{folder}: another rummysim run is writing these results; wait for it to finish "
            "or give this run another --out"
        ) from None
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def prepare(folder: Path, experiment: Experiment, *, force: bool) -> Experiment:
    """Check the folder holds this experiment's results (or nothing); with `force`, clear it.

    Return the experiment to play: under a secret seed, the secret an earlier run of it
    in this folder kept (`rummysim.secret_seed.keep`), else the new one, kept now.
    """
    state_path = folder / STATE
    state = None
    if state_path.exists() and not force:
        state = json.loads(state_path.read_text())
        check_streams(
            state.get("streams", 1), folder=folder,
            cannot="resume them; rerun with --force to start over or give another --out",
        )  # fmt: skip
        if state.get("fingerprint") != experiment.fingerprint():
            raise ConfigError(
                f"{folder}: holds results of a different experiment (fingerprint {state.get('fingerprint')}, "
                f"this one {experiment.fingerprint()}); rerun with --force to start over or give another --out"
            )
    if force:
        drop_dataset(folder)
        for name in ("chunks", STATE, LEDGER, MANIFEST, SECRET_FILE, "hands.parquet", "games.parquet", "turns.parquet"):
            path = folder / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    kept = keep(folder, experiment.seed, state)
    if experiment.commitments is not None and kept != experiment.seed:
        raise ConfigError(
            f"{folder / SECRET_FILE}: keeps another secret than the committed secret and the revealed nonces give: the "
            f"run's secret was changed; {FORCE} under the committed seed"
        )
    experiment = dataclasses.replace(experiment, seed=kept)
    record_start(folder, experiment)
    remove_leftovers(folder)
    return experiment


def kept_checks(folder: Path, experiment: Experiment) -> Experiment:
    """Return the experiment with the checks with strong players a finished run in `folder` already played kept.

    A run without ``--strong`` leaves those checks at 0 games (`Experiment.with_overrides`); where
    the folder already holds their games (an earlier run with ``--strong``), it keeps them rather
    than cut them away. Read from the manifest: the tables are checked where they are read. A manifest
    without its tables (committed results: `rummysim.reproduction`) holds no games to keep.
    """
    unplayed = {c.name for c in experiment.conditions if c.strong and experiment.games_of(c) == 0}
    if not all((folder / f"{kind}.parquet").exists() for kind in ("hands", "games")):
        return experiment
    try:
        manifest = json.loads((folder / MANIFEST).read_text()) if unplayed else {}
        recorded = {c["name"]: c.get("games") for c in manifest["experiment"]["conditions"]}
    except (OSError, ValueError, KeyError, TypeError):
        return experiment
    if manifest.get("fingerprint") != experiment.fingerprint():
        return experiment
    kept = {name: games for name, games in recorded.items() if name in unplayed and isinstance(games, int) and games}
    return experiment.with_games(kept) if kept else experiment


def record_start(folder: Path, experiment: Experiment) -> None:
    """Record the experiment being played before any game is: a stopped or failed run replays from it."""
    state = {"fingerprint": experiment.fingerprint(), "streams": STREAMS, "rummysim_version": __version__,
             "source": experiment.source, "experiment": experiment.to_dict(),
             **commitment_fields(experiment.seed, reveal=False)}  # fmt: skip
    write_text_atomic(json.dumps(state, indent=2), folder / STATE)


def load_finished(folder: Path) -> Results | None:
    """Return the folder's finished results, every table checked against the manifest, or None if it holds none.

    Finished means the manifest and the tables: committed results keep only the manifest
    and report (results/README.md), and a run there plays the tables again. Tables the
    manifest does not record are never resumed, extended or cut (`reopen` splits every kind).
    """
    if not all((folder / name).exists() for name in (MANIFEST, "hands.parquet", "games.parquet")):
        return None
    finished = load_results(folder)
    finished.check_tables(*[k for k in ("hands", "games", "turns") if (folder / f"{k}.parquet").exists()], again=FORCE)
    finished.check_manifest()  # an edited manifest is never extended or cut (rummysim.manifest)
    return finished


def reopen(folder: Path, experiment: Experiment, played: dict[str, int]) -> None:
    """Turn a finished run's tables back into one chunk per condition, recorded in the ledger, to extend it."""
    chunk_dir = folder / "chunks"
    shutil.rmtree(chunk_dir, ignore_errors=True)
    chunk_dir.mkdir()
    ids = {c.name: chunk_name(i, 0, played[c.name]) for i, c in enumerate(experiment.conditions)}
    kinds = [k for k in ("hands", "games", "turns") if (folder / f"{k}.parquet").exists()]
    ledger = Ledger(folder)
    ledger.records.clear()
    for chunk_id, record in split_tables(folder, chunk_dir, ids, kinds).items():
        ledger.records[chunk_id] = record
        if isinstance(experiment.seed, Secret):  # the finished run's seed, checked as its manifest was read
            ledger.seeds[chunk_id] = experiment.seed.commitment
    ledger.rewrite()
    drop_dataset(folder)
    (folder / MANIFEST).unlink()
    for kind in kinds:
        (folder / f"{kind}.parquet").unlink()


def seed_mark(experiment: Experiment) -> str | None:
    """Return what the ledger records of the seed a chunk is played under: its commitment if secret, else None."""
    return experiment.seed.commitment if isinstance(experiment.seed, Secret) else None


def check_seeds(ledger: Ledger, experiment: Experiment, chunk_dir: Path) -> None:
    """Raise `ConfigError` if a chunk was played under another secret seed than this run's (swapped mid-run)."""
    mark = seed_mark(experiment)
    if mark is None:
        return
    for chunk_id in sorted(ledger.records):
        if ledger.seeds.get(chunk_id) != mark:
            other = ledger.seeds.get(chunk_id)
            raise ConfigError(
                f"{chunk_dir / chunk_id}: was played under "
                + (
                    f"a secret seed whose SHA-256 is {other[:16]}..."
                    if other
                    else "a seed its ledger line does not name"
                )
                + f", and this run's is {mark[:16]}...: the secret was changed mid-run, so these results cannot be "
                f"trusted; {FORCE} under one secret"
            )


def fit_chunks(done: set[str], experiment: Experiment, chunk_dir: Path, ledger: Ledger) -> set[str]:
    """Return the finished chunks within each condition's games: one that runs past them is cut, later ones left out."""
    kept = set()
    for chunk_id in sorted(done):
        number, start, stop = chunk_span(chunk_id)
        condition = experiment.conditions[number]
        games = experiment.games_of(condition)
        if stop <= games:
            kept.add(chunk_id)
        elif start < games:
            cut = chunk_name(number, start, games)
            with writing(chunk_dir, "writing chunks"):
                ledger.add(cut, trim_chunk(chunk_dir, chunk_id, cut, games), seed=ledger.seeds.get(chunk_id))
            kept.add(cut)
    return kept


def prove_chunks(ledger: Ledger, chunk_dir: Path, experiment: Experiment) -> set[str]:
    """Return the finished chunks whose bytes match the ledger; say which ones are played again, and why."""

    def notice(chunk_id: str, problem: str) -> None:
        number, start, stop = chunk_span(chunk_id)
        name = experiment.conditions[number].name if number < len(experiment.conditions) else f"#{number}"
        problem = problem if problem == "is missing" else f"is damaged: {problem}"
        print(f"rummysim: chunk {chunk_id} (condition {name}, games {start} to {stop - 1}) in {chunk_dir} "
              f"{problem}; playing its games again", file=sys.stderr)  # fmt: skip

    with writing(chunk_dir, "checking the chunks"):
        return ledger.prove(chunk_dir, finished_chunks(chunk_dir), notice=notice)


def open_chunks(experiment: Experiment, folder: Path, chunk_dir: Path) -> tuple[Ledger, set[str]]:
    """Return the ledger of the chunks folder and the finished chunks that prove themselves, fitted to the games."""
    with writing(chunk_dir, "writing chunks"):
        record_start(folder, experiment)  # this wave's games, for a replay if a bot stops it
        chunk_dir.mkdir(exist_ok=True)
        ledger = Ledger(folder)
    check_seeds(ledger, experiment, chunk_dir)
    done = fit_chunks(
        prove_chunks(ledger, chunk_dir, experiment), experiment, chunk_dir, ledger
    )  # only chunks that prove themselves
    return ledger, done
