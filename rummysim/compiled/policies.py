"""The built-in bots as compiled policies: twins of `rummysim.strategies` greedy, rummy_hunter, cautious, uniform.

Each function is its reference method's twin, named alike, with the same order of
choices and ties, so a seat plays the same moves in either engine. A policy reads the
seat's own holding and the public state only (what its `PlayerView` would show).
`params` holds a seat's parameters: ``patience, danger`` (rummy_hunter) and
``caution, blind, hope`` (cautious).
"""

from __future__ import annotations

import numpy as np

from rummysim.compiled.arrange import Lookups, arrange, deadwood, deadwood_cards, has_meld, in_meld
from rummysim.compiled.bits import below, draw, kernel, lowest, popcount
from rummysim.compiled.layout import (
    BLIND,
    CAUTION,
    DANGER,
    GOING_OUT,
    HOPE,
    LAY_OFF,
    PATIENCE,
    STOCK_OUT,
    TAKE_DISCARD,
)
from rummysim.compiled.state import (
    SEEN,
    STOCK,
    TAKEN,
    TURN,
    Hand,
    copy_table,
    lay_off_fits,
    pile_mask,
    table_fits,
    top_discard,
)
from rummysim.core import leaves_legal_holding, may_lay_off

FULL_DECK = (1 << 52) - 1


# -- greedy (rummysim.strategies.greedy) ------------------------------------------------------
@kernel(inline=True)
def _lowers(tb: Lookups, h: Hand, holding: int, top: int) -> bool:
    """`Arranger.lowers`: whether `top` lowers the holding's least deadwood."""
    with_top = holding | 1 << top
    if not in_meld(tb, top, with_top):  # then it only adds its points
        return False
    return deadwood(tb, with_top, h.scratch) < deadwood(tb, holding, h.scratch)


@kernel()
def greedy_draw(tb: Lookups, rules: np.ndarray, h: Hand, seat: int) -> bool:
    """`greedy.takes_discard`: True to take the top discard (it lays off or lowers the least deadwood).

    A lay-off counts only where the seat may lay off (R12.1); under ``must_use`` it takes the
    card only if its plays would play it (`greedy.plays_taken`, R12.2).
    """
    top = top_discard(h)
    if top < 0:
        return False
    holding, melded = h.holdings[seat], h.has_melded[seat] == 1
    lays_off = may_lay_off(melded, rules[LAY_OFF] == 1)
    if not ((lays_off and table_fits(h) >> top & 1) or _lowers(tb, h, holding, top)):
        return False
    if rules[TAKE_DISCARD] == 0:
        return True
    left = plan_plays(tb, rules, h, holding | 1 << top, top, melded)[1]
    return not left >> top & 1


@kernel()
def _melds_and_lay_offs(tb: Lookups, h: Hand, holding: int, fits: int, lays_off: bool) -> tuple[int, int]:
    """`greedy._melds_and_lay_offs` into ``h.plays``: the best arrangement's melds, then every lay-off.

    Without `lays_off` (R12.1) it lays off only after a meld of its own.
    """
    table_fits = fits if lays_off else 0
    if not table_fits & holding and not has_meld(tb, holding):
        return 0, holding  # no meld within it: the arrangement would have none (Arranger.has_meld)
    dead, _, n_melds = arrange(tb, holding, h.scratch)
    if not n_melds and not table_fits & holding:
        return 0, holding
    n_ext = copy_table(h)
    for i in range(n_melds):
        meld = h.scratch[i]
        h.plays[i, 0], h.plays[i, 1], h.plays[i, 2] = 0, meld, 0
        h.ext[n_ext], h.ext_fits[n_ext] = meld, lay_off_fits(tb, meld)
        n_ext += 1
    n = n_melds
    left = dead
    changed = True
    while changed and left:  # tactics.lay_off_all: repeat so chains fit too (R6.1, R6.3)
        changed = False
        for i in range(n_ext):
            fit = h.ext_fits[i] & left
            if fit:
                card = lowest(fit)
                h.plays[n, 0], h.plays[n, 1], h.plays[n, 2] = 1, card, i
                n += 1
                left ^= 1 << card
                h.ext[i] |= 1 << card
                h.ext_fits[i] = lay_off_fits(tb, h.ext[i])
                changed = True
    return n, left


@kernel()
def plan_plays(tb: Lookups, rules: np.ndarray, h: Hand, holding: int, taken: int, melded: bool) -> tuple[int, int]:
    """`greedy.plan_plays` into ``h.plays``: return the number of plays and the holding they leave."""
    discard_only = rules[GOING_OUT] == 1
    lays_off = may_lay_off(melded, rules[LAY_OFF] == 1)
    fits = table_fits(h)
    n, left = _melds_and_lay_offs(tb, h, holding, fits, lays_off)
    if not left and n and not leaves_legal_holding(0, 1, discard_only, taken):
        rest = holding
        while rest:  # hold back one card, the highest by (points, card) first (greedy's order)
            card = _highest_by_points(tb, rest)
            rest ^= 1 << card
            if card != taken:
                n_held, held_left = _melds_and_lay_offs(tb, h, holding ^ 1 << card, fits, lays_off)
                if not held_left:
                    return n_held, 1 << card
        n, left = _melds_and_lay_offs(tb, h, holding, fits, lays_off)
    while n and not leaves_legal_holding(left, n, discard_only, taken):
        n -= 1
        left |= h.plays[n, 1] if h.plays[n, 0] == 0 else 1 << h.plays[n, 1]
    return n, left


@kernel(inline=True)
def _highest_by_points(tb: Lookups, mask: int) -> int:
    """The card of a mask with the most points, then the highest card number (greedy's order to hold one back)."""
    best, best_points = -1, -1
    while mask:
        card = lowest(mask)
        mask &= mask - 1
        if tb.values[card % 13] >= best_points:  # cards upward: a later card wins a tie
            best, best_points = card, tb.values[card % 13]
    return best


@kernel(inline=True)
def highest_card(tb: Lookups, mask: int) -> int:
    """`rummysim.cards.highest_card`: most points, then higher rank, then suit S H D C (R8.2)."""
    span = (mask | mask >> 13 | mask >> 26 | mask >> 39) & 0x1FFF
    for rank in tb.rank_order:
        if span >> rank & 1:
            for suit in range(3, -1, -1):
                if mask >> (13 * suit + rank) & 1:
                    return 13 * suit + rank
    return -1


@kernel()
def greedy_discard(tb: Lookups, h: Hand, seat: int) -> int:
    """`greedy.choose_discard`: the highest deadwood card other than the one taken (R4.3, R4.5)."""
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    allowed = holding & ~(1 << taken) if taken >= 0 else holding
    dead = deadwood_cards(tb, holding, h.scratch) & allowed
    if dead:
        return highest_card(tb, dead)
    best, best_key, best_points = -1, 0, 0
    rest = allowed
    while rest:
        card = lowest(rest)
        rest &= rest - 1
        value, card_points = deadwood(tb, holding ^ 1 << card, h.scratch), tb.values[card % 13]
        # the least (deadwood, -points, -card): iterating cards upward, a later card wins a tie on both
        if best < 0 or value < best_key or (value == best_key and card_points >= best_points):
            best, best_key, best_points = card, value, card_points
    return best


# -- rummy_hunter (rummysim.strategies.rummy_hunter) --------------------------------------------
@kernel()
def hunter_plays(tb: Lookups, rules: np.ndarray, h: Hand, seat: int, params: np.ndarray) -> int:
    """`rummy_hunter.hunting_plays`: greedy's plays, or none while hunting unless out this turn (R8.3).

    It does not hunt with a card taken under ``must_use`` (R12.2), nor under block rummy once the
    stock holds fewer cards than there are players (R12.3).
    """
    melded, taken = h.has_melded[seat] == 1, h.counts[TAKEN]
    n, left = plan_plays(tb, rules, h, h.holdings[seat], taken, melded)
    if melded or popcount(left) <= 1:
        return n
    n_players = h.seats
    if (rules[TAKE_DISCARD] == 1 and taken >= 0) or (rules[STOCK_OUT] == 1 and h.counts[STOCK] < n_players):
        return n
    others = 1 << 60
    for other in range(n_players):
        if other != seat:
            others = min(others, h.sizes[other])
    if h.counts[TURN] // n_players < params[PATIENCE] and others > params[DANGER]:
        return 0
    return n


# -- cautious (rummysim.strategies.cautious) -----------------------------------------------------
@kernel(inline=True)
def unseen(h: Hand, seat: int) -> int:
    """`Cautious.unseen`: cards in no known holding, not on the table nor in the piles."""
    mask = FULL_DECK & ~h.holdings[seat] & ~h.counts[SEEN] & ~pile_mask(h)
    for other in range(h.seats):
        mask &= ~h.known[other]
    return mask


@kernel(inline=True)
def potential(tb: Lookups, card: int, holding: int, hidden: int) -> int:
    """`cautious.potential`: three-card melds of `card` with one holding card and one unseen card."""
    count = 0
    for i in range(tb.with_start[card], tb.with_start[card + 1]):
        others = tb.with_melds[i] & ~(1 << card)
        if popcount(others) == 2 and others & holding and others & hidden:
            count += 1
    return count


@kernel(inline=True)
def danger(tb: Lookups, h: Hand, seat: int, card: int, params: np.ndarray, hidden: int, fits: int) -> float:
    """`Cautious.danger`: the expected melds `card` would give the next player (1 if it lays off)."""
    if fits >> card & 1:
        return 1.0
    nxt = (seat + 1) % h.seats
    known = h.known[nxt]
    n_unseen = popcount(hidden)
    n_hidden = h.sizes[nxt] - popcount(known)
    if n_unseen < 2:
        return 0.0
    one = n_hidden / n_unseen
    two = one * (n_hidden - 1) / (n_unseen - 1)
    expected = 0.0
    for i in range(tb.with_start[card], tb.with_start[card + 1]):
        others = tb.with_melds[i] & ~(1 << card)
        if popcount(others) != 2 or others & ~(hidden | known):
            continue
        from_known = popcount(others & known)
        expected += 1.0 if from_known == 2 else one if from_known == 1 else two * params[BLIND]
    return min(expected, 1.0)


@kernel(inline=True)
def keep_score(
    tb: Lookups, h: Hand, seat: int, card: int, holding: int, params: np.ndarray, hidden: int, fits: int
) -> float:
    """`Cautious.keep_score`: how much discarding `card` is worth, its points less its hope and its danger."""
    return (
        tb.values[card % 13]
        - params[HOPE] * potential(tb, card, holding, hidden)
        - params[CAUTION] * danger(tb, h, seat, card, params, hidden, fits)
    )


@kernel()
def cautious_discard(tb: Lookups, h: Hand, seat: int, params: np.ndarray) -> int:
    """`Cautious.discard`: the deadwood card of highest points less hope and danger, else greedy's."""
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    allowed = holding & ~(1 << taken) if taken >= 0 else holding
    dead = deadwood_cards(tb, holding, h.scratch) & allowed
    if not dead:
        return greedy_discard(tb, h, seat)
    hidden, fits = unseen(h, seat), table_fits(h)
    best, best_score = -1, 0.0
    while dead:
        card = lowest(dead)
        dead &= dead - 1
        score = keep_score(tb, h, seat, card, holding, params, hidden, fits)
        if best < 0 or score >= best_score:  # the highest (score, card): a later card wins a tie
            best, best_score = card, score
    return best


@kernel()
def hopeful_discard(tb: Lookups, h: Hand, seat: int, hope: float, hidden: int) -> int:
    """`cautious.hopeful_discard`: the deadwood card of highest points less `hope` x its potential, else greedy's."""
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    allowed = holding & ~(1 << taken) if taken >= 0 else holding
    dead = deadwood_cards(tb, holding, h.scratch) & allowed
    if not dead:
        return greedy_discard(tb, h, seat)
    best, best_score = -1, 0.0
    while dead:
        card = lowest(dead)
        dead &= dead - 1
        score = tb.values[card % 13] - hope * potential(tb, card, holding, hidden)
        if best < 0 or score >= best_score:  # the highest (score, card): a later card wins a tie
            best, best_score = card, score
    return best


# -- uniform (rummysim.strategies.uniform) ----------------------------------------------------
@kernel(inline=True)
def pick(h: Hand, seat: int, n: int) -> int:
    """`Uniform._pick`: the next number below `n` of the seat's stream."""
    u = draw(h.keys[seat], h.draws[seat])
    h.draws[seat] += 1
    return below(u, n)


@kernel()
def _uniform_options(
    tb: Lookups, rules: np.ndarray, h: Hand, holding: int, n_ext: int, melded: bool, pending: int, taken: int
) -> int:
    """`Uniform._options` into ``h.options``: every legal single play, melds then lay-offs; return how many.

    With `pending` >= 0 only the plays of that card (R12.2). The table is the planner's ``ext``.
    """
    discard_only = rules[GOING_OUT] == 1
    options = h.options
    k = 0
    for i in range(tb.n_melds):
        meld = tb.melds[i]
        uses = meld & holding == meld and (pending < 0 or meld >> pending & 1)
        if uses and leaves_legal_holding(holding ^ meld, 1, discard_only, taken):
            options[k, 0], options[k, 1], options[k, 2] = 0, meld, 0
            k += 1
    if not may_lay_off(melded, rules[LAY_OFF] == 1):
        return k
    rest = holding
    while rest:
        card = lowest(rest)
        rest &= rest - 1
        if pending >= 0 and card != pending:
            continue
        for i in range(n_ext):
            if h.ext_fits[i] >> card & 1 and leaves_legal_holding(holding ^ 1 << card, 1, discard_only, taken):
                options[k, 0], options[k, 1], options[k, 2] = 1, card, i
                k += 1
    return k


@kernel()
def uniform_draw(tb: Lookups, rules: np.ndarray, h: Hand, seat: int) -> bool:
    """`Uniform.draw`: a random pile among those allowed (R4.6, R12.2); True for the discard pile."""
    top = top_discard(h)
    if top < 0:
        return False
    if rules[TAKE_DISCARD] == 1:
        n_ext = copy_table(h)
        if not _uniform_options(tb, rules, h, h.holdings[seat] | 1 << top, n_ext, h.has_melded[seat] == 1, top, top):
            return False
    return pick(h, seat, 2) == 1


@kernel()
def uniform_plays(tb: Lookups, rules: np.ndarray, h: Hand, seat: int) -> int:
    """`Uniform.play`: pick among "stop" and every legal meld and lay-off, again and again.

    While a card taken under ``must_use`` is held, only among its plays, with no "stop" (R12.2).
    """
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    melded = h.has_melded[seat] == 1
    pending = taken if rules[TAKE_DISCARD] == 1 else -1
    n_ext = copy_table(h)
    options = h.options
    n = 0
    while True:
        k = _uniform_options(tb, rules, h, holding, n_ext, melded, pending, taken)
        if pending < 0:
            choice = pick(h, seat, k + 1)
            if choice == k:
                return n
        else:
            choice = pick(h, seat, k)
        h.plays[n, 0], h.plays[n, 1], h.plays[n, 2] = options[choice, 0], options[choice, 1], options[choice, 2]
        n += 1
        if options[choice, 0] == 0:
            meld = options[choice, 1]
            holding ^= meld
            h.ext[n_ext], h.ext_fits[n_ext] = meld, lay_off_fits(tb, meld)
            n_ext += 1
            melded = True
        else:
            i = options[choice, 2]
            holding ^= 1 << options[choice, 1]
            h.ext[i] |= 1 << options[choice, 1]
            h.ext_fits[i] = lay_off_fits(tb, h.ext[i])
        if pending >= 0 and not holding >> pending & 1:
            pending = -1
        if not holding:
            return n


@kernel(inline=True)
def uniform_discard(h: Hand, seat: int) -> int:
    """`Uniform.discard`: a random card of the holding but the one taken (R4.5)."""
    holding, taken = h.holdings[seat], h.counts[TAKEN]
    allowed = holding & ~(1 << taken) if taken >= 0 else holding
    target = pick(h, seat, popcount(allowed))
    for _ in range(target):
        allowed &= allowed - 1
    return lowest(allowed)
