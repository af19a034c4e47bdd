"""Error classes: every failure a user can cause is a `RummysimError`.

A message is one sentence that names the value, the place (file and key path, or seat
and move), the rule it breaks and what would be valid. The CLI prints it on one line;
any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import copy
import difflib
import errno
from collections.abc import Iterable
from typing import Any

from rummysim.excerpt import excerpt


def nearest(word: object, choices: Iterable[str]) -> str | None:
    """Return the valid choice closest to a misspelt word, if any is close (for error hints)."""
    close = difflib.get_close_matches(str(word), list(choices), n=1)
    return close[0] if close else None


class RummysimError(Exception):
    """Base class of every error rummysim raises on bad input or a bad move."""


class ConfigError(RummysimError, ValueError):
    """A rule setting, experiment file or argument is invalid.

    `key`, when the error is about one: the key at fault as the file names it (``cards_dealt``,
    ``rulez``), so that a caller can place the error without reading its message.

    >>> ConfigError("cards_dealt: 30 cards ...", key="cards_dealt").key
    'cards_dealt'
    """

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class CardError(ConfigError):
    """A card code or a set of cards is invalid (R1.2)."""


class BotError(RummysimError):
    """A bot broke a rule or raised while deciding: the seat, the strategy and the hand that replays it.

    `what` is the failure in one clause (``seat 0 (mybot): ... (R4.5)``); `seed`, `game` and
    `hand` replay it; `rules` and `names` (the labels by seat) tell which condition of an
    experiment was playing, since conditions of the same rules and lineup play the same games.
    `detail` keeps the bot's own traceback (``--debug``), `so_far` the hand up to the
    failure when it was traced (`rummysim.replay`). All are plain values, so the error
    crosses from a worker process whole.
    """

    def __init__(
        self, message: str, *, seat: int | None = None, strategy: str | None = None, what: str = "",
        seed: int | None = None, game: int | None = None, hand: int | None = None, rules: Any = None,
        names: tuple[str, ...] = (), detail: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.seat = seat
        self.strategy = strategy
        self.what = what or message
        self.seed, self.game, self.hand = seed, game, hand
        self.rules = rules
        self.names = names
        self.detail = detail
        self.so_far: Any = None
        self.condition: str | None = None

    def placed(self, message: str, *, condition: str) -> BotError:
        """Return a copy that says `message` and names the experiment's `condition` it happened in."""
        error = copy.copy(self)
        error.args = (message,)
        error.condition = condition
        return error


class IllegalMoveError(BotError):
    """A strategy answered with a move the rules forbid.

    Carries the context needed to reproduce it: the seat, the strategy, the move, the
    rule it breaks and the seed, game and hand that replay it.
    """

    def __init__(self, message: str, *, move: str | None = None, rule: str | None = None, **context: Any) -> None:
        super().__init__(message, **context)
        self.move = move
        self.rule = rule


class StrategyError(BotError):
    """A strategy raised an exception while deciding (or as it was built); the original is chained."""


class SealedError(Exception):
    """A sealed bot raised, hung, died or sent something that is not an answer (`rummysim.strategies.sealed`).

    The message completes "seat 0 (mybot) ..."; `raised` names the exception type when
    the bot itself raised one, which the engine reports as a crash, and `traceback` the bot's
    own traceback, as its process formatted it (``--debug`` shows it). Not a `RummysimError`:
    it never reaches the user, since the engine turns it into a `StrategyError` naming the seat.
    """

    def __init__(self, message: str, *, raised: str | None = None, traceback: str | None = None) -> None:
        super().__init__(message)
        self.raised = raised
        self.traceback = traceback


class DiskError(RummysimError):
    """The file system refused a write: no space, no permission, read-only or a folder gone."""


_DISK: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("no space left on the device", "free some space"),
    errno.EDQUOT: ("the disk quota is used up", "free some space"),
    errno.EACCES: ("permission denied", "make it writable (or give another --out)"),
    errno.EPERM: ("permission denied", "make it writable (or give another --out)"),
    errno.EROFS: ("the file system is read-only", "remount it writable (or give another --out)"),
    errno.ENOENT: ("the folder, or a file in it, is missing", "check that nothing else removes it"),
    errno.ENOTDIR: ("a part of its path is a file, not a folder", "give another --out"),
}


def disk_error(error: OSError, *, folder: object, doing: str, then: str) -> DiskError:
    """Return the one-line `DiskError` of a failed write: the folder, what went wrong while `doing` what, what to do.

    >>> full = OSError(errno.ENOSPC, "No space left on device")
    >>> print(disk_error(full, folder="out/tiny", doing="writing chunks", then="run the same command again"))
    out/tiny: no space left on the device while writing chunks; free some space, then run the same command again
    """
    what, fix = _DISK.get(error.errno or 0, (error.strerror or str(error), "fix the file system"))
    return DiskError(f"{folder}: {what} while {doing}; {fix}, then {then}")


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
        raise ConfigError(f"{name}: {excerpt(value)} is not {kind}{cite}")
    if value < low:
        raise ConfigError(f"{name}: {excerpt(value)} is below the smallest valid value, {low}{cite}")
    return value


class WorkerError(RummysimError):
    """A worker process of a run ended before its chunk did: a bot ended it (``os._exit``), or Python crashed."""


def quoted(text: object, *, width: int = 160) -> str:
    """Return what a bot said as one quoted line: repr-like, every newline and control escaped, cut to `width`.

    Text from a bot (its exception's message, a sealed bot's error, the repr of its answer)
    reaches an error message only so: it stays on its one line, in quotes, and cannot pass
    for the engine's own words.

    >>> print(quoted("x\\nseat 1 (greedy) cheated (R4.5)"))
    'x\\nseat 1 (greedy) cheated (R4.5)'
    >>> print(quoted("a" * 30, width=8))
    'aaaaaaaa'...
    """
    if type(text) is not str:
        text = said(text)
    cut = len(text) > width
    return repr(text[:width]) + ("..." if cut else "")


def said(value: object) -> str:
    """Return ``str(value)`` of a bot's object (its exception, its answer), or a note if that raises."""
    try:
        text = str(value)
    except BaseException:  # a bot's __str__ may raise anything, even SystemExit
        return f"<a {type(value).__name__!r} whose text cannot be read>"
    return str.__str__(text) if isinstance(text, str) else "<not text>"


def named(kind: object) -> str:
    """Return the name of a bot's exception type: as it is if a plain identifier, else quoted.

    >>> named("ValueError"), named("Bad\\nName")
    ('ValueError', "'Bad\\\\nName'")
    """
    text = kind if type(kind) is str else said(kind)
    return text if text.isidentifier() and len(text) <= 60 else quoted(text, width=60)
