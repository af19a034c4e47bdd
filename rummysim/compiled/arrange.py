"""Compiled least-deadwood arrangements: the twin of `rummysim.arrangement.Arranger` (R5, R8.2, R9).

The lookup tables are the reference's own (`rummysim.compiled.lookups.lookups_of` reads
them from the `Arranger` of the rules), and every tie is broken as the reference breaks it: the groups tried
in `itertools.product` order, the dynamic programme's states in the order a Python
dict would hold them, the first best kept. So an arrangement, not only its deadwood,
is the reference's, and bots built on it play the same melds.
"""

from __future__ import annotations

import numpy as np

from rummysim.arrangement import _ACE_HIGH_SEQUENCE_END
from rummysim.cards import N_RANKS
from rummysim.compiled.bits import kernel, lowest, popcount
from rummysim.compiled.lookups import LANE, Lookups

__all__ = ["LANE", "OUT_SIZE", "Lookups", "arrange", "deadwood", "deadwood_cards", "has_meld", "in_meld", "points"]
MELD_ROOM = 24
"""Room for the melds of an arrangement at the start of an ``out`` array."""
_POSITIONS, _STATES = N_RANKS + 1, 256
"""The rank programme's positions (a high ace adds one) and states (2 bits a suit)."""
_COLS, _SEQUENCES, _BEST_COLS, _BEST_SEQUENCES = (MELD_ROOM + i * _POSITIONS for i in range(4))
_F_STATES, _F_COSTS, _N_STATES, _N_COSTS, _WHERE = (MELD_ROOM + 4 * _POSITIONS + i * _STATES for i in range(5))
_PREV = MELD_ROOM + 4 * _POSITIONS + 5 * _STATES
_IN_SEQUENCES_OF = _PREV + _POSITIONS * _STATES
OUT_SIZE = _IN_SEQUENCES_OF + _POSITIONS * _STATES
"""The size of an ``out`` array: the melds, then the rank programme's work space (`_by_ranks`).

The kernels allocate nothing (they run without numba's reference counting, which costs
more than the arrangement itself); the caller's array holds every piece of work.
"""


@kernel(inline=True)
def points(tb: Lookups, mask: int) -> int:
    """`rummysim.cards.points`."""
    p = tb.lane_points
    return p[mask & LANE] + p[(mask >> 13) & LANE] + p[(mask >> 26) & LANE] + p[mask >> 39]


@kernel(inline=True)
def group_ranks(mask: int) -> int:
    c, d, h, s = mask & LANE, (mask >> 13) & LANE, (mask >> 26) & LANE, mask >> 39
    return (c & d & (h | s)) | (h & s & (c | d))


@kernel(inline=True)
def has_meld(tb: Lookups, mask: int) -> bool:
    """`Arranger.has_meld`: three cards of a rank or a sequence lie within the holding (R5)."""
    if group_ranks(mask):
        return True
    dead = tb.lane_dead
    c, d, h, s = mask & LANE, (mask >> 13) & LANE, (mask >> 26) & LANE, mask >> 39
    return dead[c] != c or dead[d] != d or dead[h] != h or dead[s] != s


@kernel(inline=True)
def in_meld(tb: Lookups, card: int, mask: int) -> bool:
    """`Arranger.in_meld`: a card of the mask lies in a meld within it, so it need not be deadwood (R5)."""
    rank = card % 13
    if tb.lane_in_sequence[(mask >> (card - rank)) & LANE] >> rank & 1:
        return True
    column = mask >> rank
    return (column & 1) + (column >> 13 & 1) + (column >> 26 & 1) + (column >> 39 & 1) >= 3


@kernel(inline=True)
def deadwood(tb: Lookups, mask: int, scratch: np.ndarray) -> int:
    """`Arranger.deadwood`: the least deadwood of a holding (R5, R8.2)."""
    t = tb.lane_deadwood
    c, d, h, s = mask & LANE, (mask >> 13) & LANE, (mask >> 26) & LANE, mask >> 39
    ranks = (c & d & (h | s)) | (h & s & (c | d))
    if not ranks:
        return t[c] + t[d] + t[h] + t[s]
    if not ranks & (ranks - 1):
        kept = t[c] + t[d] + t[h] + t[s]
        grouped = t[c & ~ranks] + t[d & ~ranks] + t[h & ~ranks] + t[s & ~ranks]
        best = min(kept, grouped)
        if c & d & h & s & ranks:  # four of a rank: a triple leaves one
            triple = min(
                min(t[c] - t[c & ~ranks], t[d] - t[d & ~ranks]), min(t[h] - t[h & ~ranks], t[s] - t[s & ~ranks])
            )
            best = min(best, grouped + triple)
        return best
    if popcount(ranks) > 3:
        return _by_ranks(tb, mask, scratch)[1]
    return _best_groups_value(tb, mask, ranks)


@kernel(inline=True)
def _one_group(tb: Lookups, mask: int, rank_bit: int) -> int:
    """The group `_best_groups` keeps when exactly one rank has three or four cards (0: none).

    The choices in product order (none, all, then all but one suit's card, suits upward),
    the first of least deadwood kept: a few look-ups, no loop over combinations.
    """
    t = tb.lane_deadwood
    rank = lowest(rank_bit)
    full = _rank_cards(mask, rank)
    c, d, h, s = mask & LANE, (mask >> 13) & LANE, (mask >> 26) & LANE, mask >> 39
    best_value = t[c] + t[d] + t[h] + t[s]
    best = 0
    value = t[c & ~rank_bit] + t[d & ~rank_bit] + t[h & ~rank_bit] + t[s & ~rank_bit]
    if value < best_value:
        best_value, best = value, full
    if popcount(full) == 4:
        for suit in range(4):
            group = full ^ (1 << (13 * suit + rank))
            rest = mask ^ group
            value = t[rest & LANE] + t[(rest >> 13) & LANE] + t[(rest >> 26) & LANE] + t[rest >> 39]
            if value < best_value:
                best_value, best = value, group
    return best


@kernel(inline=True)
def deadwood_cards(tb: Lookups, mask: int, scratch: np.ndarray) -> int:
    """`Arranger.deadwood_cards`: the cards out of the melds of a best arrangement."""
    ranks = group_ranks(mask)
    if ranks & (ranks - 1):
        return arrange(tb, mask, scratch)[0]
    if ranks:
        mask ^= _one_group(tb, mask, ranks)  # the rest's lanes give the deadwood, as `_with_lanes` walks them
    dead = tb.lane_dead
    return (
        dead[mask & LANE] | dead[(mask >> 13) & LANE] << 13 | dead[(mask >> 26) & LANE] << 26 | dead[mask >> 39] << 39
    )


@kernel(inline=True)
def _with_lanes(tb: Lookups, rest: int, out: np.ndarray, n: int) -> tuple[int, int]:
    """Add each lane's best sequences of `rest` to ``out[n:]``; return the meld count and the deadwood."""
    dead = 0
    for suit in range(4):
        lane = (rest >> (13 * suit)) & LANE
        while lane:
            sequence = tb.lane_choice[lane]
            if sequence:
                out[n] = sequence << (13 * suit)
                n += 1
                lane ^= sequence
            else:
                low = lane & -lane
                dead |= low << (13 * suit)
                lane ^= low
    return n, dead


@kernel()
def arrange(tb: Lookups, mask: int, out: np.ndarray) -> tuple[int, int, int]:
    """`Arranger.arrange`: fill ``out`` with the melds, sorted; return (deadwood cards, deadwood, meld count).

    ``out`` has `OUT_SIZE` entries: the melds, then work space.
    """
    ranks = group_ranks(mask)
    if popcount(ranks) > 3:
        return _by_ranks(tb, mask, out)
    n = 0
    rest = mask
    if ranks & (ranks - 1):
        n, rest = _best_groups(tb, mask, ranks, out)
    elif ranks:
        group = _one_group(tb, mask, ranks)
        if group:
            out[0], n, rest = group, 1, mask ^ group
    n, dead = _with_lanes(tb, rest, out, n)
    _sort(out, n)
    return dead, points(tb, dead), n


@kernel(inline=True)
def _option(full: int, rank: int, j: int) -> int:
    """The j-th choice of groups at one rank: none, all its cards, then (four of a rank) all but one suit's."""
    if j == 0:
        return 0
    if j == 1:
        return full
    return full ^ (1 << (13 * (j - 2) + rank))


@kernel()
def _best_groups_value(tb: Lookups, mask: int, ranks: int) -> int:
    """The least deadwood over every choice of groups at up to three ranks (`_best_groups`, value only)."""
    t = tb.lane_deadwood
    best = -1
    r0 = lowest(ranks)
    rest_ranks = ranks & (ranks - 1)
    r1 = lowest(rest_ranks) if rest_ranks else 0
    r2 = lowest(rest_ranks & (rest_ranks - 1)) if rest_ranks & (rest_ranks - 1) else 0
    f0, f1, f2 = _rank_cards(mask, r0), _rank_cards(mask, r1) if rest_ranks else 0, 0
    if rest_ranks & (rest_ranks - 1):
        f2 = _rank_cards(mask, r2)
    n0 = 6 if popcount(f0) == 4 else 2
    n1 = (6 if popcount(f1) == 4 else 2) if f1 else 1
    n2 = (6 if popcount(f2) == 4 else 2) if f2 else 1
    for i0 in range(n0):
        g0 = _option(f0, r0, i0)
        for i1 in range(n1):
            g1 = _option(f1, r1, i1)
            for i2 in range(n2):
                rest = mask ^ (g0 + g1 + _option(f2, r2, i2))
                value = t[rest & LANE] + t[(rest >> 13) & LANE] + t[(rest >> 26) & LANE] + t[rest >> 39]
                if best < 0 or value < best:
                    best = value
    return best


@kernel(inline=True)
def _rank_cards(mask: int, rank: int) -> int:
    """The cards of one rank in a mask."""
    return mask & (1 << rank | 1 << (13 + rank) | 1 << (26 + rank) | 1 << (39 + rank))


@kernel()
def _best_groups(tb: Lookups, mask: int, ranks: int, out: np.ndarray) -> tuple[int, int]:
    """Try every choice of groups over up to three ranks, in `itertools.product` order, first best kept.

    Kept allocation-free: the choices of each rank are made on the fly (`_option`).
    """
    fulls = (0, 0, 0)
    rank_of = (0, 0, 0)
    sizes = (1, 1, 1)
    k = 0
    r = ranks
    while r:
        rank = lowest(r)
        r &= r - 1
        full = 0
        for suit in range(4):
            if (mask >> (13 * suit + rank)) & 1:
                full |= 1 << (13 * suit + rank)
        size = 6 if popcount(full) == 4 else 2
        if k == 0:
            fulls, rank_of, sizes = (full, 0, 0), (rank, 0, 0), (size, 1, 1)
        elif k == 1:
            fulls, rank_of, sizes = (fulls[0], full, 0), (rank_of[0], rank, 0), (sizes[0], size, 1)
        else:
            fulls, rank_of, sizes = (
                (fulls[0], fulls[1], full),
                (rank_of[0], rank_of[1], rank),
                (sizes[0], sizes[1], size),
            )
        k += 1
    t = tb.lane_deadwood
    best_value, b0, b1, b2 = -1, 0, 0, 0
    for i0 in range(sizes[0]):
        g0 = _option(fulls[0], rank_of[0], i0)
        for i1 in range(sizes[1]):
            g1 = _option(fulls[1], rank_of[1], i1)
            for i2 in range(sizes[2]):
                rest = mask ^ (g0 + g1 + _option(fulls[2], rank_of[2], i2))
                value = t[rest & LANE] + t[(rest >> 13) & LANE] + t[(rest >> 26) & LANE] + t[rest >> 39]
                if best_value < 0 or value < best_value:
                    best_value, b0, b1, b2 = value, i0, i1, i2
    n = 0
    rest = mask
    for group in (
        _option(fulls[0], rank_of[0], b0),
        _option(fulls[1], rank_of[1], b1),
        _option(fulls[2], rank_of[2], b2),
    ):
        if group:
            out[n] = group
            n += 1
            rest ^= group
    return n, rest


@kernel(inline=True)
def _sort(out: np.ndarray, n: int) -> None:
    """Sort ``out[:n]`` in place (a few melds: insertion sort, no allocation)."""
    for i in range(1, n):
        value = out[i]
        j = i - 1
        while j >= 0 and out[j] > value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = value


@kernel()
def _by_ranks(tb: Lookups, mask: int, out: np.ndarray) -> tuple[int, int, int]:
    """`Arranger._arrange_by_ranks`: the dynamic programme over ranks, for holdings of four or more group ranks."""
    candidates = 0  # the suits whose lane could end a sequence with a high ace, 4 bits a candidate
    n_candidates = 0
    if tb.ace_high:
        for suit in range(4):
            if (mask >> (13 * suit)) & _ACE_HIGH_SEQUENCE_END == _ACE_HIGH_SEQUENCE_END:
                candidates |= suit << (4 * n_candidates)
                n_candidates += 1
    n_pos = N_RANKS + 1 if tb.ace_high else N_RANKS
    best_cost = -1
    for subset in tb.high_subsets:
        if subset >> n_candidates:
            continue  # uses a candidate this holding does not have
        high = 0
        for i in range(n_candidates):
            if (subset >> i) & 1:
                high |= 1 << ((candidates >> (4 * i)) & 15)
        for rank in range(N_RANKS):
            present = 0
            for suit in range(4):
                if (mask >> (13 * suit + rank)) & 1:
                    present |= 1 << suit
            out[_COLS + rank] = present
        out[_COLS] &= ~high
        if tb.ace_high:
            out[_COLS + N_RANKS] = high
        cost = _rank_programme(tb, out, n_pos)
        if best_cost < 0 or cost < best_cost:
            best_cost = cost
            for pos in range(n_pos):
                out[_BEST_COLS + pos], out[_BEST_SEQUENCES + pos] = out[_COLS + pos], out[_SEQUENCES + pos]
    n, dead = 0, 0
    for pos in range(n_pos):
        left = out[_BEST_COLS + pos] & ~out[_BEST_SEQUENCES + pos]
        rank = pos % N_RANKS
        cards = 0
        for suit in range(4):
            if (left >> suit) & 1:
                cards |= 1 << (13 * suit + rank)
        if popcount(left) >= 3:
            out[n] = cards
            n += 1
        else:
            dead |= cards
    for suit in range(4):
        sequence = 0
        for pos in range(n_pos + 1):
            if pos < n_pos and (out[_BEST_SEQUENCES + pos] >> suit) & 1:
                sequence |= 1 << (13 * suit + pos % N_RANKS)
            elif sequence:
                out[n] = sequence
                n += 1
                sequence = 0
    _sort(out, n)
    return dead, best_cost, n


@kernel()
def _rank_programme(tb: Lookups, out: np.ndarray, n_pos: int) -> int:
    """`Arranger._rank_programme`: least deadwood over the positions ``out[_COLS:]``; the suits in sequences
    go to ``out[_SEQUENCES:]``.

    A state is each suit's open sequence length capped at 3 (2 bits a suit); the frontier is
    kept in insertion order, as the reference's dicts are, so ties resolve alike.
    """
    out[_F_STATES], out[_F_COSTS] = 0, 0
    f_n = 1
    for pos in range(n_pos):
        present = out[_COLS + pos]
        value = tb.values[pos % N_RANKS]
        for state in range(_STATES):
            out[_WHERE + state] = -1
        n_n = 0
        for f in range(f_n):
            state, cost = out[_F_STATES + f], out[_F_COSTS + f]
            short = 0
            for s in range(4):
                length = (state >> (2 * s)) & 3
                if length == 1 or length == 2:
                    short |= 1 << s
            if short & ~present:
                continue  # an open sequence of one or two cards must go on
            free = present & ~short
            extra = free
            while True:
                in_sequences = short | extra
                new_state = 0
                for s in range(4):
                    if (in_sequences >> s) & 1:
                        new_state |= min(((state >> (2 * s)) & 3) + 1, 3) << (2 * s)
                left = popcount(present & ~in_sequences)
                new_cost = cost + (0 if left >= 3 else left * value)
                at = out[_WHERE + new_state]
                step = pos * _STATES + new_state
                if at < 0:
                    out[_WHERE + new_state] = n_n
                    out[_N_STATES + n_n], out[_N_COSTS + n_n] = new_state, new_cost
                    out[_PREV + step], out[_IN_SEQUENCES_OF + step] = state, in_sequences
                    n_n += 1
                elif new_cost < out[_N_COSTS + at]:
                    out[_N_COSTS + at] = new_cost
                    out[_PREV + step], out[_IN_SEQUENCES_OF + step] = state, in_sequences
                if not extra:
                    break
                extra = (extra - 1) & free
        for f in range(n_n):
            out[_F_STATES + f], out[_F_COSTS + f] = out[_N_STATES + f], out[_N_COSTS + f]
        f_n = n_n
    best_cost, best_state = -1, 0
    for f in range(f_n):
        state, cost = out[_F_STATES + f], out[_F_COSTS + f]
        closed = True
        for s in range(4):
            length = (state >> (2 * s)) & 3
            if length == 1 or length == 2:
                closed = False
        if closed and (best_cost < 0 or cost < best_cost or (cost == best_cost and state < best_state)):
            best_cost, best_state = cost, state
    state = best_state
    for pos in range(n_pos - 1, -1, -1):
        out[_SEQUENCES + pos] = out[_IN_SEQUENCES_OF + pos * _STATES + state]
        state = out[_PREV + pos * _STATES + state]
    return best_cost
