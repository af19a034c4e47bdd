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

from rummysim.compiled.arrange import Lookups
from rummysim.compiled.bits import below, derive, draw, kernel, shuffle
from rummysim.compiled.expert import expert_turn
from rummysim.compiled.layout import (
    CARDS_DEALT,
    EXPERT,
    G_FIRST_DEALER,
    G_GAME,
    G_HANDS_WON,
    G_N_HANDS,
    G_N_STALLED,
    G_SCORE,
    G_SEAT,
    G_STALLED,
    G_STRATEGY,
    G_TIED,
    G_WON,
    GAME_COLUMNS,
    H_DEALER,
    H_GAME,
    H_HAND,
    H_HOLDING_END,
    H_HOLDING_POINTS,
    H_MULTIPLIER,
    H_N_REBUILDS,
    H_POINTS,
    H_POSITION,
    H_SCORE,
    H_SEAT,
    H_STALLED,
    H_STRATEGY,
    H_TURNS,
    H_WENT_OUT_BY,
    H_WENT_RUMMY,
    H_WON,
    HAND_COLUMNS,
    MAX_HANDS,
    N_PLAYERS,
    OUT_BY_BLOCK,
    RUMMY_MULTIPLIER,
    STALL_AFTER_HANDS,
    STALL_AFTER_TURNS,
    TARGET_SCORE,
)
from rummysim.compiled.state import DRAWN, PILE, REBUILDS, SEEN, STOCK, TAKEN, TURN, Hand
from rummysim.compiled.turn import BLOCKED, STALLED, check_cards, policy_turn, score_hand
from rummysim.core import (
    dealt_to,
    game_over,
    left_of,
    stock_after_deal,
)


@kernel()
def _deal(rules: np.ndarray, h: Hand, dealer: int, key: np.uint64) -> None:
    """`rummysim.dealing.deal` (R3.1-R3.3) into a fresh hand; the stock's top is its last card."""
    n, k = rules[N_PLAYERS], rules[CARDS_DEALT]
    deck = h.deck
    for card in range(52):
        deck[card] = card
    shuffle(derive(key, 0), deck, 52)
    h.holdings[:] = 0
    for i in range(n * k):
        h.holdings[dealt_to(i, dealer, n)] |= 1 << deck[i]
    for seat in range(n):
        h.sizes[seat] = k
    h.has_melded[:] = 0
    h.known[:] = 0
    h.counts[:] = 0
    h.pile[0] = deck[n * k]
    h.counts[PILE] = 1
    m = stock_after_deal(n, k)
    for j in range(m):
        h.stock[j] = deck[51 - j]
    h.counts[STOCK] = m
    h.counts[SEEN] = 1 << deck[n * k]  # the upcard, public (HandStarted)
    h.counts[DRAWN] = h.counts[TAKEN] = -1


@kernel()
def play_hand(
    tb: Lookups,
    rules: np.ndarray,
    h: Hand,
    policies: np.ndarray,
    params: np.ndarray,
    dealer: int,
    key: np.uint64,
    audit: bool,
    search: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[int, int, bool]:
    """Play one hand (R3-R10, R12.3); return (winner or -1, `WENT_OUT_BY` code, went rummy).

    A blocked hand returns (-1, the block's code, False): `play_games` scores it. `audit`
    checks after every turn that each card is in exactly one place (`check_cards`).
    """
    n = rules[N_PLAYERS]
    _deal(rules, h, dealer, key)
    seat = left_of(dealer, n)
    while h.counts[TURN] < rules[STALL_AFTER_TURNS]:  # core.out_of_turns, as the loop's test
        melded_before = h.has_melded[seat]
        if search is not None and policies[seat] == EXPERT:
            out = expert_turn(tb, rules, h, seat, params[seat], key, search[0], search[1], search[2][0])
        else:
            out = policy_turn(tb, rules, h, seat, policies[seat], params[seat], key)
        if audit:
            check_cards(h)
        if out == STALLED:
            break
        if out == BLOCKED:
            return -1, OUT_BY_BLOCK, False
        h.counts[TURN] += 1
        if out:
            return seat, out, not melded_before
        seat = left_of(seat, n)
    return -1, 0, False


@njit(cache=True)
def _grow(rows: np.ndarray, needed: int) -> np.ndarray:
    """Return `rows`, or a copy twice as long once `needed` rows would not fit.

    Loops, not slices: numba compiles an array-to-array assignment with its shape checks'
    error messages, seconds of a first compile.
    """
    if needed <= rows.shape[0]:
        return rows
    bigger = np.zeros((max(needed, 2 * rows.shape[0]), rows.shape[1]), np.int64)
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            bigger[i, j] = rows[i, j]
    return bigger


@kernel(inline=True)
def _top(scores: np.ndarray) -> int:
    """The highest score (a loop: ``scores.max()`` compiles its empty-array error, seconds of a first compile)."""
    top = scores[0]
    for score in scores:
        top = max(top, score)
    return top


@kernel()
def _hand_rows(
    rows: np.ndarray, row: int, h: Hand, game: int, hand: int, dealer: int, labels: np.ndarray, scores: np.ndarray,
    winner: int, gained: int, how: int, rummy: bool, multiplier: int,
) -> None:  # fmt: skip
    """Write a hand's row per seat from ``rows[row]`` on (`HAND_COLUMNS`, `rummysim.records.hand_records`)."""
    n = h.seats
    for seat in range(n):
        r = rows[row + seat]
        r[H_GAME], r[H_HAND], r[H_SEAT], r[H_STRATEGY], r[H_DEALER] = game, hand, seat, labels[seat], dealer
        r[H_POSITION], r[H_WON] = (seat - dealer - 1) % n, seat == winner
        r[H_POINTS] = gained if seat == winner else 0
        r[H_SCORE] = scores[seat] + r[H_POINTS]
        r[H_WENT_OUT_BY], r[H_WENT_RUMMY], r[H_MULTIPLIER], r[H_STALLED] = how, rummy, multiplier, winner < 0
        r[H_TURNS], r[H_N_REBUILDS], r[H_HOLDING_END] = h.counts[TURN], h.counts[REBUILDS], h.holdings[seat]
        r[H_HOLDING_POINTS] = h.values[seat]


@kernel()
def _game_rows(
    rows: np.ndarray, row: int, game: int, labels: np.ndarray, scores: np.ndarray, won: np.ndarray, n_hands: int,
    n_stalled: int, first_dealer: int, finished: bool,
) -> None:  # fmt: skip
    """Write a game's row per seat from ``rows[row]`` on (`GAME_COLUMNS`): who won alone or tied (R11)."""
    n = scores.size
    top = _top(scores)
    n_top = 0
    for seat in range(n):
        n_top += scores[seat] == top
    for seat in range(n):
        g = rows[row + seat]
        leader = finished and scores[seat] == top
        g[G_GAME], g[G_SEAT], g[G_STRATEGY], g[G_SCORE] = game, seat, labels[seat], scores[seat]
        g[G_WON], g[G_TIED] = leader and n_top == 1, leader and n_top > 1
        g[G_N_HANDS], g[G_HANDS_WON], g[G_N_STALLED] = n_hands, won[seat], n_stalled
        g[G_FIRST_DEALER], g[G_STALLED] = first_dealer, not finished


@njit(cache=True)
def play_games(
    tables: np.ndarray, rules: np.ndarray, lineup: np.ndarray, lineup_params: np.ndarray, seats: np.ndarray,
    hands_keys: np.ndarray, dealer_keys: np.ndarray, start: int, stop: int, stream_keys: np.ndarray, audit: bool,
    store: np.ndarray, search: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Play games ``start`` to ``stop`` of one condition (R3-R11); return the hand rows and the game rows.

    Seat s of game g plays lineup entry ``seats[g % len(seats), s]`` (the seating table,
    `rummysim.seating.seat_table`, R3.4);
    ``stream_keys[g - start, s]`` is that seat's `Stream` key (uniform's and expert's). Game
    g's hands derive their keys from ``hands_keys[g - start]`` and its first dealer is drawn
    from ``dealer_keys[g - start]`` (`rummysim.seeding.game_hands_keys`, `game_keys`). `audit`
    checks the cards after every turn (R1.2). `search` is the room of the lineup's experts'
    searches (`rummysim.compiled.columns.search_room`); None where it seats none, and then
    the search is not compiled in.
    """
    n = rules[N_PLAYERS]
    tb, h = tables[0], store[0]
    hands = np.zeros((64 * n * max(stop - start, 1), len(HAND_COLUMNS)), np.int64)
    games = np.zeros((n * (stop - start), len(GAME_COLUMNS)), np.int64)
    policies = np.empty(n, np.int64)
    params = np.empty((n, lineup_params.shape[1]))
    labels = np.empty(n, np.int64)
    scores = np.empty(n, np.int64)
    won = np.empty(n, np.int64)
    row = 0
    for game in range(start, stop):
        for seat in range(n):
            labels[seat] = seats[game % seats.shape[0], seat]
            policies[seat] = lineup[labels[seat]]
            for j in range(params.shape[1]):  # loops, not slices (see _grow)
                params[seat, j] = lineup_params[labels[seat], j]
            h.keys[seat] = stream_keys[game - start, seat]
        h.draws[:] = 0
        first_dealer = below(draw(dealer_keys[game - start], 0), n)
        dealer = first_dealer
        scores[:] = 0
        won[:] = 0
        game_key = hands_keys[game - start]
        hand = stalled_in_a_row = n_stalled = 0
        while True:
            winner, how, rummy = play_hand(tb, rules, h, policies, params, dealer, derive(game_key, hand), audit,
                                            search)  # fmt: skip
            winner, gained = score_hand(tb, rules, h, winner, how, rummy)
            hands = _grow(hands, row + n)
            multiplier = rules[RUMMY_MULTIPLIER] if rummy else 1
            _hand_rows(hands, row, h, game, hand, dealer, labels, scores, winner, gained, how, rummy, multiplier)
            row += n
            hand += 1
            if winner >= 0:
                scores[winner] += gained
                won[winner] += 1
                stalled_in_a_row = 0
            else:
                n_stalled += 1
                stalled_in_a_row += 1
            dealer = left_of(dealer, n)
            if game_over(_top(scores), hand, stalled_in_a_row, rules[TARGET_SCORE], rules[MAX_HANDS],
                         rules[STALL_AFTER_HANDS]):  # fmt: skip
                break
        finished = stalled_in_a_row < rules[STALL_AFTER_HANDS]
        _game_rows(games, (game - start) * n, game, labels, scores, won, hand, n_stalled, first_dealer, finished)
    return hands[:row], games
