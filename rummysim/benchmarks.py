"""Benchmarks behind ``rummysim bench``: figures printed, never asserted in tests.

Each figure is the median of several timed repeats on one process:

- ``hands_per_second``: 2-player greedy-vs-greedy hands through `play_hand`, records
  included, fresh deals from the seed streams;
- ``min_deadwood_per_second``: `Arranger.deadwood` (what bots call) on uniform random
  10-card holding masks, memo cleared first;
- ``min_deadwood_api_per_second``: the public `rummysim.min_deadwood` on lists of card ints.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from rummysim.engine import play_hand
from rummysim.melds import arranger, min_deadwood
from rummysim.rules import Rules
from rummysim.strategies.greedy import Greedy


def _median_rate(run: Callable[[], int], repeats: int) -> tuple[float, list[float]]:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = run()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates), rates


def bench_hands(*, n_hands: int = 2000, repeats: int = 5, seed: int = 2026) -> tuple[float, list[float]]:
    """Return greedy 2-player hands per second (median, all repeats)."""
    rules = Rules()
    bots = [Greedy(), Greedy()]

    def run() -> int:
        for hand in range(n_hands):
            play_hand(bots, rules=rules, seed=seed, game=0, hand=hand, dealer=hand % 2)
        return n_hands

    return _median_rate(run, repeats)


def random_holdings(n: int, *, size: int = 10, seed: int = 2026) -> list[int]:
    """Return `n` uniform random holdings of `size` cards, as masks."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52)).argsort(axis=1)[:, :size]
    return [int(sum(1 << int(c) for c in row)) for row in keys]


def bench_deadwood(*, n_holdings: int = 200_000, repeats: int = 5) -> dict[str, Any]:
    """Return min-deadwood calls per second on random 10-card holdings (mask and public API)."""
    holdings = random_holdings(n_holdings)
    rules = Rules()
    arr = arranger(rules)

    def run_masks() -> int:
        arr.clear_cache()
        deadwood = arr.deadwood
        for mask in holdings:
            deadwood(mask)
        return len(holdings)

    as_lists = [[c for c in range(52) if mask >> c & 1] for mask in holdings[: n_holdings // 4]]

    def run_api() -> int:
        arr.clear_cache()
        for cards in as_lists:
            min_deadwood(cards, rules=rules)
        return len(as_lists)

    mask_rate, mask_rates = _median_rate(run_masks, repeats)
    api_rate, api_rates = _median_rate(run_api, repeats)
    return {
        "min_deadwood_per_second": mask_rate,
        "min_deadwood_runs": mask_rates,
        "min_deadwood_api_per_second": api_rate,
        "min_deadwood_api_runs": api_rates,
    }


def run_benchmarks(*, quick: bool = False) -> dict[str, Any]:
    """Run every benchmark and return the figures with the machine they ran on."""
    scale = 10 if quick else 1
    hands, hand_runs = bench_hands(n_hands=2000 // scale, repeats=3 if quick else 5)
    figures: dict[str, Any] = {"hands_per_second": hands, "hands_runs": hand_runs}
    figures.update(bench_deadwood(n_holdings=200_000 // scale, repeats=3 if quick else 5))
    figures["machine"] = {
        "python": platform.python_version(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
    }
    return figures
