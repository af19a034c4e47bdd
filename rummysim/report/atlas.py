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
- **findings** (`findings`, `rummysim.report.atlas_findings`): sentences a player can quote,
  each from the corrected test of its family (`rummysim.analysis.atlas`: the report's 5% shared
  among the cells' changes, fairness to every seat and the interactions);
- **heat maps** of each measure's rule-by-rule changes, table size across;
- ``explorer.html`` (`rummysim.report.explorer`): every cell, to pick, compare, sort, filter.

Every change printed, marked or said is the run's simultaneous interval (at 1 − α/m over all
the atlas's planned changes, α its 3%), never a lone 95% one. The grid's main effects and
two-factor interactions stay in ``summary_effects.csv`` (`rummysim.analysis.grid`); the report
lists the interactions that survive Benjamini-Yekutieli.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rummysim.analysis import Analysis, ConditionSummary
from rummysim.analysis.atlas import ALPHAS, alike_groups, fairness_table, interactions, never_binds
from rummysim.analysis.atlas import is_atlas as _is_atlas
from rummysim.analysis.comparison import Comparison
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.grid import arms
from rummysim.analysis.skill import measured
from rummysim.design import Experiment
from rummysim.margins import margins_text
from rummysim.measures import MEASURES
from rummysim.report import atlas_findings as said
from rummysim.report.explorer import Measure
from rummysim.report.verdicts import lineup_words, rule_words
from rummysim.report.wording import interval, rounded
from rummysim.specs import strategy_label


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
PERCENT = ("game_length",)
"""The measures whose changes are printed as a share of basic rummy's level (a game's length: decided so too)."""


def is_atlas(analysis: Analysis) -> bool:
    """Return True if the run is reported as an atlas (`rummysim.analysis.atlas.is_atlas`)."""
    return _is_atlas(analysis.experiment)


def _value(analysis: Analysis, summary: ConditionSummary, measure: AtlasMeasure) -> Estimate:
    """Return a cell's value of `measure`: its metric, or the measured strategy's Order."""
    if measure.metric != "order":
        return summary.metrics.get(measure.metric, Estimate(NAN, NAN, NAN, 0))
    focal = measured(summary, analysis.experiment.skill)
    share = next((s for s in summary.strategies if s.strategy == focal), None)
    return share.order if share is not None else Estimate(NAN, NAN, NAN, 0)


def atlas_cells(analysis: Analysis) -> pd.DataFrame:
    """Return one row per table size and rule set: each `ATLAS_MEASURES` value and its change against basic rummy.

    Columns: ``cell``, ``players``, ``condition``, one per grid factor (its level as text), then per
    measure ``m``, ``m_low``, ``m_high`` (the cell's level, 95%), ``m_change``, ``m_change_low``,
    ``m_change_high`` (the change against the reference cell at the same table size with the run's
    simultaneous interval, in the measure's unit; 0 without interval for that cell) and
    ``m_answer`` (the run's answer, `rummysim.analysis.comparison.Answer`).
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
            row["condition" if not skill else "skill_condition"] = name
            for measure in ATLAS_MEASURES:
                if measure.skill != skill:
                    continue
                m = measure.shown.name
                value = _value(analysis, summaries[name], measure)
                comp = compared.get((reference, name))
                base = _value(analysis, summaries[reference], measure).value
                change, answer = _decided(comp, measure.metric, base) if comp is not None else (None, "")
                if name == reference:
                    change = Estimate(0.0, NAN, NAN, value.n)
                change = change or Estimate(NAN, NAN, NAN, 0)
                row.update({m: value.value, f"{m}_low": value.low, f"{m}_high": value.high, f"{m}_change": change.value,
                            f"{m}_change_low": change.low, f"{m}_change_high": change.high,
                            f"{m}_answer": answer})  # fmt: skip
    frame = pd.DataFrame([rows[k] for k in sorted(rows)])
    for measure in ATLAS_MEASURES:  # a measure no condition played is a column of NaN, not a missing one
        for suffix in ("", "_low", "_high", "_change", "_change_low", "_change_high", "_answer"):
            if f"{measure.shown.name}{suffix}" not in frame:
                frame[f"{measure.shown.name}{suffix}"] = "" if suffix == "_answer" else NAN
    return frame


def _decided(comp: Comparison, metric: str, base: float) -> tuple[Estimate | None, str]:
    """Return a planned change with its simultaneous interval in the measure's unit, and its answer.

    A change decided on the log ratio (a game's length) is turned back into its unit exactly:
    base · (e^x − 1) at the estimate and at each end.
    """
    b = comp.bounds.get(metric)
    if b is None:
        return comp.differences.get(metric), ""
    e = b.interval
    if b.relative:
        value, low, high = (base * math.expm1(x) if math.isfinite(x) else NAN for x in (e.value, e.low, e.high))
        e = Estimate(value, low, high, e.n)
    return e, comp.answer(metric).value


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
    reference level. Columns: rule, factor, level, players, measure, change, low, high (the
    simultaneous interval), answer, base (basic rummy's level), and ``shown_change``, ``shown_low``,
    ``shown_high``: the change as printed, a share of the base for game length (`PERCENT`), else the change.
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
                    base_value = float(at[m].iloc[0]) if len(at) else NAN
                    per = base_value if m in PERCENT and base_value else 1.0
                    rows.append({
                        "rule": rule_words_of(factor, level, values), "factor": factor, "level": str(level),
                        "players": int(row["players"]), "measure": m, "change": row[f"{m}_change"],
                        "low": row[f"{m}_change_low"], "high": row[f"{m}_change_high"],
                        "answer": row[f"{m}_answer"], "base": base_value, "shown_change": row[f"{m}_change"] / per,
                        "shown_low": row[f"{m}_change_low"] / per, "shown_high": row[f"{m}_change_high"] / per,
                    })  # fmt: skip
    return pd.DataFrame(rows, columns=["rule", "factor", "level", "players", "measure", "change", "low", "high",
                                       "answer", "base", "shown_change", "shown_low", "shown_high"])  # fmt: skip


def _noun(measure: Measure) -> str:
    """Return a measure as a sentence names it: the verdicts' noun (`rummysim.measures`); for skill, the better
    player's advantage (its Order, said on the first screen)."""
    if measure.name == "order":
        return "the better player's advantage"
    return MEASURES[measure.name].noun if measure.name in MEASURES else measure.label


def change_scale(measure: Measure) -> float:
    return 100.0 if measure.unit == "pp" or measure.name in PERCENT else 1.0


def change_unit(measure: Measure) -> str:
    """Return the unit a change of `measure` is printed in: `` pp``, ``%`` (`PERCENT`) or nothing."""
    return "%" if measure.name in PERCENT else {"pp": " pp", "hands": " hands", "": ""}[measure.unit]


def change_digits(measure: Measure) -> int:
    return 1 if measure.name in PERCENT else measure.digits


def amounts(experiment: Experiment) -> dict[str, dict[str, str]]:
    """Return, per atlas measure, how its changes are said: margin (as the file writes it), unit, scale, digits."""
    margins = margins_text(experiment.margin, experiment.relative_margin)
    out = {}
    for measure in ATLAS_MEASURES:
        shown = measure.shown
        margin = margins.get(shown.name, "")
        out[shown.name] = {"margin": str(margin), "unit": change_unit(shown), "scale": str(change_scale(shown)),
                           "digits": str(change_digits(shown))}  # fmt: skip
    return out


def findings(
    analysis: Analysis, cells: pd.DataFrame, changes: pd.DataFrame, *, fairness: pd.DataFrame | None = None
) -> list[str]:  # fmt: skip
    """Return the atlas's sentences: rules that never bind, each rule's firm changes, the largest, the fairest tables.

    Every sentence rests on its family's corrected test (`rummysim.analysis.atlas`); `fairness`:
    the run's `fairness_table`, if the caller has it already.
    """
    grid = analysis.experiment.grid
    frames = analysis.frames
    binds = never_binds(analysis.experiment, frames)
    inert = [rule_words_of(f, level, grid[f]) for (f, level), never in binds.items() if never]
    table = fairness_table(analysis.experiment, frames) if fairness is None else fairness
    return findings_of(
        changes, inert=inert, fairness=table, words=rule_set_words(cells, grid),
        alike=alike_groups(analysis.experiment, frames), amount=amounts(analysis.experiment),
        level=changes_level(analysis),
    )  # fmt: skip


def findings_of(
    changes: pd.DataFrame, *, inert: Sequence[str], fairness: pd.DataFrame, words: Mapping[str, str],
    alike: Sequence[Sequence[str]], amount: Mapping[str, Mapping[str, str]], level: float,
) -> list[str]:  # fmt: skip
    """Return the findings from the families' frames (see `findings`): the null atlases' tests call this too."""
    out = said.never_bind_sentences(inert)
    for measure in sorted(ATLAS_MEASURES, key=lambda m: said.FINDINGS_ORDER.index(m.shown.name)):
        name = measure.shown.name
        part = changes[(changes["measure"] == name) & ~changes["rule"].isin(inert)]
        for rule, rows in part.groupby("rule", sort=False):
            sentence = said.rule_finding(str(rule), rows, noun=_noun(measure.shown), amount=amount[name])
            if sentence:
                out.append(sentence)
        if name not in PERCENT:
            sentence = said.largest(part, noun=_noun(measure.shown), amount=amount[name], level=level)
            if sentence:
                out.append(sentence)
    if len(fairness):
        out += said.fairness_sentences(fairness, words, alike, alpha=ALPHAS["fairness"])
    return out


def changes_level(analysis: Analysis) -> float:
    """Return the level of the run's simultaneous intervals (1 − α/m: one for all its planned changes)."""
    levels = [b.level for c in analysis.comparisons for b in c.bounds.values()]
    return min(levels) if levels else 0.95


def rule_set_words(cells: pd.DataFrame, levels: Mapping[str, Sequence[object]]) -> dict[str, str]:
    """Return each cell's condition (both its lineups') -> its rule set as a player says it ("basic rummy" for none)."""
    out = {}
    for _, row in cells.iterrows():
        words = [rule_words_of(f, row[f], v) for f, v in levels.items() if row[f] != str(v[0])]
        for key in ("condition", "skill_condition"):
            if isinstance(row.get(key), str):
                out[row[key]] = ", ".join(words) if words else "basic rummy"
    return out


def change_table(changes: pd.DataFrame, measure: AtlasMeasure) -> pd.DataFrame:
    """Return one measure's rule-by-size table: a row per rule, a column per table size, ``change [low, high]``.

    The interval is the run's simultaneous one; a change whose sign is not shown is marked ``?``.
    """
    shown, part = measure.shown, changes[changes["measure"] == measure.shown.name]
    k, d = change_scale(shown), change_digits(shown)

    def text(r: pd.Series) -> str:
        if not math.isfinite(r["shown_change"]):
            return "n/a"
        if r["shown_change"] == 0 and not (r["shown_high"] > r["shown_low"]):
            return "0 in every game"
        mark = "" if r["answer"] in said.SHOWN else " ?"
        value, low, high = rounded(r["shown_change"] * k, r["shown_low"] * k, r["shown_high"] * k, least=d, sign="+")
        return f"{value} {interval(low, high)}{mark}"

    if part.empty:
        return pd.DataFrame()
    wide = part.assign(text=part.apply(text, axis=1)).pivot(index="rule", columns="players", values="text")
    wide = wide.reindex(part["rule"].drop_duplicates())
    wide.columns = [f"{p} players" for p in wide.columns]
    return wide.reset_index()


def explorer_measures() -> list[Measure]:
    """Return how the explorer shows each atlas measure."""
    return [m.shown for m in ATLAS_MEASURES]


def interaction_frame(analysis: Analysis) -> pd.DataFrame:
    """Return the atlas's interactions with their Benjamini-Yekutieli verdicts (`analysis.atlas.interactions`)."""
    conditions = analysis.experiment.conditions
    skill = {c.name.rpartition("|")[0] for c in conditions if len({strategy_label(p) for p in c.players}) > 1}
    return interactions(analysis.effects, measures={m.metric: m.skill for m in ATLAS_MEASURES}, skill_arms=skill)


def interaction_lines(analysis: Analysis) -> list[str]:
    """Return the interactions that survive, ranked by |z| within each measure, as the report lists them."""
    labels = {m.metric: (m.shown.label, 100.0 if m.shown.unit == "pp" else 1.0, m.shown.digits) for m in ATLAS_MEASURES}
    players = {c.name.rpartition("|")[0]: c.rules.n_players for c in analysis.experiment.conditions}
    grid = analysis.experiment.grid

    def words(term: str) -> str:
        pairs = [part.split("=", 1) for part in term.split(" × ")]
        return " with ".join(rule_words_of(f, level, grid[f]) if f in grid else f"{f}={level}" for f, level in pairs)

    return said.interaction_lines(interaction_frame(analysis), labels, players, words)


def _first_screen(analysis: Analysis, cells: pd.DataFrame) -> str:
    """Return who played, to what score and how many games: what every finding depends on."""
    experiment = analysis.experiment
    by_size = sorted(experiment.conditions, key=lambda c: c.rules.n_players)
    fair = list(dict.fromkeys(lineup_words(c) for c in by_size if len({strategy_label(p) for p in c.players}) == 1))
    skill = list(dict.fromkeys(lineup_words(c) for c in by_size if len({strategy_label(p) for p in c.players}) > 1))
    games = sorted({s.games for s in analysis.conditions})
    played = f"{games[0]:,}" if len(games) == 1 else f"{games[0]:,} to {games[-1]:,}"
    target = experiment.conditions[0].rules.target_score
    who = f"fairness and game length from {_joined(fair)}" + (f"; skill from {_joined(skill)}" if skill else "")
    return (f"**Who played:** the bots, not people: {who}. Every game is played to {target} points "
            f"(`target_score: {target}`); {played} games a cell, {len(cells)} cells. The answers are these bots' "
            "at this score; other players or scores may differ.\n\n**The words:** a seat's edge is its share of the "
            "hands won less the fair share, in percentage points (pp); the better player's advantage is its Order, 0 "
            "when it wins its fair share of the games and 1 when it wins them all; Holm's method tests the rule sets "
            "of a table size together, so a false finding among them stays under its share of the 5%.")  # fmt: skip


def _joined(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{items[0]} to {items[-1]}" if len(items) > 3 else ", ".join(items)


def render_atlas(
    analysis: Analysis, cells: pd.DataFrame, changes: pd.DataFrame, found: Sequence[str], figures: Mapping[str, Path],
    folder: Path, *, sizing: Sequence[str], guide: str,
) -> str:  # fmt: skip
    """Return an atlas's report.md: findings, each rule against basic rummy by table size, interactions, how sized.

    `cells`, `changes` and `found` are the run's `atlas_cells`, their `rule_changes` and `findings`.
    """
    level = changes_level(analysis)
    parts = [f"# {analysis.question}", _first_screen(analysis, cells), "## What the atlas found"]
    parts.append("\n".join(f"- {s}" for s in found) if found else "No rule moves a measure firmly at every table size.")
    parts.append(
        f"Each change is against basic rummy at the same table size (the first level of every rule), on the same "
        f"deals. Its interval is at {said.level_text(level)}, so that all the atlas's changes are covered at once (its "
        f"share, {ALPHAS['changes'] * 100:g}%, of the report's 5%; fairness and the interactions have "
        f"{ALPHAS['fairness'] * 100:g}% each): a change marked ? is not shown to be one. The games were sized for "
        "95% intervals. Pick, compare, sort and filter every cell in [the explorer](explorer.html); every number is "
        "in `atlas_cells.csv`."
    )  # fmt: skip
    parts.append("## Each rule against basic rummy")
    parts.append(
        "As blackjack's rule tables give each rule's effect on the house edge, each row changes one rule of basic "
        "rummy and nothing else. Changes add up only as far as the rules do not interact (next section)."
    )
    for measure in ATLAS_MEASURES:
        table = change_table(changes, measure)
        if table.empty:
            continue
        parts.append(f"### {measure.shown.label}" + (" (change in %)" if measure.shown.name in PERCENT else ""))
        base = changes[changes["measure"] == measure.shown.name].drop_duplicates("players")
        unit = {"pp": " pp", "hands": " hands", "": ""}[measure.shown.unit]
        k = 100.0 if measure.shown.unit == "pp" else 1.0
        basics = ", ".join(f"{r.base * k:.{measure.shown.digits}f}{unit} at {int(r.players)} players"
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
              "remaining rules) that survive Benjamini-Yekutieli's correction over all of them at "
              f"{ALPHAS['interactions'] * 100:g}%, ranked by z within each measure. All are in `summary_effects.csv`.",
              "\n".join(lines) if lines else "No interaction is shown: none survives the correction, which is not "
              "evidence that the rules' changes add up."]  # fmt: skip
    if sizing:
        parts += ["## How many games", *sizing]
    parts += ["## Tables",
              "`atlas_cells.csv` (one row per cell), `summary_comparisons.csv` (every cell against basic rummy, "
              "every metric), `summary_metrics.csv` (every cell's metrics), `summary_effects.csv` (main effects and "
              f"interactions): {guide} says how to read them."]  # fmt: skip
    return "\n\n".join(parts) + "\n"
