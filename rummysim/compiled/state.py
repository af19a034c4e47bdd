"""The compiled engine's state of one hand: arrays a hand's kernels share, and the table's moves.

`Hand` is the compiled twin of the reference engine's private `_Hand` (a numpy record of
arrays, which numba passes by reference): holdings, the discard pile (bottom first),
the stock (top last), the melds on the table with the cards that would lay off on each
(R6.1), the public card memory that `cautious` keeps, and each seat's counter-based
stream. Small counters live in ``counts`` at the indices named below.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros

from rummysim.cards import KING
from rummysim.compiled.arrange import LANE, OUT_SIZE, Lookups
from rummysim.compiled.bits import kernel, lowest, popcount

PILE, STOCK, MELDS, TURN, REBUILDS, DRAWN, TAKEN, SEEN = range(8)
"""Indices into `Hand.counts`: lengths of the discard pile, the stock and the table; the turn;
the stock rebuilds; the card drawn and the card taken this turn (-1: none); the cards
gone public this hand (`cautious`'s memory)."""

MAX_MELDS = 26
"""Room on the table: 52 cards make at most 17 melds."""


MAX_SEATS = 6
"""Room for the largest table (R1.1): per-seat fields hold ``seats`` entries, the rest are zero."""
_EXT = MAX_MELDS + 20
_OPTIONS = 400 + 52 * _EXT


class Hand(Protocol):
    """The fields of a `HAND` record (see the module's docstring)."""

    seats: int
    """How many seats play: the per-seat fields' first ``seats`` entries are theirs."""
    holdings: np.ndarray
    sizes: np.ndarray
    has_melded: np.ndarray
    pile: np.ndarray
    stock: np.ndarray
    table: np.ndarray
    fits: np.ndarray
    counts: np.ndarray
    known: np.ndarray
    """Per seat, the cards it took from the discard pile and has not played (public)."""
    keys: np.ndarray
    """Per seat, the key of its bot's counter-based stream (`rummysim.seeding.Stream`)."""
    draws: np.ndarray
    """Per seat, the numbers its stream has given so far."""
    scratch: np.ndarray
    """Room for the melds of an arrangement, then its work space (`rummysim.compiled.arrange.OUT_SIZE`)."""
    plays: np.ndarray
    """A seat's plays this turn: (kind, cards or card, meld index); kind 0 melds, 1 lays off."""
    ext: np.ndarray
    ext_fits: np.ndarray
    """A planner's copy of the table and its lay-off fits."""
    deck: np.ndarray
    """Room to shuffle the deck (R3.1)."""
    options: np.ndarray
    """Room for uniform's choices: every meld and lay-off of the moment."""
    values: np.ndarray
    """Per seat, the points it holds once the hand ends (R8.2): room for the scoring of the rules core."""


_I64, _U64 = np.int64, np.uint64
HAND = np.dtype(
    [
        ("seats", _I64),
        *((name, _I64, (MAX_SEATS,)) for name in ("holdings", "sizes", "has_melded")),
        ("pile", _I64, (52,)),
        ("stock", _I64, (52,)),
        ("table", _I64, (MAX_MELDS,)),
        ("fits", _I64, (MAX_MELDS,)),
        ("counts", _I64, (8,)),
        ("known", _I64, (MAX_SEATS,)),
        ("keys", _U64, (MAX_SEATS,)),
        ("draws", _I64, (MAX_SEATS,)),
        ("scratch", _I64, (OUT_SIZE,)),
        ("plays", _I64, (60, 3)),
        ("ext", _I64, (_EXT,)),
        ("ext_fits", _I64, (_EXT,)),
        ("deck", _I64, (52,)),
        ("options", _I64, (_OPTIONS, 3)),
        ("values", _I64, (MAX_SEATS,)),
    ],
    align=True,
)
"""The record of `Hand`: numba passes it to a called kernel as one pointer (a tuple of its
18 arrays cost some 130 arguments a call, so every kernel had to be inlined)."""


def new_hand(n: int) -> np.ndarray:
    """Return room for a hand of `n` seats: a one-record array of `HAND` (kernels read ``store[0]``).

    Made by the caller of a kernel, so the record outlives every use of it (a record holds
    no reference to its array).
    """
    store = np.zeros(1, HAND)
    store[0]["seats"] = n
    return store


@kernel(inline=True)
def lay_off_fits(tb: Lookups, meld: int) -> int:
    """`rummysim.melds.lay_off_fits`: every card whose addition leaves a legal meld (R6.1).

    A group of three takes its rank's fourth card (R5.1); a sequence takes the card below
    its low end and above its high end in its suit (R5.2), where the ace stands only low
    (R5.3) or also after the king (R9.1), never both (no K-A-2). tests/test_compiled.py
    checks this against the reference on every legal meld.
    """
    span = (meld | meld >> 13 | meld >> 26 | meld >> 39) & LANE
    if not span & (span - 1):  # a group
        if popcount(meld) != 3:
            return 0
        rank = lowest(span)
        four = 1 << rank | 1 << (13 + rank) | 1 << (26 + rank) | 1 << (39 + rank)
        return four & ~meld
    suit = lowest(meld) // 13
    lane = (meld >> (13 * suit)) & LANE
    if lane == LANE:
        return 0
    fits = 0
    if lane & 1 and lane >> KING & 1:  # runs through a high ace: start..K then A (R9.1)
        start = lowest(lane & ~1)
        if start > 1:
            fits = 1 << (start - 1)
    else:
        low, high = lowest(lane), 63 - leading_zeros(lane)  # type: ignore[call-arg]
        if low > 0:
            fits |= 1 << (low - 1)
        if high < KING:
            fits |= 1 << (high + 1)
        elif tb.ace_high and low > 0:
            fits |= 1  # start..K takes a high ace (R9.1)
    return fits << (13 * suit)


@kernel(inline=True)
def table_fits(h: Hand) -> int:
    """`rummysim.strategies.tactics.fitting_cards`: the cards that lay off somewhere on the table."""
    fits = 0
    for i in range(h.counts[MELDS]):
        fits |= h.fits[i]
    return fits


@kernel(inline=True)
def top_discard(h: Hand) -> int:
    """The card on top of the discard pile, or -1 if it is empty."""
    n = h.counts[PILE]
    return h.pile[n - 1] if n else -1


@kernel(inline=True)
def pile_mask(h: Hand) -> int:
    mask = 0
    for i in range(h.counts[PILE]):
        mask |= 1 << h.pile[i]
    return mask


@kernel(inline=True)
def copy_table(h: Hand) -> int:
    """Copy the table and its fits into the planner's ``ext``; return its length."""
    n = h.counts[MELDS]
    for i in range(n):
        h.ext[i], h.ext_fits[i] = h.table[i], h.fits[i]
    return n


@kernel(inline=True)
def apply_play(tb: Lookups, h: Hand, seat: int, kind: int, cards: int, meld: int) -> None:
    """Play a meld (kind 0) or lay off a card on meld `meld` (kind 1): `rummysim.table.apply_event` (R5.4, R6.2).

    Plays come from compiled bots, which `tests/test_compiled.py` holds to the reference's
    plays; the reference engine checks every answer of a Python bot.
    """
    if kind == 0:
        n = h.counts[MELDS]
        h.table[n], h.fits[n] = cards, lay_off_fits(tb, cards)
        h.counts[MELDS] = n + 1
        played = cards
    else:
        played = 1 << cards
        h.table[meld] |= played
        h.fits[meld] = lay_off_fits(tb, h.table[meld])
    h.holdings[seat] ^= played
    h.counts[SEEN] |= played
    h.known[seat] &= ~played
