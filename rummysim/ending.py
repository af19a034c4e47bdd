"""The end of a hand: its score (R8, R12.3), its records and the `HandResult` that `play_hand` returns.

The engine (`rummysim.engine`) plays the hand; once it is over, or once a bot stopped it,
its state is read here (`Played`, what is read of it) and never changed but by the one
`HandEnded` event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, cast

from rummysim.cards import points
from rummysim.core import block_points, block_winner, out_points
from rummysim.dealing import Deal
from rummysim.moves import Drew, Event, HandEnded, WentOutBy
from rummysim.records import HandRecord, TurnRecord, hand_records
from rummysim.rules import Rules
from rummysim.trace import turn_record

_new = tuple.__new__
"""Build a named tuple from a tuple of all its fields, in order: a Python call fewer than ``Cls(...)``."""

_VALUES: dict[WentOutBy | None, str | None] = {None: None, **{way: way.value for way in WentOutBy}}
"""How a hand ended as its records write it: each member's text (an enum's ``value`` is a slow property)."""


class HandResult(NamedTuple):
    """What `play_hand` returns: the records and the public log of the hand."""

    records: tuple[HandRecord, ...]
    """One per seat."""
    winner: int | None
    points: int
    went_out_by: WentOutBy | None
    went_rummy: bool
    stalled: bool
    events: tuple[Event, ...]
    turns: tuple[TurnRecord, ...] = ()
    """One per turn when traced, with the private cards drawn."""
    deal: Deal | None = None
    """The cards as dealt (R3): with the events, every position of the hand follows."""


class Played(Protocol):
    """What the end of a hand reads of the engine's state of it (`rummysim.engine`)."""

    rules: Rules
    names: Sequence[str]
    dealer: int
    scores: tuple[int, ...]
    game: int
    hand: int
    start: Deal
    holdings: list[int]
    history: list[Event]
    trace: list[TurnRecord] | None
    turn: int
    n_rebuilds: int
    drawn: int | None

    def emit(self, event: Event) -> None: ...


def finish(state: Played, *, winner: int | None, went_out_by: WentOutBy | None, went_rummy: bool) -> HandResult:
    """Score the hand (R8.1-R8.3, R12.3), log its end and build its records.

    A blocked hand (`went_out_by` block) is won by the one lowest hand value; a tie has no
    winner and is recorded as stalled, since it counts toward `stall_after_hands` (R12.3).
    """
    rules, holdings = state.rules, state.holdings
    left = [points(h, ace_value=rules.ace_value) for h in holdings]
    multiplier = rules.rummy_multiplier if went_rummy else 1
    if went_out_by is WentOutBy.BLOCK:
        lowest = block_winner(left)
        winner = lowest if lowest >= 0 else None
        won_points = block_points(left, lowest) if winner is not None else 0
    else:
        won_points = out_points(left, went_rummy, rules.rummy_multiplier) if winner is not None else 0
    stalled = winner is None
    state.emit(_new(HandEnded, (winner, won_points, went_out_by, went_rummy, stalled, tuple(holdings))))
    records = hand_records(
        game=state.game, hand=state.hand, dealer=state.dealer, names=state.names, scores=state.scores,
        holdings=holdings, holding_points=left, winner=winner, points=won_points,
        went_out_by=_VALUES[went_out_by], went_rummy=went_rummy,
        multiplier=multiplier, stalled=stalled, turns=state.turn, n_rebuilds=state.n_rebuilds,
    )  # fmt: skip
    return _new(HandResult, (  # by position: a Python call fewer than HandResult(...)
        records, winner, won_points, went_out_by, went_rummy, stalled, tuple(state.history),
        tuple(state.trace or ()), state.start,
    ))  # fmt: skip


def so_far(state: Played) -> HandResult:
    """Return the hand as far as it went, for a replay of a hand a bot stopped (no records: it was not scored)."""
    turns = list(state.trace or ())
    draws = [i for i, event in enumerate(state.history) if isinstance(event, Drew)]
    if state.trace is not None and len(draws) > len(turns):  # the turn that failed drew, but did not end
        drew = cast("Drew", state.history[draws[-1]])
        turns.append(turn_record(
            state.history[draws[-1]:], game=state.game, hand=state.hand, turn=state.turn, seat=drew.seat,
            strategy=state.names[drew.seat], drawn=state.drawn, holding=state.holdings[drew.seat],
        ))  # fmt: skip
    return HandResult((), None, 0, None, False, False, tuple(state.history), tuple(turns), state.start)
