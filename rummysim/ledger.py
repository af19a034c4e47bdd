"""The ledger of a run's finished chunks: what each chunk's tables must hash to, kept while the run goes on.

``<out>/<name>/chunks.jsonl`` has one JSON line per finished chunk, appended once the
chunk is renamed into place: ``{"chunk": ID, "tables": {KIND: {"sha256": ..., "rows":
...}}}`` (`rummysim.checksums.chunk_record`). On resume and before the merge the runner
`prove`s every chunk against it: a chunk that does not match (truncated, bit-flipped) or
that is gone is named in a one-line notice and played again (its games are fixed by the
seed), and a chunk on disk with no line (the run stopped between the rename and the
append) is played again quietly. So no chunk is merged unless its bytes are the bytes
written. A torn last line (the run stopped mid-append) is dropped when the ledger is read.

Under a secret seed each line also names the SHA-256 of the seed its chunk was played
under (``"seed_sha256"``, `seeds`): a run resumed under another secret (its ``.secret``
and ``run.json`` swapped mid-run) finds chunks that name another commitment and refuses
(`rummysim.resume.check_seeds`), and the manifest keeps every chunk's (``chunk_seeds``)
for `rummysim verify`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from rummysim.checksums import check_chunk

LEDGER = "chunks.jsonl"

Record = Mapping[str, Mapping[str, Any]]


def chunk_name(number: int, start: int, stop: int) -> str:
    """Return the id of condition `number`'s chunk of games [start, stop): what `chunk_span` reads.

    >>> chunk_name(1, 4, 6)
    'c001-g000000004-000000006'
    """
    return f"c{number:03d}-g{start:09d}-{stop:09d}"


def chunk_span(chunk_id: str) -> tuple[int, int, int]:
    """Return a chunk id's condition number and its games [start, stop).

    >>> chunk_span("c001-g000000004-000000006")
    (1, 4, 6)
    """
    number, start, stop = chunk_id.split("-")
    return int(number[1:]), int(start[1:]), int(stop)


class Ledger:
    """The chunks a run has written, each with its tables' checksums and rows."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LEDGER
        self.records: dict[str, Record] = {}
        self.seeds: dict[str, str] = {}
        """Each chunk's seed commitment, under a secret seed (none for a public seed)."""
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                    self.records[str(entry["chunk"])] = entry["tables"]
                except (ValueError, KeyError, TypeError):  # a torn line: its chunk is played again
                    continue
                if isinstance(entry.get("seed_sha256"), str):
                    self.seeds[str(entry["chunk"])] = entry["seed_sha256"]

    def add(self, chunk_id: str, record: Record, *, seed: str | None = None) -> None:
        """Append a finished chunk's record (after the chunk is in place), with its seed's commitment if secret."""
        with open(self.path, "a") as handle:
            handle.write(self._line(chunk_id, record, seed))
        self.records[chunk_id] = record
        if seed is not None:
            self.seeds[chunk_id] = seed

    @staticmethod
    def _line(chunk_id: str, record: Record, seed: str | None) -> str:
        entry = {"chunk": chunk_id, "tables": record, **({"seed_sha256": seed} if seed is not None else {})}
        return json.dumps(entry, sort_keys=True) + "\n"

    def rewrite(self) -> None:
        """Write the ledger again with only its current records (drops torn lines and forgotten chunks)."""
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        try:
            lines = (self._line(c, r, self.seeds.get(c)) for c, r in self.records.items())
            tmp.write_text("".join(lines))
            os.replace(tmp, self.path)
        finally:
            tmp.unlink(missing_ok=True)

    def prove(self, chunk_dir: Path, on_disk: Iterable[str], *, notice: Callable[[str, str], None]) -> set[str]:
        """Return the ids of the chunks whose every table matches its record; remove and forget the others.

        `notice(chunk_id, what)` is told of each recorded chunk that is damaged or missing
        (``is missing``, ``hands.parquet does not match its checksum``).
        """
        on_disk = set(on_disk)
        good = set()
        for chunk_id in sorted(on_disk | set(self.records)):
            record = self.records.get(chunk_id)
            problem = check_chunk(chunk_dir / chunk_id, record) if record is not None else "is not recorded"
            if problem is None:
                good.add(chunk_id)
                continue
            if record is not None:
                notice(chunk_id, problem)
                del self.records[chunk_id]
                self.seeds.pop(chunk_id, None)
            shutil.rmtree(chunk_dir / chunk_id, ignore_errors=True)
        self.rewrite()
        return good
