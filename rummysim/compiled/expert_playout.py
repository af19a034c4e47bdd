"""expert's deals and playouts, compiled: a seat's unseen cards dealt, and a candidate played to the hand's end.

`determinize` deals the cards a seat has not seen, consistently with its view; `attempt`
plays one candidate of a decision on such a deal, then the rest of the seat's turn and the
hand on with the compiled engine's own turn (`rummysim.compiled.turn`), every seat on its
policy, and returns the seat's reward: the points it wins, less the points another seat
wins (R8, R12.3), or half the difference of the holdings when the playout stops at its
depth. `rummysim.compiled.expert` races the candidates on these; the plain Python twin of
both is `rummysim.strategies.expert_twin` (the same names).
"""

from __future__ import annotations

import numpy as np

from rummysim.compiled.arrange import Lookups
from rummysim.compiled.bits import derive, kernel, lowest, popcount, shuffle
from rummysim.compiled.layout import OUT_BY_BLOCK, SHREWD, STALL_AFTER_TURNS
from rummysim.compiled.policies import plan_plays, potential
from rummysim.compiled.state import DRAWN, MELDS, PILE, STOCK, TAKEN, TURN, Hand, lay_off_fits, pile_mask
from rummysim.compiled.turn import (
    BLOCKED,
    STALLED,
    discarded_step,
    drawn_step,
    played_step,
    policy_discard,
    policy_plays,
    policy_turn,
    score_hand,
)
from rummysim.strategies.expert import DRAW, KEEP_HOPE, PLAY, RESTACK

FULL_DECK = (1 << 52) - 1


@kernel()
def copy_hand(src: Hand, dst: Hand) -> None:
    """Copy the state of a hand (not its work space) from `src` to `dst`."""
    dst.seats = src.seats
    for s in range(src.seats):
        dst.holdings[s], dst.sizes[s] = src.holdings[s], src.sizes[s]
        dst.has_melded[s], dst.known[s] = src.has_melded[s], src.known[s]
    for i in range(src.counts[PILE]):
        dst.pile[i] = src.pile[i]
    for i in range(src.counts[STOCK]):
        dst.stock[i] = src.stock[i]
    for i in range(src.counts[MELDS]):
        dst.table[i], dst.fits[i] = src.table[i], src.fits[i]
    for i in range(8):
        dst.counts[i] = src.counts[i]


@kernel()
def kept(tb: Lookups, deck: np.ndarray, at: int, k: int, extra: int, fixed: int, pool: int) -> int:
    """Keep `k` of the ``k + extra`` cards at ``deck[at:]`` as a player building melds would; return them with `fixed`.

    `extra` times, the card of most points less `KEEP_HOPE` times its potential (the
    three-card melds it makes with another card held, `fixed` included, and one of `pool`
    not held; a later card wins a tie) goes to the end of the cards still dealt: the kept
    cards end first, the dropped after them.
    """
    n = k + extra
    while n > k:
        holding = fixed
        for i in range(at, at + n):
            holding |= 1 << deck[i]
        worst, worst_score = at, 0.0
        for i in range(at, at + n):
            card = deck[i]
            score = tb.values[card % 13] - KEEP_HOPE * potential(tb, card, holding, pool & ~holding)
            if i == at or score >= worst_score:
                worst, worst_score = i, score
        n -= 1
        deck[worst], deck[at + n] = deck[at + n], deck[worst]
    holding = fixed
    for i in range(at, at + k):
        holding |= 1 << deck[i]
    return holding


@kernel()
def determinize(tb: Lookups, v: Hand, seat: int, w: Hand, key: np.uint64, keep: int) -> None:
    """Deal into `w` the cards `seat` has not seen, at random from `key`, consistently with its view `v`.

    Each other seat keeps its size and the cards it took from the discard pile and has not
    played; the rest of the unseen cards is dealt at random, the stock last. With `keep`
    above 0, each other seat is dealt up to `keep` more cards than it hides, no more than
    the turns each seat has had, and keeps those a player building melds would (`kept`):
    once a card is dropped, the rest, the dropped cards among them, is shuffled again
    (``derive(key, RESTACK)``) to make the stock.
    """
    copy_hand(v, w)
    hidden = FULL_DECK & ~v.holdings[seat] & ~pile_mask(v)
    for i in range(v.counts[MELDS]):
        hidden &= ~v.table[i]
        w.fits[i] = lay_off_fits(tb, v.table[i])
    for s in range(v.seats):
        hidden &= ~v.known[s]
    pool = hidden | v.holdings[seat]  # the cards another seat may hope to draw: all it has not seen
    n = 0
    while hidden:
        w.deck[n] = lowest(hidden)
        hidden &= hidden - 1
        n += 1
    shuffle(key, w.deck, n)
    at, dropped = 0, 0
    for s in range(v.seats):
        if s != seat:
            k = v.sizes[s] - popcount(v.known[s])
            extra = min(keep, v.counts[TURN] // v.seats, n - at - k) if k > 0 else 0
            w.holdings[s] = kept(tb, w.deck, at, k, extra, v.known[s], pool)
            at += k
            dropped += extra
    if n - at != v.counts[STOCK]:
        raise AssertionError("a view's card counts do not add up to 52 (R1.2)")
    if dropped:
        shuffle(derive(key, RESTACK), w.deck[at:], n - at)
    for i in range(n - at):
        w.stock[i] = w.deck[at + i]


@kernel()
def reward(tb: Lookups, rules: np.ndarray, w: Hand, me: int, winner: int, how: int, rummy: bool) -> float:
    """My reward when the hand ends: the points I win, or less the points another seat wins (R8, R12.3)."""
    winner, gained = score_hand(tb, rules, w, winner, how, rummy)
    if winner < 0:
        return 0.0
    return float(gained if winner == me else -gained)


@kernel()
def cut_off(tb: Lookups, w: Hand, me: int) -> float:
    """The reward of a playout stopped at its depth: half the points between me and the least other holding."""
    least = -1
    for s in range(w.seats):
        held = 0
        mask = w.holdings[s]
        while mask:
            held += tb.values[lowest(mask) % 13]
            mask &= mask - 1
        w.values[s] = held
        if s != me and (least < 0 or held < least):
            least = held
    return (least - w.values[me]) / 2


@kernel()
def play_on(
    tb: Lookups, rules: np.ndarray, w: Hand, seat: int, me: int, policies: np.ndarray, params: np.ndarray,
    depth: int, key: np.uint64,
) -> float:  # fmt: skip
    """Play the hand on from `seat`'s turn with each seat's policy (the engine's `policy_turn`); return my reward."""
    for _ in range(depth):
        if w.counts[TURN] >= rules[STALL_AFTER_TURNS]:
            return 0.0
        melded_before = w.has_melded[seat] == 1
        out = policy_turn(tb, rules, w, seat, policies[seat], params[seat], key)
        if out == STALLED:
            return 0.0
        if out == BLOCKED:
            return reward(tb, rules, w, me, -1, OUT_BY_BLOCK, False)
        w.counts[TURN] += 1
        if out:
            return reward(tb, rules, w, me, seat, out, not melded_before)
        seat = (seat + 1) % w.seats
    return cut_off(tb, w, me)


@kernel()
def end_turn(
    tb: Lookups, rules: np.ndarray, w: Hand, me: int, out: int, melded_before: bool, policies: np.ndarray,
    params: np.ndarray, depth: int, key: np.uint64,
) -> float:  # fmt: skip
    """After my move: my reward if it went out, else the hand played on from the next seat."""
    if out:
        return reward(tb, rules, w, me, me, out, not melded_before)
    w.counts[TURN] += 1
    return play_on(tb, rules, w, (me + 1) % w.seats, me, policies, params, depth, key)


@kernel()
def alternative_plays(tb: Lookups, rules: np.ndarray, w: Hand, me: int, params: np.ndarray) -> int:
    """The other plan than the default's: greedy's plays when the default hides its melds, else none."""
    n = policy_plays(tb, rules, w, me, SHREWD, params[me])
    if n:
        return 0
    return plan_plays(tb, rules, w, w.holdings[me], w.counts[TAKEN], w.has_melded[me] == 1)[0]


@kernel()
def attempt(
    tb: Lookups, rules: np.ndarray, w: Hand, kind: int, option: int, me: int, melded_before: bool,
    policies: np.ndarray, params: np.ndarray, depth: int, key: np.uint64,
) -> float:  # fmt: skip
    """Play candidate `option` of the decision on deal `w`, then the hand on; return my reward."""
    if kind == DRAW:
        w.counts[DRAWN] = w.counts[TAKEN] = -1
        if drawn_step(rules, w, me, option == 1, key) < 0:
            return 0.0
        kind = PLAY
        option = 0
    if kind == PLAY:
        n = policy_plays(tb, rules, w, me, SHREWD, params[me]) if option == 0 else 0
        if option == 1:
            n = alternative_plays(tb, rules, w, me, params)
        out = played_step(tb, rules, w, me, n)
        if out:
            return end_turn(tb, rules, w, me, out, melded_before, policies, params, depth, key)
        option = policy_discard(tb, w, me, SHREWD, params[me])
    out = discarded_step(w, me, option)
    return end_turn(tb, rules, w, me, out, melded_before, policies, params, depth, key)
