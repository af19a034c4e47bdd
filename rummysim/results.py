"""Result tables: records to Arrow, chunk files written atomically, merged tables, `Results`.

A run writes ``hands.parquet`` (one row per hand x seat), ``games.parquet`` (one row per
game x seat) and, traced, ``turns.parquet`` (one row per turn), each with a leading
``condition`` column and the fields of `HandRecord`, `GameRecord` and `TurnRecord`.
Chunks are written to a temporary folder and renamed into place, so a chunk on disk is
always whole; merging streams chunk by chunk, so memory stays flat.
"""

from __future__ import annotations

import json
import os
import shutil
import typing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rummysim.checksums import check_file, chunk_record, table_record
from rummysim.design import Experiment, from_manifest
from rummysim.errors import ConfigError, RummysimError
from rummysim.manifest import MANIFEST, check_manifest, read_manifest, seal
from rummysim.records import GameRecord, HandRecord, TurnRecord

TABLES = ("hands", "games", "turns")
DATASET = "dataset"
"""The folder `rummysim dataset` writes beside the tables (`rummysim.dataset`): made from them, so a run
that replaces or extends them removes it (`drop_dataset`)."""
DATASET_MARKER = "dataset.json"
"""The file that says a folder is a dataset rummysim wrote: only such a folder is ever replaced or removed."""

_TYPES: dict[type, pa.DataType] = {int: pa.int64(), bool: pa.bool_(), str: pa.string()}


def _schema(record: type) -> pa.Schema:
    """Return the Arrow schema of a record type: `condition`, then its fields by their hints."""
    fields = [pa.field("condition", pa.string(), nullable=False)]
    for name, hint in typing.get_type_hints(record).items():
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        base = args[0] if args else hint
        fields.append(pa.field(name, _TYPES[base], nullable=bool(args)))
    return pa.schema(fields)


SCHEMAS: dict[str, pa.Schema] = {
    "hands": _schema(HandRecord),
    "games": _schema(GameRecord),
    "turns": _schema(TurnRecord),
}


def to_arrow(kind: str, condition: str, records: Sequence[tuple[Any, ...]]) -> pa.Table:
    """Return records of one kind as an Arrow table with the `condition` column first."""
    schema = SCHEMAS[kind]
    columns = list(zip(*records, strict=True)) if records else [()] * (len(schema) - 1)
    arrays = [pa.array([condition] * len(records), pa.string())]
    arrays += [pa.array(col, type=f.type) for col, f in zip(columns, list(schema)[1:], strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


def write_table_atomic(table: pa.Table, path: Path) -> None:
    """Write a Parquet file under a temporary name, then rename it into place (no temporary file is left)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(text: str, path: Path) -> None:
    """Write a text file under a temporary name, then rename it into place (no temporary file is left)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Seal the manifest (its own checksum, `rummysim.manifest.seal`) and write it into `folder` atomically."""
    write_text_atomic(json.dumps(seal(manifest), indent=2), folder / MANIFEST)


CHUNK_COMPRESSION = "lz4"
"""A chunk's compression: a chunk is written once and read once, by the merge, which writes the tables with
Parquet's default (so the tables' bytes do not depend on it). LZ4 files are as small as Snappy's here, written
about 20% and read about 50% quicker (docs/benchmarks.md)."""


def write_chunk(folder: Path, chunk_id: str, tables: dict[str, pa.Table]) -> dict[str, dict[str, Any]]:
    """Write one chunk's tables as a whole: a temporary folder renamed into place; return its `chunk_record`.

    The checksums are taken before the rename, of the files as written; on any error the
    temporary folder is removed.
    """
    tmp = folder / f".tmp-{chunk_id}-{os.getpid()}"
    try:
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        record = {}
        for kind, table in tables.items():  # LZ4: as small as the default, quicker to write and to merge
            pq.write_table(table, tmp / f"{kind}.parquet", compression=CHUNK_COMPRESSION)
            record[kind] = table_record(tmp / f"{kind}.parquet", table.num_rows)
        os.replace(tmp, folder / chunk_id)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return record


def finished_chunks(folder: Path) -> list[str]:
    """Return the ids of the chunks written whole, in order (temporary leftovers are removed)."""
    if not folder.exists():
        return []
    for leftover in folder.glob(".tmp-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def remove_leftovers(folder: Path) -> None:
    """Remove the temporary files a stopped merge or manifest write left (``.NAME.tmp-PID``)."""
    for leftover in folder.glob(".*.tmp*"):
        if leftover.is_file():
            leftover.unlink(missing_ok=True)


ROW_GROUP_ROWS = 1 << 17
"""Rows in each row group of a merged table (the last may hold fewer): fixed, so a table's bytes do not
depend on how its games were cut into chunks."""


def drop_dataset(folder: Path) -> None:
    """Remove the results folder's `DATASET`, if rummysim wrote it: it was made from tables about to change."""
    if (folder / DATASET / DATASET_MARKER).is_file():
        shutil.rmtree(folder / DATASET)


def merge_chunks(
    chunks: Iterable[Path], out: Path, kinds: Sequence[str], *, progress: Callable[[int], None] | None = None
) -> dict[str, dict[str, Any]]:
    """Stream the chunks' tables, in order, into one Parquet file per kind; return each one's `table_record`.

    The rows are written in row groups of `ROW_GROUP_ROWS`, whatever the chunks' sizes, so
    the same rows make the same bytes for any ``--chunk-games``, ``--jobs`` or backend; at
    most one row group and one chunk are held at once. On any error the temporary file is
    removed and the tables already in place are kept. `progress` hears the rows of each row
    group as it is written (`rummysim.progress.MergeBar`): every row of every kind once, the
    kinds in order, so the calls add up to the chunks' rows (`rummysim.progress.merge_rows`).
    """
    chunks = list(chunks)
    heard = progress or _unheard
    records = {}
    for kind in kinds:
        path = out / f"{kind}.parquet"
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            with pq.ParquetWriter(tmp, SCHEMAS[kind]) as writer:
                count, held = 0, list[pa.Table]()
                for table in _read_ahead([chunk / f"{kind}.parquet" for chunk in chunks], SCHEMAS[kind]):
                    count += table.num_rows
                    held = _write_whole_groups(writer, [*held, table], heard)
                if held:
                    rest = pa.concat_tables(held).combine_chunks()
                    writer.write_table(rest)
                    heard(rest.num_rows)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        records[kind] = table_record(path, count)
    return records


def _read_ahead(paths: Sequence[Path], schema: pa.Schema, depth: int = 2) -> Iterator[pa.Table]:
    """Yield each Parquet file's table in order, the next `depth` read in a thread meanwhile.

    Reading (decoding) the chunks then overlaps writing (encoding) the merged table: pyarrow
    releases the GIL in both. At most `depth` + 1 chunks are held.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending: deque[Future[pa.Table]] = deque()
        for path in paths:
            pending.append(pool.submit(pq.read_table, path, schema=schema))
            if len(pending) > depth:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _unheard(rows: int) -> None:
    """Hear nothing: a merge with no `progress`."""


def _write_whole_groups(
    writer: pq.ParquetWriter, tables: list[pa.Table], heard: Callable[[int], None] = _unheard
) -> list[pa.Table]:
    """Write as many whole row groups of `ROW_GROUP_ROWS` as `tables` hold, telling `heard` each; return the rest.

    Each group is written from contiguous arrays (``combine_chunks``), so its bytes depend on
    its rows alone, not on the chunks they came from.
    """
    rows = sum(t.num_rows for t in tables)
    if rows < ROW_GROUP_ROWS:
        return tables
    table = pa.concat_tables(tables)
    whole = rows - rows % ROW_GROUP_ROWS
    for start in range(0, whole, ROW_GROUP_ROWS):
        writer.write_table(table.slice(start, ROW_GROUP_ROWS).combine_chunks(), row_group_size=ROW_GROUP_ROWS)
        heard(ROW_GROUP_ROWS)
    rest = table.slice(whole)
    return [rest] if rest.num_rows else []


def split_tables(folder: Path, chunk_dir: Path, chunk_ids: dict[str, str], kinds: Sequence[str]) -> dict[str, Any]:
    """Split a finished run's merged tables into one chunk per condition (``chunk_ids``: condition to chunk id).

    Used to extend a finished run: its games become chunks again, and the new games are
    played beside them. The tables are read in row batches, so memory stays flat; each
    chunk is written in a temporary folder and renamed into place. Return each chunk's
    record (`chunk_record`).
    """
    tmp = chunk_dir / f".tmp-split-{os.getpid()}"
    writers: dict[tuple[str, str], pq.ParquetWriter] = {}
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        for kind in kinds:
            for batch in pq.ParquetFile(folder / f"{kind}.parquet").iter_batches(batch_size=1 << 16):
                table = pa.Table.from_batches([batch]).cast(SCHEMAS[kind])
                for name in pc.unique(table["condition"]).to_pylist():
                    if (kind, name) not in writers:
                        (tmp / chunk_ids[name]).mkdir(parents=True, exist_ok=True)
                        writers[kind, name] = pq.ParquetWriter(tmp / chunk_ids[name] / f"{kind}.parquet", SCHEMAS[kind])
                    writers[kind, name].write_table(table.filter(pc.equal(table["condition"], name)))
        for writer in writers.values():
            writer.close()
        writers.clear()
        records = {}
        for chunk_id in sorted(os.listdir(tmp)) if tmp.exists() else []:
            records[chunk_id] = chunk_record(tmp / chunk_id)
            os.replace(tmp / chunk_id, chunk_dir / chunk_id)
        return records
    finally:
        for writer in writers.values():
            writer.close()
        shutil.rmtree(tmp, ignore_errors=True)


def trim_chunk(chunk_dir: Path, chunk_id: str, new_id: str, stop: int) -> dict[str, Any]:
    """Write chunk `chunk_id`'s games below `stop` as chunk `new_id` and remove the old one; return its record."""
    old = chunk_dir / chunk_id
    tables = {}
    for path in sorted(old.glob("*.parquet")):
        table = pq.read_table(path, schema=SCHEMAS[path.stem])
        tables[path.stem] = table.filter(pc.less(table["game"], stop))
    record = write_chunk(chunk_dir, new_id, tables)
    shutil.rmtree(old)
    return record


@dataclass
class Results:
    """The tables of a finished run, read lazily from its folder."""

    folder: Path
    manifest: dict[str, Any] = field(repr=False)
    _cache: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    analysis: Any = field(default=None, repr=False)
    """The analysis a sized run already made of these tables (`rummysim.analysis.Analysis`), or None."""
    _proven: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    """The tables already checked against the manifest's checksums (`check_tables`): kind -> (size, mtime)."""
    reproduction: str | None = field(default=None, repr=False)
    """A run into committed results: whether its tables are the committed ones (`rummysim.reproduction`)."""

    def check_tables(self, *kinds: str, again: str | None = None) -> None:
        """Raise `ConfigError` unless the folder has these tables, and they are the ones its manifest records.

        A table whose SHA-256 differs from the manifest's (another run's tables copied in, a
        damaged file) is never read: every figure would belong to a run the manifest does
        not describe; nor is a table the manifest does not record. A manifest older than the
        records (no ``tables``) is trusted. Each table is hashed once per `Results`, again
        only if the file changes. `again` says how to play it again.
        """
        again = again or f"play it again with: rummysim run {self.manifest.get('source', 'FILE')}"
        recorded = self.manifest.get("tables")
        for kind in kinds:
            path = self.folder / f"{kind}.parquet"
            if not path.exists():
                # committed results keep the manifest and report, not the tables
                hint = " (run with --trace to record turns)" if kind == "turns" else f"; {again}"
                raise ConfigError(f"{self.folder}: has no {kind}.parquet{hint}")
            stat = path.stat()
            if recorded is None or self._proven.get(kind) == (stat.st_size, stat.st_mtime_ns):
                continue
            record = recorded.get(kind)
            problem = check_file(path, record) if record else f"{kind}.parquet is not recorded"
            if problem:
                raise ConfigError(
                    f"{self.folder}: {problem} in {MANIFEST} (another run's table, or a damaged one); "
                    f"see rummysim verify {self.folder}, or {again}"
                )
            self._proven[kind] = (stat.st_size, stat.st_mtime_ns)

    def _table(self, kind: str) -> pd.DataFrame:
        if kind not in self._cache:
            self.check_tables(kind)
            self._cache[kind] = pd.read_parquet(self.folder / f"{kind}.parquet")
        return self._cache[kind]

    @property
    def hands(self) -> pd.DataFrame:
        """One row per hand x seat (see `HandRecord`), with `condition`, read whole on first use.

        About 0.45 GiB per million rows; the analysis does not need it (it reads the file
        in batches: `rummysim.analysis.reading`).
        """
        return self._table("hands")

    @property
    def games(self) -> pd.DataFrame:
        """One row per game x seat (see `GameRecord`), with `condition`."""
        return self._table("games")

    @property
    def turns(self) -> pd.DataFrame:
        """One row per turn (see `TurnRecord`), with `condition`; only in traced runs."""
        return self._table("turns")

    @property
    def experiment(self) -> Experiment:
        """Return the experiment this run played, read back from its manifest (`rummysim.design`)."""
        return experiment_of(self.manifest, str(self.folder / MANIFEST))

    def check_manifest(self) -> None:
        """Raise `ConfigError` naming the first thing the manifest records that it cannot back (`rummysim.manifest`).

        Its own checksum, its fingerprint and seed recomputed from its experiment, its rows
        against the tables' footers: a report is never written from an edited manifest.
        """
        problems = check_manifest(self.manifest, self.experiment, self.folder, game_rows=game_rows(self.experiment))
        if problems:
            raise ConfigError(f"{problems[0]}; see rummysim verify {self.folder}")

    @property
    def conditions(self) -> list[str]:
        """Return the condition names, in the experiment's order."""
        return [c.name for c in self.experiment.conditions]


def game_rows(experiment: Experiment) -> int:
    """Return the game x seat rows an experiment's games make: each condition's games times its seats."""
    return sum(experiment.games_of(c) * c.rules.n_players for c in experiment.conditions)


def experiment_of(manifest: Any, source: str) -> Experiment:
    """Return the experiment a manifest records, or raise `ConfigError` in one line naming what it cannot read.

    The manifest is data from outside: a value of a wrong type deep in it (a rule as a list, a
    player as a number) is one line too, never a traceback.
    """
    try:
        return from_manifest(manifest, source=source)
    except RummysimError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as error:
        text = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise ConfigError(f"{source}: experiment: not an experiment this version reads ({text})") from None


def load_results(folder: str | Path) -> Results:
    """Read the results of a finished run from its folder (``results/<name>``).

    Raise `ConfigError` in one line if the manifest is missing or damaged, or records an
    experiment this version cannot read (`rummysim.manifest.read_manifest`).
    """
    folder = Path(folder)
    path = folder / MANIFEST
    try:
        manifest = read_manifest(path)
    except FileNotFoundError:
        raise ConfigError(f"{folder}: no {MANIFEST}; not the folder of a finished run") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    experiment_of(manifest, str(path))
    return Results(folder, manifest)
