"""Statistics of a finished run: every condition's metrics and the planned comparisons.

Use it from a notebook::

    from rummysim import load_results
    from rummysim.analysis import analyze

    analysis = analyze(load_results("results/acehigh"))
    analysis.metrics_table()        # one row per condition x metric
    analysis.comparisons_table()    # differences, tests, Holm-adjusted p, verdicts

Formulas and sources: docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import pandas as pd

from rummysim.analysis.atlas import ALPHAS, is_atlas
from rummysim.analysis.compare import Comparison, compare, fdr, holm, plan, rule_out
from rummysim.analysis.comparison import ALPHA
from rummysim.analysis.estimates import Estimate, wilson
from rummysim.analysis.frames import ENDINGS, endings, strategy_counts
from rummysim.analysis.grid import Effect, effects, effects_table
from rummysim.analysis.metrics import PROPORTIONS, RATIOS, ConditionSummary, StrategyShare, summarize_condition
from rummysim.analysis.reading import BATCH_ROWS, Progress, read_frames
from rummysim.analysis.skill import measured, strength
from rummysim.design import Experiment
from rummysim.measures import MEASURES
from rummysim.results import Results

__all__ = ["DESCRIPTIONS", "Analysis", "Comparison", "ConditionSummary", "Estimate", "analyze", "wilson"]

DESCRIPTIONS: dict[str, str] = {
    "first_seat_advantage_hand": "win share of the seat that plays first in a hand, less 1/n (R3.4)",
    "dealer_advantage_hand": "win share of the dealer, who plays last in a hand, less 1/n (R3.4)",
    "first_seat_advantage_game": "win share of the seat that plays first in a game's first hand, less 1/n",
    "balance_hand": "1 - the largest gap between two positions' hand win shares",
    "balance_game": "1 - the largest gap between two start positions' game win shares",
    "order": "(w - 1/n) / (1 - 1/n) for a strategy: how much more than its fair share it wins",
    "strength": "log of Luce's strength odds(w) / odds(k/n): skill on a scale free of table size",
    **{k: v[2] for k, v in RATIOS.items()},
    **{k: v[2] for k, v in PROPORTIONS.items()},
}


@dataclass
class Analysis:
    """The metrics of every condition of a run and its planned comparisons."""

    experiment: Experiment
    conditions: list[ConditionSummary]
    comparisons: list[Comparison]
    frames: dict[str, pd.DataFrame]
    trajectories: dict[str, pd.DataFrame]
    effects: list[Effect] = field(default_factory=list)
    """A grid's main effects and two-factor interactions (`rummysim.analysis.grid`); empty without a grid."""

    @property
    def question(self) -> str:
        return self.experiment.question or self.experiment.name

    def condition(self, name: str) -> ConditionSummary:
        return next(c for c in self.conditions if c.name == name)

    def metrics_table(self) -> pd.DataFrame:
        """Return one row per condition x metric: value, low, high, n (a tidy table)."""
        rows = []
        for c in self.conditions:
            for metric, e in c.metrics.items():
                rows.append({"condition": c.name, "metric": metric, "value": e.value, "low": e.low, "high": e.high,
                             "n": e.n})  # fmt: skip
            for s in c.strategies:
                if c.stronger is not None:
                    rows.append({"condition": c.name, "metric": f"order:{s.strategy}", "value": s.order.value,
                                 "low": s.order.low, "high": s.order.high, "n": s.order.n})  # fmt: skip
        return pd.DataFrame(rows)

    def seats_table(self) -> pd.DataFrame:
        """Return one row per condition x level x position: the seat win share and its interval."""
        rows = []
        for c in self.conditions:
            for level, shares in (("hand", c.seat_hand), ("game", c.seat_game)):
                for position, e in enumerate(shares):
                    rows.append({"condition": c.name, "level": level, "position": position, "n_players": c.n_players,
                                 "share": e.value, "low": e.low, "high": e.high, "n": e.n})  # fmt: skip
        return pd.DataFrame(rows)

    def strategies_table(self) -> pd.DataFrame:
        """Return one row per condition x strategy: game win share, per seat, and Order."""
        rows = []
        for c in self.conditions:
            for s in c.strategies:
                rows.append({"condition": c.name, "strategy": s.strategy, "seats": s.seats, "n_players": c.n_players,
                             "share": s.share.value, "share_low": s.share.low, "share_high": s.share.high,
                             "per_seat": s.per_seat.value, "order": s.order.value, "order_low": s.order.low,
                             "order_high": s.order.high, **_strength_columns(s, c.n_players),
                             "games": s.share.n})  # fmt: skip
        return pd.DataFrame(rows)

    def uniformity_table(self) -> pd.DataFrame:
        """Return the chi-square tests of uniform seats per condition and level."""
        rows = []
        for c in self.conditions:
            for level, u in (("hand", c.uniform_hand), ("game", c.uniform_game)):
                rows.append({"condition": c.name, "level": level, "chi2": u.chi2, "df": c.n_players - 1, "p": u.p,
                             "cohens_w": u.w, "n": u.n})  # fmt: skip
        return pd.DataFrame(rows)

    def effects_table(self) -> pd.DataFrame:
        """Return a grid's main effects and interactions: arm, measure, kind, effect, estimate, low, high, games."""
        return effects_table(self.effects)

    def comparisons_table(self) -> pd.DataFrame:
        """Return one row per comparison x metric: the difference, its interval, test and verdict."""
        rows = []
        for comp in self.comparisons:
            for metric, e in comp.differences.items():
                test = comp.tests.get(metric) or comp.descriptive.get(metric)
                rows.append({
                    "reference": comp.reference, "other": comp.other, "paired": comp.paired, "metric": metric,
                    "difference": e.value, "low": e.low, "high": e.high, "games": e.n,
                    "test": test.method if test else "", "p": test.p if test else float("nan"),
                    "p_holm": test.p_holm if test else float("nan"), "p_fdr": test.p_fdr if test else float("nan"),
                    "planned": metric in comp.tests, "verdict": comp.verdict(metric),
                    "variance_ratio": comp.variance_ratios.get(metric, float("nan")),
                    **_bounds_columns(comp, metric),
                })  # fmt: skip
            seat_test = comp.tests.get("seat_distribution_game")
            if seat_test is not None:
                rows.append({
                    "reference": comp.reference, "other": comp.other, "paired": comp.paired, "planned": True,
                    "metric": "seat_distribution_game", "difference": float("nan"), "low": float("nan"),
                    "high": float("nan"), "games": comp.games, "test": seat_test.method, "p": seat_test.p,
                    "p_holm": seat_test.p_holm,
                    "verdict": comp.distribution_verdict("seat_distribution_game"),
                })  # fmt: skip
        return pd.DataFrame(rows)


def _strength_columns(s: StrategyShare, n: int) -> dict[str, float]:
    """Return a strategy's Luce strength θ and its interval (`analysis.skill.strength`)."""
    e = strength(s.share, seats=s.seats, n=n)
    return {"strength": e.value, "strength_low": e.low, "strength_high": e.high}


def _bounds_columns(comp: Comparison, metric: str) -> dict[str, object]:
    """Return the columns of a planned change's verdict: its answer, the simultaneous interval that decided it (on the
    `scale` it was decided on: ``difference`` or ``log ratio``), its level, margin and what it rules out; NaN/empty
    for the others."""
    b = comp.bounds.get(metric)
    if b is None:
        nan = float("nan")
        return {"answer": "", "scale": "", "decided": nan, "decided_low": nan, "decided_high": nan, "level": nan,
                "margin": nan, "within_margin": "", "detectable": nan}  # fmt: skip
    return {
        "answer": comp.answer(metric).value, "scale": "log ratio" if b.relative else "difference",
        "decided": b.interval.value, "decided_low": b.interval.low, "decided_high": b.interval.high, "level": b.level,
        "margin": b.margin, "within_margin": "yes" if b.equivalent else "no", "detectable": b.detectable,
    }  # fmt: skip


def _drop_unplayed(
    experiment: Experiment, summaries: Collection[ConditionSummary], comparisons: Collection[Comparison]
) -> None:
    """Drop the endings no condition's rules can have (a block needs ``stock_out: block``, R12.3).

    They would be zero everywhere; without them a report of basic rummy reads as it did
    before the house rules existed.
    """
    played = endings(c.rules for c in experiment.conditions)
    for metric in (f"ended_by_{e}" for e in ENDINGS if e not in played):
        for summary in summaries:
            summary.metrics.pop(metric, None)
        for comp in comparisons:
            for found in (comp.differences, comp.tests, comp.descriptive, comp.variance_ratios):
                found.pop(metric, None)
            comp.no_events.discard(metric)


def analyze(
    results: Results, *, seed: int | None = None, batch_rows: int = BATCH_ROWS, games: Mapping[str, int] | None = None,
    progress: Progress | None = None,
) -> Analysis:  # fmt: skip
    """Return the metrics of every condition of a run and its planned comparisons.

    The hands table is read in batches and summed per game while reading
    (`rummysim.analysis.reading`, `batch_rows` at a time), so memory follows the number
    of games, not of hands.
    Bootstrap intervals use a seed derived from the experiment's own, so the same tables
    always give the same report. `games` analyses only each condition's first games, as a
    run of that many would be analysed.
    """
    experiment = results.experiment if games is None else results.experiment.with_games(dict(games))
    seed = experiment.seed if seed is None else seed
    read = read_frames(results, batch_rows=batch_rows, games=games, progress=progress)
    frames, summaries = read.games, {}
    for condition in experiment.conditions:
        name = condition.name
        if name not in frames:
            continue
        summaries[name] = summarize_condition(
            frames[name], name=name, n_players=condition.rules.n_players, lineup=strategy_counts(condition.players),
            seed=seed,
        )  # fmt: skip
    comparisons = [
        compare(
            (summaries[a], frames[a]),
            (summaries[b], frames[b]),
            paired=paired,
            seed=seed,
            skill=experiment.skill,
            measures=experiment.measures,
            relative={MEASURES[m].metric for m in experiment.relative_margin},
        )
        for a, b, paired in plan(experiment.conditions)
        if a in summaries and b in summaries
    ]
    _drop_unplayed(experiment, summaries.values(), comparisons)
    strong = {c.name for c in experiment.conditions if c.strong}
    for family in (  # the checks with strong players are corrected apart: they never change the question's verdicts
        [c for c in comparisons if c.reference not in strong and c.other not in strong],
        [c for c in comparisons if c.reference in strong or c.other in strong],
    ):
        holm(family)
        fdr(family)
        alpha = ALPHAS["changes"] if is_atlas(experiment) else ALPHA  # an atlas shares its 5% among its findings
        rule_out(family, margins=experiment.margin, relative=experiment.relative_margin, alpha=alpha)
    found = []
    if experiment.grid:
        first = {}  # per arm, its first condition's measured strategy (its Order is a grid measure too)
        for condition in experiment.conditions:
            arm = condition.name.rpartition("|")[0]
            if arm not in first and condition.name in summaries:
                first[arm] = measured(summaries[condition.name], experiment.skill)
        found = effects(experiment, frames=frames, summaries=summaries, strategy=first, seed=seed)
    return Analysis(experiment, list(summaries.values()), comparisons, frames, read.trajectories, found)
