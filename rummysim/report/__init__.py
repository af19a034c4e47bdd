"""The written report of a run: report.md, a self-contained report.html, figures and CSVs.

`build_report(folder)` analyses the tables of a finished run (`rummysim.analysis`) and
writes, next to them: ``report.md`` (opening with the experiment's question and its
answer), ``report.html`` (the same, with the charts embedded, so it opens offline),
``figures/*.png`` and ``*.svg``, and the summary tables as CSV (``summary_*.csv``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from rummysim.analysis import Analysis, analyze
from rummysim.analysis.atlas import fairness_table
from rummysim.analysis.ladder import Ladder, rated_conditions
from rummysim.analysis.ladder import ladder as fit_ladder
from rummysim.analysis.reading import Progress
from rummysim.report.answer import evidence, lineup_answers
from rummysim.report.atlas import (
    atlas_cells,
    changes_level,
    findings,
    is_atlas,
    render_atlas,
    rule_changes,
)
from rummysim.report.atlas_explorer import write_atlas_explorer
from rummysim.report.atlas_figures import draw_atlas
from rummysim.report.changes import INTRO, other_changes
from rummysim.report.figures import RC, ForestRow, charts_for, draw_all, forest_plot, save
from rummysim.report.glossary import glossary_lines
from rummysim.report.html import render_html
from rummysim.report.ladder import draw_ladder, ladder_lines, ladder_notes, lead, leads, pairing_lines
from rummysim.report.short import answer_table, change_shown, in_short, other_sizes, verdict_records
from rummysim.report.sizing import missed_targets, sizing_lines
from rummysim.report.strong import grouped, holds, strong_section
from rummysim.report.tables import (
    GRID,
    comparisons_text,
    conditions_table,
    grid_text,
    metrics_wide,
    seats_wide,
    strategies_text,
)
from rummysim.report.verdicts import Verdict, group_title, lineup_words, verdicts
from rummysim.report.why import reasons
from rummysim.results import MANIFEST, Results, load_results, write_text_atomic
from rummysim.specs import strategy_label

DOCS = Path(__file__).resolve().parents[2] / "docs"
"""rummysim's docs, where the package runs from a clone (reports link to them there)."""


@dataclass(frozen=True)
class Report:
    """The files one report wrote."""

    markdown: Path
    html: Path
    figures: dict[str, Path]
    tables: dict[str, Path]
    verdicts: tuple[str, ...] = ()
    """The answer's sentences as plain text (`rummysim run` prints them when it finishes): the verdicts, after the
    ladder's lead where the ladder is the answer (`rummysim.report.ladder.leads`)."""


def render_markdown(
    analysis: Analysis, figures: dict[str, Path], folder: Path, *, sizing: Mapping[str, Any] | None = None,
    rated: Ladder | None = None,
) -> str:  # fmt: skip
    """Return report.md: the question, its answer, what else changes, the evidence, the tables.

    A player reads the answer first: the verdicts in the rule's own words
    (`rummysim.report.verdicts`), or, where the experiment is a round robin of bots, the ladder
    (`rummysim.report.ladder.leads`) with its planned comparisons after it. Each term is in the
    glossary at the end, each rule in the rulebook the report links to.
    """
    found = verdicts(analysis)
    titles = {i: group_title(analysis, comp) for i, comp in enumerate(analysis.comparisons)}
    parts = [f"# {analysis.question}"]
    notes = [holds(analysis, v) for v in found]
    why = reasons(analysis, (v.comparison for v in found))
    answers = grouped(found, notes, {v.group: why.get(id(v.comparison), "") for v in found})
    if "answer" in figures:
        alt = "The answer at a glance: each planned change with the interval that decided it, and its margin"
        answers.append(f"![{alt}]({_rel(figures['answer'], folder)})")
    if rated is not None:
        chart = f"![The ladder: each strategy's rating with its 95% interval]({_rel(figures['ladder'], folder)})"
        board = ["\n".join(ladder_lines(analysis, rated)), chart, ladder_notes(analysis, rated)]
        pairings = "\n".join(pairing_lines(analysis, rated))
    if rated is not None and leads(analysis, rated):  # a round robin: the ladder is the answer
        parts += [*board, _reading_note(analysis, folder, found)]
        parts += ["## The planned comparisons", *answers] if found else []
        parts += [*strong_section(analysis), "## Each pairing", pairings]
    else:
        if found:  # one screen: the question, "In short", the compact table, what they rest on; then the full verdicts
            note = _reading_note(analysis, folder, found)
            sizes = other_sizes(analysis, found)
            parts += [in_short(analysis, found), *([sizes] if sizes else []), *answer_table(analysis, found), note]
            parts += ["## The verdicts in full", *answers, *strong_section(analysis)]
        else:
            parts += [*_unplanned(analysis), _reading_note(analysis, folder, found), *strong_section(analysis)]
        parts += ["## The ladder: how strong is each strategy?", *board, pairings] if rated is not None else []
    changes = other_changes(analysis, titles)
    if analysis.comparisons:
        none = "Nothing else changes at a 5% false discovery rate."
        parts += ["## What else changes", INTRO, "\n".join(changes) if changes else none]
    parts += ["## The evidence", *evidence(analysis)]
    if sizing:
        lines = sizing_lines(sizing)
        parts += ["### How many games", lines[0], "\n".join(lines[1:])]
    charts = charts_for(analysis)
    if charts:
        parts.append("## Charts")
        for name, (_, title) in charts.items():
            parts += [f"### {title}", f"![{title}]({_rel(figures[name], folder)})"]
    parts += tables_section(analysis)
    sources = f"Formulas and sources of every metric: {_doc('metrics.md', folder)}."
    parts += ["## Glossary", "\n".join(glossary_lines()), sources]
    return "\n\n".join(parts) + "\n"


def _unplanned(analysis: Analysis) -> list[str]:
    """Return the answer of a run that planned no comparison: what each mixed lineup shows, if it has one (the
    evidence follows)."""
    shown = lineup_answers(analysis)
    if not shown:
        return ["No comparison was planned: the conditions are described one by one below."]
    return ["\n".join(f"- {line}." for line in shown)]


def _ladder(analysis: Analysis, folder: Path, results: Results | None) -> Ladder | None:
    """Return the ladder of the run's mixed lineups (`rummysim.analysis.ladder`), if it has more than one pairing."""
    if rated_conditions(analysis) is None:
        return None  # one pairing under each rule set: its share is the whole story; the games table is not read
    results = results or load_results(folder)
    return fit_ladder(analysis, games=results.games)


def _bots_note(analysis: Analysis) -> str:
    """Return whose answers these are: the bots of the question's lineups (never people)."""
    bots = sorted({strategy_label(p) for c in analysis.experiment.conditions if not c.strong for p in c.players})
    return f"These are the answers of the bots named ({', '.join(f'`{b}`' for b in bots)}), not of people. "


def _levels_note(analysis: Analysis, found: Sequence[Verdict]) -> str:
    """Return what the verdicts' intervals are: simultaneous over the question's m planned changes (or 95% if one)."""
    if not found:
        return "Every interval is 95%. "
    m, level = len(found), found[0].level
    sized = " (the run was sized, by `precision:`, on their 95% half-widths)" if analysis.experiment.precision else ""
    if m == 1 or level <= 0.95:
        return f"The interval beside the verdict is 95%{sized}, as is every other. "
    return (
        f"Each interval beside a verdict holds for all {m} planned changes at once ({level:.2%} each), so the "
        f"verdicts are right together with 95% confidence{sized}; every other interval is 95%. "
    )


def forest_rows(found: Sequence[Verdict]) -> list[ForestRow]:
    """Return the verdicts as the forest plot's rows: each change, its interval and margin, in its unit."""
    return [
        ForestRow(
            label=v.label,
            group=v.group,
            value=v.change.value,
            low=v.change.low,
            high=v.change.high,
            margin=v.margin,
            unit=v.unit,
            verdict=v.answer.value,
        )
        for v in found
    ]


def _reading_note(analysis: Analysis, folder: Path, found: Sequence[Verdict]) -> str:
    return (
        f"{_bots_note(analysis)}{_levels_note(analysis, found)}"
        "The words are in the [glossary](#glossary), the rules in "
        f"{_doc('rulebook.md', folder, 'the rulebook')}, and how to read this report in "
        f"{_doc('reading-a-report.md', folder, 'reading a report')}. Experiment `{analysis.experiment.name}`, "
        f"seed {analysis.experiment.seed}."
    )


def _doc(name: str, folder: Path, text: str | None = None) -> str:
    """Return a link to one of rummysim's docs: relative from the report when both are in one clone, else named."""
    target = DOCS / name
    if target.exists() and DOCS.parent in folder.resolve().parents:
        try:
            relative = os.path.relpath(target, folder.resolve())
            return f"[{text or 'docs/' + name}]({Path(relative).as_posix()})"
        except ValueError:  # another drive (Windows)
            pass
    return f"{text + ' (' if text else ''}rummysim's docs/{name}{')' if text else ''}"


def _rel(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()


def tables_section(analysis: Analysis) -> list[str]:
    """Return the tables: conditions, seats, strategies, comparisons, a grid's effects, every metric."""
    parts = ["## Tables", "### Conditions", conditions_table(analysis).to_markdown(index=False)]
    parts += ["### Seat win share by turn position (%; hands: over games (bootstrap; delta method from 5,000), "
              "games: Wilson; 95% intervals; chi-square test of uniform seats)",
              seats_wide(analysis).to_markdown(index=False)]  # fmt: skip
    strategies = strategies_text(analysis)
    if len(strategies):
        parts += ["### Strategy win share (games won by its seats, %, 95% Wilson interval) and Order",
                  strategies.to_markdown(index=False)]  # fmt: skip
    comparisons = comparisons_text(analysis)
    if len(comparisons):
        parts += ["### Comparisons (other − reference; 95% intervals over games: bootstrap, or the delta method "
                  "from 5,000 games)",
                  comparisons.to_markdown(index=False)]  # fmt: skip
    if analysis.effects:
        parts += [GRID, grid_text(analysis).to_markdown(index=False)]
    parts += ["### Every metric by condition (95% intervals)", metrics_wide(analysis).to_markdown(index=False)]
    return parts


def build_report(
    folder: str | Path, *, analysis: Analysis | None = None, results: Results | None = None,
    progress: Progress | None = None,
) -> Report:  # fmt: skip
    """Analyse the run in `folder` and write its report, figures and summary CSVs there.

    `analysis` (or `results.analysis`, a sized run's last) is used if given, else the
    tables are analysed (`results`, if given, is the folder's already loaded and checked).
    Loaded here, the manifest is checked first (`Results.check_manifest`): a report is never
    written from an edited one.
    """
    folder = Path(folder)
    if results is None and (analysis is None or (folder / MANIFEST).exists()):
        results = load_results(folder)
        results.check_tables("hands", "games")
        results.check_manifest()
    if analysis is None:
        assert results is not None
        analysis = results.analysis or analyze(results, progress=progress)
    if progress is not None:
        progress.phase("drawing the charts")
    if is_atlas(analysis):
        return _atlas_report(analysis, folder, results)
    figures = draw_all(analysis, folder / "figures")
    found = verdicts(analysis)
    if found:
        with plt.rc_context(RC):
            figures["answer"] = save(forest_plot(forest_rows(found)), folder / "figures", "answer")
    rated = _ladder(analysis, folder, results)
    if rated is not None:
        figures["ladder"] = draw_ladder(rated, folder / "figures" / "ladder")
    if progress is not None:
        progress.phase("writing the report")
    paths = _summary_tables(analysis, folder)
    sizing = results.manifest.get("precision") if results is not None else None
    text = render_markdown(analysis, figures, folder, sizing=sizing, rated=rated)
    md = folder / "report.md"
    write_text_atomic(text, md)
    html = folder / "report.html"
    write_text_atomic(render_html(text, title=analysis.question, folder=folder), html)
    write_text_atomic(json.dumps(verdict_records(analysis, found), indent=1, allow_nan=False, default=str) + "\n",
                      folder / "verdicts.json")  # fmt: skip
    said = [v.sentence for v in found]
    if rated is not None and leads(analysis, rated):
        said.insert(0, lead(analysis, rated))
    elif found:
        said = [in_short(analysis, found), *(_said_row(analysis, v) for v in found)]
    elif not found:
        said = [line.replace("**", "") + "." for line in lineup_answers(analysis)]
    return Report(md, html, figures, paths, tuple(sentence.replace("`", "").replace("**", "") for sentence in said))


def _said_row(analysis: Analysis, v: Verdict) -> str:
    """Return one verdict as `rummysim run` prints it under "In short": its lineup, measure, answer and change."""
    lineup = lineup_words(analysis.experiment.condition(v.comparison.other))
    return f"- {lineup}, {v.label}: {v.answer.value} (change {change_shown(v)})"


def _summary_tables(analysis: Analysis, folder: Path) -> dict[str, Path]:
    """Write the summary CSVs (metrics, seats, strategies, uniformity, comparisons, a grid's effects); return them."""
    tables = {
        "metrics": analysis.metrics_table(), "seats": analysis.seats_table(),
        "strategies": analysis.strategies_table(), "uniformity": analysis.uniformity_table(),
        "comparisons": analysis.comparisons_table(),
        **({"effects": analysis.effects_table()} if analysis.effects else {}),
    }  # fmt: skip
    paths = {}
    for name, table in tables.items():
        paths[name] = folder / f"summary_{name}.csv"
        write_text_atomic(table.to_csv(index=False), paths[name])
    return paths


def _atlas_report(analysis: Analysis, folder: Path, results: Results | None) -> Report:
    """Write an atlas's report (`rummysim.report.atlas`): heat maps, report, cells, explorer, summary CSVs."""
    grid = analysis.experiment.grid
    cells = atlas_cells(analysis)
    changes = rule_changes(cells, grid)
    fairness = fairness_table(analysis.experiment, analysis.frames)
    said = findings(analysis, cells, changes, fairness=fairness)
    figures = draw_atlas(changes, folder / "figures", level=changes_level(analysis))
    paths = _summary_tables(analysis, folder)
    paths["cells"] = folder / "atlas_cells.csv"
    write_text_atomic(cells.to_csv(index=False), paths["cells"])
    paths["fairness"] = folder / "atlas_fairness.csv"
    write_text_atomic(fairness.drop(columns="index").to_csv(index=False), paths["fairness"])
    write_atlas_explorer(analysis, cells, folder / "explorer.html")
    players = {c.name: c.rules.n_players for c in analysis.experiment.conditions}
    sizing = missed_targets(results.manifest.get("precision") if results is not None else None, players)
    guide = _doc("atlas.md", folder, "the atlas guide")
    text = render_atlas(analysis, cells, changes, said, figures, folder, sizing=sizing, guide=guide)
    md = folder / "report.md"
    write_text_atomic(text, md)
    html = folder / "report.html"
    write_text_atomic(render_html(text, title=analysis.question, folder=folder), html)
    return Report(md, html, figures, paths, tuple(said))
