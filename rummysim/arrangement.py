"""Exact best arrangements: the least deadwood of a holding of any size (R5, R8.2, R9).

The least deadwood of a holding (the points left when its cards are arranged into
disjoint melds as well as possible) is the hot path of every smart bot. Sequences live in
one suit's lane and groups take one rank from several lanes, so:

1. the best sequences-only arrangement of every 13-bit lane is precomputed (8,192 entries);
2. a holding with no rank of three or more cards is the sum of its four lanes' entries;
3. otherwise every choice of groups is tried over up to three such ranks, and larger
   holdings go to an exact dynamic programme over ranks (memoised).

>>> min_deadwood("AS 2S 3S 7H 7D 7C KH")
10
>>> print(best_arrangement("QH KH AH 5C", rules=Rules.preset("ace_high")))
QH KH AH | deadwood 5C (5)
"""

from __future__ import annotations

import itertools
from functools import cache, lru_cache
from typing import NamedTuple

from rummysim.cards import (
    ACE,
    BITS,
    COLUMN,
    KING,
    LANE,
    N_RANKS,
    CardsLike,
    card_code,
    card_points,
    iter_cards,
    parse_cards,
    points,
)
from rummysim.melds import lane_sequences, meld_text
from rummysim.rules import Ace, Rules

_ACE_HIGH_SEQUENCE_END = (1 << ACE) | (1 << (KING - 1)) | (1 << KING)  # Q-K-A in one lane


def _group_options(mask: int, bit: int) -> tuple[int, ...]:
    """Return the groups to try at one rank of three or four cards (`bit`, its lane bit): none, all of it, and
    with four of a rank each of its four triples (R5.1)."""
    column = bit * COLUMN  # the rank's four cards
    present = mask & column
    if present == column:
        return (0, present, present ^ bit, present ^ bit << 13, present ^ bit << 26, present ^ bit << 39)
    return (0, present)


_new = tuple.__new__
"""Build a named tuple from a tuple of its fields, in order: a Python call fewer than ``Cls(...)``."""


class Arrangement(NamedTuple):
    """A holding split into disjoint melds and the deadwood left over."""

    melds: tuple[int, ...]
    """The melds, as masks."""
    deadwood_cards: int
    """The cards in no meld, as a mask."""
    deadwood: int
    """The points of the deadwood cards (R8.2)."""

    def __str__(self) -> str:
        parts = [meld_text(m) for m in self.melds]
        left = " ".join(card_code(c) for c in iter_cards(self.deadwood_cards)) or "-"
        return " | ".join([*parts, f"deadwood {left} ({self.deadwood})"])


class Arranger:
    """Exact least-deadwood arrangements for one ace setting and ace value.

    Get one with `arranger`; `deadwood` and `arrange` take a holding mask of any size.
    """

    #: Ranks of three or more cards up to which every choice of groups is tried.
    MAX_ENUMERATED_GROUP_RANKS = 3

    def __init__(self, ace: Ace, ace_value: int) -> None:
        self.ace = ace
        self.ace_value = ace_value
        self._values = [card_points(r, ace_value=ace_value) for r in range(N_RANKS)]
        self._lane_deadwood, self._lane_choice = self._build_lane_table()
        self._lane_dead_cards = [self._lane_leftover(lane) for lane in range(1 << N_RANKS)]
        # per suit, every lane's dead cards as cards of that suit: an arrangement reads them off
        self._suit_dead_cards = tuple([dead << (13 * suit) for dead in self._lane_dead_cards] for suit in range(4))
        # per suit, every lane's best sequences as masks of that suit: an arrangement reads them off
        sequences = [self._lane_sequences(lane) for lane in range(1 << N_RANKS)]
        self._suit_sequences = [[tuple(r << (13 * suit) for r in lane) for lane in sequences] for suit in range(4)]
        self._by_ranks = lru_cache(maxsize=1 << 16)(self._arrange_by_ranks)
        # per lane, its cards that lie in a sequence within it; three in a row suffice (R5.2, R9.1)
        threes = [q for q in lane_sequences(ace) if q.bit_count() == 3]
        self._lane_in_sequence = [0] * (1 << N_RANKS)
        for lane in range(1 << N_RANKS):
            for q in threes:
                if q & lane == q:
                    self._lane_in_sequence[lane] |= q

    def _build_lane_table(self) -> tuple[list[int], list[int]]:
        """Return the least sequences-only deadwood of every lane and the sequence that achieves it."""
        sequences_with = [[r for r in lane_sequences(self.ace) if r >> bit & 1] for bit in range(N_RANKS)]
        size = 1 << N_RANKS
        best, choice = [0] * size, [0] * size
        for lane in range(1, size):
            low = lane & -lane
            bit = low.bit_length() - 1
            best[lane] = best[lane ^ low] + self._values[bit]
            for sequence in sequences_with[bit]:
                if sequence & lane == sequence and best[lane ^ sequence] < best[lane]:
                    best[lane], choice[lane] = best[lane ^ sequence], sequence
        return best, choice

    def _lane_leftover(self, lane: int) -> int:
        """Return the cards of a lane left out of its best sequences."""
        dead = 0
        while lane:
            sequence = self._lane_choice[lane]
            if not sequence:
                sequence = lane & -lane
                dead |= sequence
            lane ^= sequence
        return dead

    def _lane_sequences(self, lane: int) -> tuple[int, ...]:
        """Return the sequences of a lane's best arrangement (what `_lane_leftover` leaves out)."""
        found = []
        while lane:
            sequence = self._lane_choice[lane]
            if sequence:
                found.append(sequence)
            else:
                sequence = lane & -lane
            lane ^= sequence
        return tuple(found)

    def deadwood(self, mask: int) -> int:
        """Return the least deadwood of a holding mask (R5, R8.2)."""
        table = self._lane_deadwood
        c, d, h, s = mask & LANE, mask >> 13 & LANE, mask >> 26 & LANE, mask >> 39
        group_ranks = (c & d & (h | s)) | (h & s & (c | d))
        if not group_ranks:
            return table[c] + table[d] + table[h] + table[s]
        if not group_ranks & (group_ranks - 1):
            return self._deadwood_one_group_rank((c, d, h, s), group_ranks)
        return self._arrange_grouped(mask, group_ranks).deadwood

    def _deadwood_one_group_rank(self, lanes: tuple[int, int, int, int], bit: int) -> int:
        """Least deadwood when exactly one rank can form a group: none, all, or one of four triples."""
        table = self._lane_deadwood
        c, d, h, s = lanes
        # each lane's least deadwood with the rank's card (k) and without it (g): sums and minima written out
        kc, kd, kh, ks = table[c], table[d], table[h], table[s]
        gc, gd, gh, gs = table[c & ~bit], table[d & ~bit], table[h & ~bit], table[s & ~bit]
        kept, grouped = kc + kd + kh + ks, gc + gd + gh + gs
        if c & d & h & s & bit:  # four of a rank: a triple leaves one
            return min(kept, grouped, grouped + min(kc - gc, kd - gd, kh - gh, ks - gs))
        return min(kept, grouped)

    def has_meld(self, mask: int) -> bool:
        """Return True if a meld lies within the holding: three cards of a rank or a sequence (R5).

        When it is False, `arrange` finds no meld and every card is deadwood; this test is
        the start of `arrange`, without building the arrangement.
        """
        c, d, h, s = mask & LANE, mask >> 13 & LANE, mask >> 26 & LANE, mask >> 39
        if (c & d & (h | s)) | (h & s & (c | d)):
            return True
        dead = self._lane_dead_cards
        return dead[c] != c or dead[d] != d or dead[h] != h or dead[s] != s

    def in_meld(self, card: int, mask: int) -> bool:
        """Return True if a card of the mask lies in a meld within it (R5).

        If not, the card is deadwood in every arrangement: the least deadwood with it is
        the least deadwood without it plus the card's points.
        """
        rank = card % N_RANKS
        if self._lane_in_sequence[mask >> (card - rank) & LANE] >> rank & 1:
            return True
        return (mask >> rank & COLUMN).bit_count() >= 3  # three of the rank's four cards, one a lane apart

    def lowers(self, mask: int, card: int) -> bool:
        """Return True if adding a card to a holding lowers its least deadwood (R5, R8.2).

        Only a card that lies in a meld with the holding can (`in_meld`); the deadwood is
        compared only then.
        """
        with_card = mask | BITS[card]
        rank = card % N_RANKS  # self.in_meld(card, with_card), written out: a call fewer on every draw
        if (
            not self._lane_in_sequence[with_card >> (card - rank) & LANE] >> rank & 1
            and (with_card >> rank & COLUMN).bit_count() < 3
        ):
            return False
        return self.deadwood(with_card) < self.deadwood(mask)

    def arrange(self, mask: int) -> Arrangement:
        """Return an arrangement of a holding mask with the least deadwood."""
        c, d, h, s = mask & LANE, mask >> 13 & LANE, mask >> 26 & LANE, mask >> 39
        group_ranks = (c & d & (h | s)) | (h & s & (c | d))
        if group_ranks:
            if not group_ranks & (group_ranks - 1):  # one rank of three or four: `_arrange_grouped`'s answer
                return self._arrange_one_group_rank(mask, (c, d, h, s), group_ranks)
            return self._arrange_grouped(mask, group_ranks)
        dead = self._lane_dead_cards
        if dead[c] == c and dead[d] == d and dead[h] == h and dead[s] == s:  # no sequence at all
            table = self._lane_deadwood
            return _new(Arrangement, ((), mask, table[c] + table[d] + table[h] + table[s]))
        return self._with_lanes((c, d, h, s), ())

    def deadwood_cards(self, mask: int) -> int:
        """Return the cards left out of the melds of a best arrangement (see `arrange`)."""
        c, d, h, s = mask & LANE, mask >> 13 & LANE, mask >> 26 & LANE, mask >> 39
        if (c & d & (h | s)) | (h & s & (c | d)):
            return self.arrange(mask).deadwood_cards
        dead = self._lane_dead_cards
        return dead[c] | dead[d] << 13 | dead[h] << 26 | dead[s] << 39

    def _with_lanes(self, lanes: tuple[int, int, int, int], groups: tuple[int, ...]) -> Arrangement:
        """Complete an arrangement: each lane's best sequences, plus the given groups.

        The deadwood's points are its lanes' table entries: a lane's least deadwood is the
        points of the cards its best sequences leave out.
        """
        c, d, h, s = lanes
        by_suit = self._suit_sequences
        melds = (*groups, *by_suit[0][c], *by_suit[1][d], *by_suit[2][h], *by_suit[3][s])
        if len(melds) > 1:
            melds = tuple(sorted(melds))
        dc, dd, dh, ds = self._suit_dead_cards
        table = self._lane_deadwood
        cards = dc[c] | dd[d] | dh[h] | ds[s]
        return _new(Arrangement, (melds, cards, table[c] + table[d] + table[h] + table[s]))  # (melds, cards, points)

    def _arrange_grouped(self, mask: int, group_ranks: int) -> Arrangement:
        if group_ranks.bit_count() > self.MAX_ENUMERATED_GROUP_RANKS:
            return self._by_ranks(mask)
        return self._arrange_enumerated(mask, group_ranks)

    def _arrange_enumerated(self, mask: int, group_ranks: int) -> Arrangement:
        """Try every choice of groups over the ranks that have three or four cards.

        Choices are tried rank by rank from the ace up, the last rank's varying fastest, and
        the first of least deadwood is kept.
        """
        if not group_ranks & (group_ranks - 1):
            lanes = (mask & LANE, mask >> 13 & LANE, mask >> 26 & LANE, mask >> 39)
            return self._arrange_one_group_rank(mask, lanes, group_ranks)
        options: list[tuple[int, ...]] = []
        while group_ranks:  # rank by rank, from the ace up
            low = group_ranks & -group_ranks
            group_ranks ^= low
            options.append(_group_options(mask, low))
        table = self._lane_deadwood
        best_value: int | None = None
        best_groups: tuple[int, ...] = ()
        for combo in itertools.product(*options):
            rest = mask ^ sum(combo)  # the groups of a combination are disjoint
            value = table[rest & LANE] + table[rest >> 13 & LANE] + table[rest >> 26 & LANE] + table[rest >> 39]
            if best_value is None or value < best_value:
                best_value, best_groups = value, tuple(g for g in combo if g)
        rest = mask ^ sum(best_groups)
        return self._with_lanes((rest & LANE, rest >> 13 & LANE, rest >> 26 & LANE, rest >> 39), best_groups)

    def _arrange_one_group_rank(self, mask: int, lanes: tuple[int, int, int, int], bit: int) -> Arrangement:
        """`_arrange_enumerated` for one rank of three or four cards (`bit` in its lane), its lanes given: the same
        choices in the same order (no group, the rank's cards, then each triple of four), worked out lane by lane."""
        table = self._lane_deadwood
        c, d, h, s = lanes
        kc, kd, kh, ks = table[c], table[d], table[h], table[s]  # each lane's least deadwood, keeping the rank's card
        gc, gd, gh, gs = c & ~bit, d & ~bit, h & ~bit, s & ~bit
        wc, wd, wh, ws = table[gc], table[gd], table[gh], table[gs]  # and without it
        best_value, rest, group = kc + kd + kh + ks, lanes, 0
        grouped, present = wc + wd + wh + ws, mask & bit * COLUMN
        if grouped < best_value:
            best_value, rest, group = grouped, (gc, gd, gh, gs), present
        if c & d & h & s & bit:  # four of a rank: each triple keeps one suit's card out, clubs to spades
            for value, triple_rest, kept in (
                (grouped - wc + kc, (c, gd, gh, gs), bit),
                (grouped - wd + kd, (gc, d, gh, gs), bit << 13),
                (grouped - wh + kh, (gc, gd, h, gs), bit << 26),
                (grouped - ws + ks, (gc, gd, gh, s), bit << 39),
            ):
                if value < best_value:
                    best_value, rest, group = value, triple_rest, present ^ kept
        return self._with_lanes(rest, (group,) if group else ())

    def _arrange_by_ranks(self, mask: int) -> Arrangement:
        """Exact arrangement of a holding of any size by dynamic programming over ranks.

        Walk the ranks from ace to king (and a high ace after the king where R9.1
        allows). The state is each suit's open sequence length, capped at 3; at each
        rank a present card either extends its suit's sequence or leaves it, and the
        cards of a rank that leave sequences form a group when there are three or four
        of them (grouping is free, so it is always taken), else they are deadwood.
        """
        lanes = [mask >> (13 * suit) & LANE for suit in range(4)]
        high_candidates = [suit for suit in range(4) if lanes[suit] & _ACE_HIGH_SEQUENCE_END == _ACE_HIGH_SEQUENCE_END]
        if self.ace is not Ace.HIGH_OR_LOW:
            high_candidates = []
        best: tuple[int, list[int], list[int]] | None = None
        for n_high in range(len(high_candidates) + 1):
            for high in itertools.combinations(high_candidates, n_high):
                cols = self._columns(lanes, high)
                cost, sequence_cols = self._rank_programme(cols)
                if best is None or cost < best[0]:
                    best = (cost, cols, sequence_cols)
        assert best is not None
        return self._from_columns(*best)

    def _columns(self, lanes: list[int], high: tuple[int, ...]) -> list[int]:
        """Return, per position (ranks, then a high ace), the 4-bit set of suits present."""
        cols = [sum(1 << suit for suit in range(4) if lanes[suit] >> rank & 1) for rank in range(N_RANKS)]
        high_bits = sum(1 << suit for suit in high)
        cols[0] &= ~high_bits
        if self.ace is Ace.HIGH_OR_LOW:
            cols.append(high_bits)
        return cols

    def _position_value(self, pos: int) -> int:
        return self._values[pos % N_RANKS]

    def _rank_programme(self, cols: list[int]) -> tuple[int, list[int]]:
        """Return the least deadwood over the positions and, per position, the suits in sequences."""
        # state: 2 bits per suit, the open sequence length capped at 3
        layers: list[dict[int, tuple[int, int, int]]] = []
        frontier: dict[int, int] = {0: 0}
        for pos, present in enumerate(cols):
            value = self._position_value(pos)
            nxt: dict[int, tuple[int, int, int]] = {}
            for state, cost in frontier.items():
                short = sum(1 << s for s in range(4) if (state >> (2 * s) & 3) in (1, 2))
                if short & ~present:
                    continue  # an open sequence of one or two cards must go on
                free = present & ~short
                extra = free
                while True:
                    in_sequences = short | extra
                    new_state = 0
                    for s in range(4):
                        if in_sequences >> s & 1:
                            new_state |= min((state >> (2 * s) & 3) + 1, 3) << (2 * s)
                    left = (present & ~in_sequences).bit_count()
                    new_cost = cost + (0 if left >= 3 else left * value)
                    old = nxt.get(new_state)
                    if old is None or new_cost < old[0]:
                        nxt[new_state] = (new_cost, state, in_sequences)
                    if not extra:
                        break
                    extra = (extra - 1) & free
            layers.append(nxt)
            frontier = {st: v[0] for st, v in nxt.items()}
        closed = [(cost, st) for st, cost in frontier.items() if all((st >> (2 * s) & 3) in (0, 3) for s in range(4))]
        cost, state = min(closed)
        sequence_cols = [0] * len(cols)
        for pos in range(len(cols) - 1, -1, -1):
            _, prev, in_sequences = layers[pos][state]
            sequence_cols[pos] = in_sequences
            state = prev
        return cost, sequence_cols

    def _from_columns(self, cost: int, cols: list[int], sequence_cols: list[int]) -> Arrangement:
        """Turn the programme's per-position choices into melds and deadwood."""
        melds, dead = [], 0
        for pos, present in enumerate(cols):
            left = present & ~sequence_cols[pos]
            rank = pos % N_RANKS
            cards = sum(1 << (13 * s + rank) for s in range(4) if left >> s & 1)
            if left.bit_count() >= 3:
                melds.append(cards)
            else:
                dead |= cards
        for suit in range(4):
            sequence = 0
            for pos in range(len(cols) + 1):
                if pos < len(cols) and sequence_cols[pos] >> suit & 1:
                    sequence |= 1 << (13 * suit + pos % N_RANKS)
                elif sequence:
                    melds.append(sequence)
                    sequence = 0
        assert points(dead, ace_value=self.ace_value) == cost
        return Arrangement(tuple(sorted(melds)), dead, cost)

    def clear_cache(self) -> None:
        """Forget the memoised large-holding arrangements."""
        self._by_ranks.cache_clear()


@cache
def _arranger(ace: Ace, ace_value: int) -> Arranger:
    return Arranger(ace, ace_value)


def arranger(rules: Rules | None = None) -> Arranger:
    """Return the shared `Arranger` for the rules' ace setting and ace value (basic rules by default)."""
    rules = rules or _BASIC
    return _arranger(rules.ace, rules.ace_value)


_BASIC = Rules()


def min_deadwood(cards: CardsLike, *, rules: Rules | None = None) -> int:
    """Return the least deadwood points of a holding of 1 to 52 cards (R5, R8.2, R9).

    `cards` is a string of codes (``"AS 2S 3S KH"``), an iterable of codes or of card
    ints. `rules` gives the ace setting and value (basic rummy by default).

    >>> min_deadwood("AS 2S 3S KH")
    10
    >>> min_deadwood("QS KS AS", rules=Rules.preset("ace_high"))
    0
    """
    return arranger(rules).deadwood(parse_cards(cards))


def best_arrangement(cards: CardsLike, *, rules: Rules | None = None) -> Arrangement:
    """Return an arrangement of the holding into melds with the least deadwood (R5, R8.2, R9).

    >>> arrangement = best_arrangement("7H 7D 7C 8H 9H")
    >>> arrangement.deadwood, [meld_text(m) for m in arrangement.melds]
    (14, ['7H 8H 9H'])
    """
    return arranger(rules).arrange(parse_cards(cards))
