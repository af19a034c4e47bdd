"""The limits of what rummysim reads: an experiment file's size and shape, names, games, seconds, numbers.

Each limit is far above what a real experiment needs and low enough that nothing a file
or a command line can say makes rummysim exhaust memory, loop for hours before it
starts, overflow the compiled engine's 64-bit arithmetic or fail half-way through a
run: `rummysim validate` refuses what `rummysim run` would fail on, in one line, before
anything is written (docs/experiments.md lists them).

=====================  ===============  ===========================================================
limit                  value            why
=====================  ===============  ===========================================================
`MAX_FILE_BYTES`       1,000,000        an experiment file is a few kilobytes; YAML is slow to read
`MAX_DEPTH`            32               levels of nesting; a file uses four or five
`MAX_NUMBER_CHARS`     100              characters of one number in a file (no setting needs more)
`MAX_NAME`             100              characters of a name: it names a folder (at most 255 bytes)
`MAX_GAMES`            1,000,000,000    games of a condition: chunk names count games in nine digits
`MAX_CONDITIONS`       1,000            conditions, grid points included: each is planned and reported
`MAX_TIME_LIMIT`       3,600            seconds a bot may take over one decision
=====================  ===============  ===========================================================

>>> whole_number_within(10**12, name="x.yaml: games", low=1, high=MAX_GAMES)
Traceback (most recent call last):
...
rummysim.errors.ConfigError: x.yaml: games: 1000000000000 is above the largest valid value, 1000000000
>>> seconds_within(float("nan"), name="x.yaml: time_limit", high=MAX_TIME_LIMIT)
Traceback (most recent call last):
...
rummysim.errors.ConfigError: x.yaml: time_limit: nan is not a number of seconds above 0 and at most 3,600
"""

from __future__ import annotations

import math
from typing import Any

from rummysim.errors import ConfigError, whole_number
from rummysim.excerpt import excerpt

MAX_FILE_BYTES = 1_000_000
"""The largest experiment file read, in bytes; also the most characters its values may stand for, aliases expanded."""
MAX_DEPTH = 32
"""The most levels of nesting in an experiment file, aliases followed."""
MAX_NUMBER_CHARS = 100
"""The most characters of one number in an experiment file."""
MAX_NAME = 100
"""The most characters of an experiment's or a condition's name."""
MAX_GAMES = 10**9
"""The most games a condition may play (``games``, ``max_games``, ``--games``)."""
MAX_CONDITIONS = 1000
"""The most conditions an experiment may have, every grid point counted."""
MAX_TIME_LIMIT = 3600.0
"""The longest ``time_limit``, in seconds per decision."""


def whole_number_within(value: Any, *, name: str, low: int, high: int, rule: str = "", optional: bool = False) -> Any:
    """Return a whole number from `low` to `high` (or None when `optional`), else raise `ConfigError` naming `name`."""
    value = whole_number(value, name=name, low=low, rule=rule, optional=optional)
    if value is not None and value > high:
        cite = f" ({rule})" if rule else ""
        raise ConfigError(f"{name}: {excerpt(value)} is above the largest valid value, {high}{cite}")
    return value


def number_within(value: Any, *, name: str, low: float, high: float, rule: str = "") -> float:
    """Return a finite number from `low` to `high` (a whole number is one), else raise `ConfigError` naming `name`."""
    cite = f" ({rule})" if rule else ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name}: {excerpt(value)} is not a number{cite}")
    if not (_finite(value) and low <= value <= high):
        raise ConfigError(f"{name}: {excerpt(value)} is not a number from {_plain(low)} to {_plain(high)}{cite}")
    return value


def seconds_within(value: Any, *, name: str, high: float) -> float:
    """Return a finite number of seconds above 0 and at most `high`, as a float, else raise `ConfigError`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (_finite(value) and 0 < value <= high):
        raise ConfigError(f"{name}: {excerpt(value)} is not a number of seconds above 0 and at most {_plain(high)}")
    return float(value)


def _finite(value: int | float) -> bool:
    """Return False for nan and infinity (a whole number of any size is finite, and compared exactly)."""
    return isinstance(value, int) or math.isfinite(value)


def _plain(bound: float) -> str:
    """Return a bound as a message writes it: ``1,000,000`` rather than ``1e+06``, ``0.5`` as it is."""
    return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:g}"
