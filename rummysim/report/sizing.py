"""The report's account of how many games a run played: a fixed number, or waves until precise enough.

A run with ``precision:`` records in its manifest the targets, the cap, each wave's
games and the half-widths reached (`rummysim.precision.record`); this turns that record
into the report's lines, so every sized report states its stopping rule and what it reached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rummysim.measures import MEASURES


def _name(measure: str) -> str:
    """Return a ``precision:`` measure in words (`rummysim.measures`): ``rummy's share of the points``."""
    skill = {"order": "Order", "strength": "log strength"}
    return skill.get(measure) or (MEASURES[measure].noun if measure in MEASURES else measure)


def _amount(measure: str, x: float) -> str:
    """Return a half-width in the measure's unit: ``±0.24 pp``, ``±0.15 hands``, ``±0.004``."""
    unit = MEASURES[measure].unit if measure in MEASURES else ""
    if unit in ("", "log"):
        return f"±{x:.3f}"
    return f"±{x:.2f} {unit}"


def sizing_lines(record: Mapping[str, Any] | None) -> list[str]:
    """Return the report's lines on how the run was sized (none for a run of a fixed number of games)."""
    if not record:
        return []
    return [_stopping_rule(record), *(_width_line(w) for w in record["widths"])]


def _stopping_rule(record: Mapping[str, Any]) -> str:
    """Return the sentence that says how a sized run chose its games and where it stopped."""
    targets = ", ".join(f"{_name(m)} ±{t}" for m, t in record["target"].items())
    waves = " then ".join(
        "/".join(sorted({f"{n:,}" for n in wave.values()}, key=lambda s: int(s.replace(",", ""))))
        for wave in record["waves"]
    )
    return (
        f"Sized by precision: played in waves until every planned comparison's 95% interval was within {targets} "
        f"(half-widths), at most {record['max_games']:,} games a condition. After each wave a comparison too wide "
        "grows its conditions' games by (half-width / target)² with 10% to spare, at most 16 times a wave, conditions "
        "that share deals alike; the rule reads the widths only, never the differences. "
        f"Games a condition, wave by wave: {waves}. Stopped: {record['stopped']}."
    )


def _width_line(w: Mapping[str, Any]) -> str:
    reached = "no interval" if w["half_width"] is None else _amount(w["measure"], w["half_width"])
    mark = "within" if w["met"] else "NOT within"
    return (
        f"- {_name(w['measure'])}, {w['other']} against {w['reference']}: "
        f"{reached} ({mark} the target {_amount(w['measure'], w['target'])}, {w['games']:,} games)"
    )


def missed_targets(record: Mapping[str, Any] | None, players: Mapping[str, int]) -> list[str]:
    """Return a many-celled run's sizing as its stopping rule and one table of the targets missed.

    A row per measure and table size (`players`: condition -> its table size): how many of its
    comparisons missed the target, the widest half-width reached, the target and the games played.
    """
    if not record:
        return []
    groups: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for w in record["widths"]:
        groups.setdefault((w["measure"], players.get(w["other"], 0)), []).append(w)
    rows = []
    for (measure, n), found in sorted(groups.items()):
        missed = [w for w in found if not w["met"]]
        if not missed:
            continue
        widths = [w["half_width"] for w in missed if w["half_width"] is not None]
        widest = _amount(measure, max(widths)) if widths else "no interval"
        games = max(w["games"] for w in missed)
        rows.append(f"| {_name(measure)} | {n} | {len(missed)} of {len(found)} | {widest} | "
                    f"{_amount(measure, missed[0]['target'])} | {games:,} |")  # fmt: skip
    if not rows:
        return [_stopping_rule(record), f"Every one of the {len(record['widths'])} comparisons met its target."]
    head = "| measure | players | comparisons that missed | widest 95% half-width | target | games a cell |"
    return [_stopping_rule(record), "The targets missed (every comparison is in `manifest.json`):",
            "\n".join([head, "|---|---|---|---|---|---|", *rows])]  # fmt: skip
