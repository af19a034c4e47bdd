"""A first compile on two cores: a second process compiles half of the engine's kernels into the shared cache.

Numba compiles one function at a time, and the engine's first compile is some 40 s of
one core. Its kernels are called, not inlined, so they compile apart: while this
process compiles the kernels of `OWN` (uniform's and greedy's discard, the checks, the
scoring and the rows), a second process (`python -m rummysim.compiled.prebuild FOLDER`)
compiles those of `HELPER` (greedy's draw and plans with the arrangement under them,
rummy_hunter's plays, cautious' discard) into the same on-disk cache (numba writes each
entry whole, by rename). Then the turn, the hand and the game loop compile here, reading
the helper's kernels from the cache. The rows are the same either way; only the wall
time of a first compile changes (`docs/benchmarks.md`).

Each kernel is compiled for the argument types its caller passes (`signatures`); a
kernel whose types differ would be compiled again by its caller, at no cost but time,
and tests/test_compiled.py checks that none is.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HELPER = ("greedy_draw", "hunter_plays", "cautious_discard")
"""Kernels the second process compiles (with what they call): greedy's draw and plans, cautious' discard."""
OWN = (
    "greedy_discard", "uniform_draw", "uniform_plays", "_check_plays", "rebuild_stock", "_deal",
    "check_cards", "score_hand", "_grow", "_hand_rows", "_game_rows",
)  # fmt: skip
"""Kernels this process compiles meanwhile, before the turn and the loops that call them all."""
SWITCH = "RUMMYSIM_PREBUILD"
"""Environment variable: ``0`` compiles everything in one process."""
WAIT = 600
"""Seconds to wait for the second process; past them this one compiles what is left itself."""


def signatures() -> dict[str, tuple[Any, ...]]:
    """Return each kernel of `HELPER` and `OWN` with the argument types its callers pass it."""
    from numba import typeof, types

    from rummysim.compiled.layout import settings_array
    from rummysim.compiled.lookups import lookups_of
    from rummysim.compiled.state import new_hand
    from rummysim.rules import Rules

    rules = Rules()
    tb, h = typeof(lookups_of(rules)[0]), typeof(new_hand(rules.n_players)[0])
    settings, row = typeof(settings_array(rules)), types.Array(types.float64, 1, "C")
    i64, u64, flag = types.int64, types.uint64, types.boolean
    rows, column = types.Array(types.int64, 2, "C"), types.Array(types.int64, 1, "C")
    return {
        "greedy_draw": (tb, settings, h, i64),
        "hunter_plays": (tb, settings, h, i64, row),
        "greedy_discard": (tb, h, i64),
        "cautious_discard": (tb, h, i64, row),
        "uniform_draw": (tb, settings, h, i64),
        "uniform_plays": (tb, settings, h, i64),
        "_check_plays": (settings, h, i64, i64),
        "rebuild_stock": (settings, h, u64),
        "_deal": (settings, h, i64, u64),
        "check_cards": (h,),
        "score_hand": (tb, settings, h, i64, i64, flag),
        "_grow": (rows, i64),
        "_hand_rows": (rows, i64, h, i64, i64, i64, column, column, i64, i64, i64, flag, i64),
        "_game_rows": (rows, i64, i64, column, column, column, i64, i64, i64, flag),
    }


def kernels() -> dict[str, Any]:
    """Return the dispatchers of `HELPER` and `OWN`, by name."""
    from rummysim.compiled import game, policies, turn

    modules = (game, turn, policies)
    return {name: next(getattr(m, name) for m in modules if hasattr(m, name)) for name in (*HELPER, *OWN)}


def compile_kernels(names: tuple[str, ...]) -> None:
    """Compile the named kernels for their callers' argument types (or read them from the cache)."""
    found, types = kernels(), signatures()
    for name in names:
        found[name].compile(types[name])


@contextlib.contextmanager
def two_cores(folder: Path) -> Iterator[None]:
    """Within it, the kernels compile on two cores: `OWN` here, `HELPER` in a second process writing to `folder`.

    On entry this process compiles `OWN`, then waits for the second process (at most
    `WAIT` seconds), so that what follows reads the helper's kernels from the cache. Where
    a second process cannot start, fails or is switched off (``RUMMYSIM_PREBUILD=0``, or
    one core), nothing is done here and every kernel compiles where it is called.
    """
    if os.environ.get(SWITCH, "1") == "0" or (os.cpu_count() or 1) < 2:
        yield
        return
    try:
        helper = subprocess.Popen(
            [sys.executable, "-m", "rummysim.compiled.prebuild", str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        yield
        return
    try:
        compile_kernels(OWN)
        with contextlib.suppress(subprocess.TimeoutExpired):
            helper.wait(timeout=WAIT)
        yield
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait()


def main(folder: str) -> None:
    """The second process: compile `HELPER` into the cache at `folder`."""
    import numba

    setattr(numba.config, "CACHE_DIR", folder)  # noqa: B010  (as rummysim.compiled.load sets it)
    compile_kernels(HELPER)


if __name__ == "__main__":
    main(sys.argv[1])
