"""Error classes: every failure a user can cause is a `RummysimError`.

A message is one sentence that names the value, the place (file and key path, or seat
and move), the rule it breaks and what would be valid. The CLI prints it on one line;
any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


def nearest(word: object, choices: Iterable[str]) -> str | None:
    """Return the valid choice closest to a misspelt word, if any is close (for error hints)."""
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return close[0] if close else None


class RummysimError(Exception):
    """Base class of every error rummysim raises on bad input or a bad move."""


class ConfigError(RummysimError, ValueError):
    """A rule setting, experiment file or argument is invalid."""


class CardError(ConfigError):
    """A card code or a set of cards is invalid (R1.2)."""


class IllegalMoveError(RummysimError):
    """A strategy answered with a move the rules forbid.

    Carries the context needed to reproduce it: the seat, the strategy, the move, the
    rule it breaks and the seed, game and hand that replay it.
    """

    def __init__(
        self,
        message: str,
        *,
        seat: int | None = None,
        strategy: str | None = None,
        move: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.seat = seat
        self.strategy = strategy
        self.move = move
        self.rule = rule


class StrategyError(RummysimError):
    """A strategy raised an exception while deciding; the original is chained."""

    def __init__(self, message: str, *, seat: int | None = None, strategy: str | None = None) -> None:
        super().__init__(message)
        self.seat = seat
        self.strategy = strategy


def whole_number(value: Any, *, name: str, low: int, rule: str = "", optional: bool = False) -> Any:
    """Return a whole-number setting if it is at least `low` (or None when `optional`), else raise `ConfigError`.

    The one check of every whole number rummysim reads, so one mistake is worded one way:

    >>> whole_number(0, name="--chunk-games", low=1)
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: --chunk-games: 0 is below the smallest valid value, 1
    """
    if optional and value is None:
        return None
    cite = f" ({rule})" if rule else ""
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "a whole number or null" if optional else "a whole number"
        raise ConfigError(f"{name}: {value!r} is not {kind}{cite}")
    if value < low:
        raise ConfigError(f"{name}: {value} is below the smallest valid value, {low}{cite}")
    return value
