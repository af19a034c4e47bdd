"""A bot's answers read safely, and its failure in a hand as the `BotError` that names its seat and replays the hand.

An answer is read into plain values (`read_draw`, `read_plays`, `read_discard`) where the
bot's time limit still holds: iterated with a bound (`MAX_PLAYS`), every field read once,
and anything that is not a plain value kept only as its quoted text (`Opaque`). A bot's
code that runs while its answer is read (an ``__iter__``, a ``__class__``, a ``cards``
property) fails like the decision itself.

A bot that raises (anything but the user's Ctrl-C, `is_bots`), runs over its time limit
or, sealed, hangs or dies becomes a `StrategyError`; one that answers a move the rules
forbid, an `IllegalMoveError` with the rule. Whatever the bot wrote is quoted
(`rummysim.errors.quoted`): one line stays one line. Each message ends with the seed,
game and hand that replay it (`rummysim.errors.BotError`).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, TextIO

from rummysim.errors import IllegalMoveError, SealedError, StrategyError, named, quoted, said
from rummysim.moves import LayOff, Meld, Pile, Rejected, plain_int, plain_plays, shown
from rummysim.rules import Rules
from rummysim.timing import OverTime, is_users_interrupt, limited

MAX_PLAYS = 104
"""The most plays a `play` answer may hold: twice the 52 a turn could ever make (each play moves a card)."""


class Opaque:
    """An answer part that is not a plain value: kept as its quoted text, which the engine's error shows.

    Its text is one printable line (else it is quoted), whoever made it.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        text = text if type(text) is str else said(text)
        self.text = text if text.isprintable() and len(text) <= 80 else quoted(text, width=60)

    def __repr__(self) -> str:
        return self.text


class Plays(list[Any]):
    """A `play` answer read already: plain `Meld` and `LayOff` moves."""


class Refused(NamedTuple):
    """An answer the rules refuse, found as it was read: the move as shown and the rule."""

    move: str
    rejected: Rejected


def shown_answer(value: object) -> str:
    """Return an answer as an error shows it: a plain value's repr, else the repr the bot gives it, quoted."""
    if value is None or type(value) in (int, float, bool, str, Pile):
        return shown(value)
    if type(value) is Opaque:  # shown already (a sealed bot's answer, read by its stand-in)
        return value.text
    if type(value) in (list, tuple) and len(value) > 8:  # type: ignore[arg-type]
        return f"<a {type(value).__name__} of {len(value):,} items>"  # type: ignore[arg-type]
    try:
        text = repr(value)
    except Exception:
        return f"<a {named(type(value).__name__)} object whose repr fails>"
    return quoted(text if type(text) is str else said(text), width=60)


def read_draw(answer: object) -> object:
    """Return a draw answer as a `Pile`, a plain str or an `Opaque` (R4.1)."""
    if answer is Pile.STOCK or answer is Pile.DISCARD or type(answer) is str:
        return answer
    if isinstance(answer, str):
        return str.__str__(answer)
    return Opaque(shown_answer(answer))


def read_discard(answer: object) -> object:
    """Return a discard answer as a plain int, a plain str or an `Opaque` (R4.3)."""
    if type(answer) is int or type(answer) is str:
        return answer
    if isinstance(answer, str):
        return str.__str__(answer)
    number = plain_int(answer)
    return number if number is not None else Opaque(shown_answer(answer))


def read_plays(answer: object) -> Plays | Refused:
    """Return a play answer as `Plays`, or `Refused` if it is no sequence of at most `MAX_PLAYS` moves (R4.2)."""
    if answer is None or (not answer and (type(answer) is list or type(answer) is tuple)):
        return Plays()
    if type(answer) is list or type(answer) is tuple:
        items: Sequence[Any] = answer
    elif isinstance(answer, (str, bytes, dict)):
        return _refused(answer, "R4.2", "not a sequence of Meld and LayOff moves")
    else:
        try:
            iterator = iter(answer)  # type: ignore[call-overload]
        except TypeError:
            return _refused(answer, "R4.2", "not a sequence of Meld and LayOff moves")
        items = list(itertools.islice(iterator, MAX_PLAYS + 1))  # an endless generator gives no more
    if len(items) > MAX_PLAYS:
        return _refused(answer, "R4.2", f"more than {MAX_PLAYS} plays, more than a turn can make")
    parts: list[object] = []
    plain = True
    for item in items:
        kind = type(item)  # a Meld or LayOff itself, of plain ints, is read as it is: both are frozen
        if (kind is Meld and type(item.cards) is int) or (
            kind is LayOff and type(item.card) is int and type(item.meld) is int
        ):
            parts.append(item)
            continue
        plain = False
        if isinstance(item, Meld):
            parts.append(Meld(_field(item.cards)))
        elif isinstance(item, LayOff):
            parts.append(LayOff(_field(item.card), _field(item.meld)))
        else:
            parts.append(Opaque(shown_answer(item)))
    if plain:
        return Plays(parts)
    try:
        return Plays(plain_plays(parts))
    except Rejected as rejected:
        return Refused(f"play {shown(parts)}", rejected)


def _field(value: object) -> Any:
    """Return a move's field as a plain int, or an `Opaque` the rules then refuse (read once)."""
    if type(value) is int:
        return value
    number = plain_int(value)
    return number if number is not None else Opaque(shown_answer(value))


def _refused(answer: object, rule: str, why: str) -> Refused:
    text = shown_answer(answer)
    return Refused(f"play {text}", Rejected(rule, f"play answered {text}, {why}"))


def in_time(
    decide: Callable[[Any], Any], decision: str, limit: float, errors: BotErrors, seat: int
) -> Callable[[Any], Any]:
    """Return a seat's decision (or ``observe``) that answers within `limit` seconds, its answer read in that time.

    Past the limit it raises `OverTime` (`rummysim.timing.limited`); should it not stop at all,
    the watchdog says `BotErrors.hung`.
    """
    read = _READ.get(decision)

    def decide_and_read(view: Any) -> Any:
        answer = decide(view)
        return answer if read is None else read(answer)

    return limited(decide_and_read, limit, hung=lambda: errors.hung(seat, decision))


def is_bots(exc: BaseException) -> bool:
    """Return True if `exc`, raised in a bot's code, is the bot's failure: anything but the user's Ctrl-C."""
    return not (isinstance(exc, KeyboardInterrupt) and is_users_interrupt())


def built_error(exc: BaseException, *, seat: int, label: str, seed: int, game: int) -> StrategyError:
    """Return the error of the bot in `seat` whose ``__init__`` raised `exc` as its lineup was built."""
    what = f"seat {seat} ({label}) raised {named(type(exc).__name__)} as it was built: {quoted(said(exc))}"
    return StrategyError(f"{what}; reproduce with seed={seed} game={game}", seat=seat, strategy=label, what=what,
                         seed=seed, game=game, hand=0, detail=_traceback(exc))  # fmt: skip


class BotErrors(NamedTuple):
    """The bot errors of one hand, each naming the strategies by seat, the rules and the hand that replays it."""

    names: Sequence[str]
    rules: Rules
    seed: int
    game: int
    hand: int
    time_limit: float | None

    @property
    def context(self) -> str:
        """Return how to replay this hand, for error messages (made only when one is raised)."""
        return f"reproduce with seed={self.seed} game={self.game} hand={self.hand}"

    def crash(self, seat: int, decision: str, exc: BaseException) -> StrategyError:
        """Return the error of a seat whose `decision` raised `exc`, ran over its time or, sealed, stopped answering."""
        if isinstance(exc, OverTime):
            what = f"took longer than the time limit of {self.time_limit} s per decision in {decision}"
        elif isinstance(exc, SealedError) and exc.raised is None:  # a sealed bot hung, died or sent garbage
            what = said(exc)
        else:
            kind = exc.raised if isinstance(exc, SealedError) else type(exc).__name__
            what = f"raised {named(kind)} in {decision}: {quoted(said(exc))}"
            if kind in _NOT_THE_RUNS:
                what += f" ({_NOT_THE_RUNS[kind]})"
        # the bot's own traceback, as text so that it crosses from a worker process (``--debug`` shows it)
        detail = exc.traceback if isinstance(exc, SealedError) else _traceback(exc)
        what = f"seat {seat} ({self.names[seat]}) {what}"
        return StrategyError(f"{what}; {self.context}", detail=detail, **self._where(seat, what))

    def hung(self, seat: int, decision: str) -> str:
        """Return the line the watchdog says as it ends the process of a seat that would not stop (`timing`)."""
        return (
            f"seat {seat} ({self.names[seat]}) did not stop at the time limit of {self.time_limit} s in {decision} "
            f"(it caught the timer's exception or ignored SIGALRM), so its process was ended; run bots you do not "
            f"trust with isolate: true; {self.context}"
        )

    def illegal(self, seat: int, move: str, rejected: Rejected) -> IllegalMoveError:
        """Return the error of a seat that answered `move`, which the rules reject."""
        what = f"seat {seat} ({self.names[seat]}): {rejected.reason} ({rejected.rule})"
        return IllegalMoveError(f"{what}; {self.context}", move=move, rule=rejected.rule, **self._where(seat, what))

    def _where(self, seat: int, what: str) -> dict[str, Any]:
        """Return a bot error's context: who failed, and what replays the hand (`rummysim.errors.BotError`)."""
        return dict(seat=seat, strategy=self.names[seat], what=what, seed=self.seed, game=self.game, hand=self.hand,
                    rules=self.rules, names=tuple(self.names))  # fmt: skip


_READ: dict[str, Callable[[Any], Any]] = {"draw": read_draw, "play": read_plays, "discard": read_discard}
"""How each decision's answer is read (``observe`` answers nothing)."""

_NOT_THE_RUNS = {
    "SystemExit": "a bot cannot end the run",
    "KeyboardInterrupt": "the bot's own: no Ctrl-C came",
}
"""What a bot's exception that would end a program is taken for."""


def _traceback(exc: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(exc))
    except BaseException:  # a bot's exception whose text raises even past traceback's own guard
        return f"{named(type(exc).__name__)} (its traceback cannot be formatted)\n"


class BotOutput(io.TextIOBase):
    """Where a bot's prints go: stderr, each line marked with the seat and bot that printed it (never stdout).

    `who` names the bot printing now, or returns None for a line that is not a bot's.
    """

    def __init__(self, who: Callable[[], str | None], stream: TextIO) -> None:
        super().__init__()
        self.who, self.stream, self.pending = who, stream, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str.__str__(text) if isinstance(text, str) else said(text)
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self._say(line)
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self._say(self.pending)
            self.pending = ""
        self.stream.flush()

    def _say(self, line: str) -> None:
        who = self.who()
        self.stream.write(f"{who} printed: {line[:2000]}\n" if who else f"{line}\n")


_printing: dict[str, Any] = {"depth": 0, "stdout": None}
_printing_lock = threading.Lock()


@contextlib.contextmanager
def prints_to_stderr(who: Callable[[], str | None]) -> Iterator[None]:
    """Send what is printed to stdout meanwhile to stderr, marked by `who` (`BotOutput`); nests across threads."""
    with _printing_lock:
        if _printing["depth"] == 0:
            _printing["stdout"], sys.stdout = sys.stdout, BotOutput(who, sys.stderr)
        _printing["depth"] += 1
    try:
        yield
    finally:
        with _printing_lock:
            _printing["depth"] -= 1
            if _printing["depth"] == 0:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                sys.stdout = _printing["stdout"]
