"""Checksums that let a chunk or a table prove itself: SHA-256 of its bytes, and its row count.

The runner records each finished chunk's files (`chunk_record`) in ``run.json`` while a
run goes on, and each merged table's in ``manifest.json`` when it ends; before a chunk is
resumed or merged, and whenever `rummysim verify` reads a folder, the file is hashed
again and compared (`check_file`). A truncated, bit-flipped or missing file is named,
never read as data.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

BLOCK = 1 << 20


def file_digest(path: Path) -> str:
    """Return the SHA-256 of a file's bytes, in hex (read in blocks, so memory stays flat)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def table_record(path: Path, rows: int | None = None) -> dict[str, Any]:
    """Return what proves a Parquet file: its SHA-256 and its rows (read from its footer if not given)."""
    if rows is None:
        rows = pq.read_metadata(path).num_rows
    return {"sha256": file_digest(path), "rows": rows}


def chunk_record(folder: Path) -> dict[str, dict[str, Any]]:
    """Return the record of a chunk folder: each table's `table_record`, by kind (``hands``, ``games``, ...)."""
    return {path.stem: table_record(path) for path in sorted(folder.glob("*.parquet"))}


def check_file(path: Path, record: Mapping[str, Any]) -> str | None:
    """Return what is wrong with a file against its record (missing, or not matching), or None if it matches.

    Only the bytes are compared, so a damaged file is never opened as Parquet.
    """
    if not path.is_file():
        return f"{path.name} is missing"
    if file_digest(path) != record.get("sha256"):
        return f"{path.name} does not match its checksum"
    return None


def check_chunk(folder: Path, record: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Return what is wrong with a chunk folder against its record, or None if every table matches."""
    if not folder.is_dir():
        return "is missing"
    for kind, table in record.items():
        problem = check_file(folder / f"{kind}.parquet", table)
        if problem:
            return problem
    return None
