"""Answers sized by precision: how many games each condition plays so the planned comparisons are narrow enough.

An experiment with ``precision:`` (`rummysim.design.check_precision`) asks, per measure,
for the half-width of the 95% interval of every planned comparison on that measure
(the first seat's game-level edge in pp, the compared strategy's Order). The runner
plays in waves: ``games`` per condition first, then, after each wave, the report's own
analysis (`rummysim.analysis.analyze`) measures each interval's half-width w against its
target t, and a condition whose comparison is too wide goes on to

    n' = ceil(n x (w / t)^2 x 1.1)      (a width shrinks as 1/sqrt(n); 10% to spare)

at most `GROWTH` times its games in one wave, never beyond ``max_games``, rounded up to
a whole `STEP`. Conditions that share deals (a paired comparison) always reach the same
number, so they stay paired. The run stops when every width is within its target, or
when every condition still too wide has reached ``max_games`` (the report says which).
The rule looks at the widths only, never at the differences or their p-values, so
stopping does not bias the estimates: tests/test_precision.py measures the coverage of
the final intervals under this rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rummysim.analysis import Analysis
from rummysim.analysis.compare import plan
from rummysim.design import Experiment, margin_text
from rummysim.measures import MEASURES

METRICS: dict[str, tuple[str, float]] = {name: (m.metric, m.scale) for name, m in MEASURES.items()}
"""Each ``precision:`` measure: its planned metric, and the factor from the metric's scale to the measure's unit."""
SPARE = 1.1
"""Games asked beyond the estimate, so that a wave's noise rarely leaves a width just short."""
GROWTH = 16
"""The most one wave multiplies a condition's games by: a short first wave may misjudge the need."""
STEP = 100
"""Waves after the first end on whole multiples of this many games."""


@dataclass(frozen=True)
class Width:
    """The half-width one planned comparison reached on one measure, against its target."""

    reference: str
    other: str
    measure: str
    half_width: float
    """In the measure's unit (pp for the first seat's edge); NaN if the comparison has no interval yet."""
    target: float
    games: int

    @property
    def met(self) -> bool:
        return bool(self.half_width <= self.target)

    def to_dict(self) -> dict[str, object]:
        return {
            "reference": self.reference, "other": self.other, "measure": self.measure,
            "half_width": round(self.half_width, 6) if math.isfinite(self.half_width) else None,
            "target": self.target, "games": self.games, "met": self.met,
        }  # fmt: skip


def widths(analysis: Analysis, precision: Mapping[str, float]) -> list[Width]:
    """Return the half-width of every planned comparison on every measure with a target (`METRICS`).

    A check with strong players (`Condition.strong`) plays its own games: its comparisons are not sized.
    """
    found = []
    strong = {c.name for c in analysis.experiment.conditions if c.strong}
    for comp in analysis.comparisons:
        if comp.reference in strong or comp.other in strong:
            continue
        for measure, target in precision.items():
            metric, scale = METRICS[measure]
            estimate = comp.differences.get(metric)
            if estimate is None:
                continue  # this comparison has no such measure (no compared strategy, say)
            half = (estimate.high - estimate.low) / 2 * scale
            found.append(Width(comp.reference, comp.other, measure, half, target, comp.games))
    return found


def _groups(experiment: Experiment) -> dict[str, str]:
    """Return each condition's group: conditions joined by a paired comparison share one (they share deals)."""
    parent = {c.name: c.name for c in experiment.conditions}

    def root(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for reference, other, paired in plan(experiment.conditions):
        if paired:
            parent[root(other)] = root(reference)
    return {name: root(name) for name in parent}


def next_wave(experiment: Experiment, found: Sequence[Width]) -> dict[str, int]:
    """Return the games each condition plays next (only those that grow), or {} when the run is done.

    See the module's docstring for the rule. `experiment` holds the games played so far.
    """
    played = {c.name: experiment.games_of(c) for c in experiment.conditions}
    wanted = needed(experiment, found, growth=GROWTH, cap=experiment.max_games or 0)
    return {name: games for name, games in wanted.items() if games > played[name]}


def needed(experiment: Experiment, found: Sequence[Width], *, growth: float, cap: int) -> dict[str, int]:
    """Return the games each condition needs for every width to reach its target, by the rule above.

    A condition grows at most `growth` times (a missing width counts as that much), to at
    most `cap` games (0: no cap); conditions that share deals get the largest need of their group.
    """
    played = {c.name: experiment.games_of(c) for c in experiment.conditions}
    wanted = dict(played)
    for width in found:
        if width.met:
            continue
        factor = (width.half_width / width.target) ** 2 if math.isfinite(width.half_width) else growth
        for name in (width.reference, width.other):
            grown = -(-math.ceil(played[name] * min(factor * SPARE, growth)) // STEP) * STEP
            wanted[name] = max(wanted[name], min(grown, cap) if cap else grown)
    group_of = _groups(experiment)
    most: dict[str, int] = {}
    for name, games in wanted.items():
        most[group_of[name]] = max(most.get(group_of[name], 0), games)
    return {name: most[group_of[name]] for name in played}


def record(experiment: Experiment, waves: Sequence[Mapping[str, int]], found: Sequence[Width]) -> dict[str, object]:
    """Return the manifest's account of a sized run: the targets, the cap, each wave's games, the widths reached."""
    met = all(w.met for w in found)
    return {
        "target": {m: margin_text(m, v) for m, v in experiment.precision.items()},
        "max_games": experiment.max_games,
        "rule": "95% half-widths of the planned comparisons; n' = ceil(n (w/t)^2 1.1), at most 16n a wave, "
        "paired conditions alike",
        "waves": [dict(w) for w in waves],
        "stopped": "every width within its target" if met else "max_games reached",
        "widths": [w.to_dict() for w in found],
    }
