"""A rules atlas: a grid of many cells read rule by rule, blackjack style, with findings and an explorer.

A grid experiment with more than `ATLAS_CONDITIONS` conditions (`is_atlas`), such as
experiments/atlas.yaml (every rule and house rule at 2 to 6 players), is reported so:

- **cells** (`atlas_cells`, ``atlas_cells.csv``): one row per table size and rule set, the
  measures of `ATLAS_MEASURES` with 95% intervals, each beside its change against the
  reference cell of its own condition (basic rummy at that table size), which the run
  compares planned and paired (`rummysim.analysis.compare.plan`). Seat edges and game
  length come from the condition that seats one strategy everywhere; skill (Order) from
  the one that seats two, at the same table size;
- **each rule against basic rummy** (`rule_changes`): the cell that changes that one rule
  and nothing else, at each table size, as blackjack's rule tables give each rule's effect;
- **findings** (`findings`): sentences a player can quote, from those intervals only;
- **heat maps** of each measure's rule-by-rule changes, table size across;
- ``explorer.html`` (`rummysim.report.explorer`): every cell, to pick, compare, sort, filter.

The grid's main effects and two-factor interactions stay in ``summary_effects.csv``
(`rummysim.analysis.grid`); the report lists those whose interval excludes zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rummysim.analysis import Analysis, ConditionSummary
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.grid import arms
from rummysim.analysis.skill import measured
from rummysim.measures import MEASURES
from rummysim.report.explorer import Measure
from rummysim.report.verdicts import rule_words

ATLAS_CONDITIONS = 32
"""A grid experiment with more conditions than this is reported as an atlas."""


@dataclass(frozen=True)
class AtlasMeasure:
    """One measure of the atlas: how the explorer shows it, the analysis metric behind it, whose lineup plays it."""

    shown: Measure
    metric: str
    """The analysis metric (`rummysim.analysis`): a condition metric, or ``order`` of the measured strategy."""
    skill: bool
    """Read from the condition that seats two strategies (skill), else from the one that seats one (fairness)."""


ATLAS_MEASURES = (
    AtlasMeasure(Measure("first_player_edge_hand", "First player's edge in a hand", "pp", 2, ""),
                 "first_seat_advantage_hand", skill=False),
    AtlasMeasure(Measure("dealer_edge_hand", "Dealer's edge in a hand", "pp", 2, ""), "dealer_advantage_hand",
                 skill=False),
    AtlasMeasure(Measure("game_length", "Game length (hands)", "hands", 2, ""), "hands_per_game", skill=False),
    AtlasMeasure(Measure("order", "Skill: the better player's Order", "", 3, "high"), "order", skill=True),
)  # fmt: skip
NAN = float("nan")
FINDINGS_ORDER = ("game_length", "order", "first_player_edge_hand", "dealer_edge_hand")
"""The order of the findings: what changes most for a player first."""


def is_atlas(analysis: Analysis) -> bool:
    """Return True if the run is a grid of more than `ATLAS_CONDITIONS` conditions: reported as an atlas."""
    return bool(analysis.experiment.grid) and len(analysis.experiment.conditions) > ATLAS_CONDITIONS


def _value(analysis: Analysis, summary: ConditionSummary, measure: AtlasMeasure) -> Estimate:
    """Return a cell's value of `measure`: its metric, or the measured strategy's Order."""
    if measure.metric != "order":
        return summary.metrics.get(measure.metric, Estimate(NAN, NAN, NAN, 0))
    focal = measured(summary, analysis.experiment.skill)
    share = next((s for s in summary.strategies if s.strategy == focal), None)
    return share.order if share is not None else Estimate(NAN, NAN, NAN, 0)


def atlas_cells(analysis: Analysis) -> pd.DataFrame:
    """Return one row per table size and rule set: each `ATLAS_MEASURES` value and change with 95% intervals.

    Columns: ``cell``, ``players``, one per grid factor (its level as text), then per measure
    ``m``, ``m_low``, ``m_high``, ``m_change``, ``m_change_low``, ``m_change_high`` (the change
    against the reference cell at the same table size: 0 without interval for that cell).
    """
    factors = analysis.experiment.grid
    compared = {(c.reference, c.other): c for c in analysis.comparisons}
    summaries = {c.name: c for c in analysis.conditions}
    rows: dict[tuple[int, tuple[int, ...]], dict[str, object]] = {}
    for cells in arms(analysis.experiment).values():
        reference = cells[(0,) * len(factors)]
        if reference not in summaries:
            continue
        skill = len(summaries[reference].strategies) > 1
        players = summaries[reference].n_players
        for index, name in cells.items():
            if name not in summaries:
                continue
            levels = {f: str(levels[i]) for (f, levels), i in zip(factors.items(), index, strict=True)}
            cell_id = f"{players} players, " + ", ".join(f"{f}={v}" for f, v in levels.items())
            row = rows.setdefault((players, index), {"cell": cell_id, "players": players, **levels})
            for measure in ATLAS_MEASURES:
                if measure.skill != skill:
                    continue
                m = measure.shown.name
                value = _value(analysis, summaries[name], measure)
                comp = compared.get((reference, name))
                change = comp.differences.get(measure.metric) if comp is not None else None
                if name == reference:
                    change = Estimate(0.0, NAN, NAN, value.n)
                change = change or Estimate(NAN, NAN, NAN, 0)
                row.update({m: value.value, f"{m}_low": value.low, f"{m}_high": value.high, f"{m}_change": change.value,
                            f"{m}_change_low": change.low, f"{m}_change_high": change.high})  # fmt: skip
    frame = pd.DataFrame([rows[k] for k in sorted(rows)])
    for measure in ATLAS_MEASURES:  # a measure no condition played is a column of NaN, not a missing one
        for suffix in ("", "_low", "_high", "_change", "_change_low", "_change_high"):
            if f"{measure.shown.name}{suffix}" not in frame:
                frame[f"{measure.shown.name}{suffix}"] = NAN
    return frame


def rule_words_of(factor: str, level: object, levels: Sequence[object]) -> str:
    """Return a factor's level, as a player says it against the reference level (`levels`' first).

    `level` may be the level's text, as in the cells' columns:

    >>> rule_words_of("rummy_multiplier", "1", [2, 1])
    'no bonus for going rummy'
    """
    value = next((v for v in levels if str(v) == str(level)), level)
    words = rule_words({factor: value}, base={factor: levels[0]})
    return words[0] if words else f"{factor}={level}"


def rule_changes(cells: pd.DataFrame, levels: Mapping[str, Sequence[object]]) -> pd.DataFrame:
    """Return each single rule's change against the reference at each table size: one row per rule x size x measure.

    A rule is a factor at one of its other levels; its cell keeps every other factor at its
    reference level. Columns: rule, factor, level, players, measure, change, low, high, base.
    """
    rows = []
    reference = {f: str(v[0]) for f, v in levels.items()}
    base = cells[np.logical_and.reduce([cells[f] == v for f, v in reference.items()])]
    for factor, values in levels.items():
        for level in values[1:]:
            wanted = {**reference, factor: str(level)}
            match = cells[np.logical_and.reduce([cells[f] == v for f, v in wanted.items()])]
            for _, row in match.iterrows():
                at = base[base["players"] == row["players"]]
                for measure in ATLAS_MEASURES:
                    m = measure.shown.name
                    rows.append({
                        "rule": rule_words_of(factor, level, values), "factor": factor, "level": str(level),
                        "players": int(row["players"]), "measure": m, "change": row[f"{m}_change"],
                        "low": row[f"{m}_change_low"], "high": row[f"{m}_change_high"],
                        "base": float(at[m].iloc[0]) if len(at) else NAN,
                    })  # fmt: skip
    return pd.DataFrame(rows, columns=["rule", "factor", "level", "players", "measure", "change", "low", "high",
                                       "base"])  # fmt: skip


def _noun(measure: Measure) -> str:
    """Return a measure as a sentence names it: the verdicts' noun (`rummysim.measures`), Order said for skill."""
    if measure.name == "order":
        return "the better player's advantage (its Order)"
    return MEASURES[measure.name].noun if measure.name in MEASURES else measure.label


def _scale(measure: Measure) -> float:
    return 100.0 if measure.unit == "pp" else 1.0


def _number(x: float, measure: Measure) -> str:
    return f"{abs(x) * _scale(measure):.{measure.digits}f}"


def _amount(x: float, measure: Measure) -> str:
    return _number(x, measure) + {"pp": " pp", "hands": " hands", "": ""}[measure.unit]


def rule_finding(rule: str, changes: pd.DataFrame, measure: AtlasMeasure) -> str | None:
    """Return one sentence on a rule's change of a measure across table sizes, or None if it says nothing firm.

    Firm: every size's interval on one side of zero (it moves it, by how much), or every interval
    within the measure's margin (it changes it by less than that, at every size).
    """
    shown = measure.shown
    if changes.empty or changes["low"].isna().any():
        return None
    sizes = f"{changes['players'].min()} to {changes['players'].max()} players"
    noun = _noun(shown)
    margin = MEASURES[shown.name].margin / _scale(shown) if shown.name in MEASURES else NAN
    if (changes["low"] > 0).all() or (changes["high"] < 0).all():
        up = bool((changes["low"] > 0).all())
        least, most = changes["change"].abs().min(), changes["change"].abs().max()
        span = f"{_number(least, shown)} to {_amount(most, shown)}"
        if shown.name == "game_length":
            percent = (changes["change"] / changes["base"]).abs() * 100
            way, digits = "longer" if up else "shorter", 0 if percent.min() >= 1 else 1
            return (f"With {rule}, games are {percent.min():.{digits}f}% to {percent.max():.{digits}f}% {way} at "
                    f"every table size from {sizes} ({span} a game).")  # fmt: skip
        return f"With {rule}, {noun} {'rises' if up else 'falls'} at every table size from {sizes}, by {span}."
    if math.isfinite(margin) and ((changes["low"] > -margin) & (changes["high"] < margin)).all():
        return f"With {rule}, {noun} changes by less than {_amount(margin, shown)} at every table size from {sizes}."
    return None


def findings(
    cells: pd.DataFrame, levels: Mapping[str, Sequence[object]], changes: pd.DataFrame | None = None
) -> list[str]:
    """Return the atlas's plain sentences: each rule's firm changes, then the fairest table at each size.

    `changes`: `rule_changes` of the cells, if the caller has them already.
    """
    changes = rule_changes(cells, levels) if changes is None else changes
    out = []
    exact = (changes["change"] == 0) & ((changes["high"] - changes["low"]).fillna(0) == 0)
    inert = [str(r) for r, same in exact.groupby(changes["rule"], sort=False).all().items() if same]
    for rule in inert:
        out.append(f"With {rule}, nothing changes at any table size: the bots play exactly the same hands, so the rule "
                   "never binds them.")  # fmt: skip
    for measure in sorted(ATLAS_MEASURES, key=lambda m: FINDINGS_ORDER.index(m.shown.name)):
        part = changes[(changes["measure"] == measure.shown.name) & ~changes["rule"].isin(inert)]
        for rule, rows in part.groupby("rule", sort=False):
            sentence = rule_finding(str(rule), rows, measure)
            if sentence:
                out.append(sentence)
        if measure.shown.name != "game_length":
            sentence = largest(part, measure)
            if sentence:
                out.append(sentence)
    out += fairest(cells, levels)
    return out


def largest(changes: pd.DataFrame, measure: AtlasMeasure) -> str | None:
    """Return where one rule moves a measure most (interval clear of zero, at least the margin), or None."""
    shown = measure.shown
    margin = MEASURES[shown.name].margin / _scale(shown) if shown.name in MEASURES else 0.0
    firm = changes[((changes["low"] > 0) | (changes["high"] < 0)) & (changes["change"].abs() >= margin)]
    if firm.empty:
        return None
    row = firm.loc[firm["change"].abs().idxmax()]
    noun = _noun(shown)
    k, d = _scale(shown), shown.digits
    unit = {"pp": " pp", "hands": " hands", "": ""}[shown.unit]
    return (f"The largest change one rule makes to {noun}: {row['rule']} at {int(row['players'])} players, "
            f"{row['change'] * k:+.{d}f}{unit} [{row['low'] * k:+.{d}f}, {row['high'] * k:+.{d}f}], from "
            f"{row['base'] * k:+.{d}f}{unit} under basic rummy.")  # fmt: skip


def fairest(cells: pd.DataFrame, levels: Mapping[str, Sequence[object]]) -> list[str]:
    """Return, per table size, the rule set whose first player's hand edge is nearest zero, beside basic rummy's."""
    m, out = "first_player_edge_hand", []
    reference = {f: str(v[0]) for f, v in levels.items()}
    for players, at in cells.dropna(subset=[m]).groupby("players"):
        best = at.loc[at[m].abs().idxmin()]
        base = at[np.logical_and.reduce([at[f] == v for f, v in reference.items()])]
        said = [rule_words_of(f, best[f], v) for f, v in levels.items() if best[f] != str(v[0])]
        rules = ", ".join(said) if said else "basic rummy itself"
        basic = ""
        if len(base) and said:
            change = f"{m}_change"
            basic = (f"; basic rummy's is {_pp(base.iloc[0], m)}, a change of {best[change] * 100:+.2f} pp "
                     f"[{best[change + '_low'] * 100:+.2f}, {best[change + '_high'] * 100:+.2f}]")  # fmt: skip
        out.append(f"The fairest {players}-player table of the {len(at)} rule sets, by the first player's edge in "
                   f"a hand, is {rules}: {_pp(best, m)}{basic} (the least of {len(at)} estimates: read its "
                   "interval).")  # fmt: skip
    return out


def _pp(row: pd.Series, m: str) -> str:
    return f"{row[m] * 100:+.2f} pp [{row[f'{m}_low'] * 100:+.2f}, {row[f'{m}_high'] * 100:+.2f}]"


def change_table(changes: pd.DataFrame, measure: AtlasMeasure) -> pd.DataFrame:
    """Return one measure's rule-by-size table: a row per rule, a column per table size, ``change [low, high]``."""
    shown, part = measure.shown, changes[changes["measure"] == measure.shown.name]
    k, d = _scale(shown), shown.digits

    def text(r: pd.Series) -> str:
        if not math.isfinite(r["change"]):
            return "n/a"
        return f"{r['change'] * k:+.{d}f} [{r['low'] * k:+.{d}f}, {r['high'] * k:+.{d}f}]"

    if part.empty:
        return pd.DataFrame()
    wide = part.assign(text=part.apply(text, axis=1)).pivot(index="rule", columns="players", values="text")
    wide = wide.reindex(part["rule"].drop_duplicates())
    wide.columns = [f"{p} players" for p in wide.columns]
    return wide.reset_index()


def change_heatmap(changes: pd.DataFrame, measure: AtlasMeasure) -> Figure:
    """Return a heat map of one measure's rule-by-rule changes (rows) at each table size (columns), annotated."""
    shown, part = measure.shown, changes[changes["measure"] == measure.shown.name]
    grid = part.pivot(index="rule", columns="players", values="change").reindex(part["rule"].drop_duplicates())
    sure = part.assign(sure=(part["low"] > 0) | (part["high"] < 0)).pivot(index="rule", columns="players",
                                                                         values="sure").reindex(grid.index)  # fmt: skip
    values = grid.to_numpy(dtype=float) * _scale(shown)
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(grid) + 1.4), layout="constrained")
    limit = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit or -1, vmax=limit or 1, aspect="auto")
    for (i, j), x in np.ndenumerate(values):
        if math.isfinite(x):
            mark = "" if bool(sure.iloc[i, j]) or x == 0 else "?"
            text = "0" if x == 0 else f"{x:+.{shown.digits}f}{mark}"
            color = "white" if abs(x) > 0.6 * limit else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    ax.set_xticks(range(len(grid.columns)), [f"{p} players" for p in grid.columns])
    ax.set_yticks(range(len(grid)), [str(r).split(" (")[0] for r in grid.index])
    unit = " (pp)" if shown.unit == "pp" else ""
    ax.set_title(f"{shown.label}{unit}: each rule's change against basic rummy\n"
                 "(? : the 95% interval spans zero)", fontsize=9)  # fmt: skip
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def explorer_measures() -> list[Measure]:
    """Return how the explorer shows each atlas measure."""
    return [m.shown for m in ATLAS_MEASURES]


def interaction_lines(analysis: Analysis, *, shown: int = 12) -> list[str]:
    """Return the two-rule interactions of the atlas's measures whose 95% interval excludes zero, largest first."""
    labels = {m.metric: m for m in ATLAS_MEASURES}
    arm_players = {c.name.rpartition("|")[0]: c.rules.n_players for c in analysis.experiment.conditions}
    found = [e for e in analysis.effects if e.kind == "interaction" and e.measure in labels
             and (e.estimate.low > 0 or e.estimate.high < 0)]  # fmt: skip
    found.sort(key=lambda e: -abs(e.estimate.value) * _scale(labels[e.measure].shown))
    lines = []
    for e in found[:shown]:
        m = labels[e.measure].shown
        k, d = _scale(m), m.digits
        est = e.estimate
        lines.append(f"- {m.label}, {arm_players.get(e.arm, '?')} players ({e.arm}): {e.term}: "
                     f"{est.value * k:+.{d}f} [{est.low * k:+.{d}f}, {est.high * k:+.{d}f}]")  # fmt: skip
    return lines


def render_atlas(
    analysis: Analysis, cells: pd.DataFrame, changes: pd.DataFrame, said: Sequence[str], figures: Mapping[str, Path],
    folder: Path, *, sizing: list[str], guide: str,
) -> str:  # fmt: skip
    """Return an atlas's report.md: findings, each rule against basic rummy by table size, interactions, how sized.

    `cells`, `changes` and `said` are the run's `atlas_cells`, their `rule_changes` and `findings`.
    """
    parts = [f"# {analysis.question}", "## What the atlas found"]
    parts.append("\n".join(f"- {s}" for s in said) if said else "No rule moves a measure firmly at every table size.")
    parts.append(
        f"Every cell is a table size and a set of rules: {len(cells)} cells. Each change is against basic rummy at "
        "the same table size (the first level of every rule), on the same deals, with its 95% interval; a change "
        "whose interval spans zero is not shown to be one. Pick, compare, sort and filter every cell in "
        "[the explorer](explorer.html); every number is in `atlas_cells.csv`."
    )
    parts.append("## Each rule against basic rummy")
    parts.append(
        "As blackjack's rule tables give each rule's effect on the house edge, each row changes one rule of basic "
        "rummy and nothing else. Changes add up only as far as the rules do not interact (next section)."
    )
    for measure in ATLAS_MEASURES:
        table = change_table(changes, measure)
        if table.empty:
            continue
        parts.append(f"### {measure.shown.label}")
        base = changes[changes["measure"] == measure.shown.name].drop_duplicates("players")
        k, d, unit = _scale(measure.shown), measure.shown.digits, {"pp": " pp", "hands": " hands", "": ""}
        basics = ", ".join(f"{int(r.players)} players {r.base * k:+.{d}f}{unit[measure.shown.unit]}"
                           for r in base.itertuples() if math.isfinite(r.base))  # fmt: skip
        if basics:
            parts.append(f"Basic rummy: {basics}.")
        parts.append(table.to_markdown(index=False))
        if measure.shown.name in figures:
            image = figures[measure.shown.name].relative_to(folder).as_posix()
            parts.append(f"![{measure.shown.label}: each rule's change]({image})")
    lines = interaction_lines(analysis)
    parts += ["## Rules that do not add up",
              "Two-rule interactions (how much one rule's change differs when the other is on, averaged over the "
              "remaining rules) whose 95% interval excludes zero, largest first; descriptive, not corrected for "
              "the many looked at. All are in `summary_effects.csv`.",
              "\n".join(lines) if lines else "None: at this precision the rules' changes add up."]  # fmt: skip
    if sizing:
        parts += ["## How many games", sizing[0], "\n".join(sizing[1:])]
    parts += ["## Tables",
              "`atlas_cells.csv` (one row per cell), `summary_comparisons.csv` (every cell against basic rummy, "
              "every metric), `summary_metrics.csv` (every cell's metrics), `summary_effects.csv` (main effects and "
              f"interactions): {guide} says how to read them."]  # fmt: skip
    return "\n\n".join(parts) + "\n"


def draw_atlas(changes: pd.DataFrame, folder: Path) -> dict[str, Path]:
    """Draw each atlas measure's rule-by-size heat map of `rule_changes` into `folder`; return the PNGs by measure."""
    from rummysim.report.figures import RC, save

    paths = {}
    with plt.rc_context(RC):
        for measure in ATLAS_MEASURES:
            part = changes[changes["measure"] == measure.shown.name]
            if len(part) and part["change"].notna().any():
                name = measure.shown.name
                paths[name] = save(change_heatmap(changes, measure), folder, f"atlas_{name}")
    return paths
