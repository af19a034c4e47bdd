"""Where a run's wall time goes: the compile, the play, the merge, the analysis and the report.

The run marks each stretch of its work with `phase`; the seconds add up per name in this
process. With ``RUMMYSIM_PHASES=FILE`` in the environment the totals are written to FILE as
JSON when the process ends, which is how ``rummysim bench --main`` times the main command
from outside (`rummysim.bench_main`). Without it, nothing is written and the cost is a clock
read per phase.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import time
from collections.abc import Iterator

PHASES = "RUMMYSIM_PHASES"
"""Environment variable: a file to write this process's phase totals to, as JSON, when it ends."""

seconds: dict[str, float] = {}
"""Seconds spent in each phase by this process so far (wall time, nested phases counted in each)."""


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the wall time of the block to phase `name`."""
    clock = time.perf_counter()
    try:
        yield
    finally:
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - clock


def _write() -> None:
    path = os.environ.get(PHASES)
    if path:
        with contextlib.suppress(OSError), open(path, "w", encoding="utf-8") as file:  # never fails the run it measures
            json.dump({name: round(value, 3) for name, value in seconds.items()}, file)


atexit.register(_write)
