"""The compiled hand and game loops: the twins of `rummysim.engine.play_hand` and `rummysim.game.play_game`.

`play_games` plays a range of games of one condition (rules R3 to R11, every setting of
`Rules`) with compiled policies and returns two int64 matrices, one row per hand x seat
and one per game x seat, whose columns are `HAND_COLUMNS` and `GAME_COLUMNS`;
`rummysim.compiled.columns` turns them into the runner's Arrow tables. Every random
number comes from the streams of `rummysim.seeding`, drawn by `rummysim.compiled.bits`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummysim.compiled.arrange import Tables, points
from rummysim.compiled.bits import below, derive, draw, kernel, popcount, shuffle
from rummysim.compiled.policies import (
    CAUTIOUS,
    RUMMY_HUNTER,
    UNIFORM,
    cautious_discard,
    greedy_discard,
    greedy_draw,
    hunter_plays,
    plan_plays,
    uniform_discard,
    uniform_draw,
    uniform_plays,
)
from rummysim.compiled.state import (
    DRAWN,
    MAX_HANDS,
    MELDS,
    N_DEALT,
    N_PLAYERS,
    PILE,
    REBUILDS,
    RUMMY_MULTIPLIER,
    SEEN,
    STALL_AFTER_HANDS,
    STALL_AFTER_REBUILDS,
    STALL_AFTER_TURNS,
    STOCK,
    TAKEN,
    TARGET_SCORE,
    TURN,
    Hand,
    apply_play,
    new_hand,
)
from rummysim.seeding import GAME, HAND

HAND_COLUMNS = (
    "game", "hand", "seat", "strategy", "dealer", "position", "won", "points", "score", "went_out_by",
    "went_rummy", "multiplier", "stalled", "turns", "n_rebuilds", "holding_end", "holding_points",
)  # fmt: skip
"""The columns of `play_games`'s hand rows: `HandRecord`'s fields, with the lineup index for
``strategy``, a code for ``went_out_by`` (`WENT_OUT_BY`) and a mask for ``holding_end``."""
GAME_COLUMNS = (
    "game", "seat", "strategy", "score", "won", "tied", "n_hands", "hands_won", "n_stalled", "first_dealer", "stalled",
)  # fmt: skip
"""The columns of `play_games`'s game rows: `GameRecord`'s fields, with the lineup index for ``strategy``."""
WENT_OUT_BY = (None, "discard", "meld", "lay_off")
"""``went_out_by`` codes: 0 for a stalled hand, then `rummysim.moves.WentOutBy` (R7.1)."""
_DISCARD, _MELD, _LAY_OFF = 1, 2, 3
_STALLED = -1


@kernel()
def _deal(rules: np.ndarray, h: Hand, dealer: int, key: np.uint64) -> None:
    """`rummysim.dealing.deal` (R3.1-R3.3) into a fresh hand; the stock's top is its last card."""
    n, k = rules[N_PLAYERS], rules[N_DEALT]
    deck = h.deck
    for card in range(52):
        deck[card] = card
    shuffle(derive(key, 0), deck, 52)
    h.holdings[:] = 0
    for i in range(n * k):
        h.holdings[(dealer + 1 + i) % n] |= 1 << deck[i]
    for seat in range(n):
        h.sizes[seat] = k
    h.has_melded[:] = 0
    h.known[:] = 0
    h.counts[:] = 0
    h.pile[0] = deck[n * k]
    h.counts[PILE] = 1
    m = 52 - n * k - 1
    for j in range(m):
        h.stock[j] = deck[51 - j]
    h.counts[STOCK] = m
    h.counts[SEEN] = 1 << deck[n * k]  # the upcard, public (HandStarted)
    h.counts[DRAWN] = h.counts[TAKEN] = -1


@kernel()
def rebuild_stock(rules: np.ndarray, h: Hand, key: np.uint64) -> bool:
    """Shuffle the discard pile but its top card into a new stock; False if the hand stalls (R10.1, R10.2)."""
    m = h.counts[PILE] - 1
    if m < 1 or h.counts[REBUILDS] >= rules[STALL_AFTER_REBUILDS]:
        return False
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
        if not h.counts[STOCK] and not rebuild_stock(rules, h, key):
            return -1
        h.counts[STOCK] -= 1
        card = h.stock[h.counts[STOCK]]
    h.holdings[seat] |= 1 << card
    return card


@njit(cache=True)
def check_cards(h: Hand) -> None:
    """Raise unless each of the 52 cards is in exactly one place: a holding, a pile or a meld (R1.2)."""
    seen = 0
    total = 0
    for mask in h.holdings:
        seen |= mask
        total += popcount(mask)
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
def _turn(tb: Tables, rules: np.ndarray, h: Hand, seat: int, policy: int, params: np.ndarray, key: np.uint64) -> int:
    """Play one turn (R4); return how the seat went out (`WENT_OUT_BY` code), 0, or `_STALLED`."""
    h.counts[DRAWN] = h.counts[TAKEN] = -1
    takes = uniform_draw(h, seat) if policy == UNIFORM else greedy_draw(tb, h, seat)
    card = draw_card(rules, h, seat, takes, key)
    if card < 0:
        return _STALLED
    if h.counts[TAKEN] >= 0:  # taken from the discard pile: public (cautious' memory)
        h.known[seat] |= 1 << card
    h.counts[DRAWN] = card
    h.sizes[seat] += 1
    if policy == UNIFORM:
        n = uniform_plays(tb, rules, h, seat)
    elif policy == RUMMY_HUNTER:
        n = hunter_plays(tb, rules, h, seat, params)
    else:
        n = plan_plays(tb, rules, h, seat)[0]
    if n:  # R4.2, R5, R6
        for i in range(n):
            apply_play(tb, h, seat, h.plays[i, 0], h.plays[i, 1], h.plays[i, 2])
        h.has_melded[seat] = 1
        h.sizes[seat] = popcount(h.holdings[seat])
        if not h.holdings[seat]:
            return _MELD if h.plays[n - 1, 0] == 0 else _LAY_OFF
    if policy == UNIFORM:
        card = uniform_discard(h, seat)
    elif policy == CAUTIOUS:
        card = cautious_discard(tb, h, seat, params)
    else:
        card = greedy_discard(tb, h, seat)
    h.holdings[seat] ^= 1 << card  # R4.3
    h.sizes[seat] -= 1
    h.pile[h.counts[PILE]] = card
    h.counts[PILE] += 1
    h.counts[SEEN] |= 1 << card
    h.known[seat] &= ~(1 << card)
    return 0 if h.holdings[seat] else _DISCARD


@kernel()
def play_hand(
    tb: Tables,
    rules: np.ndarray,
    h: Hand,
    policies: np.ndarray,
    params: np.ndarray,
    dealer: int,
    key: np.uint64,
    audit: bool,
) -> tuple[int, int, bool]:
    """Play one hand (R3-R10); return (winner or -1, `WENT_OUT_BY` code, went rummy).

    `audit` checks after every turn that each card is in exactly one place (`check_cards`).
    """
    n = rules[N_PLAYERS]
    _deal(rules, h, dealer, key)
    seat = (dealer + 1) % n
    while h.counts[TURN] < rules[STALL_AFTER_TURNS]:
        melded_before = h.has_melded[seat]
        out = _turn(tb, rules, h, seat, policies[seat], params[seat], key)
        if audit:
            check_cards(h)
        if out == _STALLED:
            break
        h.counts[TURN] += 1
        if out:
            return seat, out, not melded_before
        seat = (seat + 1) % n
    return -1, 0, False


@njit(cache=True)
def _grow(rows: np.ndarray, needed: int) -> np.ndarray:
    if needed <= rows.shape[0]:
        return rows
    bigger = np.zeros((max(needed, 2 * rows.shape[0]), rows.shape[1]), np.int64)
    bigger[: rows.shape[0]] = rows
    return bigger


@njit(cache=True)
def play_games(
    tb: Tables, rules: np.ndarray, lineup: np.ndarray, lineup_params: np.ndarray, root: np.uint64,
    start: int, stop: int, stream_keys: np.ndarray, audit: bool,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Play games ``start`` to ``stop`` of one condition (R3-R11); return the hand rows and the game rows.

    Seat s of game g plays lineup entry ``(s + g) % n`` (`rummysim.design.rotated`);
    ``stream_keys[g - start, s]`` is that seat's `Stream` key (uniform's). `audit` checks the
    cards after every turn (R1.2).
    """
    n = rules[N_PLAYERS]
    h = new_hand(n)
    hands = np.zeros((64 * n * max(stop - start, 1), len(HAND_COLUMNS)), np.int64)
    games = np.zeros((n * (stop - start), len(GAME_COLUMNS)), np.int64)
    policies = np.empty(n, np.int64)
    params = np.empty((n, lineup_params.shape[1]))
    labels = np.empty(n, np.int64)
    scores = np.empty(n, np.int64)
    won = np.empty(n, np.int64)
    row = 0
    hand_root, game_root = derive(root, HAND), derive(root, GAME)
    for game in range(start, stop):
        for seat in range(n):
            labels[seat] = (seat + game) % n
            policies[seat] = lineup[labels[seat]]
            params[seat] = lineup_params[labels[seat]]
        h.keys[:] = stream_keys[game - start]
        h.draws[:] = 0
        first_dealer = below(draw(derive(game_root, game), 0), n)
        dealer = first_dealer
        scores[:] = 0
        won[:] = 0
        game_key = derive(hand_root, game)
        hand = stalled_in_a_row = n_stalled = 0
        while True:
            winner, how, rummy = play_hand(tb, rules, h, policies, params, dealer, derive(game_key, hand), audit)
            left = 0
            for seat in range(n):
                left += points(tb, h.holdings[seat])
            multiplier = rules[RUMMY_MULTIPLIER] if rummy else 1
            gained = left * multiplier if winner >= 0 else 0
            hands = _grow(hands, row + n)
            for seat in range(n):
                r = hands[row + seat]
                r[0], r[1], r[2], r[3], r[4] = game, hand, seat, labels[seat], dealer
                r[5], r[6] = (seat - dealer - 1) % n, seat == winner
                r[7] = gained if seat == winner else 0
                r[8] = scores[seat] + r[7]
                r[9], r[10], r[11], r[12] = how, rummy, multiplier, winner < 0
                r[13], r[14], r[15] = h.counts[TURN], h.counts[REBUILDS], h.holdings[seat]
                r[16] = points(tb, h.holdings[seat])
            row += n
            hand += 1
            if winner >= 0:
                scores[winner] += gained
                won[winner] += 1
                stalled_in_a_row = 0
            else:
                n_stalled += 1
                stalled_in_a_row += 1
            dealer = (dealer + 1) % n
            if rules[TARGET_SCORE] >= 0 and scores.max() >= rules[TARGET_SCORE]:
                break
            if (rules[MAX_HANDS] >= 0 and hand >= rules[MAX_HANDS]) or stalled_in_a_row >= rules[STALL_AFTER_HANDS]:
                break
        finished = stalled_in_a_row < rules[STALL_AFTER_HANDS]
        top = scores.max()
        n_top = 0
        for seat in range(n):
            n_top += scores[seat] == top
        for seat in range(n):
            g = games[(game - start) * n + seat]
            leader = finished and scores[seat] == top
            g[0], g[1], g[2], g[3] = game, seat, labels[seat], scores[seat]
            g[4], g[5] = leader and n_top == 1, leader and n_top > 1
            g[6], g[7], g[8], g[9], g[10] = hand, won[seat], n_stalled, first_dealer, not finished
    return hands[:row], games
