"""Chunks: a run's unit of work and of resuming, what they are, which are still to play, and playing them.

A chunk is a range of games of one condition (`Chunk`), named by its condition and
games (`rummysim.ledger.chunk_name`). `plan` lists the chunks a run still needs given
those finished; `execute` plays chunks on joblib/loky workers, in process, or on a Dask
cluster, and yields each one's tables as it finishes (`play_chunk`, on either engine).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa

import rummysim.compiled as compiled
from rummysim.bot_errors import prints_to_stderr
from rummysim.design import Condition, Experiment
from rummysim.engine import speaker
from rummysim.errors import ConfigError, WorkerError
from rummysim.game import play_game
from rummysim.ledger import chunk_name, chunk_span
from rummysim.records import GameRecord, HandRecord, TurnRecord
from rummysim.results import to_arrow, write_chunk
from rummysim.strategies.sealed import SealedPool
from rummysim.timing import bots_interrupts_only, last_words, record_interrupts

DEFAULT_CHUNK_GAMES = 100
"""Games per chunk at most, by default, on the reference engine: a chunk of slow bots is minutes, not hours."""
COMPILED_CHUNK_GAMES = 2000
"""Games per chunk at most, by default, on the compiled engine: a second or so of play, and few files to merge
(the atlas's 3.2 M games a wave were 32,000 chunk files at 100 a chunk)."""


class Chunk(NamedTuple):
    """A range of games of one condition: the unit of work and of resuming."""

    number: int
    """The condition's position in the experiment."""
    condition: Condition
    seed: int
    start: int
    stop: int
    trace: bool
    time_limit: float | None = None
    isolate: bool = False
    """Run the plug-in bots sealed (`rummysim.strategies.sealed`); never changes the tables."""
    engine: str = "python"
    """``python`` (the reference engine) or ``compiled`` (`rummysim.engine_choice`); never changes the tables."""
    sandbox: bool = True
    """Sealed bots run in the sandbox (`rummysim.strategies.sandbox`); never changes the tables."""

    @property
    def id(self) -> str:
        return chunk_name(self.number, self.start, self.stop)


def play_chunk(chunk: Chunk) -> tuple[str, dict[str, pa.Table], int]:
    """Play a chunk's games; return its id, its tables and its number of hands (runs in workers)."""
    if chunk.engine == "compiled":
        condition = chunk.condition
        tables, n_hands = compiled.load().play_chunk_tables(
            condition.name,
            condition.rules,
            condition.players,
            seed=chunk.seed,
            start=chunk.start,
            stop=chunk.stop,
            seating=condition.seating,
        )
        return chunk.id, tables, n_hands
    hands: list[HandRecord] = []
    games: list[GameRecord] = []
    turns: list[TurnRecord] = []
    condition = chunk.condition
    with contextlib.ExitStack() as stack:
        pool = (
            stack.enter_context(SealedPool(time_limit=chunk.time_limit, sandboxed=chunk.sandbox))
            if chunk.isolate
            else None
        )
        for game in range(chunk.start, chunk.stop):
            result = play_game(
                condition.lineup(game),
                rules=condition.rules,
                seed=chunk.seed,
                game=game,
                trace=chunk.trace,
                time_limit=chunk.time_limit,
                isolate=pool or False,
            )
            hands.extend(result.hands)
            games.extend(result.games)
            turns.extend(result.turns)
    tables = {"hands": to_arrow("hands", condition.name, hands), "games": to_arrow("games", condition.name, games)}
    if chunk.trace:
        tables["turns"] = to_arrow("turns", condition.name, turns)
    return chunk.id, tables, len(hands) // condition.rules.n_players


def plan(
    experiment: Experiment, *, chunk_games: int | Mapping[str, int], trace: bool, done: set[str],
    engines: Sequence[str] | None = None,
) -> list[Chunk]:  # fmt: skip
    """Return the chunks still to play; `done` holds the ids of finished chunks (any chunk size).

    `engines` names the engine of each condition (`rummysim.engine_choice.choose_engine`); by default the
    reference. `chunk_games` is the games per chunk, or per engine (`default_chunk_games`).
    """
    covered: dict[int, list[tuple[int, int]]] = {}
    for chunk_id in done:
        number, first, last = chunk_span(chunk_id)
        covered.setdefault(number, []).append((first, last))
    chunks = []
    for index, condition in enumerate(experiment.conditions):
        spans = sorted(covered.get(index, []))
        game = 0
        gaps: list[tuple[int, int]] = []
        n_games = experiment.games_of(condition)
        for start, stop in [*spans, (n_games, n_games)]:
            if start > game:
                gaps.append((game, min(start, n_games)))
            game = max(game, stop)
        for gap_start, gap_stop in gaps:
            engine = engines[index] if engines else "python"
            size = chunk_games if isinstance(chunk_games, int) else chunk_games[engine]
            for start in range(gap_start, gap_stop, size):
                stop = min(start + size, gap_stop)
                chunks.append(Chunk(index, condition, experiment.seed, start, stop, trace, experiment.time_limit,
                                    experiment.isolates(condition), engine, experiment.sandbox))  # fmt: skip
    return chunks


def default_chunk_games(experiment: Experiment, *, n_jobs: int, backend: str) -> dict[str, int]:
    """Return games per chunk on each engine: up to `DEFAULT_CHUNK_GAMES` on the reference engine and
    `COMPILED_CHUNK_GAMES` compiled, and small enough that every worker gets several chunks of the
    smallest condition that plays (a check left out plays 0). The tables are the same for any chunk size."""
    workers = (n_jobs if n_jobs > 0 else os.cpu_count() or 1) if backend != "dask" else 4
    smallest = min((experiment.games_of(c) for c in experiment.conditions if experiment.games_of(c)), default=1)
    share = -(-smallest // (4 * workers))
    return {"python": max(1, min(DEFAULT_CHUNK_GAMES, share)), "compiled": max(1, min(COMPILED_CHUNK_GAMES, share))}


def execute(
    chunks: list[Chunk], *, backend: str, n_jobs: int, scheduler: str | None, into: Path
) -> Iterator[tuple[str, dict[str, dict[str, Any]], int]]:
    """Yield each chunk's id, its ledger record and its hands as it is played and written into `into`.

    A worker writes its own chunk (`written`), so that only the record travels back to the run,
    not the tables; on Dask, whose workers may not see this folder, the run writes them. Wherever
    a chunk plays, what a bot prints goes to stderr marked with its seat, a bot's
    KeyboardInterrupt is not taken for Ctrl-C, and a worker that a bot ends is named in one line.
    """
    record_interrupts()
    if backend == "dask":
        for chunk_id, tables, n_hands in _on_dask(chunks, scheduler):
            yield chunk_id, write_chunk(into, chunk_id, tables), n_hands
        return
    if backend not in ("loky", "sequential"):
        raise ConfigError(f"--backend: {backend!r} is not one of loky, sequential, dask")
    if backend == "sequential" or n_jobs == 1 or len(chunks) <= 1:
        yield from (written(chunk, str(into)) for chunk in chunks)
        return
    yield from _on_loky(chunks, n_jobs, into)


def _on_dask(chunks: list[Chunk], scheduler: str | None) -> Iterator[Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ConfigError("--backend dask needs the dask extra: pip install 'rummysim[dask]'") from None
    try:
        client = Client(scheduler) if scheduler else Client(processes=False)
    except (OSError, TimeoutError) as error:
        raise ConfigError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({error})") from None
    with client:
        futures = [client.submit(played, chunk, pure=False) for chunk in chunks]
        for future in as_completed(futures):
            yield future.result()


def _on_loky(chunks: list[Chunk], n_jobs: int, into: Path) -> Iterator[Any]:
    from joblib import Parallel, delayed, parallel_config
    from joblib.externals.loky.process_executor import BrokenProcessPool

    notes = tempfile.mkdtemp(prefix="rummysim-workers-")  # what each worker plays, to name one that dies
    try:
        # Ctrl-C signals the whole process group: the run stops its workers and says so in one line, so a
        # worker must not die of it on its own (multiprocessing would print "Process LokyProcess-1:" and a
        # traceback). A worker also ends itself when the run is gone (`start_worker`).
        with parallel_config(backend="loky", initializer=start_worker, initargs=(notes, os.getpid())):
            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            yield from parallel(delayed(written)(chunk, str(into)) for chunk in chunks)
    except BrokenProcessPool as error:
        raise worker_died(notes, str(error)) from None
    finally:
        shutil.rmtree(notes, ignore_errors=True)


def played(chunk: Chunk) -> tuple[str, dict[str, pa.Table], int]:
    """Play a chunk (`play_chunk`), noting which (in a worker), the bots' prints sent to stderr, marked."""
    note = _WORKER["notes"] and os.path.join(_WORKER["notes"], str(os.getpid()))
    if note:
        with open(note, "w") as file:
            file.write(f"playing condition {chunk.condition.name}, games {chunk.start}-{chunk.stop - 1}\n")
    try:
        with prints_to_stderr(speaker):
            return play_chunk(chunk)
    finally:
        if note:
            with open(note, "w"):
                pass


def written(chunk: Chunk, into: str) -> tuple[str, dict[str, dict[str, Any]], int]:
    """Play a chunk (`played`) and write its tables into the chunks folder `into`; return its id, record and hands."""
    chunk_id, tables, n_hands = played(chunk)
    return chunk_id, write_chunk(Path(into), chunk_id, tables), n_hands


_WORKER: dict[str, Any] = {"notes": None}
"""A worker's folder of notes (`start_worker`)."""


def start_worker(notes: str | None = None, parent: int | None = None) -> None:
    """Set up a worker process (loky's initializer): leave Ctrl-C to the run, and end with the run.

    SIGINT is ignored (the run that started the worker handles Ctrl-C), so any KeyboardInterrupt
    here is a bot's; stdout is stderr, so nothing a bot writes reaches the run's stdout; a thread
    ends the worker once its run is gone (killed, even), and its sealed bots' processes with it;
    and should the watchdog end the worker (`rummysim.timing`), it leaves its line in its note.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    bots_interrupts_only()
    with contextlib.suppress(OSError):
        os.dup2(2, 1)
    _WORKER["notes"] = notes
    if notes is not None:
        note = os.path.join(notes, str(os.getpid()))
        last_words(lambda line: _append(note, f"ended: {line}\n"))
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), name="rummysim-run-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    import psutil  # the run is gone: nobody will read this worker's chunks; its sealed bots end with it

    with contextlib.suppress(psutil.Error):
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                child.kill()
    os._exit(1)


def _append(path: str, text: str) -> bool:
    try:
        with open(path, "a") as file:
            file.write(text)
    except OSError:
        return False
    return True


def worker_died(notes: str, error: str) -> WorkerError:
    """Return the one-line error of a run whose worker died: the watchdog's line, or what played and how it ended."""
    playing: list[str] = []
    for name in sorted(os.listdir(notes)) if os.path.isdir(notes) else []:
        try:
            with open(os.path.join(notes, name)) as file:
                lines = file.read().splitlines()
        except OSError:
            continue
        if lines and lines[0].startswith("playing "):
            chunk = lines[0].removeprefix("playing ")
            playing.append(chunk)
            for line in lines[1:]:
                if line.startswith("ended: "):  # the watchdog's line: the seat, the bot and the hand
                    return WorkerError(f"{chunk.split(', games')[0]}, {line.removeprefix('ended: ')}")
    codes = re.search(r"exit codes of the workers are \{(.*)\}", error)
    how = re.sub(r"EXIT\((-?\d+)\)", r"exit code \1", codes.group(1)) if codes else "no exit code known"
    how = re.sub(r"(SIG\w+)\(-\d+\)", r"killed by \1", how)
    how = ", ".join(dict.fromkeys(how.split(", ")))  # two workers ended alike: said once
    where = ("while playing " + (playing[0] if len(playing) == 1 else "one of: " + "; ".join(playing[:4]))
             if playing else "between chunks")  # fmt: skip
    return WorkerError(
        f"a worker process ended unexpectedly ({how}) {where}: a bot in process can end its worker (os._exit, a "
        "crash in C code, memory), which isolate: true would name; the finished chunks are kept, and the same "
        "command resumes"
    )
