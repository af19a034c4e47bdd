"""A time limit per bot decision: stop a bot that thinks too long, and tell its Ctrl-C from the user's.

On the main thread of a POSIX process (the engine's usual home: one process per worker)
the limit interrupts the bot with a timer signal, again every `REARM` seconds until the
decision is over, so a bot that catches one `TooSlow` meets the next; elsewhere (threads,
Windows) the decision runs to its end and is then judged. Either way a bot over its
limit fails the hand with a `StrategyError`: a limit never changes a result silently.

What no signal can stop (a bot that swallows every `TooSlow` in a loop, ignores SIGALRM or
blocks in C code) the watchdog ends: a thread that, once a decision has run `GRACE` times
its limit plus a second, writes the one line it was given to stderr and ends the process
with `HUNG`. In a worker that is the worker; run alone, the run. Only a sealed bot
(`isolate: true`) can be stopped without that.

A KeyboardInterrupt that a bot raises is not the user's Ctrl-C: `record_interrupts` has
the process note each real SIGINT, and `is_users_interrupt` tells the two apart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

REARM = 0.05
"""Seconds between the timer's signals once a decision is over its limit."""
GRACE = 2.0
"""The watchdog ends the process once a decision has run this many times its limit, plus a second."""
HUNG = 75
"""The exit status of a process the watchdog ended (EX_TEMPFAIL): a bot would not stop."""


class TooSlow(BaseException):
    """Raised inside a bot when its decision passes the time limit (a BaseException so bots cannot catch it)."""


class OverTime(Exception):
    """A decision passed its time limit: raised once the decision is over, in place of `TooSlow`."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    armed = True

    def interrupt(signum: int, frame: Any) -> None:
        if armed:  # a signal that arrives as the decision ends is not a verdict
            raise TooSlow

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds, REARM)  # fires again and again until disarmed
    try:
        yield
    finally:
        while True:  # a signal may come as this block starts, before it is disarmed: then disarm again
            try:
                armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
                break
            except TooSlow:
                continue


def timed(
    decide: Callable[[Any], Any], view: Any, limit: float, *, hung: Callable[[], str] | None = None
) -> tuple[Any, float]:
    """Run a decision under a time limit; return its answer and the seconds it took.

    Raises `TooSlow` if it took longer than `limit`. `hung` gives the line the watchdog
    says should the decision not stop at all.
    """
    start = time.perf_counter()
    watched = _WATCHDOG.watch(start + GRACE * limit + 1.0, hung)
    try:
        with _alarm(limit):
            answer = decide(view)
    finally:
        _WATCHDOG.deadlines.pop(watched, None)
    elapsed = time.perf_counter() - start
    if elapsed > limit:
        raise TooSlow
    return answer, elapsed


def limited(
    decide: Callable[[Any], Any], limit: float, *, hung: Callable[[], str] | None = None
) -> Callable[[Any], Any]:
    """Return the decision `decide` run under a time limit (`timed`): it raises `OverTime` past `limit` seconds."""

    def ask(view: Any) -> Any:
        try:
            return timed(decide, view, limit, hung=hung)[0]
        except TooSlow:
            raise OverTime from None

    return ask


class _Watchdog:
    """The thread that ends the process when a decision runs far past its limit (one per process, started lazily)."""

    def __init__(self) -> None:
        self.deadlines: dict[int, tuple[float, Callable[[], str] | None]] = {}
        self.thread: threading.Thread | None = None

    def watch(self, deadline: float, hung: Callable[[], str] | None) -> int:
        """Watch this thread's decision until `deadline`; return the key that ends the watch."""
        ident = threading.get_ident()
        self.deadlines[ident] = (deadline, hung)
        if self.thread is None:
            self.thread = threading.Thread(target=self.run, name="rummysim-watchdog", daemon=True)
            self.thread.start()
        return ident

    def forked(self) -> None:
        """Forget the thread and the decisions of the parent: a child of fork has neither."""
        self.thread = None
        self.deadlines.clear()

    def run(self) -> None:
        while True:
            time.sleep(0.1)
            now = time.perf_counter()
            for deadline, hung in list(self.deadlines.values()):
                if now > deadline:
                    end_process(hung() if hung else "a decision did not stop at its time limit")


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCHDOG.forked)


_LAST_WORDS: list[Callable[[str], bool]] = []


def last_words(say: Callable[[str], bool]) -> None:
    """Have `end_process` hand its line to `say` (a worker's note to its run) rather than write it to stderr."""
    _LAST_WORDS[:] = [say]


def end_process(line: str) -> None:
    """Say `line` (to stderr, past whatever a bot made of sys.stderr, or by `last_words`) and end with `HUNG`."""
    if not any(say(line) for say in _LAST_WORDS):
        with contextlib.suppress(OSError):
            os.write(2, f"Error: {line}\n".encode(errors="replace"))
    os._exit(HUNG)


# -- Ctrl-C ------------------------------------------------------------------------------------------

_interrupts = {"recording": False, "seen": 0}


def record_interrupts() -> None:
    """Have this process note every real SIGINT before it raises KeyboardInterrupt (main thread only; idempotent)."""
    if _interrupts["recording"] or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.SIG_IGN:  # no Ctrl-C can come (a job started in the background): every one is a bot's
        _interrupts["recording"] = True
        return
    if previous is not signal.default_int_handler:
        return  # SIGINT handled by the program: leave it be
    signal.signal(signal.SIGINT, _on_sigint)
    _interrupts["recording"] = True


def _on_sigint(signum: int, frame: Any) -> None:
    _interrupts["seen"] += 1
    raise KeyboardInterrupt


def bots_interrupts_only() -> None:
    """Say that no KeyboardInterrupt in this process is the user's (a worker that ignores SIGINT)."""
    _interrupts["recording"] = True


def is_users_interrupt() -> bool:
    """Return True if a KeyboardInterrupt may be the user's: a SIGINT came, or this process does not record them."""
    return bool(_interrupts["seen"]) or not _interrupts["recording"]
