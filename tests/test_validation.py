"""The report's statistics do what they claim, measured over many replications with a known truth.

Tolerances fit the number of replications: a rate passes when an exact binomial test
cannot tell it from the nominal one at p = 0.001 (`validation.consistent_with`).
docs/metrics.md quotes the figures `python tests/validation.py` prints.
"""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import synthetic_tables
from validation import balance_coverage, consistent_with

from rummysim.analysis.frames import game_frame
from rummysim.analysis.metrics import balance_interval, summarize_condition


def test_consistent_with_rejects_a_rate_far_from_the_nominal_one():
    assert consistent_with(950, 1000, 0.95) and not consistent_with(900, 1000, 0.95)
    assert consistent_with(990, 1000, 0.95, alternative="less") and not consistent_with(990, 1000, 0.95)
    assert not consistent_with(80, 1000, 0.05, alternative="greater")


def test_balance_interval_reaches_one_at_a_fair_table_and_not_at_a_tilted_one():
    assert balance_interval(np.array([1000, 1000, 1000])).high == 1.0
    tilted = balance_interval(np.array([1200, 1000, 800]))
    assert tilted.high < 1.0 and tilted.low <= 1 - 400 / 3000 <= tilted.high


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("games", [300, 20_000])
def test_balance_interval_covers_a_fair_table_at_least_95_percent_of_the_time(n, games):
    """Issue 13: the bootstrap interval covered 1 at a fair table in 0 of 200 runs; Goodman's box does."""
    reps = 1000
    hits = balance_coverage(n=n, games=games, reps=reps, seed=games + n)
    assert consistent_with(hits, reps, 0.95, alternative="less"), hits / reps


@pytest.mark.parametrize("n", [2, 3, 6])
def test_balance_interval_covers_a_tilted_table_at_least_95_percent_of_the_time(n):
    reps = 1000
    shares = [1.0 / n + 0.03] + [1.0 / n] * (n - 2) + [1.0 / n - 0.03]
    hits = balance_coverage(n=n, games=3000, shares=shares, reps=reps, seed=n)
    assert consistent_with(hits, reps, 0.95, alternative="less"), hits / reps


@pytest.mark.slow
def test_balance_of_a_whole_report_covers_a_fair_table():
    """Through the analysis of whole synthetic tables (300 games, 3 seats), as issue 13 measured it."""
    rng = np.random.default_rng(13)
    reps, hits = 200, 0
    for i in range(reps):
        hands, games = synthetic_tables(rng, games=300, hands=2)
        frame = game_frame(hands, games, n_players=3)
        summary = summarize_condition(frame, name="c", n_players=3, lineup={"greedy": 3}, seed=i)
        e = summary.metrics["balance_game"]
        hits += e.low <= 1.0 <= e.high
    assert consistent_with(hits, reps, 0.95, alternative="less"), hits / reps
