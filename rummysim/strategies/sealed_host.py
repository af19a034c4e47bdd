"""The bot's side of a sealed seat: the process that hosts one plug-in bot and answers the engine.

Started by `rummysim.strategies.sealed.BotProcess` as ``python -c "from rummysim.strategies.sealed_host
import main; main()"``, it builds the bot from the spec and key each ``start`` frame brings, then
answers one request at a time over the channel that `rummysim.strategies.sealed` describes. It
holds nothing but the bot, the views it is sent and the public events.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import traceback
from typing import Any, BinaryIO

import numpy as np

from rummysim.moves import LayOff, Meld, Pile, plain_int, shown
from rummysim.strategies.base import Strategy, observes
from rummysim.strategies.registry import make_strategy
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
            if kind == "start":
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
        except Exception as error:
            text, trace = f"{type(error).__name__}: {error}", "".join(traceback.format_exception(error))
            if kind == "observe":
                pending = {"error": f"{text} (in observe, before this decision)", "traceback": trace}
            else:
                reply({"error": text, "traceback": trace})


def main() -> None:
    """Serve one sealed bot on stdin and a private copy of stdout; the bot's prints go to stderr."""
    outbox = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(sys.stdin.buffer, outbox)
