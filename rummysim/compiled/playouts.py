"""Compiled playouts for montecarlo: the twin of `rummysim.strategies.rollout.python_rewards`.

`rewards` judges a decision's candidates on many determinized positions in one call:
for each (position, candidate) it plays the candidate, then the hand on with the greedy
policy (`rummysim.compiled.policies`, the twins of the reference bots' functions),
exactly as `rummysim.strategies.rollout` does, the stock rebuilds shuffled from each
position's counter-based stream (R10.1). The search itself (determinizing, choosing)
stays in Python, in `rummysim.strategies.montecarlo`; tests/test_compiled_playouts.py
holds the two implementations to the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from rummysim.compiled.arrange import Lookups, points
from rummysim.compiled.bits import kernel, popcount
from rummysim.compiled.columns import tables_of
from rummysim.compiled.layout import RUMMY_MULTIPLIER, STOCK_OUT, settings_array
from rummysim.compiled.policies import greedy_discard, greedy_draw, hopeful_discard, plan_plays
from rummysim.compiled.state import (
    MELDS,
    PILE,
    REBUILDS,
    STOCK,
    TAKEN,
    Hand,
    apply_play,
    lay_off_fits,
    new_hand,
    pile_mask,
)
from rummysim.compiled.turn import draw_card
from rummysim.core import block_points, block_winner, blocked, out_points
from rummysim.dealing import deal
from rummysim.rules import Rules
from rummysim.strategies.rollout import DISCARD, DRAW, Decision, Position

FULL_DECK = (1 << 52) - 1


@kernel()
def _score(tb: Lookups, h: Hand, winner: int, me: int, rummy: bool, multiplier: int) -> float:
    """`rollout.score`: +points if I went out, -points if another seat did (R8)."""
    for seat in range(h.seats):
        h.values[seat] = points(tb, h.holdings[seat])
    won = out_points(h.values[: h.seats], rummy, multiplier)
    return float(won if winner == me else -won)


@kernel()
def _block_score(tb: Lookups, h: Hand, me: int) -> float:
    """`rollout.block_score`: the lowest hand value wins the differences (R12.3); 0 for a tie."""
    for seat in range(h.seats):
        h.values[seat] = points(tb, h.holdings[seat])
    values = h.values[: h.seats]
    winner = block_winner(values)
    if winner < 0:
        return 0.0
    won = block_points(values, winner)
    return float(won if winner == me else -won)


@kernel()
def _cut_off(tb: Lookups, h: Hand, me: int) -> float:
    """`rollout._cut_off`: how far ahead I am in points held, halved."""
    least = -1
    for seat in range(h.seats):
        if seat != me:
            held = points(tb, h.holdings[seat])
            if least < 0 or held < least:
                least = held
    return (least - points(tb, h.holdings[me])) / 2


@kernel()
def _finish_turn(tb: Lookups, rules: np.ndarray, h: Hand, seat: int, melded_before: bool, hope: float) -> int:
    """`rollout.finish_turn`: greedy's plays, then its discard (hopeful if `hope`); -1 if still in, else rummy."""
    n = plan_plays(tb, rules, h, h.holdings[seat], h.counts[TAKEN], melded_before)[0]
    if n:
        for i in range(n):
            apply_play(tb, h, seat, h.plays[i, 0], h.plays[i, 1], h.plays[i, 2])
        h.has_melded[seat] = 1
    holding = h.holdings[seat]
    if holding:
        if hope:
            table = 0
            for i in range(h.counts[MELDS]):
                table |= h.table[i]
            hidden = FULL_DECK & ~holding & ~table & ~pile_mask(h)
            card = hopeful_discard(tb, h, seat, hope, hidden)
        else:
            card = greedy_discard(tb, h, seat)
        h.holdings[seat] ^= 1 << card
        h.pile[h.counts[PILE]] = card
        h.counts[PILE] += 1
    return -1 if h.holdings[seat] else int(not melded_before)


@kernel()
def _playout(
    tb: Lookups, rules: np.ndarray, h: Hand, seat: int, me: int, depth: int, hope: float, key: np.uint64
) -> float:
    """`rollout.playout`: the hand played on from `seat`'s draw by greedy for every seat; my reward."""
    n = h.seats
    block = rules[STOCK_OUT] == 1
    for _ in range(depth):
        if blocked(h.counts[STOCK], block):
            return _block_score(tb, h, me)
        take = greedy_draw(tb, rules, h, seat)
        card = draw_card(rules, h, seat, take, key)
        if card < 0:
            return 0.0
        rummy = _finish_turn(tb, rules, h, seat, h.has_melded[seat] == 1, hope if seat == me else 0.0)
        if rummy >= 0:
            return _score(tb, h, seat, me, rummy == 1, rules[RUMMY_MULTIPLIER])
        seat = (seat + 1) % n
    return _cut_off(tb, h, me)


@kernel()
def _load(h: Hand, cards: np.ndarray, sizes: np.ndarray, fits: np.ndarray, has_melded: np.ndarray) -> None:
    """Set the hand to one determinized position (see `judge` for the layout of `cards` and `sizes`)."""
    n = h.seats
    n_stock, n_pile, n_table = sizes[0], sizes[1], sizes[2]
    for seat in range(n):  # loops: slices would copy (no allocations here)
        h.holdings[seat], h.has_melded[seat] = cards[seat], has_melded[seat]
    for i in range(n_stock):
        h.stock[i] = cards[n + i]
    for i in range(n_pile):
        h.pile[i] = cards[n + n_stock + i]
    for i in range(n_table):
        h.table[i], h.fits[i] = cards[n + n_stock + n_pile + i], fits[i]
    h.counts[STOCK], h.counts[PILE], h.counts[MELDS], h.counts[REBUILDS] = n_stock, n_pile, n_table, sizes[3]
    h.counts[TAKEN] = -1
    for seat in range(n):
        h.sizes[seat] = popcount(h.holdings[seat])


@njit(cache=True)
def judge(
    tables: np.ndarray, rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray, has_melded: np.ndarray,
    keys: np.ndarray, me: int, kind: int, options: np.ndarray, melded: bool, depth: int, hope: float,
    later_hope: float, store: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Return my reward per (candidate, position): `rollout._reward` for every pair.

    Row s of `cards` is position s: its holdings (one per seat), then its stock (top
    last), its discard pile (top last) and its table's melds, of the lengths in
    ``sizes[s, :3]``; ``sizes[s, 3]`` is its number of stock rebuilds and ``keys[s]``
    its stream's key.
    """
    n_positions, n = has_melded.shape
    out = np.zeros((options.size, n_positions))
    tb, h = tables[0], store[0]
    fits = np.empty(cards.shape[1], np.int64)
    for s in range(n_positions):
        key = keys[s]
        at = n + sizes[s, 0] + sizes[s, 1]
        for i in range(sizes[s, 2]):
            fits[i] = lay_off_fits(tb, cards[s, at + i])
        for c in range(options.size):
            _load(h, cards[s], sizes[s], fits, has_melded[s])
            if kind == DRAW:
                take = options[c] == 1
                card = draw_card(rules, h, me, take, key)
                if card < 0:
                    continue  # the hand stalls: 0
                rummy = _finish_turn(tb, rules, h, me, melded, hope)
            else:
                card = options[c]
                h.holdings[me] ^= 1 << card
                h.pile[h.counts[PILE]] = card
                h.counts[PILE] += 1
                rummy = -1 if h.holdings[me] else int(not melded)  # out by discard (R7.1)
            if rummy >= 0:
                out[c, s] = _score(tb, h, me, me, rummy == 1, rules[RUMMY_MULTIPLIER])
            else:
                out[c, s] = _playout(tb, rules, h, (me + 1) % n, me, depth, later_hope, key)
    return out


def rewards(positions: Sequence[Position], decision: Decision, rules: Rules) -> np.ndarray:
    """`rummysim.strategies.rollout.Rewards`, compiled: the positions packed into arrays, judged in one call."""
    n = len(positions[0].holdings) if positions else rules.n_players
    cards = np.zeros((len(positions), n + 52), np.int64)
    sizes = np.zeros((len(positions), 4), np.int64)
    for s, p in enumerate(positions):
        row = [*p.holdings, *p.stock, *p.discard_pile, *p.table]
        cards[s, : len(row)] = row
        sizes[s] = len(p.stock), len(p.discard_pile), len(p.table), p.n_rebuilds
    return judge(
        tables_of(rules), settings_array(rules), cards, sizes,
        np.array([p.has_melded for p in positions], np.int64).reshape(len(positions), n),
        np.array([p.key for p in positions], np.uint64), decision.me, decision.kind,
        np.array(decision.options, np.int64), decision.melded, decision.depth, decision.hope, decision.later_hope,
        new_hand(n),
    )  # fmt: skip


def warm_up() -> None:
    """Compile (or load from the cache) the playout kernel, judging one discard of a dealt hand."""
    rules = Rules()
    dealt = deal(rules, dealer=0, key=1)
    position = Position(list(dealt.holdings), list(dealt.stock[::-1]), list(dealt.discard_pile), [], [False, False])
    cards = tuple(c for c in range(52) if dealt.holdings[0] >> c & 1)[:2]
    rewards([position], Decision(0, DISCARD, cards, melded=False, depth=4), rules)
