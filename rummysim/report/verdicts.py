"""The verdicts: one plain sentence per planned comparison, in the rule's own words, opening with its answer.

Each planned comparison (a condition against its reference, on one of the experiment's
``measures:``) has an answer decided in the analysis (`rummysim.analysis.compare.Answer`)
from its simultaneous interval [L, U] (1 − α/m over the run's m planned changes,
`rummysim.analysis.equivalence`) and its margin X; that interval is the one printed:

- **Yes**: a change at least X, all of [L, U] beyond X on one side: "Yes: with aces high or
  low instead of low only, games end 7.3 hands (30%) sooner";
- **Yes, of unclear size**: a real change, [L, U] straddling X;
- **Yes, but small**: a real change, all of [L, U] inside ±X;
- **No**: no change shown and all of [L, U] inside ±X, so any change is smaller than the
  interval's farther end: "No: ... changes the first player's edge by less than 0.26
  percentage points";
- **Can't tell**: no change shown and [L, U] reaches beyond X: "Can't tell: a change of up
  to 2.4 points is still possible".

The settings are named as a player says them ("with aces high or low"), never by their keys
(`rule_words`). The numbers follow each sentence; the statistics are in the report's details.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rummysim.analysis import Analysis, Comparison, Estimate
from rummysim.analysis.compare import Answer
from rummysim.design import Condition
from rummysim.measures import MEASURES, Measure, by_metric
from rummysim.report.skill import direction
from rummysim.report.wording import change_with_unit, percent_text, settings_said, significant, size_shown
from rummysim.specs import strategy_label

UNIT_WORDS = {"pp": "percentage points", "hands": "hands", "turns": "turns", "points": "points", "": "", "log": ""}
"""A unit in a sentence: ``0.26 percentage points``; Order and log strength are bare numbers."""
MOVES: dict[str, tuple[str, str]] = {
    # measure: (its change upwards, downwards), {x} the size of the change with its unit, {pct} its share
    "first_seat_edge": ("the first seat's edge over a whole game rises by {x}",
                        "the first seat's edge over a whole game falls by {x}"),
    "first_player_edge_hand": ("the first player's edge in a hand rises by {x}",
                               "the first player's edge in a hand falls by {x}"),
    "dealer_edge_hand": ("the dealer's edge in a hand rises by {x}", "the dealer's edge in a hand falls by {x}"),
    "game_length": ("games last {x}{pct} longer", "games end {x}{pct} sooner"),
    "hand_length": ("hands last {x}{pct} longer", "hands end {x}{pct} sooner"),
    "points_per_hand": ("a hand scores {x}{pct} more", "a hand scores {x}{pct} fewer"),
    "rummy_rate": ("going rummy wins {x} more of the hands", "going rummy wins {x} fewer of the hands"),
    "rummy_point_share": ("rummy hands take {x} more of the points", "rummy hands take {x} less of the points"),
    "order": ("{focal} wins more for its share: its Order rises by {x}",
              "{focal} wins less for its share: its Order falls by {x}"),
    "strength": ("{focal} grows stronger: its log strength rises by {x}",
                 "{focal} grows weaker: its log strength falls by {x}"),
}  # fmt: skip
EDGES = ("first_seat_edge", "first_player_edge_hand", "dealer_edge_hand")
"""The measures that are an edge over the fair share 1/n: their levels carry a sign."""
PER = {"game_length": "hands a game", "hand_length": "turns a hand", "points_per_hand": "points a hand"}
"""How a measure's level reads beside its change: ``16.6 hands a game instead of 23.9``."""


@dataclass(frozen=True)
class Verdict:
    """One planned comparison's answer, worded: what the report's verdicts and the forest plot show."""

    comparison: Comparison
    measure: Measure
    answer: Answer
    sentence: str
    """The whole sentence, opening with the answer: ``Yes: with ..., games end 7.3 hands (31%) sooner.``"""
    group: str
    """The comparison in words: ``aces high or low vs aces low only (three greedy)``."""
    change: Estimate
    """The change with the simultaneous interval that decided it, in `unit`: the difference other − reference, or
    for a relative measure its percentage change 100 · (other / reference − 1)."""
    margin: float
    """The margin in `unit`."""
    label: str = ""
    """The measure in words for this comparison: ``the length of a game``, ``cautious's Order``."""
    unit: str = ""
    """The unit of `change` and `margin`: the measure's own (``pp``, ``hands``, ...), or ``%`` for a relative one."""
    level: float = 0.95
    """The confidence level of `change`'s interval: 1 − α/m over the run's m planned changes."""


def rule_words(rules: Mapping[str, Any], *, base: Mapping[str, Any]) -> list[str]:
    """Return the settings of `rules` that differ from `base`, each as a player says it (R1-R12).

    >>> rule_words({"ace": "high_or_low", "ace_points": 15}, base={"ace": "low", "ace_points": 1})
    ['aces high or low']
    >>> rule_words({"going_out": "discard", "n_players": 4}, base={"going_out": "any", "n_players": 3})
    ['going out only by a discard', '4 players']
    >>> rule_words({}, base={"stock_out": "block"})
    ['the stock rebuilt from the discards']
    """
    words = []
    rules, base = settings_said(rules), settings_said(base)
    for key, value in rules.items():
        if base.get(key) == value:
            continue
        if (
            key == "ace_points"
            and rules.get("ace") != base.get("ace")
            and value == (15 if rules["ace"] != "low" else 1)
        ):
            continue  # follows the ace setting (R9.2): said by it
        words.append(_setting_words(key, value))
    return words


def _setting_words(key: str, value: Any) -> str:
    """Return one setting in words (docs/rulebook.md); an unknown setting reads as ``key value``."""
    fixed = {
        ("ace", "low"): "aces low only", ("ace", "high_or_low"): "aces high or low",
        ("going_out", "any"): "going out by any play", ("going_out", "discard"): "going out only by a discard",
        ("rummy_multiplier", 1): "no bonus for going rummy", ("rummy_multiplier", 2): "going rummy doubling the points",
        ("lay_off", "any"): "laying off at any time",
        ("lay_off", "after_meld"): "laying off only after your first meld",
        ("take_discard", "free"): "taking the discard freely",
        ("take_discard", "must_use"): "taking the discard only to play it",
        ("stock_out", "rebuild"): "the stock rebuilt from the discards",
        ("stock_out", "block"): "block rummy (the hand ends when the stock runs out)",
    }  # fmt: skip
    if (key, value) in fixed:
        return fixed[key, value]
    templates = {
        "n_players": "{} players", "cards_dealt": "{} cards dealt", "ace_points": "aces worth {} points",
        "rummy_multiplier": "going rummy multiplying the points by {}", "target_score": "games to {} points",
        "max_hands": "games of {} hands", "stall_after_rebuilds": "a hand stalled after {} rebuilds",
        "stall_after_turns": "a hand stalled after {} turns", "stall_after_hands": "a game over after {} stalled hands",
    }  # fmt: skip
    if value is None and key in ("target_score", "max_hands"):
        return "no points target" if key == "target_score" else "no limit on hands"
    return templates[key].format(value) if key in templates else f"{key.replace('_', ' ')} {value}"


def lineup_words(condition: Condition) -> str:
    """Return a lineup as a player says it: ``three greedy``, ``cautious against two greedy``."""
    counts: dict[str, int] = {}
    for spec in condition.players:
        label = strategy_label(spec)
        counts[label] = counts.get(label, 0) + 1
    number = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    parts = [f"{number[k] if len(counts) == 1 or k > 1 else ''} {label}".strip() for label, k in counts.items()]
    if len(counts) == 1:
        return parts[0]
    return f"{parts[0]} against {' and '.join(parts[1:])}"


def group_words(analysis: Analysis, comp: Comparison) -> tuple[str, str]:
    """Return (the other condition's rules, the reference's) in words, where they differ."""
    experiment = analysis.experiment
    a, b = experiment.condition(comp.reference), experiment.condition(comp.other)
    ra, rb = a.rules.to_dict(), b.rules.to_dict()
    other = " and ".join(rule_words(rb, base=ra)) or f"`{b.name}`"
    reference = " and ".join(rule_words(ra, base=rb)) or f"`{a.name}`"
    return other, reference


def group_title(analysis: Analysis, comp: Comparison) -> str:
    """Return a comparison as a heading: ``aces high or low vs aces low only (three greedy)``."""
    other, reference = group_words(analysis, comp)
    return f"{other} vs {reference} ({lineup_words(analysis.experiment.condition(comp.other))})"


def sized(measure: Measure, x: float, *, up: bool = False) -> str:
    """Return a size of change (in the measure's unit) in a sentence's words, to two significant digits.

    `up` rounds away from zero, for a bound that must never be understated ("less than X"):

    >>> sized(MEASURES["first_player_edge_hand"], 0.2604, up=True), sized(MEASURES["game_length"], 7.36)
    ('0.27 percentage points', '7.4 hands')
    >>> sized(MEASURES["order"], 0.03049)
    '0.030'
    """
    words = UNIT_WORDS[measure.unit]
    return f"{significant(abs(x), up=up)} {words}" if words else significant(abs(x), up=up)


def _level(e: Estimate, measure: Measure) -> str:
    """Return a condition's level of a measure, as the change beside it is shown."""
    value = e.value * measure.scale
    digits = 2 if measure.unit == "pp" or abs(value) < 10 else 1
    sign = "+" if measure.name in EDGES else ""  # an edge is above or below the fair share; a share is a share
    share = "%" if is_share(measure) else ""  # a share's level is a percentage; only its change is in points
    return f"{value:{sign}.{digits}f}{share}"


def is_share(measure: Measure) -> bool:
    """Return whether a measure is a share (of hands, of the points) whose level reads in %, its change in pp."""
    return measure.unit == "pp" and measure.name not in EDGES


def decided(comp: Comparison, metric: str, measure: Measure) -> tuple[Estimate, float, str, float]:
    """Return a planned change as its verdict was decided: (the change with its simultaneous interval, the margin,
    their unit, the interval's level), in display units; a relative measure's log ratio as a percentage change."""
    b = comp.bounds.get(metric)
    if b is None:
        d = comp.differences[metric]
        margin = math.nan
        return Estimate(d.value * measure.scale, d.low * measure.scale, d.high * measure.scale, d.n), margin, \
            measure.unit, 0.95  # fmt: skip
    e = b.interval
    if b.relative:
        pct = [100 * math.expm1(x) for x in (e.value, e.low, e.high)]
        return Estimate(pct[0], pct[1], pct[2], e.n), 100 * math.expm1(b.margin), "%", b.level
    k = measure.scale
    return Estimate(e.value * k, e.low * k, e.high * k, e.n), b.margin * k, measure.unit, b.level


def verdict_of(analysis: Analysis, comp: Comparison, metric: str) -> Verdict | None:
    """Return one planned comparison's verdict, worded, or None if the metric is not planned or not measured."""
    measure = by_metric(metric)
    if measure is None or metric not in comp.tests or metric not in comp.differences:
        return None
    change, margin, unit, level = decided(comp, metric, measure)
    answer = comp.answer(metric)
    other, reference = group_words(analysis, comp)
    rule = f"with {other} instead of {reference}"
    focal = f"`{comp.focal}`" if comp.focal else "the better player"

    def size(x: float, *, up: bool = False) -> str:
        return f"{significant(abs(x), up=up)}%" if unit == "%" else sized(measure, x, up=up)

    if answer in (Answer.YES, Answer.UNCLEAR, Answer.SMALL):
        d = comp.differences[metric].value * measure.scale  # the move in the measure's own unit, its share beside it
        up = d > 0
        share = f" ({percent_text(change)[0].lstrip('+-')})" if unit == "%" else _share(analysis, comp, metric, measure)
        by = sized(measure, abs(d)) if unit == "%" else _by(measure, change)  # the change as printed beside it
        move = MOVES[measure.name][0 if up else 1].format(x=by, pct=share, focal=focal)
        text = f"{rule}, {move}"
        if answer is Answer.SMALL:
            text += f", less than the margin of {size(margin)}"
        elif answer is Answer.UNCLEAR:
            text += f"; whether by as much as the margin of {size(margin)} is not yet clear"
        if measure.name in ("order", "strength"):
            text += _skill_consequence(analysis, comp, other, reference)
    elif answer is Answer.NO:
        bound = size(max(abs(change.low), abs(change.high)), up=True) if math.isfinite(change.low) else "0"
        text = f"{rule}, {_noun(measure, focal)} changes by less than {bound}"
    elif not (math.isfinite(change.low) and math.isfinite(change.high)):
        text = f"{rule}, the run has too few games to tell how {_noun(measure, focal)} changes (no interval)"
    else:
        bound = size(max(abs(change.low), abs(change.high)), up=True)
        either = " either way" if change.spans_zero else ""
        text = f"{rule}, a change in {_noun(measure, focal)} of up to {bound}{either} is still possible"
    sentence = f"{answer.value}: {text}{_evidence(analysis, comp, metric, measure, change, unit)}."
    label = _noun(measure, comp.focal or "the better player")
    return Verdict(comp, measure, answer, sentence, group_title(analysis, comp), change, margin, label, unit, level)


def _by(measure: Measure, change: Estimate) -> str:
    """Return how much a change moves, in a sentence's words, at the digits its printed change shows
    (``falls by 0.08 percentage points`` beside ``change -0.08 [-0.16, -0.00005] pp``), never rounded again.

    >>> _by(MEASURES["dealer_edge_hand"], Estimate(-0.0817, -0.16335, -0.00005, 10))
    '0.08 percentage points'
    """
    words = UNIT_WORDS[measure.unit]
    return f"{size_shown(change)} {words}" if words else size_shown(change)


def _noun(measure: Measure, focal: str) -> str:
    """Return the measure in words; a skill measure names the strategy measured (``cautious's Order``)."""
    skill = {"order": f"{focal}'s Order", "strength": f"{focal}'s log strength"}
    return skill.get(measure.name, measure.noun)


def _share(analysis: Analysis, comp: Comparison, metric: str, measure: Measure) -> str:
    """Return the change as a share of the reference's level, `` (31%)``, for measures with a level of their own."""
    if measure.name not in PER:
        return ""
    base = analysis.condition(comp.reference).metrics.get(metric)
    if base is None or not base.value:
        return ""
    share = abs(comp.differences[metric].value / base.value)
    return f" ({share:.0%})" if share >= 0.01 else f" ({share:.1%})" if share >= 0.001 else " (under 0.1%)"


def _skill_consequence(analysis: Analysis, comp: Comparison, other: str, reference: str) -> str:
    """Return ``, so ... rewards skill more`` when the claim holds in full (`rummysim.report.skill.direction`)."""
    a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
    way = direction(comp, a, b, analysis.experiment.margin)
    return f": the rules with {other} reward skill {way} than with {reference}" if way else ""


def _evidence(
    analysis: Analysis, comp: Comparison, metric: str, measure: Measure, change: Estimate, unit_of_change: str
) -> str:
    """Return the numbers behind a sentence: each condition's level and the change with the interval that decided it."""
    unit = f" {measure.unit}" if measure.unit in ("pp", "hands", "turns", "points") else ""
    shown = change_with_unit(change, unit_of_change if unit_of_change == "%" else unit)
    shown += "" if math.isfinite(change.low) else " (no interval)"
    a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
    ea, eb = a.metrics.get(metric), b.metrics.get(metric)
    if metric == "order" and comp.focal:
        ea, eb = (next(s.order for s in c.strategies if s.strategy == comp.focal) for c in (a, b))
    if ea is None or eb is None or metric == "strength" or not (math.isfinite(ea.value) and math.isfinite(eb.value)):
        return f" (change {shown})" if math.isfinite(change.value) else ""
    per = f" {PER[measure.name]}" if measure.name in PER else "" if is_share(measure) else unit
    levels = f"{_level(eb, measure)} instead of {_level(ea, measure)}{per}"
    return f" ({levels}; change {shown})" if math.isfinite(change.value) else f" ({levels})"  # no change: no games


def is_strong(analysis: Analysis, comp: Comparison) -> bool:
    """Return whether a comparison is a check with strong players (either condition is ``strong: true``)."""
    experiment = analysis.experiment
    return experiment.condition(comp.reference).strong or experiment.condition(comp.other).strong


def verdicts(analysis: Analysis, *, strong: bool = False) -> list[Verdict]:
    """Return every planned comparison's verdict, comparison by comparison, in the order of ``measures:``.

    The question's verdicts; with `strong`, those of its checks with strong players (`rummysim.report.strong`).
    """
    found = []
    for comp in analysis.comparisons:
        if is_strong(analysis, comp) != strong:
            continue
        for name in analysis.experiment.measures:
            metrics = ("order", "strength") if name == "skill" else (MEASURES[name].metric,)
            for metric in metrics:
                verdict = verdict_of(analysis, comp, metric)
                if verdict is not None:
                    found.append(verdict)
    return found
