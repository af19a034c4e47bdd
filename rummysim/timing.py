"""A time limit per bot decision: stop a bot that thinks too long.

On the main thread of a POSIX process (the engine's usual home: one process per worker)
the limit interrupts the bot with a timer signal; elsewhere (threads, Windows) the
decision runs to its end and is then judged. Either way a bot over its limit fails the
hand with a `StrategyError`: a limit never changes a result silently.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any


class TooSlow(BaseException):
    """Raised inside a bot when its decision passes the time limit (a BaseException so bots cannot catch it)."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise TooSlow

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(decide: Callable[[Any], Any], view: Any, limit: float) -> tuple[Any, float]:
    """Run a decision under a time limit; return its answer and the seconds it took.

    Raises `TooSlow` if it took longer than `limit`.
    """
    start = time.perf_counter()
    with _alarm(limit):
        answer = decide(view)
    elapsed = time.perf_counter() - start
    if elapsed > limit:
        raise TooSlow
    return answer, elapsed


class OverTime(Exception):
    """A decision passed its time limit: raised once the decision is over, in place of `TooSlow`."""


def limited(decide: Callable[[Any], Any], limit: float) -> Callable[[Any], Any]:
    """Return the decision `decide` run under a time limit (`timed`): it raises `OverTime` past `limit` seconds."""

    def ask(view: Any) -> Any:
        try:
            return timed(decide, view, limit)[0]
        except TooSlow:
            raise OverTime from None

    return ask
