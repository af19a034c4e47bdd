"""expert's search, compiled: determinized deals played on by the engine's own turns.

For one decision of one seat (the draw, the melds, the discard), `decide` deals the
cards the seat has not seen at random, consistently with what it has seen (`determinize`:
each holding keeps its size, the cards a seat took from the discard pile and has not
played stay in its holding, the rest is the stock), `samples` times. On each deal it
plays every candidate, then the rest of the seat's turn and the hand on to its end (at
most `depth` turns) with the compiled engine's own turn (`rummysim.compiled.game`), so a
playout obeys every rule and house rule the engine does, and scores it as the engine
does (R8, R12.3). All candidates of a decision meet the same deals (common random
numbers). The candidate played is the seat's default (`SHREWD`: rummy_hunter's melds
with cautious' discards) unless another's mean reward beats it by more than
`confidence` standard errors of the paired differences.

`decide` reads the seat's view only (`view_record`): its own holding, the table, the
discard pile, the sizes of the stock and of the other holdings, who has melded, the cards
each seat took from the discard pile and still holds, and the public cards gone. Every
random number comes from the decision's key, so a decision is a pure function of the view
and the key.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from rummysim.compiled.arrange import Lookups, deadwood_cards
from rummysim.compiled.bits import derive, kernel, lowest, popcount, shuffle
from rummysim.compiled.columns import tables_of
from rummysim.compiled.game import (
    BLOCKED,
    STALLED,
    _score_hand,
    _turn,
    discarded_step,
    drawn_step,
    played_step,
    policy_discard,
    policy_plays,
)
from rummysim.compiled.layout import (
    OUT_BY_BLOCK,
    SHREWD,
    STALL_AFTER_TURNS,
    TAKE_DISCARD,
    settings_array,
)
from rummysim.compiled.policies import greedy_discard, greedy_draw, keep_score, plan_plays, unseen
from rummysim.compiled.state import (
    DRAWN,
    HAND,
    MELDS,
    PILE,
    REBUILDS,
    SEEN,
    STOCK,
    TAKEN,
    TURN,
    Hand,
    lay_off_fits,
    pile_mask,
    table_fits,
)
from rummysim.dealing import deal
from rummysim.moves import LayOff, Meld, Play
from rummysim.rules import Rules
from rummysim.strategies.base import PlayerView
from rummysim.strategies.expert import DISCARD, DRAW, PLAY

FULL_DECK = (1 << 52) - 1
MAX_CANDIDATES = 16


@kernel()
def _copy(src: Hand, dst: Hand) -> None:
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
def determinize(tb: Lookups, v: Hand, seat: int, w: Hand, key: np.uint64) -> None:
    """Deal into `w` the cards `seat` has not seen, at random from `key`, consistently with its view `v`.

    Each other seat keeps its size and the cards it took from the discard pile and has not
    played; the rest of the unseen cards is dealt at random, the stock last.
    """
    _copy(v, w)
    hidden = FULL_DECK & ~v.holdings[seat] & ~pile_mask(v)
    for i in range(v.counts[MELDS]):
        hidden &= ~v.table[i]
        w.fits[i] = lay_off_fits(tb, v.table[i])
    for s in range(v.seats):
        hidden &= ~v.known[s]
    n = 0
    while hidden:
        w.deck[n] = lowest(hidden)
        hidden &= hidden - 1
        n += 1
    shuffle(key, w.deck, n)
    at = 0
    for s in range(v.seats):
        if s != seat:
            holding = v.known[s]
            for _ in range(v.sizes[s] - popcount(v.known[s])):
                holding |= 1 << w.deck[at]
                at += 1
            w.holdings[s] = holding
    if n - at != v.counts[STOCK]:
        raise AssertionError("a view's card counts do not add up to 52 (R1.2)")
    for i in range(n - at):
        w.stock[i] = w.deck[at + i]


@kernel()
def _reward(tb: Lookups, rules: np.ndarray, w: Hand, me: int, winner: int, how: int, rummy: bool) -> float:
    """My reward when the hand ends: the points I win, or less the points another seat wins (R8, R12.3)."""
    winner, gained = _score_hand(tb, rules, w, winner, how, rummy)
    if winner < 0:
        return 0.0
    return float(gained if winner == me else -gained)


@kernel()
def _cut_off(tb: Lookups, w: Hand, me: int) -> float:
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
def _play_on(
    tb: Lookups, rules: np.ndarray, w: Hand, seat: int, me: int, policies: np.ndarray, params: np.ndarray,
    depth: int, key: np.uint64,
) -> float:  # fmt: skip
    """Play the hand on from `seat`'s turn with each seat's policy (the engine's `_turn`); return my reward."""
    for _ in range(depth):
        if w.counts[TURN] >= rules[STALL_AFTER_TURNS]:
            return 0.0
        melded_before = w.has_melded[seat] == 1
        out = _turn(tb, rules, w, seat, policies[seat], params[seat], key)
        if out == STALLED:
            return 0.0
        if out == BLOCKED:
            return _reward(tb, rules, w, me, -1, OUT_BY_BLOCK, False)
        w.counts[TURN] += 1
        if out:
            return _reward(tb, rules, w, me, seat, out, not melded_before)
        seat = (seat + 1) % w.seats
    return _cut_off(tb, w, me)


@kernel()
def _end_turn(
    tb: Lookups, rules: np.ndarray, w: Hand, me: int, out: int, melded_before: bool, policies: np.ndarray,
    params: np.ndarray, depth: int, key: np.uint64,
) -> float:  # fmt: skip
    """After my move: my reward if it went out, else the hand played on from the next seat."""
    if out:
        return _reward(tb, rules, w, me, me, out, not melded_before)
    w.counts[TURN] += 1
    return _play_on(tb, rules, w, (me + 1) % w.seats, me, policies, params, depth, key)


@kernel()
def _alternative_plays(tb: Lookups, rules: np.ndarray, w: Hand, me: int, params: np.ndarray) -> int:
    """The other plan than the default's: greedy's plays when the default hides its melds, else none."""
    n = policy_plays(tb, rules, w, me, SHREWD, params[me])
    if n:
        return 0
    return plan_plays(tb, rules, w, w.holdings[me], w.counts[TAKEN], w.has_melded[me] == 1)[0]


@kernel()
def _try(
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
            n = _alternative_plays(tb, rules, w, me, params)
        out = played_step(tb, rules, w, me, n)
        if out:
            return _end_turn(tb, rules, w, me, out, melded_before, policies, params, depth, key)
        option = policy_discard(tb, w, me, SHREWD, params[me])
    out = discarded_step(w, me, option)
    return _end_turn(tb, rules, w, me, out, melded_before, policies, params, depth, key)


@kernel()
def _ranked_discards(
    tb: Lookups, v: Hand, me: int, params: np.ndarray, out: np.ndarray, scores: np.ndarray, limit: int
) -> int:
    """Write the deadwood cards `me` may discard into `out`, cautious' choice first; return how many (at most `limit`).

    Ranked by cautious' score, highest first (`Cautious.ranked_discards`); with no such card,
    greedy's discard alone (R4.3, R4.5).
    """
    holding, taken = v.holdings[me], v.counts[TAKEN]
    allowed = holding & ~(1 << taken) if taken >= 0 else holding
    dead = deadwood_cards(tb, holding, v.scratch) & allowed
    if not dead:
        out[0] = greedy_discard(tb, v, me)
        return 1
    hidden, fits = unseen(v, me), table_fits(v)
    n = 0
    while dead:
        card = lowest(dead)
        dead &= dead - 1
        score = keep_score(tb, v, me, card, holding, params, hidden, fits)
        at = n  # insertion, highest (score, card) first: cards come upward, so a later one wins a tie
        while at > 0 and scores[at - 1] <= score:
            scores[at], out[at] = scores[at - 1], out[at - 1]
            at -= 1
        scores[at], out[at] = score, card
        n += 1
    return min(n, limit)


@kernel()
def _takes_legal(tb: Lookups, rules: np.ndarray, v: Hand, me: int) -> bool:
    """Whether taking the top discard is a move the seat could finish legally (R4.6; R12.2 must play it)."""
    if not v.counts[PILE]:
        return False
    if rules[TAKE_DISCARD] == 0:
        return True
    top = v.pile[v.counts[PILE] - 1]
    left = plan_plays(tb, rules, v, v.holdings[me] | 1 << top, top, v.has_melded[me] == 1)[1]
    return not left >> top & 1


@kernel()
def _options(
    tb: Lookups, rules: np.ndarray, v: Hand, kind: int, me: int, params: np.ndarray, options: np.ndarray,
    scores: np.ndarray, limit: int,
) -> int:  # fmt: skip
    """Write the decision's candidates into `options`, the default first; return how many."""
    if kind == DRAW:
        default = greedy_draw(tb, rules, v, me)
        options[0] = int(default)
        if not default and not _takes_legal(tb, rules, v, me):
            return 1
        options[1] = int(not default)
        return 2
    if kind == PLAY:
        options[0], options[1] = 0, 1
        taken = v.counts[TAKEN]
        n_default = policy_plays(tb, rules, v, me, SHREWD, params[me])
        if n_default == 0:
            n_other = plan_plays(tb, rules, v, v.holdings[me], taken, v.has_melded[me] == 1)[0]
            return 2 if n_other else 1
        must_play_taken = rules[TAKE_DISCARD] == 1 and taken >= 0
        return 1 if must_play_taken else 2  # hiding every meld keeps the card taken, R12.2
    return _ranked_discards(tb, v, me, params[me], options, scores, limit)


@kernel()
def _better(rewards: np.ndarray, n_options: int, n_samples: int, confidence: float) -> int:
    """The candidate to play: 0 (the default) unless another's mean paired gain exceeds `confidence` standard errors."""
    best, best_gain = 0, 0.0
    for c in range(1, n_options):
        total = 0.0
        for s in range(n_samples):
            total += rewards[c, s] - rewards[0, s]
        gain = total / n_samples
        spread = 0.0
        for s in range(n_samples):
            d = rewards[c, s] - rewards[0, s] - gain
            spread += d * d
        error = np.sqrt(spread / (n_samples - 1) / n_samples)
        if gain > best_gain and gain > confidence * error:
            best, best_gain = c, gain
    return best


@njit(cache=True)
def decide(
    tables: np.ndarray, rules: np.ndarray, view: np.ndarray, me: int, kind: int, melded_before: bool,
    key: np.uint64, samples: int, candidates: int, depth: int, confidence: float, policies: np.ndarray,
    params: np.ndarray, store: np.ndarray, rewards: np.ndarray,
) -> int:  # fmt: skip
    """Return seat `me`'s move: for the draw 1 to take the discard and 0 the stock, for the melds the plan
    (0 the default's, 1 the other), for the discard the card.

    `view` is the seat's view (a one-record `HAND` array, `view_record`); `melded_before` whether
    it had melded before this turn (going rummy, R8.3). `policies` and `params` give each
    seat's policy in the playouts (`me` plays `SHREWD`). `store` is room for two hands;
    `rewards` (at least ``MAX_CANDIDATES`` x `samples`) receives each candidate's reward per deal.
    """
    tb, v, base, w = tables[0], view[0], store[0], store[1]
    options = np.empty(52, np.int64)
    scores = np.empty(52)
    n_options = _options(tb, rules, v, kind, me, params, options, scores, min(candidates, MAX_CANDIDATES))
    if n_options == 1:
        return options[0]
    for s in range(samples):
        sample_key = derive(key, s)
        determinize(tb, v, me, base, sample_key)
        for c in range(n_options):
            _copy(base, w)
            rewards[c, s] = _try(tb, rules, w, kind, options[c], me, melded_before, policies, params, depth,
                                 sample_key)  # fmt: skip
    return options[_better(rewards, n_options, samples, confidence)]


@njit(cache=True)
def determinized(tables: np.ndarray, view: np.ndarray, me: int, key: np.uint64, store: np.ndarray) -> None:
    """Deal a seat's unseen cards into ``store[0]`` as its search does (`determinize`), from its view alone."""
    determinize(tables[0], view[0], me, store[0], key)


@njit(cache=True)
def plays_of(tables: np.ndarray, rules: np.ndarray, view: np.ndarray, me: int, option: int, params: np.ndarray) -> int:
    """Write plan `option` (0 the default's, 1 the other, `decide`) into ``view[0].plays``; return how many plays."""
    tb, v = tables[0], view[0]
    for i in range(v.counts[MELDS]):
        v.fits[i] = lay_off_fits(tb, v.table[i])
    if option == 0:
        return policy_plays(tb, rules, v, me, SHREWD, params[me])
    return _alternative_plays(tb, rules, v, me, params)


@functools.cache
def _settings(rules: Rules) -> np.ndarray:
    """The rules as the kernels read them (`settings_array`), made once per rules."""
    return settings_array(rules)


@functools.cache
def _room(n: int, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Room for the two hands a search works in, and for its rewards (one per process, table size and budget)."""
    store = np.zeros(2, HAND)
    store["seats"] = n
    return store, np.zeros((MAX_CANDIDATES, samples), np.float64)


def choose(
    view: PlayerView, kind: int, *, key: int, seen: int, taken: list[int], melded_before: bool, samples: int,
    candidates: int, depth: int, confidence: float, params: np.ndarray,
) -> int:  # fmt: skip
    """Return a seat's move by `decide`, from its `PlayerView` and its memory of the public events."""
    store, rewards = _room(view.n_players, samples)
    rules = _settings(view.rules)
    policies = np.full(view.n_players, SHREWD, np.int64)
    return int(
        decide(
            tables_of(view.rules), rules, view_record(view, seen=seen, taken=taken), view.seat,
            kind, melded_before, np.uint64(key), samples, candidates, depth, confidence, policies, params,
            store, rewards,
        )
    )  # fmt: skip


def plan(view: PlayerView, option: int, *, seen: int, taken: list[int], params: np.ndarray) -> list[Play]:
    """Return plan `option` of a seat's melds and lay-offs (`plays_of`) as moves the engine checks."""
    record = view_record(view, seen=seen, taken=taken)
    count = plays_of(tables_of(view.rules), _settings(view.rules), record, view.seat, option, params)
    return [Meld(c) if kind == 0 else LayOff(c, meld) for kind, c, meld in record[0]["plays"][:count].tolist()]


def warm_up() -> None:
    """Compile (or load from the cache) the search, with one decision of a dealt hand."""
    rules = Rules()
    dealt = deal(rules, dealer=0, key=1)
    view = PlayerView(
        seat=1, n_players=2, dealer=0, rules=rules, hand=0, turn=0, holding=dealt.holdings[1], drawn=None,
        taken=None, table=(), discard_pile=tuple(dealt.discard_pile), stock_size=len(dealt.stock),
        holding_sizes=(10, 10), has_melded=(False, False), scores=(0, 0), n_rebuilds=0, history=(),
    )  # fmt: skip
    params = np.tile(np.array([6, 3, 12, 0, 4], np.float64), (2, 1))
    for kind in (DRAW, DISCARD):
        choose(view, kind, key=1, seen=0, taken=[], melded_before=False, samples=2, candidates=2, depth=4,
               confidence=2.0, params=params)  # fmt: skip
    plan(view, 0, seen=0, taken=[], params=params)


def view_record(view: PlayerView, *, seen: int, taken: list[int]) -> np.ndarray:
    """Return a seat's view as `decide` reads it: a one-record `HAND` holding only what the seat may see.

    `seen` is the public cards gone (the discards, melds and lay-offs of the hand) and `taken`
    each seat's cards taken from the discard pile and not played, both from the public events
    (`rummysim.strategies.cautious.Cautious`).
    """
    record = np.zeros(1, HAND)
    v = record[0]
    n = view.n_players
    v["seats"] = n
    v["holdings"][view.seat] = view.holding
    v["sizes"][:n] = view.holding_sizes
    v["has_melded"][:n] = view.has_melded
    for seat, cards in enumerate(taken[:n]):
        v["known"][seat] = cards & ~view.holding if seat != view.seat else cards & view.holding
    v["pile"][: len(view.discard_pile)] = view.discard_pile
    v["table"][: len(view.table)] = view.table_masks
    counts = v["counts"]
    counts[PILE], counts[STOCK], counts[MELDS] = len(view.discard_pile), view.stock_size, len(view.table)
    counts[TURN], counts[REBUILDS], counts[SEEN] = view.turn, view.n_rebuilds, seen
    counts[DRAWN] = -1 if view.drawn is None else view.drawn
    counts[TAKEN] = -1 if view.taken is None else view.taken
    return record
