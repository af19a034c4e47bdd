"""The atlas's tests: how a report of many findings shares its 5%, and the tests behind each kind of finding.

An atlas (a grid of more than `ATLAS_CONDITIONS` conditions, such as experiments/atlas.yaml)
prints findings of four kinds. Each kind is a family with its share of α (`ALPHAS`); the
shares add to 5%, so when no rule changes anything the chance that the report prints any
false finding is at most 5% (Bonferroni across the families; measured in tests/test_atlas_null.py):

- **changes** (α 3%): every cell's change against basic rummy at its table size, every planned
  measure: the run's simultaneous intervals at 1 − α/m (`rummysim.analysis.compare.rule_out`),
  so every table entry, heat-map mark and sentence, the largest change picked from them
  included, is right with all the others at once;
- **fairness** (α 1%, `fairer`): at each table size, whether a rule set is fairer than basic
  rummy to *every* seat: its unfairness U = Σₛ (pₛ − 1/n)² − Σₛ var(p̂ₛ), pₛ the share of hands
  won from position s (R3.4: position 0 plays first, n − 1 deals), less than basic rummy's on
  the same deals: one-sided, Holm over the rule sets of one size, each size α/5;
- **interactions** (α 1%, `interactions`): every two-rule interaction of the atlas's measures,
  Benjamini-Yekutieli (false discoveries under any dependence; with no interaction at all,
  the chance of showing one is at most α);
- **never binds** (`never_binds`): a rule plays no part when every pair of cells that differ
  in it alone played the same hands, row for row (`rummysim.analysis.frames.hand_digest`): an
  identity, not a test, so it spends no α.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from rummysim.analysis.estimates import Z, linearised
from rummysim.analysis.grid import Effect, arms
from rummysim.design import Experiment
from rummysim.specs import strategy_label

ATLAS_CONDITIONS = 32
"""A grid experiment with more conditions than this is reported as an atlas."""
ALPHAS = {"changes": 0.03, "fairness": 0.01, "interactions": 0.01}
"""Each family of findings' share of the report's 5% (see the module doc)."""


def is_atlas(experiment: Experiment) -> bool:
    """Return True if the run is a grid of more than `ATLAS_CONDITIONS` conditions: reported as an atlas."""
    return bool(experiment.grid) and len(experiment.conditions) > ATLAS_CONDITIONS


def _played_alike(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Return True if two cells played the same games with the same hand rows (their digests equal)."""
    if "digest" not in a or "digest" not in b or not a.index.equals(b.index):
        return False
    return bool((a["digest"].to_numpy() == b["digest"].to_numpy()).all())


def never_binds(experiment: Experiment, frames: Mapping[str, pd.DataFrame]) -> dict[tuple[str, str], bool]:
    """Return, for each rule (factor, level other than the first), whether it never binds the bots.

    It never binds when every pair of cells of every arm that differ in that factor alone (the
    reference level against that level, every other factor at any level) played identical
    hands row for row; a missing cell or a table without digests is not evidence, so False.
    """
    found: dict[tuple[str, str], bool] = {}
    factors = list(experiment.grid.items())
    cells_of = arms(experiment)
    for i, (factor, levels) in enumerate(factors):
        for j, level in enumerate(levels[1:], start=1):
            same, pairs = True, 0
            for cells in cells_of.values():
                for index, name in cells.items():
                    if index[i] != 0:
                        continue
                    other = cells.get((*index[:i], j, *index[i + 1 :]))
                    if other is None or name not in frames or other not in frames:
                        same = False
                        continue
                    pairs += 1
                    same = same and _played_alike(frames[name], frames[other])
            found[(factor, str(level))] = same and pairs > 0
    return found


def alike_groups(experiment: Experiment, frames: Mapping[str, pd.DataFrame]) -> list[list[str]]:
    """Return the groups of two or more cells of one arm that played identical hands: one rule set in effect."""
    groups = []
    for cells in arms(experiment).values():
        by_digest: dict[bytes, list[str]] = {}
        for _, name in sorted(cells.items()):
            frame = frames.get(name)
            if frame is None or "digest" not in frame:
                continue
            key = frame.index.to_numpy().tobytes() + frame["digest"].to_numpy().tobytes()
            by_digest.setdefault(key, []).append(name)
        groups += [names for names in by_digest.values() if len(names) > 1]
    return groups


@dataclass(frozen=True)
class Unfairness:
    """A cell's unfairness to all its seats, and its change against basic rummy on the same deals."""

    value: float
    """U = Σₛ (pₛ − 1/n)² − Σₛ var(p̂ₛ): unbiased for the sum of squared distances from the fair share."""
    change: float
    """U of the cell − U of basic rummy at its table size."""
    se: float
    """The change's standard error: the delta method's first-order term plus the quadratic term's variance."""


def _shares(frame: pd.DataFrame, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return each position's share of hands won and its games' influence values (games × n)."""
    den = frame["decided_hands"].to_numpy(dtype=float)
    nums = [frame[f"hands_won_{s}"].to_numpy(dtype=float) for s in range(n)]
    shares = np.array([num.sum() / den.sum() if den.sum() else np.nan for num in nums])
    return shares, np.column_stack([linearised(num, den) for num in nums])


def unfairness(frame: pd.DataFrame, reference: pd.DataFrame, n: int) -> Unfairness:
    """Return a cell's `Unfairness` and its paired change against `reference` (the same games: the same deals).

    With z the games' influence values on the n shares of both cells (2n columns), δ = p̂ − p and
    Σ = cov(z)/N: the change D = U₁ − U₀ is linear in δ (gradient 2(p − 1/n)) plus the quadratic
    form δ'Aδ (A = diag(I, −I)) less its mean; its variance is gᵀΣg + 2 tr((ΣA)²) (normal δ).
    Near a fair table the gradient vanishes and the quadratic term is what is left.
    """
    games = frame.index.intersection(reference.index)
    a, b = reference.loc[games], frame.loc[games]
    p0, z0 = _shares(a, n)
    p1, z1 = _shares(b, n)
    count = len(games)
    if count < 2 or not (np.isfinite(p0).all() and np.isfinite(p1).all()):
        return Unfairness(math.nan, math.nan, math.nan)
    z = np.hstack([z1, z0])
    sigma = np.cov(z, rowvar=False) / count
    var1, var0 = np.diag(sigma)[:n], np.diag(sigma)[n:]
    u1 = float(np.sum((p1 - 1 / n) ** 2) - var1.sum())
    u0 = float(np.sum((p0 - 1 / n) ** 2) - var0.sum())
    gradient = np.r_[2 * (p1 - 1 / n), -2 * (p0 - 1 / n)]
    sign = np.r_[np.ones(n), -np.ones(n)]
    sa = sigma * sign  # Σ A
    variance = float(gradient @ sigma @ gradient + 2 * np.trace(sa @ sa))
    return Unfairness(u1, u1 - u0, math.sqrt(max(variance, 0.0)))


def fairer(table: pd.DataFrame, *, alpha: float = ALPHAS["fairness"]) -> pd.DataFrame:
    """Return `table` (players, change, se: a row per rule set but basic rummy) with p, p_holm and ``shown``.

    One-sided: a rule set is shown fairer than basic rummy when change < 0 survives Holm's
    method over the rule sets of its table size at α / (the number of sizes).
    """
    out = table.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["p"] = stats.norm.cdf(out["change"] / out["se"])
    out["p_holm"] = np.nan
    sizes = out["players"].nunique()
    for _, rows in out.groupby("players"):
        rows = rows[rows["p"].notna()]
        if len(rows):
            out.loc[rows.index, "p_holm"] = holm_adjusted(rows["p"].to_numpy())
    out["shown"] = out["p_holm"] < alpha / max(sizes, 1)
    return out


def holm_adjusted(p: np.ndarray) -> np.ndarray:
    """Return Holm's adjusted p-values (statsmodels' ``holm``, without its garbage collection each call).

    >>> holm_adjusted(np.array([0.01, 0.04, 0.03])).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(p, kind="stable")
    m = len(p)
    stepped = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def fairness_table(experiment: Experiment, frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Return every rule set's `Unfairness` against basic rummy, one row per cell of the arms that seat one strategy.

    Columns: condition, players, index (each factor's level index), unfairness, basic (basic
    rummy's U at that size), change, se; then `fairer`'s p, p_holm and shown.
    """
    rows = []
    for cells in arms(experiment).values():
        base = cells.get((0,) * len(experiment.grid))
        if base is None or base not in frames:
            continue
        condition = experiment.condition(base)
        if len({strategy_label(p) for p in condition.players}) > 1:
            continue  # a skill arm: fairness is read where one strategy holds every seat
        n = condition.rules.n_players
        for index, name in sorted(cells.items()):
            if name == base or name not in frames:
                continue
            found = unfairness(frames[name], frames[base], n)
            rows.append({"condition": name, "players": n, "index": index, "unfairness": found.value,
                         "basic": found.value - found.change, "change": found.change, "se": found.se})  # fmt: skip
    columns = ["condition", "players", "index", "unfairness", "basic", "change", "se"]
    return fairer(pd.DataFrame(rows, columns=columns))


def interactions(
    effects: Sequence[Effect], *, measures: Mapping[str, bool], skill_arms: set[str],
    alpha: float = ALPHAS["interactions"],
) -> pd.DataFrame:  # fmt: skip
    """Return every two-rule interaction of the atlas's measures with its z, p and Benjamini-Yekutieli ``shown``.

    `measures`: metric -> read from the skill arms (True) or the arms that seat one strategy.
    The standard error is the 95% interval's half-width over z(0.975) (the delta method's, or
    a bootstrap's as a normal approximation). Sorted by |z| within each measure.
    """
    rows = []
    for e in effects:
        if e.kind != "interaction" or e.measure not in measures or measures[e.measure] != (e.arm in skill_arms):
            continue
        se = (e.estimate.high - e.estimate.low) / (2 * Z)
        z = e.estimate.value / se if se > 0 else math.nan
        rows.append({"arm": e.arm, "measure": e.measure, "term": e.term, "estimate": e.estimate.value,
                     "low": e.estimate.low, "high": e.estimate.high, "z": z})  # fmt: skip
    out = pd.DataFrame(rows, columns=["arm", "measure", "term", "estimate", "low", "high", "z"])
    out["p"] = 2 * stats.norm.sf(out["z"].abs())
    out["q"] = np.nan
    tested = out["p"].notna()
    if tested.any():
        out.loc[tested, "q"] = multipletests(out.loc[tested, "p"], method="fdr_by")[1]
    out["shown"] = out["q"] < alpha
    order = out.assign(size=-out["z"].abs()).sort_values(["measure", "size"], kind="stable")
    return order.drop(columns="size").reset_index(drop=True)
