"""The lookup tables of the compiled arrangement and policies: one rules' `Arranger` tables as arrays.

`lookups_of` reads them from the reference's `rummysim.arrangement.Arranger` and
`rummysim.melds.meld_table`, so the compiled kernels (`rummysim.compiled.arrange`,
`rummysim.compiled.policies`) look up the very numbers the reference computes.
"""

from __future__ import annotations

import itertools
from typing import Protocol

import numpy as np

from rummysim.arrangement import arranger
from rummysim.cards import N_RANKS, card_points, lane_points
from rummysim.melds import meld_table
from rummysim.rules import Ace, Rules

LANE = (1 << N_RANKS) - 1
"""One suit's 13 ranks: the bits of a lane."""


class Lookups(Protocol):
    """The fields of a `LOOKUPS` record: one rules' lookup tables, as compiled code reads them.

    A record, not a tuple of arrays: numba passes a record to a called kernel as one pointer,
    where a tuple of eleven arrays cost some 80 arguments a call.
    """

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
    """Every legal meld, sorted (`rummysim.melds.meld_table`): the first ``n_melds``."""
    n_melds: int
    with_start: np.ndarray
    with_melds: np.ndarray
    """The melds holding card c are ``with_melds[with_start[c]:with_start[c + 1]]``, in table order."""
    high_subsets: np.ndarray
    """Subsets of up to four high-ace candidates, as index masks, in `itertools.combinations` order."""
    ace_high: bool


_MELDS = max(len(meld_table(ace)) for ace in Ace)
_WITH = max(sum(bin(meld).count("1") for meld in meld_table(ace)) for ace in Ace)
"""Room for the meld table of any ace setting, and for its melds listed under each of their cards."""
_LANES = 1 << N_RANKS
LOOKUPS = np.dtype(
    [
        *((name, np.int64, (_LANES,)) for name in ("lane_deadwood", "lane_choice", "lane_dead", "lane_points")),
        ("lane_in_sequence", np.int64, (_LANES,)),
        ("values", np.int64, (N_RANKS,)),
        ("rank_order", np.int64, (N_RANKS,)),
        ("melds", np.int64, (_MELDS,)),
        ("n_melds", np.int64),
        ("with_start", np.int64, (53,)),
        ("with_melds", np.int64, (_WITH,)),
        ("high_subsets", np.int64, (16,)),
        ("ace_high", np.bool_),
    ],
    align=True,
)
"""The record of `Lookups`."""


def lookups_of(rules: Rules) -> np.ndarray:
    """Return the lookup tables of `rules` as a one-record array of `LOOKUPS` (kernels read ``tables[0]``)."""
    arr = arranger(rules)
    table = meld_table(rules.ace)
    with_start, with_melds = [0], []
    for card in range(52):
        with_melds += [m for m in table if m >> card & 1]
        with_start.append(len(with_melds))
    values = [card_points(r, ace_value=rules.ace_value) for r in range(N_RANKS)]
    tables = np.zeros(1, LOOKUPS)
    tb = tables[0]
    tb["lane_deadwood"], tb["lane_choice"], tb["lane_dead"] = arr._lane_deadwood, arr._lane_choice, arr._lane_dead_cards
    tb["lane_points"], tb["lane_in_sequence"] = lane_points(rules.ace_value), arr._lane_in_sequence
    tb["values"] = values
    tb["rank_order"] = sorted(range(N_RANKS), key=lambda r: (values[r], r), reverse=True)
    tb["melds"][: len(table)], tb["n_melds"] = table, len(table)
    tb["with_start"], tb["with_melds"][: len(with_melds)] = with_start, with_melds
    tb["high_subsets"] = [sum(1 << i for i in combo) for k in range(5) for combo in itertools.combinations(range(4), k)]
    tb["ace_high"] = rules.ace is Ace.HIGH_OR_LOW
    return tables
