"""expert's search, compiled: determinized deals played on by the engine's own turns.

For one decision of one seat (the draw, the melds, the discard), `decide` deals the
cards the seat has not seen at random, consistently with what it has seen, deal after
deal (`rummysim.compiled.expert_playout.determinize`: each holding keeps its size, the
cards a seat took from the discard pile and has not played stay in its holding, the rest
is the stock; with ``their_keep`` another seat's hidden cards are those a player building
melds would have kept of more). On each deal it plays every candidate still in the race, then the rest of
the seat's turn and the hand on to its end (at most `depth` turns) with the compiled
engine's own turn (`expert_playout.attempt`), so a playout obeys every rule and house
rule the engine does, and scores it as the engine does (R8, R12.3). The candidates meet
the same deals (common random numbers). The race: from the `RACE_FROM`-th deal on, a candidate whose mean paired
reward trails the default's by more than `drop` standard errors meets no more deals, and
the playouts it would have had go to the others: deals go on while `samples` playouts a
candidate last, up to `RACE_REACH` x `samples` deals, and while another than the default
is left. The candidate played is the seat's default (`SHREWD`: rummy_hunter's melds with
cautious' discards) unless another's mean reward beats it by more than `confidence`
standard errors of the paired differences.

`decide` reads the seat's view only (`view_record`): its own holding, the table, the
discard pile, the sizes of the stock and of the other holdings, who has melded, the cards
each seat took from the discard pile and still holds, and the public cards gone. Every
random number comes from the decision's key, so a decision is a pure function of the view
and the key.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from rummysim.compiled.arrange import Lookups, deadwood_cards
from rummysim.compiled.bits import derive, kernel, lowest, popcount
from rummysim.compiled.expert_playout import alternative_plays, attempt, copy_hand, determinize
from rummysim.compiled.layout import (
    ALARM,
    BLIND,
    CANDIDATES,
    CAUTION,
    CONFIDENCE,
    DANGER,
    DANGER_DEALS,
    DEPTH,
    DROP,
    HOPE,
    PARAMS,
    PATIENCE,
    RUMMY_MULTIPLIER,
    SAMPLES,
    SHREWD,
    STOCK_OUT,
    TAKE_DISCARD,
    THEIR_KEEP,
    THEIR_PATIENCE,
)
from rummysim.compiled.policies import greedy_discard, greedy_draw, keep_score, plan_plays, potential, unseen
from rummysim.compiled.state import (
    DRAWN,
    MAX_SEATS,
    MELDS,
    PILE,
    STOCK,
    TAKEN,
    Hand,
    lay_off_fits,
    table_fits,
)
from rummysim.compiled.turn import (
    BLOCKED,
    STALLED,
    discarded_step,
    drawn_step,
    played_step,
    policy_plays,
)
from rummysim.core import blocked
from rummysim.strategies.expert import DANGER_KEY, DISCARD, DRAW, PLAY, RACE_FROM, RACE_REACH

MAX_CANDIDATES = 16
WORK = np.dtype(
    [
        ("params", np.float64, (MAX_SEATS, len(PARAMS))),
        ("policies", np.int64, (MAX_SEATS,)),
        ("options", np.int64, (52,)),
        ("scores", np.float64, (52,)),
        ("tried", np.int64, (52,)),
        ("racing", np.int64, (52,)),
        ("dangers", np.float64, (52,)),
    ],
    align=True,
)
"""The record a search works in: the playouts' policies and parameters, the candidates and their scores."""


class Work(Protocol):
    """A `WORK` record as the kernels see it."""

    params: np.ndarray
    policies: np.ndarray
    options: np.ndarray
    scores: np.ndarray
    tried: np.ndarray
    racing: np.ndarray
    dangers: np.ndarray


@kernel()
def dealt_dangers(
    tb: Lookups, v: Hand, me: int, w: Hand, key: np.uint64, keep: int, deals: int, out: np.ndarray
) -> None:
    """Write into ``out[card]``, for each card `me` holds, the share of `deals` deals where the next seat melds it.

    Deal d is ``determinize(..., derive(derive(key, DANGER_KEY), d), keep)`` into `w`; the card
    counts where two of the next seat's cards make a three-card meld with it.
    """
    nxt = (me + 1) % v.seats
    holding = v.holdings[me]
    for card in range(52):
        out[card] = 0.0
    for d in range(deals):
        determinize(tb, v, me, w, derive(derive(key, DANGER_KEY), d), keep)
        theirs = w.holdings[nxt]
        mask = holding
        while mask:
            card = lowest(mask)
            mask &= mask - 1
            for i in range(tb.with_start[card], tb.with_start[card + 1]):
                others = tb.with_melds[i] & ~(1 << card)
                if popcount(others) == 2 and others & theirs == others:
                    out[card] += 1.0
                    break
    for card in range(52):
        out[card] /= deals


@kernel()
def _ranked_discards(
    tb: Lookups, v: Hand, me: int, params: np.ndarray, out: np.ndarray, scores: np.ndarray, limit: int,
    dangers: np.ndarray, dealt: bool,
) -> int:  # fmt: skip
    """Write the deadwood cards `me` may discard into `out`, cautious' choice first; return how many (at most `limit`).

    Ranked by cautious' score, highest first (`Cautious.ranked_discards`); with no such card,
    greedy's discard alone (R4.3, R4.5). With `dealt`, a card that lays off on no meld has
    the danger ``dangers[card]`` (`dealt_dangers`) in place of cautious' estimate.
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
        if dealt and not fits >> card & 1:
            score = tb.values[card % 13] - params[HOPE] * potential(tb, card, holding, hidden)
            score -= params[CAUTION] * dangers[card]
        else:
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
    scores: np.ndarray, limit: int, dangers: np.ndarray, dealt: bool,
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
    return _ranked_discards(tb, v, me, params[me], options, scores, limit, dangers, dealt)


@kernel()
def _gain(rewards: np.ndarray, c: int, n: int) -> tuple[float, float]:
    """Candidate `c`'s mean paired gain over the default on the first `n` deals, and its standard error."""
    total = 0.0
    for s in range(n):
        total += rewards[c, s] - rewards[0, s]
    gain = total / n
    spread = 0.0
    for s in range(n):
        d = rewards[c, s] - rewards[0, s] - gain
        spread += d * d
    return gain, np.sqrt(spread / (n - 1) / n)


@kernel()
def _trails(rewards: np.ndarray, c: int, n: int, drop: float) -> bool:
    """Whether candidate `c` trails the default by more than `drop` standard errors on `n` deals: it meets no more."""
    gain, error = _gain(rewards, c, n)
    return gain < -drop * error


@kernel()
def _better(rewards: np.ndarray, n_options: int, tried: np.ndarray, confidence: float) -> int:
    """The candidate to play: 0 (the default) unless another's mean paired gain exceeds `confidence` standard errors."""
    best, best_gain = 0, 0.0
    for c in range(1, n_options):
        if tried[c] < 2:
            continue
        gain, error = _gain(rewards, c, tried[c])
        if gain > best_gain and gain > confidence * error:
            best, best_gain = c, gain
    return best


@kernel()
def playout_params(rules: np.ndarray, me: int, n: int, own: np.ndarray, rows: np.ndarray) -> None:
    """Write into `rows` each seat's policy parameters in `me`'s playouts, from its own (`PARAMS`) row `own`.

    Its own are its default's; every other seat is modelled as hiding its melds for
    ``their_patience`` turns, with cautious' discards at their defaults (12, 0, 4). Hiding
    pays only with the going-rummy bonus (R8.3), so without it nobody hides.
    """
    bonus = rules[RUMMY_MULTIPLIER] > 1
    for s in range(n):
        rows[s, :] = 0.0
        rows[s, PATIENCE] = own[THEIR_PATIENCE] if bonus else 0.0
        rows[s, DANGER], rows[s, CAUTION], rows[s, BLIND], rows[s, HOPE] = own[ALARM], 12.0, 0.0, 4.0
    rows[me, PATIENCE] = own[PATIENCE] if bonus else 0.0
    rows[me, CAUTION], rows[me, BLIND], rows[me, HOPE] = own[CAUTION], own[BLIND], own[HOPE]


@kernel()
def search(
    tb: Lookups, rules: np.ndarray, v: Hand, me: int, kind: int, melded_before: bool, key: np.uint64,
    own: np.ndarray, room: np.ndarray, rewards: np.ndarray, work: Work,
) -> int:  # fmt: skip
    """Return seat `me`'s move from its view `v` (see `decide`); `room` holds two hands to work in."""
    for i in range(v.counts[MELDS]):  # what may be laid off on each meld, as the engine keeps it
        v.fits[i] = lay_off_fits(tb, v.table[i])
    n = v.seats
    params, policies, options, scores = work.params[:n], work.policies[:n], work.options, work.scores
    playout_params(rules, me, n, own, params)
    policies[:] = SHREWD
    samples, depth, confidence = int(own[SAMPLES]), int(own[DEPTH]), own[CONFIDENCE]
    dealt = kind == DISCARD and own[DANGER_DEALS] > 0 and v.has_melded[(me + 1) % n] == 1
    if dealt:
        dealt_dangers(tb, v, me, room[0], key, int(own[THEIR_KEEP]), int(own[DANGER_DEALS]), work.dangers)
    limit = min(int(own[CANDIDATES]), MAX_CANDIDATES)
    n_options = _options(tb, rules, v, kind, me, params, options, scores, limit, work.dangers, dealt)
    if n_options == 1:
        return options[0]
    base, w = room[0], room[1]
    tried, racing = work.tried, work.racing
    tried[:n_options], racing[:n_options] = 0, 1
    drop = own[DROP]
    budget, reach = samples * n_options, samples * RACE_REACH
    active, spent, s = n_options, 0, 0
    while s < reach and spent + active <= budget and active > 1:
        sample_key = derive(key, s)
        determinize(tb, v, me, base, sample_key, int(own[THEIR_KEEP]))
        for c in range(n_options):
            if racing[c]:
                copy_hand(base, w)
                rewards[c, s] = attempt(tb, rules, w, kind, options[c], me, melded_before, policies, params, depth,
                                     sample_key)  # fmt: skip
                tried[c] += 1
                spent += 1
        s += 1
        if drop > 0 and s >= RACE_FROM:
            for c in range(1, n_options):
                if racing[c] and _trails(rewards, c, s, drop):
                    racing[c] = 0
                    active -= 1
    return options[_better(rewards, n_options, tried, confidence)]


@kernel()
def planned(tb: Lookups, rules: np.ndarray, v: Hand, me: int, option: int, own: np.ndarray, work: Work) -> int:
    """Write plan `option` (0 the default's, 1 the other) of `me`'s melds into ``v.plays``; return how many."""
    for i in range(v.counts[MELDS]):
        v.fits[i] = lay_off_fits(tb, v.table[i])
    params = work.params[: v.seats]
    playout_params(rules, me, v.seats, own, params)
    if option == 0:
        return policy_plays(tb, rules, v, me, SHREWD, params[me])
    return alternative_plays(tb, rules, v, me, params)


@kernel()
def view_of(h: Hand, seat: int, v: Hand) -> None:
    """Copy into `v` what `seat` may see of hand `h`: its holding and the public state (`expert_calls.view_record`).

    Another seat's holding is left empty but for the cards it took from the discard pile
    and still holds (``known``); the stock's cards are left as they are and never read.
    """
    copy_hand(h, v)
    for s in range(h.seats):
        if s != seat:
            v.holdings[s] = 0


@kernel()
def _asks(
    tb: Lookups, rules: np.ndarray, h: Hand, seat: int, kind: int, melded_before: bool, own: np.ndarray,
    room: np.ndarray, rewards: np.ndarray, work: Work,
) -> int:  # fmt: skip
    """One decision of the expert in `seat`, from its view of `h`; decision d searches with ``derive(key, d)``."""
    view_of(h, seat, room[2])
    key = derive(h.keys[seat], h.draws[seat])
    h.draws[seat] += 1
    return search(tb, rules, room[2], seat, kind, melded_before, key, own, room, rewards, work)


@kernel()
def expert_turn(
    tb: Lookups, rules: np.ndarray, h: Hand, seat: int, own: np.ndarray, key: np.uint64, room: np.ndarray,
    rewards: np.ndarray, work: Work,
) -> int:  # fmt: skip
    """Play one turn of the expert in `seat` (R4), as `Expert` plays it on the reference engine.

    Return what `policy_turn` returns. ``h.keys[seat]`` is its stream's key and ``h.draws[seat]``
    counts its decisions this game; `room` holds three hands (two to search in, one for its
    view) and `rewards` the candidates' rewards.
    """
    if blocked(h.counts[STOCK], rules[STOCK_OUT] == 1):  # R12.3, at the start of every turn
        return BLOCKED
    melded_before = h.has_melded[seat] == 1
    h.counts[DRAWN] = h.counts[TAKEN] = -1
    takes = h.counts[PILE] > 0 and _asks(tb, rules, h, seat, DRAW, melded_before, own, room, rewards, work) == 1
    if drawn_step(rules, h, seat, takes, key) < 0:
        return STALLED
    option = _asks(tb, rules, h, seat, PLAY, melded_before, own, room, rewards, work)
    v = room[2]
    view_of(h, seat, v)
    n = planned(tb, rules, v, seat, option, own, work)
    for i in range(n):
        h.plays[i, 0], h.plays[i, 1], h.plays[i, 2] = v.plays[i, 0], v.plays[i, 1], v.plays[i, 2]
    out = played_step(tb, rules, h, seat, n)
    if out:
        return out
    return discarded_step(h, seat, _asks(tb, rules, h, seat, DISCARD, melded_before, own, room, rewards, work))


@njit(cache=True)
def decide(
    tables: np.ndarray, rules: np.ndarray, view: np.ndarray, me: int, kind: int, melded_before: bool,
    key: np.uint64, own: np.ndarray, room: np.ndarray, rewards: np.ndarray, work: np.ndarray,
) -> int:  # fmt: skip
    """Return seat `me`'s move: for the draw 1 to take the discard and 0 the stock, for the melds the plan
    (0 the default's, 1 the other), for the discard the card.

    `view` is the seat's view (a one-record `HAND` array, `expert_calls.view_record`);
    `melded_before` whether it had melded before this turn (going rummy, R8.3); `own` its
    parameters (a `PARAMS` row: its budget, its default's, how it models the others,
    `playout_params`). `room` is room for two hands; `rewards` (at least ``MAX_CANDIDATES`` x
    ``samples``) receives each candidate's reward per deal; `work` is a one-record `WORK` array.
    """
    return search(tables[0], rules, view[0], me, kind, melded_before, key, own, room, rewards, work[0])


@njit(cache=True)
def determinized(
    tables: np.ndarray, view: np.ndarray, me: int, key: np.uint64, store: np.ndarray, keep: int = 0
) -> None:
    """Deal a seat's unseen cards into ``store[0]`` as its search does (`determinize`), from its view alone."""
    determinize(tables[0], view[0], me, store[0], key, keep)


@njit(cache=True)
def plays_of(
    tables: np.ndarray, rules: np.ndarray, view: np.ndarray, me: int, option: int, own: np.ndarray, work: np.ndarray
) -> int:
    """Write plan `option` (0 the default's, 1 the other, `decide`) into ``view[0].plays``; return how many plays."""
    return planned(tables[0], rules, view[0], me, option, own, work[0])
