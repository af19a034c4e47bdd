"""Cards as ints, sets of cards as 52-bit masks, text codes and point values.

A card is the int ``suit * 13 + rank`` (R1.2):

==========  =====================================  ==================
suit        C (clubs) D (diamonds) H (hearts) S     0 1 2 3
rank        A 2 3 4 5 6 7 8 9 T J Q K              0 1 ... 12
card        ``suit * 13 + rank``                   AC = 0, KS = 51
set         bit ``card`` of an int                 the "mask"
==========  =====================================  ==================

So each suit owns a 13-bit lane of the mask: a sequence (R5.2) is a run of adjacent
bits in one lane, a group (R5.1) is one bit position in several lanes.

Text codes are used only at the edges (input, output, logs): ``AS``, ``TD`` or ``10D``,
``KH``, case-insensitive in, canonical (``TD``) out.

>>> parse_card("10d"), card_code(22)
(22, 'TD')
>>> to_text(parse_cards("3s KH as 2S"))  # suits C D H S, then ranks A to K
'KH AS 2S 3S'
>>> card_points(parse_card("QD")), card_points(parse_card("AC"), ace_value=15)
(10, 15)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache

from rummysim.errors import CardError

N_CARDS = 52
N_RANKS = 13
N_SUITS = 4
SUITS = "CDHS"
RANKS = "A23456789TJQK"
LANE = (1 << N_RANKS) - 1  # the 13 bits of one suit
FULL_DECK = (1 << N_CARDS) - 1
ACE, KING = 0, 12
BITS: tuple[int, ...] = tuple(1 << card for card in range(N_CARDS))
"""Each card's mask, ``BITS[card] == 1 << card``: a look-up, where the shift makes a new int for most cards."""
COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""The ace of each suit: a mask shifted down by a rank and masked with this holds that rank's cards, a lane apart."""

_RANK_OF_TEXT = {r: i for i, r in enumerate(RANKS)} | {"10": 9}
CODES: tuple[str, ...] = tuple(RANKS[c % N_RANKS] + SUITS[c // N_RANKS] for c in range(N_CARDS))

CardsLike = str | Iterable[str | int]
"""What the public API takes as cards: ``"AS 2S 3S"``, ``["AS", "2S"]`` or ``[0, 1]``."""


def rank_of(card: int) -> int:
    """Return the rank of a card, 0 (ace) to 12 (king)."""
    return card % N_RANKS


def suit_of(card: int) -> int:
    """Return the suit of a card, 0 (clubs) to 3 (spades)."""
    return card // N_RANKS


def card_code(card: int) -> str:
    """Return the canonical text code of a card int, such as ``'TD'``."""
    if isinstance(card, bool) or not (isinstance(card, int) and 0 <= card < N_CARDS):
        raise CardError(f"card {card!r} is not a card int; cards are 0 to 51 (R1.2)")
    return CODES[card]


def parse_card(code: str | int) -> int:
    """Return the card int of a text code (``'AS'``, ``'10d'``) or check a card int."""
    if isinstance(code, bool):
        raise CardError(f"card {code!r} is not a card code or a card int (R1.2)")
    if isinstance(code, int):
        card_code(code)
        return code
    if not isinstance(code, str):
        raise CardError(f"card {code!r} is not a card code or a card int (R1.2)")
    text = code.strip().upper()
    rank = _RANK_OF_TEXT.get(text[:-1])
    suit = SUITS.find(text[-1:]) if text else -1
    if rank is None or suit < 0:
        raise CardError(
            f"card code {code!r} is not a card; a code is a rank (A 2-9 T or 10 J Q K) "
            f"and a suit (C D H S), such as 'AS' or '10D' (R1.2)"
        )
    return suit * N_RANKS + rank


def parse_cards(cards: CardsLike) -> int:
    """Return the mask of some cards given as a string of codes or an iterable of codes or ints.

    >>> parse_cards("AC 2C") == 0b11
    True
    """
    items: Iterable[str | int]
    if isinstance(cards, str):
        items = cards.replace(",", " ").split()
    elif isinstance(cards, int):
        raise CardError(f"cards {cards!r}: give a string of codes or an iterable of cards, not a bare int (R1.2)")
    else:
        items = cards
    mask = 0
    for item in items:
        card = parse_card(item)
        bit = 1 << card
        if mask & bit:
            raise CardError(f"card {CODES[card]} is given twice; the deck has one of each (R1.2)")
        mask |= bit
    return mask


def iter_cards(mask: int) -> Iterator[int]:
    """Yield the cards of a mask in suit-then-rank order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[int]:
    """Return the cards of a mask as a list, in suit-then-rank order."""
    return list(iter_cards(mask))


def n_cards(mask: int) -> int:
    """Return how many cards a mask holds."""
    return mask.bit_count()


def to_text(mask: int) -> str:
    """Return the canonical codes of a mask, space-separated, in suit-then-rank order."""
    codes = []
    while mask:  # iter_cards, written out: each hand's records write every holding
        low = mask & -mask
        codes.append(CODES[low.bit_length() - 1])
        mask ^= low
    return " ".join(codes)


def card_points(card: int, *, ace_value: int = 1) -> int:
    """Return what a card scores: ace `ace_value`, 2-10 face value, J Q K 10 (R8.2, R9.2)."""
    rank = card % N_RANKS
    if rank == ACE:
        return ace_value
    return min(rank + 1, 10)


@cache
def lane_points(ace_value: int) -> tuple[int, ...]:
    """Return the points of every 13-bit lane mask, indexed by the lane (R8.2, R9.2)."""
    values = [card_points(r, ace_value=ace_value) for r in range(N_RANKS)]
    table = [0] * (1 << N_RANKS)
    for lane in range(1, 1 << N_RANKS):
        low = lane & -lane
        table[lane] = table[lane ^ low] + values[low.bit_length() - 1]
    return tuple(table)


def points(mask: int, *, ace_value: int = 1) -> int:
    """Return the total points of the cards in a mask (R8.2).

    >>> points(parse_cards("AS KH 7D"))
    18
    """
    table = lane_points(ace_value)
    return table[mask & LANE] + table[(mask >> 13) & LANE] + table[(mask >> 26) & LANE] + table[mask >> 39]


def rank_span(mask: int) -> int:
    """Return the 13-bit mask of the ranks present in a mask."""
    return (mask | mask >> 13 | mask >> 26 | mask >> 39) & LANE


@cache
def _ranks_by_points(ace_value: int) -> tuple[int, ...]:
    return tuple(sorted(range(N_RANKS), key=lambda r: (card_points(r, ace_value=ace_value), r), reverse=True))


@cache
def _top_ranks(ace_value: int) -> tuple[int, ...]:
    """Return, for every 13-bit set of ranks, its rank of most points (the higher rank in a tie); -1 if empty."""
    order = _ranks_by_points(ace_value)
    return tuple(next((r for r in order if span >> r & 1), -1) for span in range(1 << N_RANKS))


def highest_card(mask: int, *, ace_value: int = 1) -> int:
    """Return the card of most points in a non-empty mask; higher rank, then suit, breaks a tie (R8.2).

    >>> card_code(highest_card(parse_cards("TS KC 9H")))
    'KC'
    """
    return highest_cards(ace_value)(mask)


@cache
def highest_cards(ace_value: int) -> Callable[[int], int]:
    """Return `highest_card` for one ace value, its table found once: for a bot that asks it every turn."""
    top_ranks = _top_ranks(ace_value)

    def highest(mask: int) -> int:
        rank = top_ranks[(mask | mask >> 13 | mask >> 26 | mask >> 39) & LANE]  # rank_span, inline
        if rank < 0:
            raise CardError("highest_card: no cards given")
        # the rank's cards, one a lane apart from bit 0 (clubs) to bit 39 (spades): the highest bit is the higher suit
        return rank + (mask >> rank & COLUMN).bit_length() - 1

    return highest
