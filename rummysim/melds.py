"""Melds: the table of every legal meld, and the meld and lay-off tests.

A meld is a mask (see `rummysim.cards`). The table of legal melds is built once per ace
setting: 329 with the ace low (R5.3), 369 with the ace high or low (R9.1; the 13-card
sequence is the same set of cards either way). A lay-off is legal exactly when the meld
with the card added is itself a legal meld (R6.1).

>>> len(meld_table(Ace.LOW)), len(meld_table(Ace.HIGH_OR_LOW))
(329, 369)
>>> from rummysim.cards import parse_cards
>>> meld_text(parse_cards("AH QH KH"))
'QH KH AH'
"""

from __future__ import annotations

from functools import cache

from rummysim.cards import (
    KING,
    LANE,
    N_RANKS,
    card_code,
    iter_cards,
    rank_span,
)
from rummysim.compat import StrEnum
from rummysim.rules import Ace


class MeldKind(StrEnum):
    """The two kinds of meld (R5.1, R5.2)."""

    GROUP = "group"
    SEQUENCE = "sequence"


@cache
def lane_sequences(ace: Ace) -> tuple[int, ...]:
    """Return every legal sequence within one 13-bit lane (R5.2, R5.3, R9.1)."""
    sequences = set()
    for start in range(N_RANKS):
        for end in range(start + 3, N_RANKS + 1):
            sequences.add(((1 << end) - 1) ^ ((1 << start) - 1))
    if ace is Ace.HIGH_OR_LOW:
        for start in range(1, N_RANKS - 1):  # start..K then the ace: Q-K-A up to 2-...-K-A
            sequences.add((LANE ^ ((1 << start) - 1)) | 1)
    return tuple(sorted(sequences))


@cache
def meld_table(ace: Ace) -> tuple[int, ...]:
    """Return every legal meld as a mask, sorted (R5.1, R5.2, R5.3, R9.1)."""
    melds = set()
    for suit in range(4):
        for sequence in lane_sequences(ace):
            melds.add(sequence << (13 * suit))
    for rank in range(N_RANKS):
        four = sum(1 << (13 * suit + rank) for suit in range(4))
        melds.add(four)
        for suit in range(4):
            melds.add(four ^ (1 << (13 * suit + rank)))
    return tuple(sorted(melds))


@cache
def meld_set(ace: Ace) -> frozenset[int]:
    """Return the legal melds as a set, for membership tests."""
    return frozenset(meld_table(ace))


def is_meld(mask: int, ace: Ace = Ace.LOW) -> bool:
    """Return True if the cards form a legal group or sequence (R5.1, R5.2, R5.3, R9.1).

    >>> from rummysim.cards import parse_cards
    >>> is_meld(parse_cards("KS AS 2S"), Ace.HIGH_OR_LOW)
    False
    """
    return mask in meld_set(ace)


def can_lay_off(meld: int, card: int, ace: Ace = Ace.LOW) -> bool:
    """Return True if the card fits the meld: a group's fourth card or a sequence's end (R6.1)."""
    bit = 1 << card
    return not meld & bit and (meld | bit) in meld_set(ace)


def lay_off_fits(meld: int, ace: Ace = Ace.LOW) -> int:
    """Return the mask of every card that could be laid off on a legal meld (R6.1).

    >>> from rummysim.cards import parse_cards, to_text
    >>> to_text(lay_off_fits(parse_cards("8H 9H TH")))
    '7H JH'
    """
    return lay_off_table(ace)[meld]


class _Fits(dict[int, int]):
    """Each legal meld's lay-off fits; any other mask's are computed when asked and not kept."""

    def __init__(self, ace: Ace) -> None:
        super().__init__()
        self.ace = ace
        self.update((meld, self.__missing__(meld)) for meld in meld_table(ace))

    def __missing__(self, meld: int) -> int:
        legal = meld_set(self.ace)
        return sum(1 << card for card in range(52) if not meld >> card & 1 and meld | 1 << card in legal)


@cache
def lay_off_table(ace: Ace) -> dict[int, int]:
    """Return a mapping of a meld to `lay_off_fits` for it: a look-up for the hot loops of planners (R6.1).

    Every legal meld is in it; any other mask's fits are computed when looked up.
    """
    return _Fits(ace)


def meld_kind(meld: int) -> MeldKind:
    """Return whether a legal meld is a group or a sequence."""
    return MeldKind.GROUP if rank_span(meld).bit_count() == 1 else MeldKind.SEQUENCE


def meld_text(meld: int) -> str:
    """Return a meld's codes in playing order: a high ace after the king (R9.1)."""
    cards = list(iter_cards(meld))
    span = rank_span(meld)
    if span & 1 and span >> KING & 1 and not span & 2 and meld_kind(meld) is MeldKind.SEQUENCE:
        cards = cards[1:] + cards[:1]
    return " ".join(card_code(c) for c in cards)
