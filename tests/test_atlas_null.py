"""Null and planted atlases (issue 42, part 3): the whole atlas report holds its 5%, and finds real changes.

Each synthetic atlas keeps the committed atlas's widths (results/atlas: every planned change's
simultaneous interval in summary_comparisons.csv, every fairness change's standard error in
atlas_fairness.csv, every interaction's interval in summary_effects.csv) and redraws the
estimates: with no rule effect at all (null), or with 10 single-rule changes of twice the
target half-width planted (planted). Each goes through the project's own decisions
(`equivalence.bounds`, `answer_of`, `fairer`, `interactions`) and sentences (`findings_of`,
`interaction_lines`), and a false finding is any sentence that claims a change. Measured on
1,000 atlases each; docs/metrics.md quotes the figures.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from rummysim.analysis import atlas as families
from rummysim.analysis.atlas import ALPHAS, fairer, interactions
from rummysim.analysis.comparison import answer_of
from rummysim.analysis.equivalence import Spread, bounds
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.grid import Effect
from rummysim.experiment import load_experiment
from rummysim.report import atlas_findings as said
from rummysim.report.atlas import PERCENT, amounts, findings_of, rule_words_of

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "results" / "atlas"
MEASURE = {"first_seat_advantage_hand": "first_player_edge_hand", "dealer_advantage_hand": "dealer_edge_hand",
           "hands_per_game": "game_length", "order": "order"}  # fmt: skip
TARGET = {"first_seat_advantage_hand": 0.0025, "dealer_advantage_hand": 0.0025, "hands_per_game": 0.2, "order": 0.02}
RUNS = 1000
CLAIMS = ("rises", "falls", "shorter", "longer", "The largest change", "; fairer to every seat")


class Atlas:
    """The committed atlas's widths: its single-rule planned changes, fairness changes and interactions."""

    def __init__(self) -> None:
        self.experiment = load_experiment(ROOT / "experiments" / "atlas.yaml")
        grid = self.experiment.grid
        table = pd.read_csv(FOLDER / "summary_comparisons.csv")
        planned = table[table["answer"].notna() & table["metric"].isin(list(MEASURE))]
        self.m = len(table[table["answer"].notna()])
        self.level = float(planned["level"].iloc[0])
        z = stats.norm.ppf(1 - (1 - self.level) / 2)
        rows = []
        for r in planned.itertuples():
            arm, _, rules = str(r.other).partition("|")
            skill = arm.endswith("_skill")
            if skill != (r.metric == "order"):
                continue  # edges and length from the greedy-only arms, Order from the skill arms
            reference = dict(kv.split("=") for kv in str(r.reference).partition("|")[2].split(","))
            other = dict(kv.split("=") for kv in rules.split(","))
            changed = [f for f in grid if other[f] != reference[f]]
            if len(changed) != 1:
                continue
            base = (r.difference / math.expm1(r.decided)) if r.scale == "log ratio" and r.decided else 1.0
            rule = rule_words_of(changed[0], other[changed[0]], grid[changed[0]])
            rows.append({"metric": r.metric, "rule": rule, "players": int(arm[1]),
                         "se": (r.decided_high - r.decided_low) / (2 * z), "relative": r.scale == "log ratio",
                         "base": base, "width95": (r.high - r.low) / 2})  # fmt: skip
        self.cells = pd.DataFrame(rows)
        self.fairness = pd.read_csv(FOLDER / "atlas_fairness.csv")
        effects = pd.read_csv(FOLDER / "summary_effects.csv")
        self.effects = effects[(effects["kind"] == "interaction") & effects["measure"].isin(list(MEASURE))]
        self.amount = amounts(self.experiment)

    def changes(self, rng: np.random.Generator, planted: np.ndarray) -> pd.DataFrame:
        """Return the single-rule changes as `rule_changes` gives them, redrawn about `planted` (their true values)."""
        rows = []
        for (_, c), truth in zip(self.cells.iterrows(), planted, strict=True):
            x = truth + rng.normal() * c["se"] if c["se"] > 0 else 0.0
            e95 = Estimate(x, x - 1.96 * c["se"], x + 1.96 * c["se"], 10_000)
            b = bounds(metric=c["metric"], interval=e95, spread=Spread(c["se"], c["se"], 0.0),
                       margins=self.experiment.margin, tests=self.m, exact=False,
                       share=self.experiment.relative_margin["game_length"] if c["relative"] else None,
                       alpha=ALPHAS["changes"])  # fmt: skip
            ends = (x, b.interval.low, b.interval.high)
            change, low, high = (c["base"] * math.expm1(v) for v in ends) if c["relative"] else ends
            per = c["base"] if MEASURE[c["metric"]] in PERCENT else 1.0
            answer = "No" if c["se"] == 0 else answer_of(b).value
            rows.append({"rule": c["rule"], "players": c["players"], "measure": MEASURE[c["metric"]],
                         "change": change, "low": low, "high": high, "answer": answer, "base": c["base"],
                         "shown_change": change / per, "shown_low": low / per, "shown_high": high / per})  # fmt: skip
        return pd.DataFrame(rows)

    def report(self, rng: np.random.Generator, planted: np.ndarray) -> tuple[list[str], pd.DataFrame]:
        """Return one synthetic atlas's findings and interaction lines (no effect but `planted`), and its changes."""
        changes = self.changes(rng, planted)
        fair = self.fairness[["condition", "players", "unfairness", "basic", "se"]].copy()
        fair["change"] = rng.normal(size=len(fair)) * fair["se"].fillna(0)
        tested = fairer(fair, alpha=families.ALPHAS["fairness"])
        found = findings_of(changes, inert=[], fairness=tested, words={}, alike=[], amount=self.amount,
                            level=self.level)  # fmt: skip
        se = (self.effects["high"] - self.effects["low"]).to_numpy() / (2 * 1.96)
        drawn = rng.normal(size=len(se)) * se
        effects = [Effect(r.arm, r.measure, "interaction", r.effect, Estimate(x, x - 1.96 * s, x + 1.96 * s, 10_000))
                   for r, x, s in zip(self.effects.itertuples(), drawn, se, strict=True)]  # fmt: skip
        skill = {a for a in self.effects["arm"] if a.endswith("_skill")}
        table = interactions(effects, alpha=families.ALPHAS["interactions"], skill_arms=skill,
                             measures={m: m == "order" for m in MEASURE})  # fmt: skip
        lines = said.interaction_lines(table, {m: (m, 1.0, 3) for m in MEASURE}, {}, str)
        return found + lines, changes


@pytest.fixture(scope="module")
def atlas() -> Atlas:
    return Atlas()


def false_claims(sentences: list[str]) -> list[str]:
    return [s for s in sentences if any(word in s for word in CLAIMS) or s.startswith("- ")]


def test_a_null_atlas_prints_a_false_finding_in_at_most_5_percent_of_runs(atlas):
    rng = np.random.default_rng(2026)
    nothing = np.zeros(len(atlas.cells))
    wrong = sum(bool(false_claims(atlas.report(rng, nothing)[0])) for _ in range(RUNS))
    low, high = proportion_confint(wrong, RUNS, method="wilson")
    print(f"null atlases with any false finding: {wrong / RUNS:.1%} [{low:.1%}, {high:.1%}] of {RUNS}")
    assert high <= 0.05 + 0.015 and wrong / RUNS <= 0.05


def test_a_planted_bug_deciding_each_finding_alone_at_95_percent_prints_false_findings(atlas, monkeypatch):
    monkeypatch.setattr(atlas, "m", 1)  # each change alone at 95%, no Holm, no BY: the atlas before issue 42
    monkeypatch.setitem(ALPHAS, "changes", 0.05)
    monkeypatch.setattr(families, "holm_adjusted", lambda p: p)
    monkeypatch.setattr(families, "multipletests", lambda p, method: (None, np.asarray(p)))
    monkeypatch.setattr(families, "ALPHAS", {**ALPHAS, "interactions": 0.05})
    rng = np.random.default_rng(1)
    nothing = np.zeros(len(atlas.cells))
    wrong = sum(bool(false_claims(atlas.report(rng, nothing)[0])) for _ in range(100))
    assert wrong / 100 > 0.5


POWERED = 0.75
"""The 95% half-width, as a share of the target, at which a change of twice the target is found 80% of the time
after the atlas's correction: 2T / se = z(1 − 0.03/2m) + z(0.8) = 5.19 at m = 2,205, so 1.96 se ≈ 0.75 T."""


def planted_cells(atlas: Atlas, *, at_most: float, at_least: float = 0.0) -> np.ndarray:
    """Return 10 single-rule cells whose committed 95% half-width lies in [at_least, at_most] x the target."""
    cells = atlas.cells.assign(target=atlas.cells["metric"].map(TARGET))
    share = cells["width95"] / cells["target"]
    met = cells[(cells["se"] > 0) & (share <= at_most) & (share >= at_least)]
    return met.sort_values(["metric", "players", "rule"]).index.to_numpy()[:: max(1, len(met) // 10)][:10]


def found_rates(atlas: Atlas, chosen: np.ndarray, runs: int, seed: int) -> np.ndarray:
    """Return how often each chosen cell's planted change (twice its target half-width) is shown, over `runs`."""
    rng = np.random.default_rng(seed)
    truth = np.zeros(len(atlas.cells))
    for i in chosen:
        c = atlas.cells.loc[i]
        size = 2 * TARGET[c["metric"]]
        truth[i] = math.log1p(size / c["base"]) if c["relative"] else size
    found = np.zeros(len(chosen))
    for _ in range(runs):
        _, changes = atlas.report(rng, truth)
        found += changes.loc[chosen, "answer"].isin(said.SHOWN).to_numpy()
    for i, rate in zip(chosen, found / runs, strict=True):
        c = atlas.cells.loc[i]
        print(
            f"{c['metric']}, {c['rule']}, {c['players']} players, 95% half-width {c['width95']:.4g}: found {rate:.0%}"
        )
    return found / runs


def test_changes_of_twice_the_target_are_found_in_80_percent_of_runs_where_the_width_allows_it(atlas):
    chosen = planted_cells(atlas, at_most=POWERED)
    rates = found_rates(atlas, chosen, runs=100, seed=7)  # docs/metrics.md: 300 runs
    assert len(chosen) == 10 and (rates >= 0.8).all()


def test_at_the_target_width_the_corrected_power_is_the_normal_one_about_a_third(atlas):
    chosen = planted_cells(atlas, at_most=1.0, at_least=0.9)
    rates = found_rates(atlas, chosen, runs=100, seed=8)  # docs/metrics.md: 300 runs
    z = stats.norm.ppf(1 - (1 - atlas.level) / 2)
    for i, rate in zip(chosen, rates, strict=True):
        c = atlas.cells.loc[i]
        size = 2 * TARGET[c["metric"]]
        planted = math.log1p(size / c["base"]) if c["relative"] else size  # on the scale it is decided on
        expected = stats.norm.sf(z - planted / c["se"])
        assert abs(rate - expected) < 0.12, (rate, expected)
        assert rate < 0.8  # the committed targets are too wide for the corrected atlas (issue 44)
