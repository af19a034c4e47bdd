"""The bot's side of a sealed seat: the process that hosts one plug-in bot and answers the engine.

Started by `rummysim.strategies.sealed.BotProcess` as ``python -c "from rummysim.strategies.sealed_host
import main; main(R, W)"`` (R and W the channel's two pipes), it checks a spec a ``check`` frame brings, or
builds the bot from the spec and key each ``start`` frame brings, then
answers one request at a time over the channel that `rummysim.strategies.sealed` describes. It
holds nothing but the bot, the views it is sent and the public events.

Whatever the bot raises, even SystemExit or KeyboardInterrupt, is answered as its error
(Ctrl-C is the engine's to handle: this process ignores SIGINT). What it prints goes to
fds 1 and 2, a pipe the engine reads and marks with its seat (`rummysim.strategies.sealed.relay`).
The process ends with the one that started it:
the kernel kills it when its parent goes (``PR_SET_PDEATHSIG``, Linux), and a thread
that watches the parent ends it elsewhere.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from typing import Any, BinaryIO

import numpy as np

from rummysim.moves import LayOff, Meld, Pile, plain_int, shown
from rummysim.strategies.base import Strategy, observes
from rummysim.strategies.registry import check_strategy, make_strategy
from rummysim.strategies.sealed import HEADER


def _plain(value: Any) -> Any:
    """Return an int-like as an int, else a marker holding its repr."""
    number = plain_int(value)
    return number if number is not None else {"repr": shown(value, width=80)}


def encode(decision: str, answer: Any) -> Any:
    """Return a bot's answer as JSON-able plain values (the engine checks them)."""
    if decision == "draw":
        if isinstance(answer, Pile):
            return answer.value
        return str.__str__(answer) if isinstance(answer, str) else _plain(answer)
    if decision == "discard":
        return str.__str__(answer) if isinstance(answer, str) else _plain(answer)
    if answer is None:
        return None
    try:
        items = list(answer)
    except TypeError:
        return _plain(answer)
    plays: list[Any] = []
    for item in items:
        if isinstance(item, Meld):
            plays.append(["meld", _plain(item.cards)])
        elif isinstance(item, LayOff):
            plays.append(["lay_off", _plain(item.card), _plain(item.meld)])
        else:
            plays.append(_plain(item))
    return plays


def serve(inbox: BinaryIO, outbox: BinaryIO) -> None:
    """Answer requests until the engine closes the channel."""
    bot: Strategy | None = None
    pending: dict[str, str] | None = None  # an error raised in observe, reported with the next answer
    sys.stdout = sys.stderr  # fds 1 and 2 are one pipe the engine reads, marks and caps (`sealed.relay`)

    def reply(message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        outbox.write(HEADER.pack(len(body)) + body)
        outbox.flush()

    while True:
        header = inbox.read(HEADER.size)
        if len(header) < HEADER.size:
            return
        (size,) = HEADER.unpack(header)
        kind, payload, *rest = pickle.loads(inbox.read(size))
        try:
            if kind == "check":  # a spec checked before play: its file imported here, inside the sandbox only
                check_strategy(payload)
                reply({"answer": {"checked": True}})
            elif kind == "start":
                bot, pending = make_strategy(payload, rng=np.random.Generator(np.random.PCG64(rest[0]))), None
                reply({"answer": {"observes": observes(bot)}})
            elif kind == "observe":
                if bot is not None and pending is None:
                    bot.observe(payload)
            else:
                assert bot is not None, "a decision before the bot was built"
                if pending is not None:
                    reply(pending)
                    continue
                reply({"answer": encode(kind, getattr(bot, kind)(payload))})
        except BaseException as error:  # SystemExit and KeyboardInterrupt too: the bot's, reported as its error
            text, trace = _described(error)
            if kind == "observe":
                pending = {"error": f"{text} (in observe, before this decision)", "traceback": trace}
            else:
                reply({"error": text, "traceback": trace})


def _described(error: BaseException) -> tuple[str, str]:
    """Return a bot's exception as ``Type: message`` and its traceback, whatever its text does."""
    try:
        return f"{type(error).__name__}: {error}", "".join(traceback.format_exception(error))
    except BaseException:
        return f"{type(error).__name__}: <its text cannot be read>", ""


def die_with_parent() -> None:
    """End this process when the process that started it ends (killed, even): it must not outlive its run."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        # PR_SET_PDEATHSIG = 1: the kernel sends SIGKILL as the parent (the thread that started us) ends
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # gone already, before the signal was set
        os._exit(1)

    def watch() -> None:  # elsewhere (and should a bot undo the signal): look every half second
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="rummysim-parent-watch", daemon=True).start()


def main(inbox: int, outbox: int) -> None:
    """Serve one sealed bot on the channel's two pipes (`inbox`, `outbox`); its prints go to fds 1 and 2."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the engine's: it stops this process itself
    serve(os.fdopen(inbox, "rb"), os.fdopen(outbox, "wb"))
