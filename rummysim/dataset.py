"""A results folder's tables as a partitioned Parquet dataset, for DuckDB, pandas and pyarrow (docs/atlas.md).

`write_dataset` streams each table of a finished run (``hands``, ``games``, and ``turns``
when traced) into a hive-partitioned dataset beside it:

| path | holds |
| --- | --- |
| ``dataset/<kind>/players=<n>/condition=<name>/part-0.parquet`` | one condition's rows of one table |
| ``dataset/dataset.json`` | the tables it was written from: their SHA-256 and rows, as the manifest records them |

The rows are the table's rows, in its order. ``players`` (the condition's table size, R1.1)
and ``condition`` are in the path, not the files: DuckDB (``hive_partitioning = true``),
pandas and pyarrow read them back as columns, and a query on them reads only the folders it
names. A grid experiment's factors (``grid:``) are plain columns, the condition's level of
each, so that ``WHERE players = 4 AND stock_out = 'block'`` selects cells; a level is the
same on every row of a file, so it costs almost nothing on disk. Condition names are
URL-encoded in the path (``p4%7Cace%3Dlow...``), as pyarrow writes them and the three
readers decode them (DuckDB from 1.1).

The tables are read in row batches, so memory stays flat at any size; the dataset is written
in a temporary folder and renamed into place, so it is whole or absent. It is only ever
written from tables that match their manifest (`rummysim.results.Results.check_tables`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from rummysim.design import Experiment
from rummysim.errors import ConfigError, disk_error
from rummysim.limits import MAX_CONDITIONS
from rummysim.results import DATASET, DATASET_MARKER, SCHEMAS, load_results

PARTITIONING = ds.partitioning(pa.schema([("players", pa.int64()), ("condition", pa.string())]), flavor="hive")
"""The dataset's partitioning, with its columns' types: pass it to `pyarrow.dataset.dataset` to read
``players`` as int64 (pyarrow would otherwise guess int32)."""

BATCH_ROWS = 1 << 17
"""Rows read at a time, and the most a row group of the dataset holds."""

NAME_BYTES = 255
"""The longest name of a folder on common file systems (ext4, APFS, NTFS)."""


@dataclass(frozen=True)
class Dataset:
    """A dataset as written: its folder, the rows of each table and the grid's factors, its plain columns."""

    folder: Path
    rows: dict[str, int]
    factors: tuple[str, ...]


def write_dataset(results_folder: str | Path, out: str | Path | None = None) -> Dataset:
    """Write a finished run's tables as a hive-partitioned Parquet dataset; return what was written.

    `out` is ``<results_folder>/dataset`` unless given. An earlier dataset there is replaced
    whole; any other folder there is an error. Raise a one-line `ConfigError` naming the
    folder if its tables are missing or are not the ones its manifest records (their
    SHA-256), or if a condition's name is too long to name a folder.
    """
    folder = Path(results_folder)
    results = load_results(folder)
    kinds = [k for k in SCHEMAS if k != "turns" or _has_turns(folder, results.manifest)]
    results.check_tables(*kinds)
    results.check_manifest()  # players and the factors' levels come from the manifest's experiment
    out = Path(out) if out is not None else folder / DATASET
    if out.exists() and not (out / DATASET_MARKER).is_file():
        raise ConfigError(f"{out}: exists and is not a dataset rummysim wrote; give another --out or remove it")
    cells = _Cells(results.experiment, folder)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    rows = {}
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        for kind in kinds:
            rows[kind] = _write_kind(folder / f"{kind}.parquet", tmp / kind, kind=kind, cells=cells)
        source = {"results": str(folder), "tables": {k: results.manifest.get("tables", {}).get(k) for k in kinds}}
        (tmp / DATASET_MARKER).write_text(json.dumps(source, indent=2), encoding="utf-8")
        if out.exists():
            os.replace(out, old)
        try:
            os.replace(tmp, out)
        except OSError:
            if old.exists():
                os.replace(old, out)  # the earlier dataset back, whole
            raise
    except OSError as error:
        raise disk_error(
            error, folder=out, doing="writing the dataset", then=f"run: rummysim dataset {folder}"
        ) from error
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return Dataset(out, rows, tuple(cells.factors))


def _has_turns(folder: Path, manifest: dict[str, Any]) -> bool:
    """Return True if the run was traced: its manifest records turns.parquet, or (an older manifest) it is there."""
    recorded = manifest.get("tables")
    return "turns" in recorded if recorded is not None else (folder / "turns.parquet").exists()


class _Cells:
    """What the dataset adds to each condition's rows: its table size and, in a grid, each factor's level."""

    def __init__(self, experiment: Experiment, folder: Path) -> None:
        conditions = experiment.conditions
        self.folder = folder
        for condition in conditions:
            size = len(f"condition={quote(condition.name, safe='')}".encode())
            if size > NAME_BYTES:
                raise ConfigError(
                    f"{folder}: condition {condition.name!r} is too long to name a folder of the dataset "
                    f"({size} bytes URL-encoded, at most {NAME_BYTES})"
                )
        self.names = pa.array([c.name for c in conditions], pa.string())
        self.players = pa.array([c.rules.n_players for c in conditions], pa.int64())
        self.factors = {factor: _levels([getattr(c.rules, factor) for c in conditions]) for factor in experiment.grid}

    def schema(self, kind: str) -> pa.Schema:
        """Return the schema of the rows written: the table's columns, the factors, then the partition columns."""
        fields = [f for f in SCHEMAS[kind] if f.name != "condition"]
        fields += [pa.field(name, levels.type) for name, levels in self.factors.items()]
        return pa.schema([*fields, *PARTITIONING.schema])

    def extend(self, batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
        """Return a batch of a table with each row's factor levels and table size, looked up by its condition."""
        index = pc.index_in(batch.column("condition"), value_set=self.names)
        if index.null_count:
            raise ConfigError(f"{self.folder}: a row's condition is not one of the experiment's in its manifest")
        columns = [batch.column(name) for name in batch.schema.names if name != "condition"]
        columns += [levels.take(index) for levels in self.factors.values()]
        columns += [self.players.take(index), batch.column("condition")]
        return pa.RecordBatch.from_arrays(columns, schema=schema)


def open_files() -> int:
    """Return how many files the writer may keep open: one per condition, within the process's limit.

    Past it (a small limit, as macOS's 256, and a large grid) pyarrow closes the file it
    wrote least lately. The tables hold each condition's rows together, so that one is done:
    nothing is split, and the run does not fail for want of file handles.
    """
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # no such limit here (Windows)
        return MAX_CONDITIONS
    if soft == resource.RLIM_INFINITY:
        return MAX_CONDITIONS
    return max(8, min(MAX_CONDITIONS, soft - 64))  # room for the files the process already has open


def _levels(values: list[Any]) -> pa.Array:
    """Return a factor's level in each condition as one Arrow array (rule settings' enums as their text)."""
    plain = [v.value if isinstance(v, Enum) else v for v in values]
    array = pa.array(plain)
    return array.cast(pa.string()) if pa.types.is_null(array.type) else array


def _write_kind(path: Path, base: Path, *, kind: str, cells: _Cells) -> int:
    """Stream one table into its partitioned folder with pyarrow.dataset; return the rows written."""
    schema = cells.schema(kind)
    counted = [0]

    def batches() -> Iterator[pa.RecordBatch]:
        # pre_buffer would keep what it read ahead: with it, memory grows with the table
        for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(batch_size=BATCH_ROWS):
            counted[0] += batch.num_rows
            yield cells.extend(batch, schema)

    ds.write_dataset(
        batches(), base, schema=schema, format="parquet", partitioning=PARTITIONING,
        basename_template="part-{i}.parquet", preserve_order=True, max_rows_per_group=BATCH_ROWS,
        max_open_files=open_files(),  # every condition's file open at once, where the system allows: one file each
        existing_data_behavior="error",
    )  # fmt: skip
    return counted[0]
