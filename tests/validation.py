"""Monte Carlo checks of the report's statistics, with the figures docs/metrics.md quotes.

Each function draws many replications with a known truth and returns how often a
statistic did what it claims (an interval covered the truth, a verdict held). The tests
in tests/test_validation.py assert these rates with a tolerance that fits the number of
replications (`consistent_with`); run this file to print the figures:

    PYTHONPATH=. python tests/validation.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import stats
from statsmodels.stats.proportion import proportion_confint, test_proportions_2indep

from rummysim.analysis import analyze
from rummysim.analysis.compare import Comparison, Verdict, compare, holm, rule_out
from rummysim.analysis.equivalence import detectable, spread
from rummysim.analysis.frames import game_frame
from rummysim.analysis.metrics import balance_interval, summarize_condition
from rummysim.experiment import parse_experiment
from rummysim.tables import MANIFEST, SCHEMAS, Results, load_results

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


def unpaired_power(*, reps: int, games: int, seed: int, share: float = 1 / 3, tests: int = 3) -> tuple[float, int]:
    """Return (the mean reported detectable change, how often a change that large holds) for unpaired shares.

    Two independent conditions of `games` games each, a yes/no per game (the first seat
    won) with probability `share` in a and `share` + c in b, where c is the detectable
    change such runs report when the true change is c (`equivalence.detectable`, found by
    iterating from c = 0); then that change planted, counting how often the
    Miettinen-Nurminen score test rejects at Holm's first level α/m.
    """
    rng = np.random.default_rng(seed)
    change = 0.0
    for _ in range(3):  # the reported change depends a little on the true one: its fixed point
        found = [
            detectable(spread(rng.random(games) < share, rng.random(games) < share + change, paired=False), tests=tests)
            for _ in range(200)
        ]
        change = float(np.mean(found))
    held = 0
    for _ in range(reps):
        a, b = int((rng.random(games) < share).sum()), int((rng.random(games) < share + change).sum())
        test = test_proportions_2indep(b, games, a, games, compare="diff", method="score", correction=True)
        held += test.pvalue < 0.05 / tests
    return change, held


# --- Hands correlated within a game and with its outcome -------------------------------------------------------

HAND_METRICS = ("first_seat_advantage_hand", "points_per_hand", "rummy_rate")
"""The hand-level metrics whose intervals `luck_coverage` measures."""
TILT = 1.0 / 3.0
"""A tilted game's position component gives the first seat 1/3 ± TILT (see `luck_tables`): 2/3 or 0."""
TRUTH = {
    "a": {"first_seat_advantage_hand": 0.0, "points_per_hand": 10.0 + 19.5, "rummy_rate": 0.2},
    "b": {"first_seat_advantage_hand": 0.0, "points_per_hand": 10.0 + 29.5, "rummy_rate": 0.2},
    "b - a": {"first_seat_advantage_hand": 0.0, "points_per_hand": 10.0, "rummy_rate": 0.0},
}
"""The true value of each hand-level metric in conditions a and b of `luck_tables`, and of b - a."""


def luck_tables(rng: np.random.Generator, *, games: int, hands: int, n: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (hands, games) of two paired conditions a and b whose games each have a latent luck.

    Every game g draws, shared by both conditions: a first dealer; a lucky seat; how lucky
    it is, a_g ~ U(1/3, 0.9); a tilt s_g = ±1 of the first seat; a richness t_g ~ U(0, 1).
    Each hand, with probability 0.6 the position component picks the winner (the seat that
    plays first with probability 1/3 + s_g TILT = 2/3 or 0, in b 1/3 - s_g TILT: the change
    reverses which deals favour the first seat; else one of the others), otherwise the seat
    component does (the lucky seat with probability a_g, else one of the others). The
    winner scores U{1..19} + floor(40 t_g) points (floor(60 t_g) in b) and goes rummy with
    probability 0.4 t_g (0.4 (1 - t_g) in b). The game's winner is the seat with the highest
    final score (ties broken at random), so the lucky seat usually wins: a game's hands are
    correlated with each other and with its outcome. The hand draws are independent between
    a and b given the game's luck. The true values are `TRUTH`: by symmetry over the tilt and
    the lucky seat, the first seat's hand-level edge is 0 in both; points per hand 29.5 and
    39.5 (a planted change of +10); rummy rate 0.2 in both (a change of 0 that varies by game).
    """
    first = rng.integers(n, size=games)
    lucky = rng.integers(n, size=games)
    strength = rng.uniform(1.0 / 3.0, 0.9, size=games)
    tilt = rng.choice([-1.0, 1.0], size=games)
    rich = rng.random(games)
    g = np.repeat(np.arange(games), hands)
    h = np.tile(np.arange(hands), games)
    dealer = (first[g] + h) % n
    tables = []
    for name, sign, scale, rummy in (("a", 1.0, 40, 0.4 * rich), ("b", -1.0, 60, 0.4 * (1.0 - rich))):
        size = len(g)
        other = 1 + rng.integers(n - 1, size=size)  # an offset to one of the other n - 1 seats or positions
        first_wins = rng.random(size) < 1.0 / n + sign * tilt[g] * TILT
        by_position = (dealer + 1 + np.where(first_wins, 0, other)) % n
        by_seat = np.where(rng.random(size) < strength[g], lucky[g], (lucky[g] + other) % n)
        winner = np.where(rng.random(size) < 0.6, by_position, by_seat)
        points = rng.integers(1, 20, size=size) + np.floor(scale * rich[g]).astype(int)
        went_rummy = rng.random(size) < rummy[g]
        tables.append(_luck_condition(name, n=n, hands=hands, dealer=dealer, winner=winner, points=points,
                                      went_rummy=went_rummy, first=first, rng=rng))  # fmt: skip
    return pd.concat([t[0] for t in tables], ignore_index=True), pd.concat([t[1] for t in tables], ignore_index=True)


def _luck_condition(
    name: str, *, n: int, hands: int, dealer: np.ndarray, winner: np.ndarray, points: np.ndarray,
    went_rummy: np.ndarray, first: np.ndarray, rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Return the (hands, games) tables of one condition of `luck_tables` from its hands' winners."""
    games = len(first)
    rows = len(winner)
    seat = np.tile(np.arange(n), rows)
    row = np.repeat(np.arange(rows), n)
    won = seat == winner[row]
    gain = np.where(won, points[row], 0)
    score = np.cumsum(gain.reshape(games, hands, n), axis=1).reshape(-1)
    hands_table = pd.DataFrame({
        "condition": name, "game": row // hands, "hand": row % hands, "seat": seat, "strategy": "greedy",
        "dealer": dealer[row], "position": (seat - dealer[row] - 1) % n, "won": won, "points": gain, "score": score,
        "went_out_by": "discard", "went_rummy": won & went_rummy[row], "multiplier": 1, "stalled": False, "turns": 20,
        "n_rebuilds": 0, "holding_end": "", "holding_points": 0,
    })[SCHEMAS["hands"].names]  # fmt: skip
    final = score.reshape(games, hands, n)[:, -1, :]
    top = np.argmax(final + rng.random(final.shape) * 0.5, axis=1)  # scores are whole: the noise only breaks ties
    game_seat = np.tile(np.arange(n), games)
    game = np.repeat(np.arange(games), n)
    games_table = pd.DataFrame({
        "condition": name, "game": game, "seat": game_seat, "strategy": "greedy", "score": final.reshape(-1),
        "won": game_seat == top[game], "tied": False, "n_hands": hands,
        "hands_won": won.reshape(games, hands, n).sum(axis=1).reshape(-1), "n_stalled": 0,
        "first_dealer": first[game], "stalled": False,
    })[SCHEMAS["games"].names]  # fmt: skip
    return hands_table, games_table


def results_of(folder: Path, hands: pd.DataFrame, games: pd.DataFrame, *, conditions: list[str], n: int) -> Results:
    """Write synthetic tables as a finished run's folder and return its `Results` (as `rummysim report` reads it).

    The experiment seats n greedy bots in every condition under the same table size, so its
    planned comparisons are paired, each condition against the first.
    """
    spec = {
        "name": "luck", "question": "Does a game's luck fool the intervals?", "seed": 0,
        "games": int(games["game"].nunique()), "players": ["greedy"] * n,
        "conditions": {c: {"rules": {"ace_points": 1 + i}} for i, c in enumerate(conditions)},
    }  # fmt: skip
    experiment = parse_experiment(spec, source="luck.yaml")
    manifest = {"experiment": experiment.to_dict(), "source": "luck.yaml"}
    (folder / MANIFEST).write_text(json.dumps(manifest))
    for kind, table in (("hands", hands), ("games", games)):
        pq.write_table(pa.Table.from_pandas(table, schema=SCHEMAS[kind], preserve_index=False),
                       folder / f"{kind}.parquet")  # fmt: skip
    return load_results(folder)


def naive_intervals(hands: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Return 95% intervals of the hand-level metrics that treat every hand as an independent unit.

    Keys: ``metric`` for condition a, ``metric (b)`` and ``metric (b - a)``: Wilson intervals
    over hands for the first seat's edge and the rummy rate, a normal interval of the mean
    points over hands; for b - a, a normal interval of the mean per-hand difference (hand h
    of game g in b less the same hand in a), as if hands, not games, were paired units.
    """
    winners = hands[hands["won"]].sort_values(["condition", "game", "hand"])
    values = {}
    for name, rows in winners.groupby("condition"):
        values[name] = {
            "first_seat_advantage_hand": (rows["position"] == 0).to_numpy(dtype=float),
            "points_per_hand": rows["points"].to_numpy(dtype=float),
            "rummy_rate": rows["went_rummy"].to_numpy(dtype=float),
        }
    out: dict[str, tuple[float, float]] = {}
    for name, suffix in (("a", ""), ("b", " (b)")):
        for metric, x in values[name].items():
            if metric == "points_per_hand":
                half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
                out[metric + suffix] = (x.mean() - half, x.mean() + half)
            else:
                low, high = proportion_confint(int(x.sum()), len(x), alpha=0.05, method="wilson")
                shift = 1.0 / 3.0 if metric == "first_seat_advantage_hand" else 0.0
                out[metric + suffix] = (float(low) - shift, float(high) - shift)
    for metric in HAND_METRICS:
        d = values["b"][metric] - values["a"][metric]
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        out[f"{metric} (b - a)"] = (d.mean() - half, d.mean() + half)
    return out


def luck_coverage(*, reps: int, games: int, hands: int, seed: int) -> dict[str, dict[str, int]]:
    """Return how many of `reps` 95% intervals covered the true hand-level metrics of `luck_tables`.

    Each replication draws two paired conditions of `games` games of `hands` hands with a
    latent luck per game, writes them as a run's folder and runs `analyze` (bootstrap seed
    = the replication's index). Counts, under ``"analysis"`` (the report's intervals) and
    ``"naive"`` (`naive_intervals`, hands as units), keyed ``metric`` for condition a,
    ``metric (b)`` and ``metric (b - a)`` for the paired difference.
    """
    rng = np.random.default_rng(seed)
    counts: dict[str, dict[str, int]] = {"analysis": {}, "naive": {}}
    for i in range(reps):
        hand_rows, game_rows = luck_tables(rng, games=games, hands=hands)
        with tempfile.TemporaryDirectory(prefix="rummysim-luck-") as folder:
            analysis = analyze(results_of(Path(folder), hand_rows, game_rows, conditions=["a", "b"], n=3), seed=i)
        (comparison,) = analysis.comparisons
        found = {}
        for metric in HAND_METRICS:
            for key, estimate in ((metric, analysis.condition("a").metrics[metric]),
                                  (f"{metric} (b)", analysis.condition("b").metrics[metric]),
                                  (f"{metric} (b - a)", comparison.differences[metric])):  # fmt: skip
                found[key] = (estimate.low, estimate.high)
        for kind, intervals in (("analysis", found), ("naive", naive_intervals(hand_rows))):
            for key, (low, high) in intervals.items():
                metric, _, which = key.partition(" (")
                truth = TRUTH[which.rstrip(")") or "a"][metric]
                counts[kind][key] = counts[kind].get(key, 0) + int(low <= truth <= high)
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
        r = SCENARIO_REPS
        counts = planned_rates(**{**scenario, "reps": r})
        rates = ", ".join(f"{k} {v / r:.3f}" for k, v in counts.items() if k != "detectable")
        print(f"{name} ({r} replications, {scenario['games']} paired games): {rates}, "
              f"mean detectable Order change {counts['detectable'] / r / 1e6:.4f}")  # fmt: skip
    change, held = unpaired_power(reps=4000, games=3000, seed=31)
    print(f"unpaired score test at the reported detectable change {change:.4f} (4000 replications of 3000 games "
          f"a condition): holds in {held / 4000:.3f}")  # fmt: skip
    r = LUCK["reps"]
    luck = luck_coverage(**LUCK)
    print(
        f"Hands correlated within a game ({r} replications of {LUCK['games']} paired games of {LUCK['hands']} "
        f"hands, seed {LUCK['seed']}): coverage of the report's intervals / of intervals over hands as units"
    )
    for key in luck["analysis"]:
        print(f"  {key}: {luck['analysis'][key] / r:.3f} / {luck['naive'][key] / r:.3f}")  # fmt: skip


SCENARIOS: dict[str, dict[str, Any]] = {
    # no change at all: the false-positive rate of "holds" and the coverage of a zero change
    "no effect": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.5, "seed": 101},
    # a true Order change of 0.108, the detectable change these runs report (0.108 on average): power and coverage
    "at the detectable change": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.5 + 0.108 / 1.5,
                                 "seed": 102},
    # a true Order change exactly at the margin (0.15): how often is it called "within the margin"?
    "at the margin": {"reps": 200, "games": 600, "strong_a": 0.5, "strong_b": 0.6, "seed": 103,
                      "order_margin": 0.15},
}  # fmt: skip
SCENARIO_REPS = 2000
"""The replications of each scenario docs/metrics.md quotes (tests/test_validation.py runs `SCENARIOS`' reps)."""
LUCK: dict[str, int] = {"reps": 1000, "games": 200, "hands": 10, "seed": 10}
"""The replications docs/metrics.md quotes for `luck_coverage` (tests/test_validation.py runs fewer by default)."""


if __name__ == "__main__":
    main()
