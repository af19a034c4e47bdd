"""Chunks: a run's unit of work and of resuming, what they are, which are still to play, and playing them.

A chunk is a range of games of one condition (`Chunk`), named by its condition and
games (`rummysim.ledger.chunk_name`). `plan` lists the chunks a run still needs given
those finished; `execute` plays chunks on joblib/loky workers, in process, or on a Dask
cluster, and yields each one's tables as it finishes (`play_chunk`, on either engine).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import pyarrow as pa

import rummysim.compiled as compiled
from rummysim.design import Condition, Experiment, rotated
from rummysim.errors import ConfigError
from rummysim.game import play_game
from rummysim.ledger import chunk_name, chunk_span
from rummysim.records import GameRecord, HandRecord, TurnRecord
from rummysim.results import to_arrow
from rummysim.strategies.sealed import SealedPool

DEFAULT_CHUNK_GAMES = 100


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

    @property
    def id(self) -> str:
        return chunk_name(self.number, self.start, self.stop)


def play_chunk(chunk: Chunk) -> tuple[str, dict[str, pa.Table], int]:
    """Play a chunk's games; return its id, its tables and its number of hands (runs in workers)."""
    if chunk.engine == "compiled":
        condition = chunk.condition
        tables, n_hands = compiled.load().play_chunk_tables(
            condition.name, condition.rules, condition.players, seed=chunk.seed, start=chunk.start, stop=chunk.stop
        )
        return chunk.id, tables, n_hands
    hands: list[HandRecord] = []
    games: list[GameRecord] = []
    turns: list[TurnRecord] = []
    condition = chunk.condition
    with contextlib.ExitStack() as stack:
        pool = stack.enter_context(SealedPool(time_limit=chunk.time_limit)) if chunk.isolate else None
        for game in range(chunk.start, chunk.stop):
            result = play_game(
                rotated(condition.players, game),
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
    experiment: Experiment, *, chunk_games: int, trace: bool, done: set[str], engines: Sequence[str] | None = None
) -> list[Chunk]:
    """Return the chunks still to play; `done` holds the ids of finished chunks (any chunk size).

    `engines` names the engine of each condition (`rummysim.engine_choice.choose_engine`); by default the reference.
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
            for start in range(gap_start, gap_stop, chunk_games):
                stop = min(start + chunk_games, gap_stop)
                engine = engines[index] if engines else "python"
                chunks.append(Chunk(index, condition, experiment.seed, start, stop, trace, experiment.time_limit,
                                    experiment.isolates(condition), engine))  # fmt: skip
    return chunks


def default_chunk_games(experiment: Experiment, *, n_jobs: int, backend: str) -> int:
    """Return games per chunk: up to 100, and small enough that every worker gets several chunks
    of the smallest condition."""
    workers = (n_jobs if n_jobs > 0 else os.cpu_count() or 1) if backend != "dask" else 4
    smallest = min(experiment.games_of(c) for c in experiment.conditions)
    return max(1, min(DEFAULT_CHUNK_GAMES, -(-smallest // (4 * workers))))


def execute(chunks: list[Chunk], *, backend: str, n_jobs: int, scheduler: str | None) -> Iterator[Any]:
    """Yield chunk results as they finish, on joblib/loky or a Dask cluster."""
    if backend == "dask":
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise ConfigError("--backend dask needs the dask extra: pip install 'rummysim[dask]'") from None
        try:
            client = Client(scheduler) if scheduler else Client(processes=False)
        except (OSError, TimeoutError) as error:
            raise ConfigError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({error})") from None
        with client:
            futures = [client.submit(play_chunk, chunk, pure=False) for chunk in chunks]
            for future in as_completed(futures):
                yield future.result()
        return
    if backend not in ("loky", "sequential"):
        raise ConfigError(f"--backend: {backend!r} is not one of loky, sequential, dask")
    if backend == "sequential" or n_jobs == 1 or len(chunks) <= 1:
        yield from map(play_chunk, chunks)
        return
    from joblib import Parallel, delayed, parallel_config

    # Ctrl-C signals the whole process group: the run stops its workers and says so in one line, so a
    # worker must not die of it on its own (multiprocessing would print "Process LokyProcess-1:" and a traceback).
    with parallel_config(backend="loky", initializer=ignore_interrupts):
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        yield from parallel(delayed(play_chunk)(chunk) for chunk in chunks)


def ignore_interrupts() -> None:
    """Ignore SIGINT in a worker process (loky's initializer): the run that started it handles Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
