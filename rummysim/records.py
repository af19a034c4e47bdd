"""Result records: one per hand x seat, one per game x seat, one per turn when traced.

Records are flat named tuples of plain values, cheap to build and to pickle across
processes; turning them into tables happens outside the hot loop (`rummysim.results`
builds the Arrow schemas from these fields). Hand-level facts (how the hand ended, its
length) repeat on every seat's row so each row stands alone. A winner's points can be
recomputed from the other rows' ``holding_end`` and the rules (R8): see
`recompute_points`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rummysim.cards import parse_cards, points, to_text
from rummysim.core import block_points, out_points
from rummysim.rules import Rules


class HandRecord(NamedTuple):
    """One seat's result in one hand."""

    game: int
    hand: int
    seat: int
    strategy: str
    dealer: int
    position: int
    """Turn order in this hand: 0 for the seat left of the dealer, who plays first (R3.4)."""
    won: bool
    """This seat went out (R7.1)."""
    points: int
    """What this seat scored in this hand (R8): the winner's credit, else 0."""
    score: int
    """This seat's game score after the hand (R11)."""
    went_out_by: str | None
    """How the hand ended: the winner's last card left by ``discard``, ``meld`` or ``lay_off`` (R7.1), or
    ``block``: the stock ran out under block rummy (R12.3); None if stalled (R10.2)."""
    went_rummy: bool
    """The winner played every card in one turn with no earlier meld (R8.3)."""
    multiplier: int
    """The multiplier applied to the winner's points: `rummy_multiplier` if rummy, else 1."""
    stalled: bool
    """The hand ended with no winner and no score: stalled (R10.2), or blocked with a tie for the lowest
    hand value (R12.3), which counts toward `Rules.stall_after_hands` as a stalled hand does."""
    turns: int
    """Turns played in the hand, all seats."""
    n_rebuilds: int
    """Stock rebuilds in the hand (R10.1)."""
    holding_end: str
    """The codes of the cards this seat held at the end, space-separated."""
    holding_points: int
    """The points of `holding_end` (R8.2)."""


class GameRecord(NamedTuple):
    """One seat's result in one game (R11)."""

    game: int
    seat: int
    strategy: str
    score: int
    won: bool
    """This seat alone finished first."""
    tied: bool
    """This seat shared first place with another (R11.2)."""
    n_hands: int
    hands_won: int
    n_stalled: int
    """Hands of the game that stalled (R10.2)."""
    first_dealer: int
    stalled: bool
    """The game ended unfinished: `stall_after_hands` hands in a row stalled (R10.2)."""


class TurnRecord(NamedTuple):
    """One turn, with the private card drawn: for traces and replays, never for bots."""

    game: int
    hand: int
    turn: int
    seat: int
    strategy: str
    pile: str
    drew: str
    plays: str
    """The melds and lay-offs played, ``;``-separated."""
    discard: str
    """The card discarded, or empty if the seat went out without one (R4.4)."""
    holding: str
    """The seat's cards after the turn."""


def hand_records(
    *, game: int, hand: int, dealer: int, names: Sequence[str], scores: Sequence[int], holdings: Sequence[int],
    holding_points: Sequence[int], winner: int | None, points: int, went_out_by: str | None, went_rummy: bool,
    multiplier: int, stalled: bool, turns: int, n_rebuilds: int,
) -> tuple[HandRecord, ...]:  # fmt: skip
    """Return each seat's record of one scored or stalled hand (R8, R10.2): `points` are the winner's."""
    n = len(holdings)
    # by position, in HandRecord's field order, with tuple.__new__: a record per seat and hand
    return tuple(
        tuple.__new__(HandRecord, (
            game,  # game
            hand,  # hand
            seat,  # seat
            names[seat],  # strategy
            dealer,  # dealer
            (seat - dealer - 1) % n,  # position
            seat == winner,  # won
            points if seat == winner else 0,  # points
            scores[seat] + (points if seat == winner else 0),  # score
            went_out_by,  # went_out_by
            went_rummy,  # went_rummy
            multiplier,  # multiplier
            stalled,  # stalled
            turns,  # turns
            n_rebuilds,  # n_rebuilds
            to_text(holdings[seat]),  # holding_end
            holding_points[seat],  # holding_points
        ))
        for seat in range(n)
    )  # fmt: skip


def recompute_points(rows: Sequence[HandRecord], *, rules: Rules) -> int:
    """Return the winner's points of one hand from the seats' ``holding_end`` alone (R8, R12.3)."""
    winners = [r for r in rows if r.won]
    if not winners:
        return 0
    (winner,) = winners
    values = [points(parse_cards(r.holding_end), ace_value=rules.ace_value) for r in rows]
    if winner.went_out_by == "block":
        return block_points(values, winner.seat)
    return out_points(values, winner.went_rummy, rules.rummy_multiplier)
