"""A bot's failure in a hand as the `BotError` that names its seat and replays the hand.

A bot that raises, runs over its time limit or, sealed, hangs or dies becomes a
`StrategyError`; one that answers a move the rules forbid, an `IllegalMoveError` with the
rule. Each message ends with the seed, game and hand that replay it
(`rummysim.errors.BotError`).
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import Any, NamedTuple

from rummysim.errors import IllegalMoveError, SealedError, StrategyError
from rummysim.moves import Rejected
from rummysim.rules import Rules
from rummysim.timing import OverTime


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

    def crash(self, seat: int, decision: str, exc: Exception) -> StrategyError:
        """Return the error of a seat whose `decision` raised `exc`, ran over its time or, sealed, stopped answering."""
        if isinstance(exc, OverTime):
            what = f"took longer than the time limit of {self.time_limit} s per decision in {decision}"
        elif isinstance(exc, SealedError) and exc.raised is None:  # a sealed bot hung, died or sent garbage
            what = f"{exc}"
        else:
            kind = exc.raised if isinstance(exc, SealedError) else type(exc).__name__
            what = f"raised {kind} in {decision}: {exc}"
        # the bot's own traceback, as text so that it crosses from a worker process (``--debug`` shows it)
        detail = exc.traceback if isinstance(exc, SealedError) else "".join(traceback.format_exception(exc))
        what = f"seat {seat} ({self.names[seat]}) {what}"
        return StrategyError(f"{what}; {self.context}", detail=detail, **self._where(seat, what))

    def illegal(self, seat: int, move: str, rejected: Rejected) -> IllegalMoveError:
        """Return the error of a seat that answered `move`, which the rules reject."""
        what = f"seat {seat} ({self.names[seat]}): {rejected.reason} ({rejected.rule})"
        return IllegalMoveError(f"{what}; {self.context}", move=move, rule=rejected.rule, **self._where(seat, what))

    def _where(self, seat: int, what: str) -> dict[str, Any]:
        """Return a bot error's context: who failed, and what replays the hand (`rummysim.errors.BotError`)."""
        return dict(seat=seat, strategy=self.names[seat], what=what, seed=self.seed, game=self.game, hand=self.hand,
                    rules=self.rules, names=tuple(self.names))  # fmt: skip
