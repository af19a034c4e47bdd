"""The metrics of one condition: fairness, skill, and how its hands and games go.

Formulas and sources are in docs/metrics.md. In short, with n seats:

- seat win share r_p: the share of decided hands won from position p (hand level), or
  of decided games won by the seat that started at position p (game level); Wilson 95%.
- first-seat advantage r_0 - 1/n; Balance 1 - max |r_a - r_b| (game level: with an
  interval from Goodman's simultaneous seat intervals; hand level: a point value); a
  chi-square test of uniform seats (scipy) with Cohen's effect size w = sqrt(chi2 / N).
- strategy win share w (games won by any of its k seats), per seat w / k, and Order
  (w - k/n) / (1 - k/n): 0 at its fair share k/n, 1 when its seats win every game.
- means over hands (points, turns, endings, rummies) are ratios of per-game sums with a
  bootstrap over whole games, one set of resamples for all of them; per-game means (game
  length, lead changes) likewise.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import multinomial_proportions_confint

from rummysim.analysis.estimates import LEVEL, Estimate, ratio_estimates, wilson
from rummysim.analysis.frames import ENDINGS


def _ended_by(ending: str) -> str:
    """Return an ending (`ENDINGS`) as the metric's description says it."""
    if ending == "block":
        return "a block (R12.3), a tie for the lowest hand value included"
    return ending.replace("_", "-")


RATIOS: dict[str, tuple[str, str, str]] = {
    # metric: (numerator column, denominator column, what it is)
    "points_per_hand": ("points", "hands", "points scored per hand (R8), stalled hands count 0"),
    "turns_per_hand": ("turns", "hands", "turns per hand, all seats"),
    **{f"ended_by_{e}": (f"end_{e}", "hands", f"share of hands ended by {_ended_by(e)}") for e in ENDINGS},
    "rummy_rate": ("rummies", "decided_hands", "share of decided hands won by going rummy (R8.3)"),
    "rummy_point_share": ("rummy_points", "points", "share of all points scored by rummy hands"),
    "hands_per_game": ("hands", "one", "hands per game (R11)"),
    "lead_changes": ("lead_changes", "one", "lead changes per game"),
}
PROPORTIONS: dict[str, tuple[str, str, str]] = {
    "comeback_rate": ("comeback", "decided", "share of decided games won by a seat behind at half-time"),
    "tied_games": ("tied", "all", "share of games tied for first (R11)"),
    "stalled_games": ("stalled", "all", "share of games ended unfinished (R10.2)"),
}


def seed_for(*names: object, base: int = 0) -> int:
    """Return a stable bootstrap seed for a metric, so a report is the same every time."""
    return (base * 1_000_003 + zlib.crc32("|".join(map(str, names)).encode())) % 2**32


@dataclass(frozen=True)
class Uniformity:
    """A chi-square test that every seat wins equally often, with its effect size."""

    chi2: float
    p: float
    w: float
    """Cohen's w = sqrt(chi2 / N): 0.1 small, 0.3 medium, 0.5 large."""
    n: int


@dataclass(frozen=True)
class StrategyShare:
    """How often one strategy of a lineup won games, per seat it holds, and its Order.

    A strategy may hold several seats (k of n): its share w is the games any of its seats won,
    to be read against its fair share k/n (`fair_share`); `per_seat` is w / k, a seat's average,
    whose fair value is 1/n and whose ceiling is 1/k, not 1.
    """

    strategy: str
    seats: int
    share: Estimate
    """Games won by any seat of this strategy, over decided games."""
    per_seat: Estimate
    order: Estimate
    """(share - k/n) / (1 - k/n) (`skill_order`): 0 at its fair share, 1 when its seats win every game."""
    fair_share: float = float("nan")
    """k/n: the share of decided games its k seats win when every seat is as strong as the others."""


def skill_order(share: Estimate, *, seats: int, n: int) -> Estimate:
    """Return Order (w - k/n) / (1 - k/n) of a strategy holding k of n seats, from its share w of games won.

    With one seat it is (w - 1/n) / (1 - 1/n); with k seats its ceiling is still 1 (its seats win
    every game), which w / k against 1/n never reaches. A strategy holding every seat has none (NaN).

    >>> skill_order(Estimate(1.0, 0.99, 1.0, 200), seats=2, n=4).value
    1.0
    >>> round(skill_order(Estimate(0.75, 0.7, 0.8, 200), seats=1, n=2).value, 3)
    0.5
    """
    if seats >= n:
        return Estimate(float("nan"), float("nan"), float("nan"), share.n)
    fair = seats / n
    return share.shifted(-fair, scale=1.0 / (1.0 - fair))


@dataclass
class ConditionSummary:
    """Every metric of one condition."""

    name: str
    n_players: int
    games: int
    decided_games: int
    hands: int
    decided_hands: int
    seat_hand: list[Estimate]
    seat_game: list[Estimate]
    uniform_hand: Uniformity
    uniform_game: Uniformity
    strategies: list[StrategyShare]
    metrics: dict[str, Estimate] = field(default_factory=dict)

    @property
    def stronger(self) -> StrategyShare | None:
        """Return the strategy with the highest win share per seat, if the lineup mixes strategies."""
        if len(self.strategies) < 2:
            return None
        return max(self.strategies, key=lambda s: s.per_seat.value)


def uniformity(counts: np.ndarray) -> Uniformity:
    """Return the chi-square test of equal win counts across seats (scipy)."""
    total = int(counts.sum())
    if total == 0:
        return Uniformity(chi2=float("nan"), p=float("nan"), w=float("nan"), n=0)
    result = stats.chisquare(counts)
    chi2 = float(result.statistic)
    return Uniformity(chi2=chi2, p=float(result.pvalue), w=float(np.sqrt(chi2 / total)), n=total)


def balance(counts: np.ndarray) -> float:
    """Return Balance 1 - (max - min) of the seats' win shares, from the win counts by seat.

    >>> balance(np.array([30, 40, 30]))
    0.9
    """
    total = counts.sum()
    return float("nan") if total == 0 else float(1.0 - (counts.max() - counts.min()) / total)


def balance_interval(counts: np.ndarray) -> Estimate:
    """Return Balance with a 95% interval from simultaneous intervals for every seat's share.

    Goodman's simultaneous intervals (statsmodels ``multinomial_proportions_confint``) hold
    every seat's share at once in at least 95% of runs; Balance's interval is the range of
    1 - (max - min) over that box: its lower end the widest gap the box allows, its upper
    end the narrowest (1 when the intervals share a point, as at a fair table). Whenever the
    box holds the true shares, the interval holds the true Balance, so it covers at least as
    often as the box (docs/metrics.md has the measured coverage). A percentile bootstrap
    of the max - min statistic cannot do this: it never reaches 1 at a fair table.

    >>> e = balance_interval(np.array([100, 100, 100]))
    >>> round(e.value, 3), e.high
    (1.0, 1.0)
    """
    total = int(counts.sum())
    value = balance(counts)
    if total == 0 or len(counts) < 2:
        return Estimate(value, float("nan"), float("nan"), total)
    box = multinomial_proportions_confint(counts, alpha=1 - LEVEL, method="goodman")
    low, high = box[:, 0], box[:, 1]
    widest = high.max() - low.min()
    narrowest = max(0.0, low.max() - high.min())
    return Estimate(value, float(max(0.0, 1.0 - widest)), float(1.0 - narrowest), total)


def summarize_condition(
    frame: pd.DataFrame, *, name: str, n_players: int, lineup: dict[str, int], seed: int = 0
) -> ConditionSummary:
    """Return the metrics of one condition from its `game_frame`."""
    n = n_players
    decided = frame[frame["decided"]]
    hand_counts = np.array([frame[f"hands_won_{p}"].sum() for p in range(n)])
    n_decided_hands = int(frame["decided_hands"].sum())
    game_counts = np.array([(decided["winner_start"] == p).sum() for p in range(n)])
    strategies = []
    for label, seats in lineup.items():
        share = wilson(int((decided["winner_strategy"] == label).sum()), len(decided))
        per_seat = share.shifted(0.0, scale=1.0 / seats)
        order = skill_order(share, seats=seats, n=n)
        strategies.append(
            StrategyShare(
                strategy=label, seats=seats, share=share, per_seat=per_seat, order=order, fair_share=seats / n
            )
        )
    columns = per_game_columns(frame)
    pairs = {metric: (columns[num], columns[den]) for metric, (num, den, _) in RATIOS.items()}
    # The hands of one game share its luck, so a seat's share of hands is resampled by whole games too
    # (a Wilson interval over hands covered 76% on tables whose hands are correlated: docs/metrics.md).
    seat_pairs = {f"seat_hand_{p}": (columns[f"hands_won_{p}"], columns["decided_hands"]) for p in range(n)}
    found = ratio_estimates({**pairs, **seat_pairs}, seed=seed_for(name, base=seed))
    summary = ConditionSummary(
        name=name, n_players=n, games=len(frame), decided_games=len(decided), hands=int(frame["hands"].sum()),
        decided_hands=n_decided_hands,
        seat_hand=[found[f"seat_hand_{p}"] for p in range(n)],
        seat_game=[wilson(int(c), len(decided)) for c in game_counts],
        uniform_hand=uniformity(hand_counts), uniform_game=uniformity(game_counts), strategies=strategies,
    )  # fmt: skip
    m = summary.metrics
    m["first_seat_advantage_hand"] = summary.seat_hand[0].shifted(-1.0 / n)
    m["first_seat_advantage_game"] = summary.seat_game[0].shifted(-1.0 / n)
    m["dealer_advantage_hand"] = summary.seat_hand[n - 1].shifted(-1.0 / n)  # the dealer plays last (R3.4)
    # Hands of one game share scores, so hand-level Balance is a point value beside its chi-square test.
    m["balance_hand"] = Estimate(balance(hand_counts), float("nan"), float("nan"), n_decided_hands)
    m["balance_game"] = balance_interval(game_counts)
    m.update({metric: found[metric] for metric in pairs})
    for metric, (col, among, _) in PROPORTIONS.items():
        rows = frame if among == "all" else decided
        m[metric] = wilson(int(rows[col].sum()), len(rows))
    return summary


def per_game_columns(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Return the frame's columns as float arrays, plus `one` (1 per game) for per-game means."""
    numeric = frame.select_dtypes(include=["number", "bool"]).drop(columns="digest", errors="ignore")
    values = np.asfortranarray(numeric.to_numpy(dtype=float))  # one conversion, not one per column
    columns = {str(c): values[:, i] for i, c in enumerate(numeric.columns)}
    columns["one"] = np.ones(len(frame))
    return columns
