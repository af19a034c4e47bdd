"""What a long command shows while it works: bars on stderr, for a person at a terminal.

`RunBar` counts a run's games as its chunks finish; `AnalysisBar` counts the hand rows
an analysis reads (against the total in ``hands.parquet``'s metadata, with the time
left), then names each later phase (comparing, drawing the charts, writing the report)
beside a clock that keeps moving. Both follow one convention: on stderr, never with ``--quiet``, and only when
stderr is a terminal, so logs and pipes get no control characters. Neither changes what
is computed.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

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


class AnalysisBar:
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

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            self.bar.refresh()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        self.bar.close()

    def __enter__(self) -> AnalysisBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
