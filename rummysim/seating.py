"""Who sits where: the lineup of each game of a condition (R3.4).

A condition's lineup is its strategies in seat order. Game g seats it by one row of a
seating table: seat s plays lineup entry ``table[g % len(table)][s]``.

- ``rotate`` (the default): row g is the lineup turned by g, seat s playing entry
  ``(s + g) % n``. Every strategy sits in every seat equally often, but who sits on whose
  left never changes: at 3 or more players the order around the table is the lineup's.
- ``every_order``: the rows are every ordering of the lineup (the permutations of
  ``range(n)`` in lexicographic order, n! of them). Over each n! games every strategy sits
  in every seat equally often and after every other strategy equally often, so a table's
  result does not rest on one order around it. At 2 players both seatings are the same.

The reference engine seats a game with `seated`; the compiled engine reads the same
table (`seat_table`), so both give the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import permutations
from typing import Any, TypeVar

import numpy as np

from rummysim.errors import ConfigError
from rummysim.excerpt import excerpt

SEATINGS = ("rotate", "every_order")
"""The settings of ``seating:``."""
DEFAULT_SEATING = "rotate"

T = TypeVar("T")


@cache
def _rows(n: int, seating: str) -> tuple[tuple[int, ...], ...]:
    if seating == "every_order":
        return tuple(permutations(range(n)))
    return tuple(tuple((s + g) % n for s in range(n)) for g in range(n))


def seat_table(n: int, seating: str = DEFAULT_SEATING) -> np.ndarray:
    """Return the seating table of `n` seats: row g % len(table) gives, per seat, the lineup entry it plays."""
    return np.array(_rows(n, check_seating(seating, "seating")), np.int64)


def seat_order(n: int, game: int, seating: str = DEFAULT_SEATING) -> tuple[int, ...]:
    """Return, per seat of game `game`, the lineup entry it plays (R3.4)."""
    rows = _rows(n, check_seating(seating, "seating"))
    return rows[game % len(rows)]


def seated(players: Sequence[T], game: int, seating: str = DEFAULT_SEATING) -> list[T]:
    """Return the lineup of game `game`, seat by seat: `players` seated by `seating` (R3.4)."""
    return [players[i] for i in seat_order(len(players), game, seating)]


def seating_note(n: int, games: int, seating: str) -> str:
    """Return what `rummysim validate` says of a condition's seating: nothing for the default.

    With ``every_order`` it names the number of orders, and says so when `games` does not play
    each of them equally often (a multiple of n!).
    """
    if seating == DEFAULT_SEATING:
        return ""
    orders = len(_rows(n, seating))
    balance = "" if games % orders == 0 else f"; {games} games are not a multiple of {orders}: orders uneven"
    return f", seating: {seating} ({orders} orders{balance})"


def check_seating(value: Any, where: str) -> str:
    """Return a seating if it is one of `SEATINGS`, else raise `ConfigError` naming `where`."""
    if value not in SEATINGS:
        raise ConfigError(f"{where}: {excerpt(value)} is not one of {', '.join(SEATINGS)} (R3.4)")
    return str(value)
