"""What a long command shows while it works: bars on stderr, for a person at a terminal.

`RunBar` counts a run's games as its chunks finish; `AnalysisBar` counts the hand rows
an analysis reads (against the total in ``hands.parquet``'s metadata, with the time
left), then names each later phase (comparing, drawing the charts, writing the report)
beside a clock that keeps moving; `MergeBar` counts the rows a run's merge writes, and `StepBar`
names each step of `rummysim verify` with its rows or hands. All follow one convention: on
stderr, never with ``--quiet``, and only when stderr is a terminal, so logs and pipes get no
control characters. None changes what is computed.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any, TypeVar

TICK = 1.0
"""Seconds between redraws while a phase has nothing to count, so that its clock moves."""
PHASE = "{desc} [{elapsed}]"
"""How a phase with nothing to count is drawn: its name and its time so far."""


def shown(quiet: bool) -> bool:
    """Return True if a bar would be drawn: not quiet, and stderr is a terminal."""
    return not quiet and sys.stderr.isatty()


class RunBar:
    """The games of a run, with the hands per second."""

    def __init__(self, total_games: int, *, quiet: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total_games, unit="game", file=sys.stderr, disable=not shown(quiet), smoothing=0.1)
        self.hands = 0
        self.start = time.perf_counter()

    def update(self, games: int, hands: int) -> None:
        self.hands += hands
        rate = self.hands / max(time.perf_counter() - self.start, 1e-9)
        self.bar.set_postfix_str(f"{rate:,.0f} hands/s", refresh=False)
        self.bar.update(games)

    def close(self) -> None:
        self.bar.close()


def hand_rows(folder: Path) -> int | None:
    """Return the rows of ``hands.parquet`` in `folder` from its metadata (nothing else is read), or None."""
    import pyarrow.parquet as pq

    try:
        return int(pq.ParquetFile(folder / "hands.parquet").metadata.num_rows)
    except (OSError, ValueError):  # no table, or not one pyarrow reads: the analysis says so itself
        return None


_Bar = TypeVar("_Bar", bound="_Ticking")


class _Ticking:
    """A bar whose clock keeps moving while its step has nothing to count: redrawn every `TICK` seconds."""

    bar: Any
    _stop: threading.Event
    _ticker: threading.Thread | None

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            self.bar.refresh()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        self.bar.close()

    def __enter__(self: _Bar) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AnalysisBar(_Ticking):
    """The analysis of a run and the writing of its report: rows read, then each phase by name.

    Called with the rows of each batch read (`rummysim.analysis.reading.Progress`); `phase`
    names the next step. With `rows` None (nothing to read: an analysis already made) it
    starts at the phase `first`.
    """

    def __init__(self, rows: int | None, *, quiet: bool, what: str = "analysing", first: str = "working") -> None:
        from tqdm import tqdm

        self.what = what
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self.bar = tqdm(
            total=rows, unit="row", unit_scale=True, file=sys.stderr, disable=not shown(quiet), smoothing=0.1,
            desc=f"{what}: {'reading the hands' if rows is not None else first}",
            bar_format=None if rows is not None else PHASE,
        )  # fmt: skip
        if rows is None:
            self.phase(first)

    def __call__(self, rows: int) -> None:
        self.bar.update(rows)

    def phase(self, name: str) -> None:
        """Show `name` as the step under way, with the time since the bar began (it keeps moving)."""
        self.bar.bar_format = PHASE
        self.bar.set_description_str(f"{self.what}: {name}")
        if self._ticker is None and not self.bar.disable:
            self._ticker = threading.Thread(target=self._tick, name="rummysim-progress", daemon=True)
            self._ticker.start()


def merge_rows(chunks: list[Path], kinds: list[str]) -> int:
    """Return the rows a merge of `chunks` writes, of every kind, from each chunk file's footer (nothing more read)."""
    import pyarrow.parquet as pq

    return sum(int(pq.ParquetFile(chunk / f"{kind}.parquet").metadata.num_rows) for chunk in chunks for kind in kinds)


class MergeBar:
    """The rows of a run's merged tables as they are written (`rummysim.results.merge_chunks`), with the time left.

    Called with the rows of each row group written; `rows` is the total (`merge_rows`). As
    every bar here: on stderr, never when `quiet`, and only when stderr is a terminal.
    """

    def __init__(self, rows: int, *, quiet: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=rows, unit="row", unit_scale=True, file=sys.stderr, disable=not shown(quiet),
                        smoothing=0.1, desc="merging the tables")  # fmt: skip

    def __call__(self, rows: int) -> None:
        self.bar.update(rows)

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> MergeBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StepBar(_Ticking):
    """A command's steps one after another (`rummysim.verify.Checking`): each counted against its total, with the
    time left, or, with nothing to count, by name beside a clock that keeps moving; each step's clock starts at 0.

    As every bar here: on stderr, never when `quiet`, and only when stderr is a terminal.
    """

    def __init__(self, *, quiet: bool, what: str = "verifying") -> None:
        from tqdm import tqdm

        self.what = what
        self._stop = threading.Event()
        self.bar = tqdm(total=None, file=sys.stderr, disable=not shown(quiet), smoothing=0.1, desc=what,
                        bar_format=PHASE)  # fmt: skip
        self._ticker: threading.Thread | None = None
        if not self.bar.disable:
            self._ticker = threading.Thread(target=self._tick, name="rummysim-progress", daemon=True)
            self._ticker.start()

    def __call__(self, done: int) -> None:
        self.bar.update(done)

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        """Show `name` as the step under way: `total` `unit`s to count (heard by calling the bar), or None."""
        with self.bar.get_lock():  # the ticker redraws meanwhile
            self.bar.bar_format = PHASE if total is None else None
            self.bar.unit = unit or "it"
            self.bar.unit_scale = total is not None and total >= 1000  # 12.3M/48.0M rows, but 2/5 hands
            self.bar.set_description_str(f"{self.what}: {name}", refresh=False)
            self.bar.total = total
            self.bar.reset()
