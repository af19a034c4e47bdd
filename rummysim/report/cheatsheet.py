"""A players' cheat sheet: every rule and house rule on one page, from the committed atlas (issue 42, part 5).

``rummysim cheatsheet`` reads results/atlas (``atlas_cells.csv``, ``summary_strategies.csv``,
``manifest.json``), never plays, and writes ``cheatsheet.md`` and ``cheatsheet.html``: one table
a measure, a row per rule (each changes one rule of basic rummy and nothing else), a column
per table size. Each entry is the rule's level with its mark, read from the atlas's corrected
answers (`rummysim.analysis.atlas`): no mark, its change's sign is shown; ``=``, any change is
smaller than the margin; ``?``, not shown either way. The page names the bots and the target
score every number depends on, and a short why where the reason is known.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from rummysim.analysis.comparison import Answer
from rummysim.errors import ConfigError
from rummysim.report.atlas import rule_words_of
from rummysim.report.atlas_findings import SHOWN
from rummysim.report.html import render_html
from rummysim.report.why import MECHANISM as WHY
from rummysim.results import write_text_atomic

SIZES = (2, 3, 4, 5, 6)
NEEDED = ("atlas_cells.csv", "summary_strategies.csv", "manifest.json")
"""The atlas's files the cheat sheet reads."""


def _mark(answer: object) -> str:
    if answer in SHOWN:
        return ""
    return "=" if answer == Answer.NO.value else "?"


def _cells(folder: Path) -> tuple[pd.DataFrame, dict[str, list[object]], dict[str, Any]]:
    cells = pd.read_csv(folder / "atlas_cells.csv", dtype=str, keep_default_na=False)
    experiment = json.loads((folder / "manifest.json").read_text())["experiment"]
    return cells, dict(experiment["grid"]), experiment


def rule_rows(cells: pd.DataFrame, levels: dict[str, list[object]]) -> list[tuple[str, str, pd.DataFrame]]:
    """Return basic rummy, then each single-rule change: (its words, its factor, its cells at each table size)."""
    reference = {f: str(v[0]) for f, v in levels.items()}
    rows = []
    factors: list[tuple[str, list[object]]] = [("", [""]), *levels.items()]
    for factor, values in factors:
        for level in values[1:] if factor else values:
            wanted = {**reference, **({factor: str(level)} if factor else {})}
            match = cells[pd.concat([cells[f] == v for f, v in wanted.items()], axis=1).all(axis=1)]
            words = rule_words_of(factor, level, levels[factor]) if factor else "basic rummy"
            rows.append((words, factor, match))
    return rows


def _entry(row: pd.Series, measure: str, *, kind: str, fair: float, base: pd.Series | None) -> str:
    value = float(row[measure]) if row[measure] else math.nan
    if not math.isfinite(value):
        return "n/a"
    mark = "" if base is None else _mark(row[f"{measure}_answer"])
    if kind == "length":
        if base is None:
            return f"{value:.1f} hands"
        change = (value / float(base[measure]) - 1) * 100
        way = "longer" if change > 0 else "shorter" if change < 0 else "the same"
        if change == 0:
            return "the same"
        return f"{abs(change):.{0 if abs(change) >= 1 else 1}f}% {way} {mark}".strip()
    return f"{(value + fair) * 100:.1f}% {mark}".strip()


def _skill(folder: Path, cells: pd.DataFrame) -> dict[str, tuple[float, int]]:
    """Return each skill cell's better player (cautious) share of games won and its table size."""
    shares = pd.read_csv(folder / "summary_strategies.csv")
    mine = shares[shares["strategy"] == "cautious"].set_index("condition")
    out = {}
    for row in cells.itertuples():
        name = getattr(row, "skill_condition", "")
        if name in mine.index:
            out[str(name)] = (float(mine.loc[name, "share"]), int(str(row.players)))
    return out


def cheat_sheet(folder: Path) -> str:
    """Return the cheat sheet's markdown from a committed atlas in `folder` (results/atlas)."""
    cells, levels, experiment = _cells(folder)
    rules = rule_rows(cells, levels)
    base = {int(r["players"]): r for _, r in rules[0][2].iterrows()}
    skill = _skill(folder, cells)
    target = experiment.get("rules", {}).get("target_score", 100)
    parts = [
        "# Rummy's rules, at a glance",
        f"What each rule and house rule does, from the rules atlas ([report](atlas/report.md)): the bots, not people "
        f"(greedy at every seat; for skill, one cautious player against greedy ones), every game to {target} points. "
        "Each row changes one rule of basic rummy and nothing else. A number with no mark is a change shown by the "
        "atlas's corrected tests; `=` means any change is smaller than the margin; `?` that neither is shown.",
    ]
    tables = [
        ("Game length", "game_length", "length", "change against basic rummy's hands a game"),
        ("The first player's share of hands won", "first_player_edge_hand", "share", "fair share: 1 in n"),
        ("The dealer's share of hands won", "dealer_edge_hand", "share", "fair share: 1 in n"),
    ]
    head = "| rule | " + " | ".join(f"{n} players" for n in SIZES) + " |"
    line = "|---|" + "---|" * len(SIZES)
    for title, measure, kind, note in tables:
        body = []
        for words, _, match in rules:
            at = {int(r["players"]): r for _, r in match.iterrows()}
            entries = [_entry(at[n], measure, kind=kind, fair=1 / n, base=None if not words or words == "basic rummy"
                              else base[n]) if n in at else "n/a" for n in SIZES]  # fmt: skip
            body.append(f"| {words} | " + " | ".join(entries) + " |")
        fair = " | ".join(f"{100 / n:.1f}%" for n in SIZES)
        extra = [f"| the fair share | {fair} |"] if kind == "share" else []
        parts += [f"## {title}", f"({note})", "\n".join([head, line, *extra, *body])]
    body = []
    for words, _, match in rules:
        at = {int(r["players"]): r for _, r in match.iterrows()}
        entries = []
        for n in SIZES:
            row = at.get(n)
            found = skill.get(str(row["skill_condition"])) if row is not None else None
            if row is None or found is None:
                entries.append("n/a")
                continue
            mark = "" if words == "basic rummy" else _mark(row["order_answer"])
            entries.append(f"{found[0] * 100:.1f}% {mark}".strip())
        body.append(f"| {words} | " + " | ".join(entries) + " |")
    fair = " | ".join(f"{100 / n:.1f}%" for n in SIZES)
    parts += ["## The better player's share of games won",
              "(one cautious player against greedy ones; the mark is the atlas's test of its Order, its edge over its "
              "fair share)", "\n".join([head, line, f"| the fair share | {fair} |", *body])]  # fmt: skip
    why = [f"- **{rule_words_of(f, levels[f][1], levels[f])}**: {WHY[f]}." for f in levels if f in WHY]
    if why:
        parts += ["## Why, where it is known", "\n".join(why)]
    parts.append("Made by `rummysim cheatsheet` from the committed results; every number with its interval is in "
                 "`atlas/atlas_cells.csv`.")  # fmt: skip
    return "\n\n".join(parts) + "\n"


def write_cheat_sheet(results: Path, out: Path) -> tuple[Path, Path]:
    """Write ``cheatsheet.md`` and ``cheatsheet.html`` into `out` from the atlas under `results`; return their paths."""
    folder = results / "atlas"
    for name in NEEDED:
        if not (folder / name).is_file():
            raise ConfigError(f"{folder / name}: not found; the cheat sheet is made from a finished atlas "
                              "(rummysim run experiments/atlas.yaml writes it)")  # fmt: skip
    text = cheat_sheet(folder)
    md, html = out / "cheatsheet.md", out / "cheatsheet.html"
    write_text_atomic(text, md)
    write_text_atomic(render_html(text, title="Rummy's rules, at a glance", folder=out), html)
    return md, html
