"""Shared fixtures and helpers: build positions from card strings, script bots."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

from rummysim.cards import FULL_DECK, parse_cards, to_text
from rummysim.moves import Pile, Play
from rummysim.strategies.base import PlayerView, Strategy


class Scripted(Strategy):
    """A bot that answers from a script of decisions, then falls back to a default bot.

    Each script entry is a callable taking the view, or a plain answer.
    """

    name = "scripted"

    def __init__(
        self,
        *,
        draws: Sequence[Any] = (),
        plays: Sequence[Any] = (),
        discards: Sequence[Any] = (),
        fallback: Strategy | None = None,
    ) -> None:
        super().__init__()
        self.draws, self.plays, self.discards = list(draws), list(plays), list(discards)
        self.fallback = fallback
        self.views: list[PlayerView] = []

    def _next(self, queue: list[Any], view: PlayerView, decision: str) -> Any:
        self.views.append(view)
        if queue:
            answer = queue.pop(0)
            return answer(view) if callable(answer) else answer
        if self.fallback is None:
            raise AssertionError(f"script ran out at {decision}")
        return getattr(self.fallback, decision)(view)

    def draw(self, view: PlayerView) -> Pile:
        return self._next(self.draws, view, "draw")

    def play(self, view: PlayerView) -> Sequence[Play]:
        return self._next(self.plays, view, "play")

    def discard(self, view: PlayerView) -> int:
        return self._next(self.discards, view, "discard")


ViewFn = Callable[[PlayerView], Any]


class Passive(Strategy):
    """Draw from the stock, play nothing, discard the card drawn: never goes out."""

    name = "passive"

    def __init__(self) -> None:
        super().__init__()
        self.views: list[PlayerView] = []

    def draw(self, view: PlayerView) -> Pile:
        self.views.append(view)
        return Pile.STOCK

    def play(self, view: PlayerView) -> list:
        self.views.append(view)
        return []

    def discard(self, view: PlayerView) -> int:
        self.views.append(view)
        return view.drawn


def idle() -> Scripted:
    """Return a seat that the scenario must never ask: it has no script and no fallback."""
    return Scripted()


def rest_of_deck(*named: str) -> str:
    """Return the codes of every card not named, for stacking a deal with no hidden cards."""
    return to_text(FULL_DECK & ~functools.reduce(operator.or_, map(parse_cards, named), 0))


def suit(letter: str) -> str:
    """Return the codes of the 13 cards of a suit, ace to king: ``suit("C")`` is ``"AC 2C ... KC"``."""
    return " ".join(rank + letter for rank in "A23456789TJQK")


def stop_chunks_after(monkeypatch: Any, n: int) -> Callable[..., Any]:
    """Make a run stop (Ctrl-C) when it starts its chunk after the `n`-th; return the real `play_chunk`."""
    import rummysim.chunks as chunks

    real, calls = chunks.play_chunk, {"n": 0}

    def stopping(chunk: Any) -> Any:
        calls["n"] += 1
        if calls["n"] > n:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(chunks, "play_chunk", stopping)
    return real
