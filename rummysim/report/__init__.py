"""The written report of a run: report.md, a self-contained report.html, figures and CSVs.

`build_report(folder)` analyses the tables of a finished run (`rummysim.analysis`) and
writes, next to them: ``report.md`` (opening with the experiment's question and its
answer), ``report.html`` (the same, with the charts embedded, so it opens offline),
``figures/*.png`` and ``*.svg``, and the summary tables as CSV (``summary_*.csv``).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markdown
import numpy as np
import pandas as pd

from rummysim.analysis import DESCRIPTIONS, Analysis, analyze
from rummysim.analysis.reading import Progress
from rummysim.report.answer import answer, notable, p_text
from rummysim.report.figures import charts_for, draw_all
from rummysim.report.sizing import sizing_lines
from rummysim.specs import strategy_name
from rummysim.tables import MANIFEST, Results, load_results, write_text_atomic

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; } code { background: #f3f3f3; padding: 0 0.2rem; }
"""


DESCRIPTIVE = (
    "### How the game changes (descriptive: uncorrected)\n\nDifferences of the other metrics whose 95% interval "
    "excludes zero. No planned test covers them and they are not corrected for multiple comparisons, so the "
    "Answer claims none of them: with this many metrics some intervals exclude zero by chance alone."
)


GRID = (
    "### The grid: main effects and interactions (descriptive: uncorrected)\n\nEach factor's main effect is the "
    "average change from its reference level (its first) to the level shown, over the other factors' levels; an "
    "interaction A × B is how much A's change differs at B's level from at B's reference level (0 when the effects "
    "add up). 95% percentile bootstrap intervals over games, cells that share deals resampled together (paired). "
    "No planned test covers them and they are not corrected, so the Answer claims none of them."
)
UNITS = {"first_seat_advantage_game": (100.0, "first seat's edge, game level (pp)"), "order": (1.0, "Order")}


def grid_text(analysis: Analysis) -> pd.DataFrame:
    """Return a grid's effects as text: arm, measure, effect, estimate [95%]."""
    rows = []
    for effect in analysis.effects:
        scale, label = UNITS.get(effect.measure, (1.0, effect.measure.replace("_", " ")))
        e, digits = effect.estimate, 2 if scale > 1 else 3

        def signed(x: float, digits: int = digits, scale: float = scale) -> str:
            return f"{round(x * scale, digits) + 0.0:+.{digits}f}"  # + 0.0: no "-0.00"

        shown = f"{signed(e.value)} [{signed(e.low)}, {signed(e.high)}]" if np.isfinite(e.low) else signed(e.value)
        rows.append({"arm": effect.arm or "every cell", "measure": label, "kind": effect.kind, "effect": effect.term,
                     "estimate [95%]": shown, "games": e.n})  # fmt: skip
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Report:
    """The files one report wrote."""

    markdown: Path
    html: Path
    figures: dict[str, Path]
    tables: dict[str, Path]


def _interval(value: float, low: float, high: float, *, scale: float = 1.0, digits: int = 3) -> str:
    if pd.isna(value):
        return "n/a"
    if pd.isna(low):
        return f"{value * scale:.{digits}f}"
    return f"{value * scale:.{digits}f} [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"


def conditions_table(analysis: Analysis) -> pd.DataFrame:
    """Return the conditions: players, the rules that differ from the first, games and hands."""
    experiment = analysis.experiment
    base = experiment.conditions[0].rules.to_dict()
    rows = []
    for c in analysis.conditions:
        condition = experiment.condition(c.name)
        rules = condition.rules.to_dict()
        changed = ", ".join(f"{k}={v}" for k, v in rules.items() if base.get(k) != v) or "as the first"
        players = ", ".join(strategy_name(str(p["strategy"])) for p in condition.players)
        rows.append({"condition": c.name, "players": players, "rules": changed, "games": c.games,
                     "decided games": c.decided_games, "hands": c.hands})  # fmt: skip
    return pd.DataFrame(rows)


def seats_wide(analysis: Analysis) -> pd.DataFrame:
    """Return seat win shares, % [95% Wilson interval], one row per condition and level."""
    rows = []
    for c in analysis.conditions:
        for level, shares, test in (("hand", c.seat_hand, c.uniform_hand), ("game", c.seat_game, c.uniform_game)):
            row = {"condition": c.name, "level": level}
            row.update({f"position {p}": e.text(percent=True) for p, e in enumerate(shares)})
            row["chi-square p"] = p_text(test.p)
            row["Cohen's w"] = f"{test.w:.3f}"
            rows.append(row)
    return pd.DataFrame(rows).fillna("")


def metrics_wide(analysis: Analysis) -> pd.DataFrame:
    """Return every metric (rows) by condition (columns) as value [low, high]."""
    table = analysis.metrics_table()
    table["text"] = [
        _interval(v, lo, hi) for v, lo, hi in zip(table["value"], table["low"], table["high"], strict=True)
    ]
    wide = table.pivot(index="metric", columns="condition", values="text")
    wide = wide.reindex(index=list(dict.fromkeys(table["metric"])), columns=[c.name for c in analysis.conditions])
    wide.insert(0, "what it is", [DESCRIPTIONS.get(m.split(":")[0], "") for m in wide.index])
    return wide.reset_index()


def comparisons_text(analysis: Analysis) -> pd.DataFrame:
    """Return the comparisons as text: difference [interval], test, p, Holm p, verdict."""
    table = analysis.comparisons_table()
    if table.empty:
        return table
    table["difference [95%]"] = [
        _interval(v, lo, hi) for v, lo, hi in zip(table["difference"], table["low"], table["high"], strict=True)
    ]
    table["p"] = table["p"].map(lambda p: "" if pd.isna(p) else p_text(p))
    table["p_holm"] = table["p_holm"].map(lambda p: "" if pd.isna(p) else p_text(p))
    table["within_margin"] = table["within_margin"].fillna("")
    for column in ("variance_ratio", "margin", "detectable"):
        table[column] = table[column].map(lambda x: "" if pd.isna(x) else f"{x:.3f}")
    names = {"variance_ratio": "variance vs unpaired", "within_margin": "within ±margin",
             "detectable": "detectable (80%, Holm)"}  # fmt: skip
    table = table.rename(columns=names)
    return table[["other", "reference", "paired", "metric", "difference [95%]", "test", "p", "p_holm", "verdict",
                  "variance vs unpaired", "margin", "within ±margin", "detectable (80%, Holm)"]]  # fmt: skip


def render_markdown(
    analysis: Analysis, figures: dict[str, Path], folder: Path, *, sizing: Mapping[str, Any] | None = None
) -> str:
    """Return report.md: the question, the answer (with how the run was sized), the tables, then the charts."""
    manifest_note = f"Experiment `{analysis.experiment.name}`, seed {analysis.experiment.seed}."
    parts = [f"# {analysis.question}", "## Answer", *answer(analysis)]
    if sizing:
        lines = sizing_lines(sizing)
        parts += ["### How many games", lines[0], "\n".join(lines[1:])]
    parts += ["## Tables", manifest_note]
    parts += ["### Conditions", conditions_table(analysis).to_markdown(index=False)]
    parts += ["### Seat win share by turn position (%, 95% Wilson interval; chi-square test of uniform seats)",
              seats_wide(analysis).to_markdown(index=False)]  # fmt: skip
    strategies = analysis.strategies_table()
    if len(strategies):
        share = zip(strategies["share"], strategies["share_low"], strategies["share_high"], strict=True)
        order = zip(strategies["order"], strategies["order_low"], strategies["order_high"], strict=True)
        shown = strategies.assign(
            **{
                "win share [95%]": [_interval(*e, scale=100, digits=1) for e in share],
                "Order [95%]": [_interval(*e) for e in order],
            }
        )[["condition", "strategy", "seats", "n_players", "win share [95%]", "Order [95%]", "games"]]
        parts += ["### Strategy win share (games won by its seats, %) and Order", shown.to_markdown(index=False)]
    comparisons = comparisons_text(analysis)
    if len(comparisons):
        parts += ["### Comparisons (other − reference)", comparisons.to_markdown(index=False)]
    if analysis.effects:
        parts += [GRID, grid_text(analysis).to_markdown(index=False)]
    changes = [line for line in map(notable, analysis.comparisons) if line]
    if changes:
        parts += [DESCRIPTIVE, *(f"- {line}" for line in changes)]
    parts += ["### Every metric by condition (95% intervals)", metrics_wide(analysis).to_markdown(index=False)]
    parts += ["## Charts"]
    for name, (_, title) in charts_for(analysis).items():
        parts += [f"### {title}", f"![{title}]({figures[name].relative_to(folder).as_posix()})"]
    parts += ["Formulas and sources of every metric: rummysim's docs/metrics.md."]
    return "\n\n".join(parts) + "\n"


def render_html(text: str, *, title: str, folder: Path) -> str:
    """Return report.md as one HTML page with its PNG charts embedded (opens offline)."""
    body = markdown.markdown(text, extensions=["tables"])

    def embed(match: re.Match[str]) -> str:
        data = base64.b64encode((folder / match.group(1)).read_bytes()).decode()
        return f'src="data:image/png;base64,{data}"'

    body = re.sub(r'src="(figures/[^"]+\.png)"', embed, body)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )


def build_report(
    folder: str | Path, *, analysis: Analysis | None = None, results: Results | None = None,
    progress: Progress | None = None,
) -> Report:  # fmt: skip
    """Analyse the run in `folder` and write its report, figures and summary CSVs there.

    `analysis` (or `results.analysis`, a sized run's last) is used if given, else the
    tables are analysed (`results`, if given, is the folder's already loaded and checked).
    """
    folder = Path(folder)
    if analysis is None:
        results = results or load_results(folder)
        analysis = results.analysis or analyze(results, progress=progress)
    if progress is not None:
        progress.phase("drawing the charts")
    figures = draw_all(analysis, folder / "figures")
    tables = {
        "metrics": analysis.metrics_table(), "seats": analysis.seats_table(),
        "strategies": analysis.strategies_table(), "uniformity": analysis.uniformity_table(),
        "comparisons": analysis.comparisons_table(),
        **({"effects": analysis.effects_table()} if analysis.effects else {}),
    }  # fmt: skip
    if progress is not None:
        progress.phase("writing the report")
    paths = {}
    for name, table in tables.items():
        paths[name] = folder / f"summary_{name}.csv"
        write_text_atomic(table.to_csv(index=False), paths[name])
    manifest = folder / MANIFEST
    sizing = json.loads(manifest.read_text()).get("precision") if manifest.exists() else None
    text = render_markdown(analysis, figures, folder, sizing=sizing)
    md = folder / "report.md"
    write_text_atomic(text, md)
    html = folder / "report.html"
    write_text_atomic(render_html(text, title=analysis.question, folder=folder), html)
    return Report(md, html, figures, paths)
