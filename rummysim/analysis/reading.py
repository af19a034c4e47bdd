"""Read a run's tables in bounded memory: per-game sums computed batch by batch while reading.

The analysis needs one row per game (`frames.game_frame`), never the hand rows together.
So ``hands.parquet`` is read in record batches of `BATCH_ROWS` rows (pyarrow's
``ParquetFile.iter_batches``), only the columns the metrics use, strings turned into
small codes in Arrow before pandas sees them. A batch's whole games are summed
(`frames.hand_sums`) and added to the score trajectories (`paths.ScorePaths`); the rows
of its last game, which may go on in the next batch, are carried over. Memory is then
one batch plus the per-game rows, about 0.3 KB per game, whatever the number of hands.

Why pyarrow and not DuckDB: pyarrow already reads and writes every table here, its
batches give the same pandas code the in-memory path runs (so both give the same numbers),
and the per-game rows must be in memory anyway for the bootstrap. DuckDB would be a
new dependency, and its SQL a second implementation of every per-game sum to keep equal.

The tables rummysim writes keep each game's rows together (a chunk holds whole games,
merged in order); a table that does not is refused rather than analysed wrongly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rummysim.analysis.frames import ENDINGS, game_outcomes, hand_digest, hand_sums, join_games
from rummysim.analysis.paths import ScorePaths
from rummysim.errors import ConfigError
from rummysim.results import Results

BATCH_ROWS = 1 << 19
"""Hand rows read at once: about 40 MB as read, a few times that while summed."""
HAND_COLUMNS = ("condition", "game", "hand", "seat", "position", "won", "points", "score", "went_out_by",
                "went_rummy", "stalled", "turns")  # fmt: skip
GAME_COLUMNS = ("condition", "game", "seat", "strategy", "won", "tied", "stalled")


class Progress(Protocol):
    """What hears how far a long analysis has gone (`rummysim.progress.AnalysisBar`)."""

    def __call__(self, rows: int) -> None:
        """Hear that `rows` more hand rows were read."""

    def phase(self, name: str) -> None:
        """Hear that the step `name` begins."""


@dataclass
class Frames:
    """The per-game rows and score trajectories of every condition with games in the tables."""

    games: dict[str, pd.DataFrame]
    trajectories: dict[str, pd.DataFrame]


def read_frames(
    results: Results, *, batch_rows: int = BATCH_ROWS, games: Mapping[str, int] | None = None,
    progress: Progress | None = None,
) -> Frames:  # fmt: skip
    """Return every condition's `game_frame` and trajectories, reading the hands in batches.

    `games`: only each condition's first games (game < games[name]), as if the run had played
    no more: a sized run reads a finished run's first waves without cutting its tables.
    `progress` hears the rows of each batch read, then that the comparisons begin (what
    `rummysim.analysis.analyze` does next). Each frame carries each game's ``digest`` of its hand
    rows too (`frames.hand_digest`).
    """
    results.check_tables("hands", "games")
    conditions = results.experiment.conditions
    names = [c.name for c in conditions]
    n_players = [c.rules.n_players for c in conditions]
    # each condition's games below its bound (by the condition's place in `names`; the last, 0, for no condition)
    bound = np.array([games[name] if games is not None else np.iinfo(np.int64).max for name in names] + [0])
    table = pq.read_table(
        results.folder / "games.parquet", columns=list(GAME_COLUMNS), read_dictionary=["condition", "strategy"]
    )
    if games is not None:
        codes = pc.index_in(pc.cast(table["condition"], pa.string()), value_set=pa.array(names)).fill_null(-1)
        table = table.filter(pc.less(table["game"], pa.array(bound[codes.to_numpy()])))
    prefix = games is not None
    games_rows = table.to_pandas()
    del table
    outcomes = {
        str(name): game_outcomes(rows)
        for name, rows in games_rows.groupby("condition", sort=False, observed=True)
        if name in names
    }
    del games_rows
    sums: dict[int, list[pd.DataFrame]] = {i: [] for i, name in enumerate(names) if name in outcomes}
    digests: dict[int, list[pd.Series]] = {i: [] for i in sums}
    paths = {i: ScorePaths(n_players=n_players[i]) for i in sums}
    seen = _Seen(names, n_players)

    def add(rows: pd.DataFrame) -> None:
        if prefix:
            rows = rows[rows["game"].to_numpy() < bound[rows["condition"].to_numpy()]]
            if not len(rows):
                return
        seen.check(rows)
        for code, part in _by_condition(rows):
            if code in sums:
                sums[code].append(hand_sums(part, n_players=n_players[code]))
                digests[code].append(hand_digest(part))
                paths[code].add(part, outcomes[names[code]]["winner_seat"])

    carry = None
    # strings as strings, not read_dictionary, which would end a batch at each row group (thousands)
    batches = pq.ParquetFile(results.folder / "hands.parquet").iter_batches(batch_rows, columns=list(HAND_COLUMNS))
    for rows in _frames_ahead(batches, names):
        if progress is not None:
            progress(len(rows))
        if carry is not None:  # only the carried game's rest is joined to it, not the whole batch
            rest = _run_length(rows, carry)
            if rest == len(rows):
                carry = pd.concat([carry, rows], ignore_index=True)
                continue
            add(pd.concat([carry, rows.iloc[:rest]], ignore_index=True))
            rows = rows.iloc[rest:]
        whole, carry = _split_last_game(rows)
        if len(whole):
            add(whole)
    if carry is not None and len(carry):
        add(carry)
    if progress is not None:
        progress.phase("comparing")
    frames, trajectories = {}, {}
    for code, parts in sums.items():
        if not parts:  # games but no hands: nothing to analyse
            continue
        name = names[code]
        frame = join_games(outcomes[name], pd.concat(parts), n_players=n_players[code])
        frame["digest"] = pd.concat(digests[code]).reindex(frame.index).fillna(0).astype(np.int64)
        frames[name] = frame
        trajectories[name] = paths[code].means()
    return Frames(frames, trajectories)


def _frames_ahead(batches: Iterable[pa.RecordBatch], names: list[str]) -> Iterator[pd.DataFrame]:
    """Yield each batch's `_frame`, the next one read and made in a thread meanwhile.

    Parquet's decoding and Arrow's compute let go of the GIL, so on two cores reading a
    batch overlaps summing the last. One thread takes every batch in turn, so the rows
    come in the file's order.
    """
    batches = iter(batches)

    def following() -> pd.DataFrame | None:
        batch = next(batches, None)
        return None if batch is None else _frame(batch, names)

    with ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(following)
        while (rows := ahead.result()) is not None:
            ahead = pool.submit(following)
            yield rows


def _frame(batch: pa.RecordBatch, names: list[str]) -> pd.DataFrame:
    """Return a batch as pandas with codes for strings: condition by its place in `names` (-1 if absent).

    The columns are the batch's own arrays where Arrow allows (not copied into blocks).
    """
    columns: dict[str, object] = {}
    for field in HAND_COLUMNS:
        array = batch.column(field)
        if field == "condition":
            columns[field] = pc.index_in(array, value_set=pa.array(names)).fill_null(-1).to_numpy()
        elif field == "went_out_by":
            codes = pc.index_in(array, value_set=pa.array(ENDINGS[:-1])).fill_null(-1).to_numpy()
            columns[field] = pd.Categorical.from_codes(codes, categories=pd.Index(ENDINGS[:-1]))
        else:
            columns[field] = array.to_numpy(zero_copy_only=False)
    return pd.DataFrame(columns, copy=False)


def _run_length(rows: pd.DataFrame, carry: pd.DataFrame) -> int:
    """Return how many of the first rows belong to the carried game (its condition and game)."""
    condition, game = rows["condition"].to_numpy(), rows["game"].to_numpy()
    other = np.flatnonzero((condition != carry["condition"].iloc[-1]) | (game != carry["game"].iloc[-1]))
    return int(other[0]) if len(other) else len(rows)


def _by_condition(rows: pd.DataFrame) -> list[tuple[int, pd.DataFrame]]:
    """Return each condition's rows: slices where each condition's rows are together (as written), else masks."""
    condition = rows["condition"].to_numpy()
    starts = np.flatnonzero(np.r_[True, condition[1:] != condition[:-1]])
    codes = condition[starts]
    if len(np.unique(codes)) == len(codes):
        ends = np.r_[starts[1:], len(rows)]
        return [(int(c), rows.iloc[a:b]) for c, a, b in zip(codes, starts, ends, strict=True)]
    return [(int(c), rows[condition == c]) for c in np.unique(codes)]


def _split_last_game(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (rows of whole games, rows of the last game), which may go on in the next batch."""
    cut = _last_run_start(rows["condition"].to_numpy(), rows["game"].to_numpy())
    return rows.iloc[:cut], rows.iloc[cut:].reset_index(drop=True)


def _last_run_start(condition: np.ndarray, game: np.ndarray) -> int:
    """Return the index of the first row of the trailing run of rows with the last row's (condition, game)."""
    other = np.flatnonzero((condition != condition[-1]) | (game != game[-1]))
    return int(other[-1]) + 1 if len(other) else 0


class _Seen:
    """The games already summed, per condition, to refuse a table whose games' rows are not together or not whole."""

    def __init__(self, names: list[str], n_players: list[int]) -> None:
        self.names, self.n_players = names, n_players
        self.done = [np.zeros(0, dtype=bool) for _ in names]

    def check(self, rows: pd.DataFrame) -> None:
        """Raise `ConfigError` unless every game of `rows` is whole (n rows a hand) and was not summed before."""
        condition, game = rows["condition"].to_numpy(), rows["game"].to_numpy()
        starts = np.flatnonzero(np.r_[True, (condition[1:] != condition[:-1]) | (game[1:] != game[:-1])])
        sizes = np.diff(np.r_[starts, len(rows)])
        hands = np.maximum.reduceat(rows["hand"].to_numpy(), starts) + 1
        for code in np.unique(condition[starts]):
            if code < 0:
                continue
            mine = condition[starts] == code
            runs = game[starts[mine]]
            done = self.done[code]
            if runs.max() >= len(done):
                done = self.done[code] = np.concatenate([done, np.zeros(runs.max() + 1 - len(done), dtype=bool)])
            broken = np.flatnonzero(done[runs] | (sizes[mine] != self.n_players[code] * hands[mine]))
            if len(np.unique(runs)) < len(runs) or len(broken):
                shown = runs[broken[0]] if len(broken) else runs[0]
                raise ConfigError(
                    f"hands.parquet: the rows of game {shown} of condition {self.names[code]} are not together, or "
                    "not whole; the analysis reads games whole, as rummysim writes them (chunks of whole games)"
                )
            done[runs] = True
