"""The deal (R3): holdings, the upcard that starts the discard pile, and the stock.

`deal` shuffles and deals from a hand's random stream (`rummysim.seeding`); `Deal.of` stacks a deal from card
codes for tests and reproductions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from rummysim.cards import BITS, FULL_DECK, N_CARDS, CardsLike, iter_cards, parse_card, parse_cards, to_text
from rummysim.errors import ConfigError
from rummysim.rules import Rules
from rummysim.seeding import derive, permutation
from rummysim.table import TableMeld

_new = tuple.__new__
"""Build a named tuple from a tuple of all its fields, in order: a Python call fewer than ``Cls(...)``."""


class Deal(NamedTuple):
    """The cards at the start of a hand: holdings, discard pile, stock (top first), table.

    `deal` makes the R3 deal from a shuffled deck; tests and reproductions build one
    with `Deal.of` to stack the deck.
    """

    holdings: tuple[int, ...]
    discard_pile: tuple[int, ...]
    """Bottom first; the last card is the top."""
    stock: tuple[int, ...]
    """Top first: the first card is drawn first."""
    table: tuple[TableMeld, ...] = ()

    @classmethod
    def of(
        cls,
        holdings: Sequence[CardsLike],
        *,
        discard_pile: CardsLike = "",
        stock: CardsLike = "",
        table: Sequence[tuple[CardsLike, int]] = (),
        rng: np.random.Generator | None = None,
    ) -> Deal:
        """Stack a deal from card codes; cards named nowhere go under the stock, shuffled by `rng`."""
        holding_masks = tuple(parse_cards(h) for h in holdings)
        pile = _ordered(discard_pile) if discard_pile else ()
        top_first = _ordered(stock) if stock else ()
        melds = tuple(TableMeld(parse_cards(cards), seat) for cards, seat in table)
        used = 0
        for mask in (*holding_masks, *(1 << c for c in pile + top_first), *(m.cards for m in melds)):
            if used & mask:
                raise ConfigError(f"deal: {to_text(used & mask)} named twice; a card is in one place (R1.2)")
            used |= mask
        rest = list(iter_cards(FULL_DECK & ~used))
        if rng is not None:
            rest = [rest[i] for i in rng.permutation(len(rest)).tolist()]
        return cls(holding_masks, pile, top_first + tuple(rest), melds)


def _ordered(cards: CardsLike) -> tuple[int, ...]:
    items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    parse_cards(items)  # rejects bad codes and repeats
    return tuple(parse_card(c) for c in items)


def deal(rules: Rules, *, dealer: int, key: int) -> Deal:
    """Shuffle and deal one card at a time from the dealer's left, turn the upcard (R3.1-R3.3).

    `key` is the hand's stream key (`rummysim.seeding.hand_key`); the deck is shuffled by
    its sub-stream 0 (`rummysim.seeding.permutation`).
    """
    deck = permutation(derive(key, 0), N_CARDS)
    n, k = rules.n_players, rules.n_dealt
    holdings = [0] * n
    for i in range(n):  # the i-th seat from the dealer's left gets cards i, i + n, i + 2n, ... of the deck
        holdings[(dealer + 1 + i) % n] = sum(map(BITS.__getitem__, deck[i : n * k : n]))  # distinct bits: a union
    return _new(Deal, (tuple(holdings), (deck[n * k],), tuple(deck[n * k + 1 :]), ()))  # by position, table empty
