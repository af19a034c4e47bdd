"""Conditions at the stock's edges, where the engines' rules of an empty stock meet (R3.3, R4.8, R10, R12.3).

Cards are dealt so that the first stock holds 0, 1 or 3 cards (`SIZES`), under rebuild and
turn limits of 0 and 1 and block rummy (`LIMITS`), each with every compiled bot seated
(`lineups`). tests/test_differential.py plays them on both engines; tests/test_plants.py
imports this module in a subprocess, on a planted copy of the package, to show that they
catch a planted difference (`first_difference`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from rummysim.compiled.layout import POLICIES
from rummysim.design import Condition
from rummysim.rules import Rules

SIZES: dict[int, tuple[tuple[int, int], ...]] = {
    0: ((3, 17),),
    1: ((2, 25), (5, 10)),
    3: ((2, 24), (4, 12), (6, 8)),
}
"""Cards left in the first stock -> the (players, cards dealt) that leave them: 52 - n x k - 1 (R3.2, R3.3)."""

SHORT = {"target_score": 60, "max_hands": 3}
"""Every edge condition's game: a few hands (R11)."""

LIMITS: dict[str, dict[str, object]] = {
    "rebuilds0": {"stall_after_rebuilds": 0},
    "rebuilds1": {"stall_after_rebuilds": 1},
    "turns1": {"stall_after_turns": 1, "stall_after_hands": 1},
    "turns4": {"stall_after_turns": 4, "stall_after_rebuilds": 1},
    "block": {"stock_out": "block"},
    "discard_rebuilds1": {"going_out": "discard", "stall_after_rebuilds": 1, "ace": "high_or_low"},
    "house": {"stock_out": "block", "take_discard": "must_use", "lay_off": "after_meld", "going_out": "discard"},
    "house_rebuild1": {"take_discard": "must_use", "lay_off": "after_meld", "stall_after_rebuilds": 1},
}
"""The limits that meet an empty stock: no rebuild, one rebuild (also going out by a discard, R7.2, with the ace
high or low, R9), a turn limit of one and of a few (R10.2), block rummy alone and with the other house rules (R12)."""


def lineups(n: int) -> list[tuple[str, ...]]:
    """Return lineups of `n` compiled bots that together seat every one of them (`POLICIES`)."""
    return [tuple(POLICIES[(start + i) % len(POLICIES)] for i in range(n)) for start in range(0, len(POLICIES), n)]


def edge_conditions(limits: Iterable[str] = LIMITS) -> Iterator[Condition]:
    """Yield every edge condition: each size of `SIZES` x each limit of `limits` x each lineup."""
    sizes = [size for per_stock in SIZES.values() for size in per_stock]
    for (n, k), limit in itertools.product(sizes, limits):
        rules = Rules(n_players=n, cards_dealt=k, **SHORT, **LIMITS[limit])  # type: ignore[arg-type]
        for i, lineup in enumerate(lineups(n)):
            players = tuple({"strategy": name} for name in lineup)
            yield Condition(f"edge-{n}x{k}-{limit}-{i}", rules, players)


EDGES: list[Condition] = list(edge_conditions())
"""The edge grid."""
SEEDS = (7, 2026)
GAMES = 4
"""Each edge condition plays `GAMES` games from each of `SEEDS`."""


def first_difference(
    conditions: Iterable[Condition], *, seeds: Iterable[int] = SEEDS, games: int = GAMES
) -> str | None:
    """Return the first difference between the engines' tables over `conditions`, or None if there is none."""
    from test_compiled import differences  # loads the compiled kernels

    for condition in conditions:
        for seed in seeds:
            found = differences(condition, seed=seed, games=games)
            if found is not None:
                return found
    return None
