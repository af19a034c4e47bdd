"""A seat's turn in the compiled engine, step by step, and the score of a hand that ended.

`policy_turn` plays one turn of a compiled policy (R4): `drawn_step` (R4.1, R10),
`played_step` (R4.2, R5, R6, R7) and `discarded_step` (R4.3, R4.5, R7.1), each checking
the move against the rules core (`rummysim.core`) before making it. The steps are apart so
that expert's search (`rummysim.compiled.expert`) can force one move and let the policies
play on. `score_hand` scores a hand that ended (R8, R12.3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummysim.compiled.arrange import Lookups, points
from rummysim.compiled.bits import derive, kernel, popcount, shuffle
from rummysim.compiled.layout import (
    ACE,
    CAUTIOUS,
    GOING_OUT,
    LAY_OFF,
    OUT_BY_BLOCK,
    OUT_BY_DISCARD,
    OUT_BY_LAY_OFF,
    OUT_BY_MELD,
    RUMMY_HUNTER,
    RUMMY_MULTIPLIER,
    SHREWD,
    STALL_AFTER_REBUILDS,
    STOCK_OUT,
    TAKE_DISCARD,
    UNIFORM,
)
from rummysim.compiled.policies import (
    cautious_discard,
    greedy_discard,
    greedy_draw,
    hunter_plays,
    plan_plays,
    uniform_discard,
    uniform_draw,
    uniform_plays,
)
from rummysim.compiled.state import DRAWN, MELDS, PILE, REBUILDS, SEEN, STOCK, TAKEN, Hand, apply_play
from rummysim.core import (
    block_points,
    block_winner,
    blocked,
    is_meld,
    keeps_taken,
    leaves_legal_holding,
    may_discard,
    may_lay_off,
    may_rebuild,
    may_take_discard,
    out_points,
)

STALLED, BLOCKED = -1, -2
"""What `policy_turn` returns when the hand stalls (R10.2) or is blocked (R12.3)."""


@kernel()
def rebuild_stock(rules: np.ndarray, h: Hand, key: np.uint64) -> bool:
    """Shuffle the discard pile but its top card into a new stock; False if the hand stalls (R10.1, R10.2)."""
    if not may_rebuild(h.counts[PILE], h.counts[REBUILDS], rules[STALL_AFTER_REBUILDS]):
        return False
    m = h.counts[PILE] - 1
    for i in range(m):  # a loop: slices would copy (no allocations here)
        h.stock[i] = h.pile[i]
    shuffle(derive(key, 1 + h.counts[REBUILDS]), h.stock, m)
    h.counts[STOCK] = m
    h.pile[0] = h.pile[m]
    h.counts[PILE] = 1
    h.counts[REBUILDS] += 1
    return True


@kernel(inline=True)
def draw_card(rules: np.ndarray, h: Hand, seat: int, take: bool, key: np.uint64) -> int:
    """Draw for a seat: the top discard if `take` (R4.1), else the stock's top, rebuilding it when empty (R10.1).

    Set ``TAKEN`` to the card taken (-1 if none); return the card, or -1 if the hand stalls (R10.2).
    """
    h.counts[TAKEN] = -1
    if take and h.counts[PILE]:
        h.counts[PILE] -= 1
        card = h.pile[h.counts[PILE]]
        h.counts[TAKEN] = card
    else:
        if not h.counts[STOCK] and (rules[STOCK_OUT] == 1 or not rebuild_stock(rules, h, key)):
            return -1  # R12.3 ends the hand before an empty stock is drawn from; R10.2 stalls it
        h.counts[STOCK] -= 1
        card = h.stock[h.counts[STOCK]]
    h.holdings[seat] |= 1 << card
    return card


@njit(cache=True)
def check_cards(h: Hand) -> None:
    """Raise unless each of the 52 cards is in exactly one place: a holding, a pile or a meld (R1.2)."""
    seen = 0
    total = 0
    for seat in range(h.seats):
        seen |= h.holdings[seat]
        total += popcount(h.holdings[seat])
    for i in range(h.counts[MELDS]):
        seen |= h.table[i]
        total += popcount(h.table[i])
    for i in range(h.counts[PILE]):
        seen |= 1 << h.pile[i]
    for i in range(h.counts[STOCK]):
        seen |= 1 << h.stock[i]
    total += h.counts[PILE] + h.counts[STOCK]
    if seen != (1 << 52) - 1 or total != 52:
        raise AssertionError("a card is missing or in two places (R1.2)")


@kernel()
def _check_plays(rules: np.ndarray, h: Hand, seat: int, n: int) -> None:
    """Raise unless a compiled bot's plays in ``h.plays[:n]`` are legal now, by the rules core (R4.2-R4.7, R5-R7, R12).

    The reference engine checks a Python bot's answers the same way (`rummysim.table.apply_plays`).
    """
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    melded, after_meld = h.has_melded[seat] == 1, rules[LAY_OFF] == 1
    n_melds = h.counts[MELDS]
    for i in range(n):
        kind, cards, meld = h.plays[i, 0], h.plays[i, 1], h.plays[i, 2]
        if kind == 0:
            if cards & holding != cards or not is_meld(cards, rules[ACE] == 1):
                raise AssertionError("a compiled bot melded cards that are not a meld in its holding (R4.2, R5)")
            holding ^= cards
            n_melds += 1
            melded = True
        else:
            if not 0 <= cards < 52 or not holding >> cards & 1 or not 0 <= meld < n_melds:
                raise AssertionError("a compiled bot laid off a card it does not hold or on no meld (R6.1)")
            if not may_lay_off(melded, after_meld):
                raise AssertionError("a compiled bot laid off before melding under lay_off: after_meld (R12.1)")
            holding ^= 1 << cards
    if not leaves_legal_holding(holding, n, rules[GOING_OUT] == 1, taken):
        raise AssertionError("a compiled bot's plays leave a holding the rules forbid (R4.7, R7.2)")
    if keeps_taken(holding, taken, rules[TAKE_DISCARD] == 1):
        raise AssertionError("a compiled bot kept the card it took from the discard pile (R12.2)")


@kernel()
def drawn_step(rules: np.ndarray, h: Hand, seat: int, takes: bool, key: np.uint64) -> int:
    """Draw for a seat (the top discard if `takes`, R4.1); return the card, or -1 if the hand stalls (R10.2)."""
    if takes and not may_take_discard(h.counts[PILE]):
        raise AssertionError("a compiled bot took from an empty discard pile (R4.6)")
    card = draw_card(rules, h, seat, takes, key)
    if card < 0:
        return STALLED
    if h.counts[TAKEN] >= 0:  # taken from the discard pile: public (cautious' memory)
        h.known[seat] |= 1 << card
    h.counts[DRAWN] = card
    h.sizes[seat] += 1
    return card


@kernel()
def played_step(tb: Lookups, rules: np.ndarray, h: Hand, seat: int, n: int) -> int:
    """Check and make the `n` plays in ``h.plays`` (R4.2, R5, R6); return how the seat went out, or 0."""
    _check_plays(rules, h, seat, n)
    if n:
        for i in range(n):
            apply_play(tb, h, seat, h.plays[i, 0], h.plays[i, 1], h.plays[i, 2])
        h.has_melded[seat] = 1
        h.sizes[seat] = popcount(h.holdings[seat])
        if not h.holdings[seat]:
            return OUT_BY_MELD if h.plays[n - 1, 0] == 0 else OUT_BY_LAY_OFF
    return 0


@kernel()
def discarded_step(h: Hand, seat: int, card: int) -> int:
    """Check and make a seat's discard (R4.3, R4.5); return `OUT_BY_DISCARD` if it went out so (R7.1), else 0."""
    if not may_discard(card, h.holdings[seat], h.counts[TAKEN]):
        raise AssertionError("a compiled bot discarded a card it may not (R4.3, R4.5)")
    h.holdings[seat] ^= 1 << card  # R4.3
    h.sizes[seat] -= 1
    h.pile[h.counts[PILE]] = card
    h.counts[PILE] += 1
    h.counts[SEEN] |= 1 << card
    h.known[seat] &= ~(1 << card)
    return 0 if h.holdings[seat] else OUT_BY_DISCARD


@kernel()
def policy_plays(tb: Lookups, rules: np.ndarray, h: Hand, seat: int, policy: int, params: np.ndarray) -> int:
    """A compiled policy's melds and lay-offs into ``h.plays``; return how many."""
    if policy == UNIFORM:
        return uniform_plays(tb, rules, h, seat)
    if policy in (RUMMY_HUNTER, SHREWD):
        return hunter_plays(tb, rules, h, seat, params)
    return plan_plays(tb, rules, h, h.holdings[seat], h.counts[TAKEN], h.has_melded[seat] == 1)[0]


@kernel()
def policy_discard(tb: Lookups, h: Hand, seat: int, policy: int, params: np.ndarray) -> int:
    """A compiled policy's discard."""
    if policy == UNIFORM:
        return uniform_discard(h, seat)
    if policy in (CAUTIOUS, SHREWD):
        return cautious_discard(tb, h, seat, params)
    return greedy_discard(tb, h, seat)


@kernel()
def policy_turn(
    tb: Lookups, rules: np.ndarray, h: Hand, seat: int, policy: int, params: np.ndarray, key: np.uint64
) -> int:
    """Play one turn (R4); return how the seat went out (`WENT_OUT_BY` code), 0, `STALLED` or `BLOCKED`.

    Every move of the compiled bot is checked against the rules core before it is made.
    """
    if blocked(h.counts[STOCK], rules[STOCK_OUT] == 1):  # R12.3, at the start of every turn
        return BLOCKED
    h.counts[DRAWN] = h.counts[TAKEN] = -1
    takes = uniform_draw(tb, rules, h, seat) if policy == UNIFORM else greedy_draw(tb, rules, h, seat)
    if drawn_step(rules, h, seat, takes, key) < 0:
        return STALLED
    out = played_step(tb, rules, h, seat, policy_plays(tb, rules, h, seat, policy, params))
    if out:
        return out
    return discarded_step(h, seat, policy_discard(tb, h, seat, policy, params))


@kernel()
def score_hand(tb: Lookups, rules: np.ndarray, h: Hand, winner: int, how: int, rummy: bool) -> tuple[int, int]:
    """Score a hand that ended (R8, R12.3): return the winner (-1: none) and its points; fill ``h.values``."""
    for seat in range(h.seats):
        h.values[seat] = points(tb, h.holdings[seat])
    values = h.values[: h.seats]
    if how == OUT_BY_BLOCK:  # the lowest hand value wins the differences; a tie, nothing (R12.3)
        winner = block_winner(values)
        return winner, block_points(values, winner) if winner >= 0 else 0
    return winner, out_points(values, rummy, rules[RUMMY_MULTIPLIER]) if winner >= 0 else 0
