"""Run an experiment: plan chunks of games, play them in parallel, write and merge the tables.

Every game depends only on (seed, game): its deals and shuffles come from
(seed, game, hand), each bot's choices from (seed, game, seat), and the lineup is
rotated by the game number so every strategy sits in every seat equally. Chunks of
games are played by joblib (loky, all cores by default) or on a Dask cluster, and each
finished chunk is written whole into ``<out>/<name>/chunks/``. A stopped run resumes from
its finished chunks; the merged tables are the same for any number of workers, chunk
size or backend.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import shutil
import sys
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import rummysim.compiled as compiled
import rummysim.precision as precision
import rummysim.provenance as provenance
import rummysim.waves as waves_of
from rummysim.chunks import default_chunk_games, execute, plan
from rummysim.commitments import DOCS, read_secret, reveal, secret_path
from rummysim.design import Experiment
from rummysim.engine_choice import Choice, choose_engine
from rummysim.errors import BotError, ConfigError, DiskError, whole_number
from rummysim.experiment import load_experiment
from rummysim.experiment_file import read_experiment_file
from rummysim.ledger import LEDGER, Ledger, chunk_span
from rummysim.phases import phase
from rummysim.plugins import check_players, check_sandbox, plugin_sources, warnings_of
from rummysim.progress import AnalysisBar, MergeBar, RunBar, hand_rows, merge_rows
from rummysim.replay import blame
from rummysim.reproduction import committed as committed_results
from rummysim.results import (
    Results,
    load_results,
    merge_chunks,
    write_manifest,
)
from rummysim.resume import (
    AGAIN,
    RESUME,
    fit_chunks,
    kept_checks,
    load_finished,
    lock,
    open_chunks,
    prepare,
    prove_chunks,
    reopen,
    seed_mark,
    writing,
)
from rummysim.resume import FORCE as FORCE  # defined there, importable from here as before
from rummysim.resume import LOCK as LOCK
from rummysim.resume import STATE as STATE
from rummysim.run_options import check_run_options
from rummysim.secret_seed import commitment_fields, forget
from rummysim.seeding import STREAMS, Secret
from rummysim.specs import check_names, strategy_name
from rummysim.strategies.registry import builtin
from rummysim.version import __version__

ROUNDS = 3
"""How many times a chunk is played again before a run gives up on a disk that keeps damaging it."""


def run_experiment(
    experiment: Experiment | str | Path,
    *,
    out: str | Path = "results",
    n_jobs: int = -1,
    games: int | None = None,
    seed: int | str | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_games: int | None = None,
    trace: bool = False,
    force: bool = False,
    quiet: bool = True,
    isolate: bool = False,
    engine: str | None = None,
    sandbox: bool = True,
    strong: bool = False,
    nonces: str | Path | Mapping[str, Any] | None = None,
    secret: str | Path | None = None,
) -> Results:
    """Play an experiment and write its tables to ``<out>/<name>/``; return the `Results`.

    `experiment` is an `Experiment` or the path of an experiment file. `games` and `seed`
    override the file's (``seed="secret"``: a secret seed, `rummysim.secret_seed`). The tables
    depend only on the experiment and its seed: `n_jobs`, `chunk_games` (games per chunk; by default
    up to 100 on the reference engine and 2,000 compiled, and small enough that every worker gets
    several chunks: `rummysim.chunks.default_chunk_games`) and `backend` change the speed, never the
    data. A stopped run resumes from its finished chunks; `force` starts over. `isolate` runs every
    plug-in bot sealed in its own process, as ``isolate: true`` in the file does; `engine` overrides
    the file's ``engine:`` (`rummysim.engine_choice`). Sealed bots run in the sandbox
    (`rummysim.strategies.sandbox`); where it cannot be had the run refuses, unless `sandbox` is False
    (or ``sandbox: false`` in the file). The tables are the same either way. The checks with
    strong players (``strong: true`` conditions) are played only with `strong`; without it they stay
    in the experiment at 0 games, and a later run with it plays them into the same folder. A seed nobody
    chose (`rummysim.commitments`) is revealed by the entries' `nonces` (a file of bot: nonce, or the
    mapping) and the organiser's `secret` (the file `rummysim commit` wrote; by default beside the
    experiment file), each checked against its commitment before anything is written.
    """
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    experiment = experiment.with_overrides(
        games=games, seed=seed, isolate=isolate, engine=engine, sandbox=sandbox, strong=strong
    )
    if experiment.commitments is not None and not experiment.commitments.revealed:
        experiment = revealed_seed(experiment, nonces=nonces, secret=secret)
    check_sandbox(experiment)
    check_players(experiment)  # each plug-in where it plays, a sealed one in its sandbox, before anything is written
    for line in warnings_of(experiment):
        _say(line)
    if chunk_games is not None:
        whole_number(chunk_games, name="--chunk-games", low=1)
    sizes = default_chunk_games(experiment, n_jobs=n_jobs, backend=backend) if chunk_games is None else chunk_games
    check_run_options(experiment, n_jobs=n_jobs, backend=backend, trace=trace)  # before anything is written
    check_names((p for c in experiment.conditions for p in c.players), where=f"{experiment.source}: players")
    folder = Path(out) / experiment.name
    with writing(folder, "preparing the results folder", then=AGAIN):
        folder.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = dict(n_jobs=n_jobs, backend=backend, scheduler=scheduler, chunk_games=sizes,
                                   trace=trace, quiet=quiet, overrides={"games": games, "seed": seed})  # fmt: skip
    with lock(folder):
        reproducing = committed_results(folder, experiment)  # read before this run replaces it (even with --force)
        with writing(folder, "preparing the results folder", then=AGAIN):
            experiment = kept_checks(folder, prepare(folder, experiment, force=force))
        for line in reproducing.opening(experiment) if reproducing else []:
            _say(line)
        if experiment.commitments is not None:
            committed = experiment.commitments
            _say(f"seed nobody chose: drawn from the secret committed as {committed.secret_sha256[:16]}... "
                 f"and {committed.nonces_text}; its SHA-256 is {committed.seed.commitment}")  # fmt: skip
        elif isinstance(experiment.seed, Secret):
            _say(f"secret seed: its SHA-256 is {experiment.seed.commitment} (in {folder / STATE}); "
                 "the manifest reveals the seed when the run finishes")  # fmt: skip
            if _in_process_plugins(experiment):
                _say("secret seed: plug-in bots that play in process can read it (they share the engine's memory); "
                     "set isolate: true to keep it from them")  # fmt: skip
            elif not experiment.sandbox and any(experiment.isolates(c) for c in experiment.conditions):
                _say("secret seed: sealed bots without the sandbox can read it in the results folder, as this user; "
                     "keep the sandbox on to keep it from them")  # fmt: skip
        results = _sized(experiment, folder, options) if experiment.precision else _play(experiment, folder, **options)
        if isinstance(experiment.seed, Secret):
            forget(folder)  # the manifest reveals it now: an extension reads it there
        if reproducing is not None:
            results.reproduction = reproducing.verdict(results.manifest)
        return results


def revealed_seed(
    experiment: Experiment, *, nonces: str | Path | Mapping[str, Any] | None, secret: str | Path | None
) -> Experiment:
    """Return the experiment under the seed its commitments give once revealed (`rummysim.commitments.reveal`)."""
    assert experiment.commitments is not None
    if nonces is None:
        raise ConfigError(
            f"{experiment.source}: seed: a seed nobody chose is drawn from the committed secret and the entries' "
            f"nonces: give the revealed nonces (--nonces FILE, a line bot: nonce for each entry; {DOCS})"
        )
    source = str(nonces) if not isinstance(nonces, Mapping) else "nonces"
    revealed = nonces if isinstance(nonces, Mapping) else read_experiment_file(nonces, kind="nonces file")
    if not isinstance(revealed, Mapping):
        raise ConfigError(f"{source}: expected a mapping of each entry's bot to its nonce ({DOCS})")
    revealed = {strategy_name(str(k)): v for k, v in revealed.items()}
    kept = read_secret(secret if secret is not None else secret_path(experiment.source))
    commitments = reveal(experiment.commitments, secret=kept, nonces=revealed, source=source)
    return dataclasses.replace(experiment, seed=commitments.seed, commitments=commitments)


def _in_process_plugins(experiment: Experiment) -> bool:
    """Return whether a condition seats a plug-in bot in the engine's process (not sealed)."""
    return any(
        not experiment.isolates(c) and builtin(p) is None for c in experiment.conditions
        for p in c.players
    )  # fmt: skip


def _sized(experiment: Experiment, folder: Path, options: dict[str, Any]) -> Results:
    """Play in waves until every planned comparison is as narrow as ``precision:`` asks (`rummysim.precision`)."""
    from rummysim.analysis import analyze

    quiet = options["quiet"]
    finished = load_finished(folder)  # the folder's tables as they stand, checked once
    waves = waves_of.recorded_waves(finished, experiment)
    if waves:  # finished under the same precision: straight to its last wave, whose analysis checks the stop again
        experiment = experiment.with_games(waves.pop())
    results = None
    while True:
        wave = waves_of.games(experiment)
        waves.append(wave)
        played = waves_of.games(finished.experiment) if finished else {}
        if finished and wave != played and all(wave[name] <= played.get(name, 0) for name in wave):
            # a finished run already holds this wave's games: read them as a prefix, cut nothing yet
            results = None
            with AnalysisBar(hand_rows(folder), quiet=quiet, what=f"wave {len(waves)}") as bar, phase("analysis"):
                analysis = analyze(finished, games=wave, progress=bar)
        else:
            results = finished = _play(experiment, folder, finished=finished, **options)
            with AnalysisBar(hand_rows(folder), quiet=quiet, what=f"wave {len(waves)}") as bar, phase("analysis"):
                analysis = analyze(results, progress=bar)
        found = precision.widths(analysis, experiment.precision)
        grow = precision.next_wave(experiment, found)
        if not grow:
            break
        if not quiet:
            holds = waves_of.games(finished.experiment) if finished else {}
            held = all(n <= holds.get(c, 0) for c, n in grow.items()) if finished else False
            _say(f"{waves_of.too_wide(found)}; {'reading' if held else 'playing'} on to {waves_of.games_text(grow)}")
        experiment = experiment.with_games(grow)
    if results is None:  # the last wave was a prefix of a finished run: cut it to these games (nothing is played)
        results = _play(experiment, folder, finished=finished, **options)
    manifest = results.manifest | {"precision": precision.record(experiment, waves, found)}
    with writing(folder, "writing the manifest"):
        write_manifest(folder, manifest)
    results.manifest = manifest
    results.analysis = analysis  # the report's own analysis of these tables: `rummysim run` does not make it twice
    return results


def _play(experiment: Experiment, folder: Path, *, finished: Results | None = None, **options: Any) -> Results:
    """Return the folder's results for exactly this experiment's games, playing what is missing.

    `finished`: the folder's finished results if already read (`load_finished`). Finished
    results of other numbers of games become chunks again (`reopen`), so the run is
    extended (or cut to the games asked) rather than played anew.
    """
    finished = finished or load_finished(folder)
    if finished is not None:
        if options["trace"] and not (folder / "turns.parquet").exists():
            raise ConfigError(f"{folder}: holds finished results without a trace; rerun with --force --trace")
        played = waves_of.games(finished.experiment)
        if played == waves_of.games(experiment):
            if not options["quiet"]:
                made = finished.manifest.get("started", "before")
                _say(f"{folder}: finished already ({sum(played.values()):,} games, played {made}): nothing to play; "
                     "its tables are read as they are")  # fmt: skip
            return _restated(finished, experiment)
        with writing(folder, "reopening the finished tables"):
            reopen(folder, experiment, played)
    return _run(experiment, folder, **options)


def _restated(finished: Results, experiment: Experiment) -> Results:
    """Return finished results under the file's reading of them: its question, measures, margins and skill.

    These change no row (the fingerprint leaves them out), so a finished run asked a new question of
    its tables answers it without playing: the manifest's record of the experiment is rewritten.
    """
    record = experiment.to_dict()
    if finished.manifest.get("experiment") == record:
        return finished
    finished.manifest = finished.manifest | {"experiment": record}
    with writing(finished.folder, "writing the manifest"):
        write_manifest(finished.folder, finished.manifest)
    return finished


def _say(line: str) -> None:
    """Say a line of the run's own on stderr."""
    print(f"rummysim: {line}", file=sys.stderr)


def _run(experiment: Experiment, folder: Path, *, n_jobs: int, backend: str, scheduler: str | None,
         chunk_games: int | dict[str, int], trace: bool, quiet: bool,
         overrides: dict[str, Any]) -> Results:  # fmt: skip
    """Play the chunks still missing, merge every chunk into the tables and write the manifest."""
    chunk_dir = folder / "chunks"
    ledger, done = open_chunks(experiment, folder, chunk_dir)
    resumed = len(done)
    choices = _engines(experiment, trace=trace, quiet=quiet)
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()
    with phase("play"):
        done, hands_played = _play_chunks(
            experiment, folder, ledger=ledger, done=done, engines=[c.engine for c in choices], n_jobs=n_jobs,
            backend=backend, scheduler=scheduler, chunk_games=chunk_games, trace=trace, quiet=quiet,
        )  # fmt: skip
    seconds = time.perf_counter() - clock
    chunks = [chunk_dir / c for c in sorted(done)]
    kinds = ["hands", "games"] + (["turns"] if trace and all((c / "turns.parquet").exists() for c in chunks) else [])
    with writing(folder, "merging the tables"), phase("merge"), MergeBar(merge_rows(chunks, kinds), quiet=quiet) as bar:
        records = merge_chunks(chunks, folder, kinds, progress=bar)
    manifest = _manifest(
        experiment, choices=choices, records=records, overrides=overrides, started=started, seconds=seconds,
        hands_played=hands_played, resumed=resumed, backend=backend, scheduler=scheduler, n_jobs=n_jobs,
        chunk_games=chunk_games,
    )  # fmt: skip
    if seed_mark(experiment) is not None:  # which seed each chunk was played under, for `rummysim verify`
        manifest["chunk_seeds"] = {c: ledger.seeds[c] for c in sorted(done)}
    with writing(folder, "writing the manifest"):
        write_manifest(folder, manifest)
        shutil.rmtree(chunk_dir)
        (folder / LEDGER).unlink(missing_ok=True)
    return load_results(folder)


def _engines(experiment: Experiment, *, trace: bool, quiet: bool) -> list[Choice]:
    """Return the engine each condition plays on, saying so if the compiled one cannot load."""
    # quiet says nothing of its own; a caller's `announcing` still holds (rummysim validate's pilot)
    with contextlib.nullcontext() if quiet else compiled.announcing(_say), phase("compile"):
        choices = [  # a condition that plays no game (a check left out) compiles nothing
            choose_engine(experiment, c, trace=trace, load=experiment.games_of(c) > 0) for c in experiment.conditions
        ]
    unavailable = next((c.why for c in choices if c.unavailable), None)
    if unavailable is not None:
        _say(f"{unavailable}; playing on the reference engine, with the same results")
    return choices


def _play_chunks(
    experiment: Experiment, folder: Path, *, ledger: Ledger, done: set[str], engines: list[str], n_jobs: int,
    backend: str, scheduler: str | None, chunk_games: int | dict[str, int], trace: bool, quiet: bool,
) -> tuple[set[str], int]:  # fmt: skip
    """Play every chunk not `done`, again while the disk damages any; return the finished chunks and hands played."""
    chunk_dir = folder / "chunks"
    progress = RunBar(sum(experiment.games_of(c) for c in experiment.conditions), quiet=quiet)
    progress.update(sum(chunk_span(c)[2] - chunk_span(c)[1] for c in done), 0)
    hands_played = 0
    try:
        for round_ in range(ROUNDS + 1):
            todo = plan(experiment, chunk_games=chunk_games, trace=trace, done=done, engines=engines)
            if not todo:
                break
            if round_ == ROUNDS:
                raise DiskError(
                    f"{chunk_dir}: chunks were still damaged after being played {ROUNDS} times; the disk may be "
                    f"failing: check it, then {RESUME}"
                )
            sizes = {c.id: c.stop - c.start for c in todo}
            with writing(chunk_dir, "writing chunks"):  # each chunk written where it is played
                for chunk_id, record, n_hands in execute(
                    todo, backend=backend, n_jobs=n_jobs, scheduler=scheduler, into=chunk_dir
                ):
                    ledger.add(chunk_id, record, seed=seed_mark(experiment))
                    hands_played += n_hands
                    progress.update(sizes[chunk_id], n_hands)
            done = fit_chunks(
                prove_chunks(ledger, chunk_dir, experiment), experiment, chunk_dir, ledger
            )  # bad data is never merged
    except BotError as error:
        raise blame(error, experiment, folder) from error
    finally:
        progress.close()
    return done, hands_played


def _manifest(
    experiment: Experiment, *, choices: list[Choice], records: dict[str, dict[str, Any]], overrides: dict[str, Any],
    started: datetime, seconds: float, hands_played: int, resumed: int, backend: str, scheduler: str | None,
    n_jobs: int, chunk_games: int | dict[str, int],
) -> dict[str, Any]:  # fmt: skip
    """Return the run's manifest: what was played, how, where and by which versions, and its tables.

    `rummysim.results.write_manifest` seals it: its last key is its own checksum, checked wherever it is read.
    """
    return {
        "rummysim_version": __version__,
        "git_commit": provenance.git_commit(),
        "experiment": experiment.to_dict(),
        "fingerprint": experiment.fingerprint(),
        "source": experiment.source,
        "overrides": {k: v for k, v in overrides.items() if v is not None},
        "streams": STREAMS,
        "engines": {
            c.name: {"engine": e.engine, "why": e.why, **({"playouts": e.playouts} if e.playouts else {})}
            for c, e in zip(experiment.conditions, choices, strict=True)
        },
        "seeds": provenance.seeds(experiment.seed),
        **commitment_fields(experiment.seed, reveal=True),
        **({"revealed": experiment.commitments.reveal_record()} if experiment.commitments else {}),
        "started": started.isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "hands_played_this_run": hands_played,
        "hands_per_second": round(hands_played / seconds, 1) if seconds > 0 else None,
        "resumed_chunks": resumed,
        "host": platform.node(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "libraries": provenance.libraries(),
        "plugins": plugin_sources(experiment),
        "backend": backend,
        "scheduler": scheduler,
        "n_jobs": n_jobs if n_jobs > 0 else os.cpu_count(),
        "chunk_games": chunk_games,
        "tables": {kind: {"file": f"{kind}.parquet", **record} for kind, record in records.items()},
    }
