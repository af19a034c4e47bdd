"""The rules core: every rule of a turn, a hand and a game, written once as small pure functions (R3-R12).

Each function takes plain ints and bools (card masks, counts, the settings it reads) or
a sequence of ints, and answers one question the rulebook settles, citing its rule. They
are written in the part of Python that numba compiles, so the same functions serve both
engines: the reference engine (`rummysim.engine`, `rummysim.table`, `rummysim.game`),
replay, terminal play and the bots call them as plain Python, and the compiled engine
(`rummysim.compiled`) registers every function of `RULES` with numba on import and calls
them from its kernels. A change of a rule is an edit here, and both engines play it.

Conventions: a card is an int 0-51 and a set of cards a 52-bit mask (`rummysim.cards`);
``NO_CARD`` (-1) stands for "no card" (nothing taken this turn); a setting that may be
absent (a target score, a number of hands) is -1 when it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import numpy as np

Values = Union[Sequence[int], "np.ndarray"]
"""Each seat's hand value: a list in the reference engine, an array in the compiled one."""

NO_CARD = -1
"""No card: nothing was taken from the discard pile this turn."""
UNSET = -1
"""A setting that is absent (``target_score: null``, ``max_hands: null``)."""


# -- the deal and the seats (R3) --------------------------------------------------------------
def dealt_to(i: int, dealer: int, n_players: int) -> int:
    """Return the seat that gets card `i` of the deal: one at a time from the dealer's left (R3.1, R3.2)."""
    return (dealer + 1 + i) % n_players


def left_of(seat: int, n_players: int) -> int:
    """Return the seat to the left of `seat`: who plays next (R4) and who deals next (R3.4)."""
    return (seat + 1) % n_players


def stock_after_deal(n_players: int, n_dealt: int) -> int:
    """Return the cards left in the stock once the holdings and the upcard are dealt (R3.2, R3.3)."""
    return 52 - n_players * n_dealt - 1


# -- melds (R5, R9.1) ----------------------------------------------------------------------
LANE = (1 << 13) - 1
"""One suit's 13 ranks: the bits of a suit's lane in a card mask."""


def card_count(cards: int) -> int:
    """Return how many cards a mask holds."""
    count = 0
    while cards:
        cards &= cards - 1
        count += 1
    return count


def _unbroken(bits: int) -> bool:
    """Return whether a non-empty set of bits is one unbroken run."""
    bits //= bits & -bits  # shifted down to its lowest bit
    return bits & (bits + 1) == 0


def is_meld(cards: int, ace_high: bool) -> bool:
    """Return whether cards form a meld: a group of 3-4 of a rank (R5.1) or a sequence of 3+ in a suit (R5.2).

    The ace stands below the two (R5.3) or, with `ace_high`, also above the king (R9.1), never
    both in one sequence (no K-A-2).
    """
    if cards <= 0 or cards >> 52 or card_count(cards) < 3:
        return False
    ranks = (cards | cards >> 13 | cards >> 26 | cards >> 39) & LANE
    if ranks & (ranks - 1) == 0:
        return True  # one rank: a group of 3 or 4 (a rank has four cards)
    for suit in range(4):
        lane = (cards >> (13 * suit)) & LANE
        if lane:
            if lane << (13 * suit) != cards:
                return False  # cards of two suits and two ranks
            if _unbroken(lane):
                return True
            return ace_high and lane & 1 == 1 and _unbroken(lane >> 1 | 1 << 12)  # ..Q-K-A (R9.1)
    return False


# -- the draw (R4.1, R4.6, R4.8, R10, R12.3) ------------------------------------------------
def may_take_discard(pile_size: int) -> bool:
    """Return whether the top discard may be taken: only when there is one (R4.1, R4.6)."""
    return pile_size > 0


def blocked(stock_size: int, block: bool) -> bool:
    """Return whether the hand ends at the start of this turn: an empty stock with block rummy (R12.3)."""
    return block and stock_size == 0


def may_rebuild(pile_size: int, n_rebuilds: int, stall_after_rebuilds: int) -> bool:
    """Return whether an empty stock is rebuilt from the discard pile but its top card (R10.1).

    It is not when fewer than two cards lie in the pile or it was rebuilt `stall_after_rebuilds`
    times already: the hand is stalled (R10.2). With block rummy nothing is rebuilt (`blocked`).
    """
    return pile_size >= 2 and n_rebuilds < stall_after_rebuilds


def out_of_turns(turn: int, stall_after_turns: int) -> bool:
    """Return whether the hand is stalled before turn `turn` (counted from 0) begins (R10.2)."""
    return turn >= stall_after_turns


# -- the plays and the discard (R4.2-R4.7, R6.1, R7.2, R12.1, R12.2) --------------------------
def may_lay_off(melded: bool, after_meld: bool) -> bool:
    """Return whether a seat may lay off: always (R6.1), or once it has melded this hand (R12.1).

    `melded` counts melds played earlier in the same turn.
    """
    return melded or not after_meld


def leaves_legal_holding(holding: int, n_played: int, discard_to_go_out: bool, taken: int) -> bool:
    """Return whether plays (`n_played` of them) may leave this holding (R4.7, R7.2).

    No plays leave any holding. Plays may not leave no card when the last card must be
    discarded (R7.2), nor leave only the card taken this turn, which could not be
    discarded (R4.5, R4.7).
    """
    if not n_played:
        return True
    if not holding:
        return not discard_to_go_out
    return taken == NO_CARD or holding != 1 << taken


def keeps_taken(holding: int, taken: int, must_use: bool) -> bool:
    """Return whether a turn's plays leave the card taken from the discard pile unplayed, against R12.2."""
    return must_use and taken != NO_CARD and (holding >> taken) & 1 == 1


def discardable(holding: int, taken: int) -> int:
    """Return the cards of a holding that may be discarded: all but one taken this turn (R4.3, R4.5)."""
    return holding & ~(1 << taken) if taken != NO_CARD else holding


def may_discard(card: int, holding: int, taken: int) -> bool:
    """Return whether `card` may be discarded: a card of the holding, not the one taken this turn (R4.3, R4.5)."""
    return 0 <= card < 52 and (discardable(holding, taken) >> card) & 1 == 1


# -- the end of a hand and its score (R7, R8, R12.3) ----------------------------------------
def went_rummy(melded_before: bool) -> bool:
    """Return whether a seat that went out went rummy: it had melded nothing before this turn (R8.3)."""
    return not melded_before


def out_points(values: Values, rummy: bool, rummy_multiplier: int) -> int:
    """Return what the seat that went out scores: the points every other seat holds, doubled for rummy (R8).

    `values` are the seats' hand values (R8.2, R9.2); the winner's own is 0.
    """
    total = 0
    for value in values:
        total += value
    return total * rummy_multiplier if rummy else total


def block_winner(values: Values) -> int:
    """Return the one seat with the lowest hand value when a hand is blocked, or -1 for a tie (R12.3)."""
    best, winner = -1, -1
    for seat in range(len(values)):
        if best < 0 or values[seat] < best:
            best, winner = values[seat], seat
        elif values[seat] == best:
            winner = -1
    return winner


def block_points(values: Values, winner: int) -> int:
    """Return what the winner of a blocked hand scores: each other seat's hand value less its own (R12.3)."""
    total = 0
    for value in values:
        total += value - values[winner]
    return total


# -- the game (R10.2, R11) ------------------------------------------------------------------
def game_over(top_score: int, hands: int, stalled_in_a_row: int, target_score: int, max_hands: int,
              stall_after_hands: int) -> bool:  # fmt: skip
    """Return whether a game ends after `hands` hands (R11.1, R11.2, R10.2).

    A score reached the target, the number of hands is played, or `stall_after_hands`
    hands in a row ended with no winner. -1 for an absent target or number of hands.
    """
    if target_score != UNSET and top_score >= target_score:
        return True
    return (max_hands != UNSET and hands >= max_hands) or stalled_in_a_row >= stall_after_hands


RULES: tuple[Callable[..., Any], ...] = (
    dealt_to, left_of, stock_after_deal, card_count, _unbroken, is_meld, may_take_discard, blocked, may_rebuild,
    out_of_turns, may_lay_off, leaves_legal_holding, keeps_taken, discardable, may_discard, went_rummy, out_points,
    block_winner, block_points, game_over,
)  # fmt: skip
"""Every function of the core: what `rummysim.compiled` registers with numba."""
