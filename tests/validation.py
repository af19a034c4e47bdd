"""Monte Carlo checks of the report's statistics, with the figures docs/metrics.md quotes.

Each function draws many replications with a known truth and returns how often a
statistic did what it claims (an interval covered the truth, a verdict held). The tests
in tests/test_validation.py assert these rates with a tolerance that fits the number of
replications (`consistent_with`); run this file to print the figures:

    PYTHONPATH=. python tests/validation.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from rummysim.analysis.compare import Comparison, Verdict, compare, holm, rule_out
from rummysim.analysis.frames import game_frame
from rummysim.analysis.metrics import balance_interval, summarize_condition
from rummysim.tables import SCHEMAS

LINEUP = ["strong", "weak", "weak"]


def consistent_with(hits: int, reps: int, rate: float, *, alternative: str = "two-sided") -> bool:
    """Return True if `hits` of `reps` is consistent with a true `rate` (exact binomial test, p > 0.001).

    ``alternative="less"`` asks only that the observed rate be not clearly below `rate`
    (for a conservative interval); ``"greater"`` that it be not clearly above it (for an
    error rate that should be at most `rate`).
    """
    return bool(stats.binomtest(hits, reps, rate, alternative=alternative).pvalue > 0.001)


def balance_coverage(*, n: int, games: int, shares: list[float] | None = None, reps: int, seed: int) -> int:
    """Return how many of `reps` Balance intervals (game level) cover the true Balance.

    Each replication draws the winning start positions of `games` games from `shares`
    (fair seats if None) and builds `balance_interval` from the counts.
    """
    rng = np.random.default_rng(seed)
    p = np.full(n, 1.0 / n) if shares is None else np.asarray(shares)
    truth = 1.0 - (p.max() - p.min())
    hits = 0
    for counts in rng.multinomial(games, p, size=reps):
        e = balance_interval(counts)
        hits += e.low <= truth <= e.high
    return hits


def _tables(name: str, *, winners: np.ndarray, dealers: np.ndarray, points: np.ndarray) -> tuple[pd.DataFrame, ...]:
    """Return one-hand games of three seats (hands, games tables) with the given winning seats."""
    games = len(winners)
    g = np.repeat(np.arange(games), 3)
    seat = np.tile(np.arange(3), games)
    strategy = np.array(LINEUP)[(seat + g) % 3]
    dealer = dealers[g]
    won = seat == winners[g]
    gain = np.where(won, points[g], 0)
    hands = pd.DataFrame({
        "condition": name, "game": g, "hand": 0, "seat": seat, "strategy": strategy, "dealer": dealer,
        "position": (seat - dealer - 1) % 3, "won": won, "points": gain, "score": gain, "went_out_by": "discard",
        "went_rummy": False, "multiplier": 1, "stalled": False, "turns": 20, "n_rebuilds": 0, "holding_end": "",
        "holding_points": 0,
    })[SCHEMAS["hands"].names]  # fmt: skip
    table = pd.DataFrame({
        "condition": name, "game": g, "seat": seat, "strategy": strategy, "score": gain, "won": won, "tied": False,
        "n_hands": 1, "hands_won": won.astype(int), "n_stalled": 0, "first_dealer": dealer, "stalled": False,
    })[SCHEMAS["games"].names]  # fmt: skip
    return hands, table


def paired_comparison(
    rng: np.random.Generator,
    *,
    games: int,
    strong_a: float,
    strong_b: float,
    shared: float,
    seed: int,
    order_margin: float = 0.02,
) -> Comparison:
    """Return the `Comparison` of two paired conditions of one-hand games, after Holm and `rule_out`.

    The strong bot (one seat of three, seats rotated) wins each game with probability
    `strong_a` or `strong_b`; a game's draws are the same in both conditions with
    probability `shared` (the deals' common luck), else independent. The true change
    in Order is (strong_b - strong_a) * 1.5; in the first seat's edge, 0.
    """
    dealers = rng.integers(3, size=games)
    u_a, v_a = rng.random(games), rng.random(games)
    same = rng.random(games) < shared
    u_b = np.where(same, u_a, rng.random(games))
    v_b = np.where(same, v_a, rng.random(games))
    points = rng.integers(1, 40, size=games)
    strong_seat = (-np.arange(games)) % 3  # seat s plays LINEUP[(s + g) % 3]: the strong bot sits at -g mod 3
    summaries = []
    for name, u, v, p in (("a", u_a, v_a, strong_a), ("b", u_b, v_b, strong_b)):
        weak = (strong_seat + 1 + (v < 0.5)) % 3
        winners = np.where(u < p, strong_seat, weak)
        hands, table = _tables(name, winners=winners, dealers=dealers, points=points)
        frame = game_frame(hands, table, n_players=3)
        summary = summarize_condition(frame, name=name, n_players=3, lineup={"strong": 1, "weak": 2}, seed=seed)
        summaries.append((summary, frame))
    comp = compare(summaries[0], summaries[1], paired=True, seed=seed)
    holm([comp])
    rule_out([comp], margins={"first_seat_edge": 1.0, "order": order_margin})
    return comp


def planned_rates(
    *,
    reps: int,
    games: int,
    strong_a: float,
    strong_b: float,
    shared: float = 0.5,
    seed: int,
    order_margin: float = 0.02,
) -> dict[str, int]:
    """Return counts over `reps` paired comparisons: claims, coverage, equivalence, and detectable changes.

    - ``any_holds``: some planned test held after Holm (a difference HOLDS, or the seats DIFFER);
    - ``order_holds``: the Order change held after Holm;
    - ``order_covered``: the Order change's 95% interval covered the true change;
    - ``edge_covered``: the first seat's edge change's interval covered 0 (its true change);
    - ``order_within``: the Order change was declared within its margin (`order_margin`);
    - ``detectable``: the sum of the reported detectable Order changes times 1e6 (for their mean).
    """
    rng = np.random.default_rng(seed)
    truth = (strong_b - strong_a) * 1.5
    counts = dict.fromkeys(("any_holds", "order_holds", "order_covered", "edge_covered", "order_within"), 0)
    counts["detectable"] = 0
    for i in range(reps):
        comp = paired_comparison(
            rng, games=games, strong_a=strong_a, strong_b=strong_b, shared=shared, seed=i, order_margin=order_margin
        )
        verdicts = [comp.verdict(m) for m in ("first_seat_advantage_game", "order")]
        seats = comp.distribution_verdict("seat_distribution_game")
        counts["any_holds"] += Verdict.HOLDS in verdicts or seats is Verdict.DIFFERS
        counts["order_holds"] += verdicts[1] is Verdict.HOLDS
        order, edge = comp.differences["order"], comp.differences["first_seat_advantage_game"]
        counts["order_covered"] += order.low <= truth <= order.high
        counts["edge_covered"] += edge.low <= 0.0 <= edge.high
        counts["order_within"] += comp.bounds["order"].equivalent
        counts["detectable"] += round(comp.bounds["order"].detectable * 1e6)
    return counts


def main() -> None:
    reps = 2000
    print(f"Balance (game level), {reps} replications each: coverage of the true Balance")
    for n in (2, 3, 4, 6):
        for games in (300, 20_000):
            fair = balance_coverage(n=n, games=games, reps=reps, seed=n * games)
            tilted = [1.0 / n + 0.02] + [1.0 / n] * (n - 2) + [1.0 / n - 0.02]
            biased = balance_coverage(n=n, games=games, shares=tilted, reps=reps, seed=n * games + 1)
            print(f"  n={n} games={games:>6}: fair {fair / reps:.3f}, first seat +2 pp {biased / reps:.3f}")
    for name, scenario in SCENARIOS.items():
        counts = planned_rates(**scenario)
        r = scenario["reps"]
        rates = ", ".join(f"{k} {v / r:.3f}" for k, v in counts.items() if k != "detectable")
        print(f"{name} ({r} replications, {scenario['games']} paired games): {rates}, "
              f"mean detectable Order change {counts['detectable'] / r / 1e6:.4f}")  # fmt: skip


SCENARIOS: dict[str, dict[str, Any]] = {
    # no change at all: the false-positive rate of "holds" and the coverage of a zero change
    "no effect": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.5, "seed": 101},
    # a true Order change of 0.10, the detectable change these runs report (0.099 on average): power and coverage
    "at the detectable change": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.5 + 0.10 / 1.5,
                                 "seed": 102},
    # a true Order change exactly at the margin (0.15): how often is it called "within the margin"?
    "at the margin": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.6, "seed": 103,
                      "order_margin": 0.15},
}  # fmt: skip


if __name__ == "__main__":
    main()
