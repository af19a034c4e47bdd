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

from rummysim.compiled.arrange import Lookups, points
from rummysim.compiled.bits import below, derive, draw, kernel, popcount, shuffle
from rummysim.compiled.layout import (
    ACE,
    CARDS_DEALT,
    CAUTIOUS,
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
    GOING_OUT,
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
    LAY_OFF,
    MAX_HANDS,
    N_PLAYERS,
    OUT_BY_BLOCK,
    OUT_BY_DISCARD,
    OUT_BY_LAY_OFF,
    OUT_BY_MELD,
    RUMMY_HUNTER,
    RUMMY_MULTIPLIER,
    SHREWD,
    STALL_AFTER_HANDS,
    STALL_AFTER_REBUILDS,
    STALL_AFTER_TURNS,
    STOCK_OUT,
    TAKE_DISCARD,
    TARGET_SCORE,
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
from rummysim.compiled.state import DRAWN, MELDS, PILE, REBUILDS, SEEN, STOCK, TAKEN, TURN, Hand, apply_play
from rummysim.core import (
    block_points,
    block_winner,
    blocked,
    dealt_to,
    game_over,
    is_meld,
    keeps_taken,
    leaves_legal_holding,
    left_of,
    may_discard,
    may_lay_off,
    may_rebuild,
    may_take_discard,
    out_points,
    stock_after_deal,
)

STALLED, BLOCKED = -1, -2
"""What `_turn` returns when the hand stalls (R10.2) or is blocked (R12.3)."""


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
def _turn(tb: Lookups, rules: np.ndarray, h: Hand, seat: int, policy: int, params: np.ndarray, key: np.uint64) -> int:
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
def play_hand(
    tb: Lookups,
    rules: np.ndarray,
    h: Hand,
    policies: np.ndarray,
    params: np.ndarray,
    dealer: int,
    key: np.uint64,
    audit: bool,
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
        out = _turn(tb, rules, h, seat, policies[seat], params[seat], key)
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
def _score_hand(tb: Lookups, rules: np.ndarray, h: Hand, winner: int, how: int, rummy: bool) -> tuple[int, int]:
    """Score a hand that ended (R8, R12.3): return the winner (-1: none) and its points; fill ``h.values``."""
    for seat in range(h.seats):
        h.values[seat] = points(tb, h.holdings[seat])
    values = h.values[: h.seats]
    if how == OUT_BY_BLOCK:  # the lowest hand value wins the differences; a tie, nothing (R12.3)
        winner = block_winner(values)
        return winner, block_points(values, winner) if winner >= 0 else 0
    return winner, out_points(values, rummy, rules[RUMMY_MULTIPLIER]) if winner >= 0 else 0


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
    tables: np.ndarray, rules: np.ndarray, lineup: np.ndarray, lineup_params: np.ndarray, hands_keys: np.ndarray,
    dealer_keys: np.ndarray, start: int, stop: int, stream_keys: np.ndarray, audit: bool, store: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Play games ``start`` to ``stop`` of one condition (R3-R11); return the hand rows and the game rows.

    Seat s of game g plays lineup entry ``(s + g) % n`` (`rummysim.design.rotated`);
    ``stream_keys[g - start, s]`` is that seat's `Stream` key (uniform's). Game g's hands
    derive their keys from ``hands_keys[g - start]`` and its first dealer is drawn from
    ``dealer_keys[g - start]`` (`rummysim.seeding.game_hands_keys`, `game_keys`). `audit`
    checks the cards after every turn (R1.2).
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
            labels[seat] = (seat + game) % n
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
            winner, how, rummy = play_hand(tb, rules, h, policies, params, dealer, derive(game_key, hand), audit)
            winner, gained = _score_hand(tb, rules, h, winner, how, rummy)
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
