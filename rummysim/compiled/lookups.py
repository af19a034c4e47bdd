"""The lookup tables of the compiled arrangement and policies: one rules' `Arranger` tables as arrays.

`Lookups.of` reads them from the reference's `rummysim.arrangement.Arranger` and
`rummysim.melds.meld_table`, so the compiled kernels (`rummysim.compiled.arrange`,
`rummysim.compiled.policies`) look up the very numbers the reference computes.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from rummysim.arrangement import arranger
from rummysim.cards import N_RANKS, card_points, lane_points
from rummysim.melds import meld_table
from rummysim.rules import Ace, Rules

LANE = (1 << N_RANKS) - 1
"""One suit's 13 ranks: the bits of a lane."""


class Lookups(NamedTuple):
    """The lookup tables of one ace setting and ace value, as arrays for compiled code."""

    lane_deadwood: np.ndarray
    """Least sequences-only deadwood of each 13-bit lane."""
    lane_choice: np.ndarray
    """The sequence that achieves it (0: the lowest card is deadwood)."""
    lane_dead: np.ndarray
    """The cards of each lane left out of its best sequences."""
    lane_points: np.ndarray
    lane_in_sequence: np.ndarray
    """The cards of each lane that lie in a sequence within it."""
    values: np.ndarray
    """Points of each rank (R8.2, R9.2)."""
    rank_order: np.ndarray
    """Ranks by points then rank, highest first (`rummysim.cards.highest_card`)."""
    melds: np.ndarray
    """Every legal meld, sorted (`rummysim.melds.meld_table`)."""
    with_start: np.ndarray
    with_melds: np.ndarray
    """The melds holding card c are ``with_melds[with_start[c]:with_start[c + 1]]``, in table order."""
    high_subsets: np.ndarray
    """Subsets of up to four high-ace candidates, as index masks, in `itertools.combinations` order."""
    ace_high: bool

    @classmethod
    def of(cls, rules: Rules) -> Lookups:
        arr = arranger(rules)
        table = meld_table(rules.ace)
        with_start, with_melds = [0], []
        for card in range(52):
            with_melds += [m for m in table if m >> card & 1]
            with_start.append(len(with_melds))
        values = [card_points(r, ace_value=rules.ace_value) for r in range(N_RANKS)]
        order = sorted(range(N_RANKS), key=lambda r: (values[r], r), reverse=True)
        subsets = [sum(1 << i for i in combo) for k in range(5) for combo in itertools.combinations(range(4), k)]
        i64 = np.int64
        return cls(
            np.array(arr._lane_deadwood, i64), np.array(arr._lane_choice, i64), np.array(arr._lane_dead_cards, i64),
            np.array(lane_points(rules.ace_value), i64), np.array(arr._lane_in_sequence, i64), np.array(values, i64),
            np.array(order, i64), np.array(table, i64), np.array(with_start, i64), np.array(with_melds, i64),
            np.array(subsets, i64),
            rules.ace is Ace.HIGH_OR_LOW,
        )  # fmt: skip
