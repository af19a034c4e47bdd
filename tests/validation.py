"""Monte Carlo checks of the report's statistics, with the figures docs/metrics.md quotes.

Each function draws many replications with a known truth and returns how often a
statistic did what it claims (an interval covered the truth, a verdict held). The tests
in tests/test_validation.py assert these rates with a tolerance that fits the number of
replications (`consistent_with`); run this file to print the figures (``null``: only the
false-discovery rate of "what else changes" under no effect, `print_null_rate`):

    PYTHONPATH=. python tests/validation.py [null]
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
from collections.abc import Iterator
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
from rummysim.measures import DEFAULT_MEASURES
from rummysim.report.changes import LABELS, listed
from rummysim.results import MANIFEST, SCHEMAS, Results, load_results

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


def results_of(
    folder: Path, hands: pd.DataFrame, games: pd.DataFrame, *, conditions: list[str], n: int,
    players: list[str] | None = None, measures: list[str] | None = None,
) -> Results:  # fmt: skip
    """Write synthetic tables as a finished run's folder and return its `Results` (as `rummysim report` reads it).

    The experiment seats n greedy bots (or `players`, whose names the tables' ``strategy`` column
    must use) in every condition under the same table size, so its planned comparisons are
    paired, each condition against the first. `measures`: its ``measures:`` (the default if None).
    """
    spec = {
        "name": "luck", "question": "Does a game's luck fool the intervals?", "seed": 0,
        "games": int(games["game"].nunique()), "players": players or ["greedy"] * n,
        "conditions": {c: {"rules": {"ace_points": 1 + i}} for i, c in enumerate(conditions)},
        **({"measures": list(measures)} if measures is not None else {}),
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


# --- What else changes under no effect at all: Benjamini-Hochberg across the descriptive tests -----------------

NULL_DRAWS = 10
"""The uniform draws of one hand in `null_tables` (who wins, points, rummy, ending, turns, a stall)."""
NULL_NAMES = "abcdefgh"
"""The names of `null_tables`' conditions, the first the reference."""


def null_tables(
    rng: np.random.Generator, *, games: int, hands: int, n: int = 3, shared: float = 0.5,
    players: list[str] | None = None, target: int | None = None, stall_after: int = 2, conditions: int = 2,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Return (hands, games) of two paired conditions a and b drawn from ONE process: no metric differs in truth.

    Like `luck_tables`, every game g draws a luck both conditions share: a first dealer, a
    lucky seat (the seat of ``players[0]`` half the time, else any), how lucky it is
    a_g ~ U(1/3, 0.9), a tilt s_g = ±1 of the first seat (the same sign in a and b), a
    richness t_g, a pace, a style of ending and a proneness to stall. Unlike `luck_tables`,
    which plants changes in condition b, both conditions then play hands the same way: each
    hand's draws are the same in a and b with probability `shared` (the same deal played
    alike), else independent. A hand is won by position with probability 0.6 (the first
    player with probability 1/3 + s_g TILT), else by seat (the lucky one with probability
    a_g); it stalls (no winner, R10.2) with the game's probability, up to 0.1; the winner
    scores U{1..19} + floor(40 t_g) points, doubled by a rummy (probability 0.4 t_g, R8.3);
    it ends by a discard, meld or lay-off in shares set by the game's style, after a number
    of turns set by its pace (40 more when it stalls). A game ends when a score reaches
    `target` (12 points a hand by default), after `hands` hands (R11.2), or unfinished after
    `stall_after` stalled hands in a row; the sole top score wins, an equal top is a tie. So
    hands per game, points, turns, endings, rummies, lead changes, comebacks, ties and
    stalled games all vary, a game's hands share its luck, and every difference b - a is 0
    in truth (a and b are exchangeable). `conditions` > 2 adds c, d, ..., each sharing a's
    draws hand by hand as b does: every condition is the same process, every difference 0.
    """
    players = players or ["greedy"] * n
    target = 12 * hands if target is None else target
    seats = np.arange(n)
    strategy = np.array(players)[(seats[None, :] + np.arange(games)[:, None]) % n]  # seat s plays players[(s+g) % n]
    favoured = np.argmax(strategy == players[0], axis=1)
    luck = {
        "first": rng.integers(n, size=games),
        "lucky": np.where(rng.random(games) < 0.5, favoured, rng.integers(n, size=games)),
        "strength": rng.uniform(1.0 / 3.0, 0.9, size=games),
        "tilt": rng.choice([-1.0, 1.0], size=games),
        "rich": rng.random(games),
        "pace": rng.random(games),
        "style": rng.random(games),
        "stall": 0.1 * rng.random(games) ** 3,
    }
    draws = [rng.random((games, hands, NULL_DRAWS))]
    for _ in range(conditions - 1):
        same = rng.random((games, hands)) < shared
        draws.append(np.where(same[..., None], draws[0], rng.random((games, hands, NULL_DRAWS))))
    tables = [
        _null_condition(name, u, n=n, luck=luck, strategy=strategy, target=target, stall_after=stall_after)
        for name, u in zip(NULL_NAMES, draws, strict=False)
    ]
    return pd.concat([t[0] for t in tables], ignore_index=True), pd.concat([t[1] for t in tables], ignore_index=True)


def _null_condition(
    name: str, u: np.ndarray, *, n: int, luck: dict[str, np.ndarray], strategy: np.ndarray, target: int,
    stall_after: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Return the (hands, games) tables of one condition of `null_tables` from its hands' draws `u`."""
    games, hands = u.shape[:2]

    def col(key: str) -> np.ndarray:
        """Return a game's luck as a column, against its hands."""
        return luck[key][:, None]

    dealer = (col("first") + np.arange(hands)[None, :]) % n
    other = 1 + (u[..., 2] * (n - 1)).astype(int)  # an offset to one of the other n - 1 seats or positions
    first_wins = u[..., 1] < 1.0 / n + col("tilt") * TILT
    by_position = (dealer + 1 + np.where(first_wins, 0, other)) % n
    by_seat = np.where(u[..., 3] < col("strength"), col("lucky"), (col("lucky") + other) % n)
    winner = np.where(u[..., 0] < 0.6, by_position, by_seat)
    stalled = u[..., 9] < col("stall")
    rummy = ~stalled & (u[..., 6] < 0.4 * col("rich"))
    multiplier = np.where(rummy, 2, 1)
    points = np.where(stalled, 0, (1 + (u[..., 5] * 19).astype(int) + np.floor(40 * col("rich")).astype(int)))
    points = points * multiplier
    by_discard = 0.35 + 0.3 * col("style")
    by_meld = by_discard + 0.4 - 0.2 * col("style")
    ending = np.where(u[..., 7] < by_discard, "discard", np.where(u[..., 7] < by_meld, "meld", "lay_off"))
    turns = 6 + (-np.log1p(-u[..., 8]) * (10 + 20 * col("pace"))).astype(int) + np.where(stalled, 40, 0)
    # play the hands in order until a game ends: a score reaches the target, the last hand, or a stall-out
    score = np.zeros((games, n), dtype=int)
    scores = np.zeros((games, hands, n), dtype=int)
    played = np.zeros(games, dtype=int)
    in_a_row = np.zeros(games, dtype=int)
    active = np.ones(games, dtype=bool)
    rows = np.arange(games)
    for h in range(hands):
        live = rows[active]
        score[live, winner[live, h]] += points[live, h]
        scores[:, h] = score
        played[live] += 1
        in_a_row[live] = np.where(stalled[live, h], in_a_row[live] + 1, 0)
        active &= ~((score.max(axis=1) >= target) | (in_a_row >= stall_after))
    finished = in_a_row < stall_after
    # one row per hand played and seat
    in_game = np.arange(hands)[None, :] < played[:, None]
    g, h = np.nonzero(in_game)
    g, h, seat = np.repeat(g, n), np.repeat(h, n), np.tile(np.arange(n), len(g))
    won = ~stalled[g, h] & (seat == winner[g, h])
    hands_table = pd.DataFrame({
        "condition": name, "game": g, "hand": h, "seat": seat, "strategy": strategy[g, seat], "dealer": dealer[g, h],
        "position": (seat - dealer[g, h] - 1) % n, "won": won, "points": np.where(won, points[g, h], 0),
        "score": scores[g, h, seat], "went_out_by": np.where(stalled[g, h], None, ending[g, h]),
        "went_rummy": won & rummy[g, h], "multiplier": multiplier[g, h], "stalled": stalled[g, h],
        "turns": turns[g, h], "n_rebuilds": 0, "holding_end": "", "holding_points": 0,
    })[SCHEMAS["hands"].names]  # fmt: skip
    top = score == score.max(axis=1, keepdims=True)
    sole = top.sum(axis=1) == 1
    hands_won = np.zeros((games, n), dtype=int)
    np.add.at(hands_won, (g[won], seat[won]), 1)
    game, game_seat = np.repeat(np.arange(games), n), np.tile(np.arange(n), games)
    games_table = pd.DataFrame({
        "condition": name, "game": game, "seat": game_seat, "strategy": strategy.reshape(-1),
        "score": score.reshape(-1), "won": (top & (sole & finished)[:, None]).reshape(-1),
        "tied": (top & (~sole & finished)[:, None]).reshape(-1), "n_hands": played[game],
        "hands_won": hands_won.reshape(-1), "n_stalled": (stalled & in_game).sum(axis=1)[game],
        "first_dealer": luck["first"][game], "stalled": ~finished[game],
    })[SCHEMAS["games"].names]  # fmt: skip
    return hands_table, games_table


def null_comparisons(
    *,
    reps: int,
    games: int,
    seed: int,
    hands: int = 10,
    shared: float = 0.5,
    players: list[str] | None = None,
    measures: list[str] | None = None,
    conditions: int = 2,
) -> Iterator[list[Comparison]]:
    """Yield the comparisons of `reps` runs of `null_tables`, as `analyze` makes them (Holm, then BH).

    Each run is written as a finished run's folder (`results_of`) and analysed by `analyze`
    with the replication's index as its bootstrap seed, as ``rummysim report`` would: b - a
    (and c - a, ... with more `conditions`), every descriptive test of the run corrected together.
    """
    rng = np.random.default_rng(seed)
    n = len(players) if players else 3
    # statsmodels' Holm calls gc.collect() each time, which walks every object the process holds: those alive
    # now are set aside for the loop (gc.freeze), which changes no result and halves the time of a replication
    gc.freeze()
    try:
        for i in range(reps):
            hand_rows, game_rows = null_tables(
                rng, games=games, hands=hands, n=n, shared=shared, players=players, conditions=conditions
            )
            with tempfile.TemporaryDirectory(prefix="rummysim-null-") as folder:
                results = results_of(Path(folder), hand_rows, game_rows, conditions=list(NULL_NAMES[:conditions]),
                                     n=n, players=players, measures=measures)  # fmt: skip
                analysis = analyze(results, seed=i)
            yield analysis.comparisons
    finally:
        gc.unfreeze()


def excludes_zero(comp: Comparison) -> list[str]:
    """Return the descriptive metrics the old rule listed: their 95% interval excludes zero, uncorrected.

    The metrics "what else changes" may list (`changes.LABELS`), not planned, with events, and
    not exactly zero (every paired game alike): the rule before Benjamini-Hochberg.
    """
    found = []
    for metric, d in comp.differences.items():
        if metric not in LABELS or metric in comp.tests or metric in comp.no_events:
            continue
        if not (d.value == d.low == d.high == 0.0 or np.isnan(d.low) or d.spans_zero):
            found.append(metric)
    return found


def null_descriptive_rate(
    *,
    reps: int,
    games: int,
    seed: int,
    hands: int = 10,
    shared: float = 0.5,
    players: list[str] | None = None,
    measures: list[str] | None = None,
    conditions: int = 2,
) -> tuple[int, int]:
    """Return (runs listing any "what else changes" line, runs with any descriptive interval excluding zero).

    `reps` runs of two paired conditions (or `conditions`) with no true difference in any
    metric (`null_tables`: `games` games of up to `hands` hands, a hand's draws the same as
    the reference's with probability `shared`), analysed as a report is (`null_comparisons`).
    The first count is the report's rule (`changes.listed`: interval excludes zero and
    Benjamini-Hochberg's adjusted p < 0.05), in any comparison of the run; the second the old
    one (`excludes_zero`), for contrast.
    """
    listed_runs = old_runs = 0
    for comps in null_comparisons(reps=reps, games=games, seed=seed, hands=hands, shared=shared, players=players,
                                  measures=measures, conditions=conditions):  # fmt: skip
        listed_runs += any(listed(comp) for comp in comps)
        old_runs += any(excludes_zero(comp) for comp in comps)
    return listed_runs, old_runs


def exact_interval(hits: int, reps: int) -> tuple[float, float]:
    """Return the exact (Clopper-Pearson) 95% interval of a rate `hits` / `reps` (scipy)."""
    ci = stats.binomtest(hits, reps).proportion_ci(confidence_level=0.95, method="exact")
    return float(ci.low), float(ci.high)


def print_null_rate() -> None:
    """Print how often "what else changes" lists a line under no effect (`NULL`...), and the old rule's rate."""
    for scenario in (NULL, NULL_MIXED, NULL_THREE):
        r = scenario["reps"]
        listed_runs, old_runs = null_descriptive_rate(**scenario)
        lineup = ", ".join(scenario.get("players", ["greedy"] * 3))
        measures = ", ".join(scenario.get("measures", DEFAULT_MEASURES))
        print(
            f"No effect on any metric ({r} replications of {scenario.get('conditions', 2)} conditions of "
            f"{scenario['games']} paired games of up to {scenario['hands']} hands, seed {scenario['seed']}; {lineup}; "
            f"measures {measures}): runs listing a descriptive change"
        )
        for name, hits in (("Benjamini-Hochberg and interval (the report)", listed_runs),
                           ("interval excludes zero, uncorrected (the old rule)", old_runs)):  # fmt: skip
            low, high = exact_interval(hits, r)
            print(f"  {name}: {hits} ({hits / r:.3f}, exact 95% interval {low:.3f} to {high:.3f})")


def main() -> None:
    if sys.argv[1:] == ["null"]:  # only the false-discovery figure
        print_null_rate()
        return
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
    print_null_rate()


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
NULL: dict[str, Any] = {"reps": 1000, "games": 2000, "hands": 10, "seed": 20}
"""The null runs docs/metrics.md quotes for `null_descriptive_rate` (tests/test_validation.py runs fewer by default):
three greedy bots, the default measures (the first seat's game-level edge and skill, so 15 metrics are descriptive)."""
NULL_MIXED: dict[str, Any] = {**NULL, "seed": 22, "players": ["cautious", "greedy", "greedy"],
                              "measures": ["dealer_edge_hand"]}  # fmt: skip
"""The same with a mixed lineup that plans only the dealer's edge: the first seat's game-level edge and the measured
strategy's Order are descriptive too, with their exact McNemar tests (16 descriptive metrics)."""
NULL_THREE: dict[str, Any] = {**NULL, "seed": 24, "conditions": 3}
"""Three conditions, so two comparisons (b - a, c - a) whose 30 descriptive tests are corrected together."""


if __name__ == "__main__":
    main()
