"""The skill sentences of the Answer: whether a condition rewards skill more, and across pairings of the ladder.

A condition *rewards skill more* (or less) only when all of these hold (issue 13, item 5;
`rummysim.analysis.skill`): the measured strategy beats its opponents in both conditions
(its Order's interval above 0) or loses to them in both (below 0: then winning more means
the weaker player closes the gap, so skill is rewarded *less*); its planned skill test holds
after Holm's correction; and the change is at least the smallest effect worth reporting (the
measure's margin). At one table size the measure is Order; across table sizes it is Luce's
strength, since Order falls with table size on its own. An experiment that measures skill
with several pairings (cautious and rummy_hunter against greedy, say) is summed up per pair
of rule sets: the claim is made only when every pairing makes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rummysim.analysis import Analysis, Comparison, ConditionSummary, Estimate
from rummysim.analysis.skill import strength, strengths_against, worth_reporting
from rummysim.report.wording import also, amount, change_text, difference_text, num

MEASURE = {"order": "Order", "strength": "log strength"}


def _estimates(comp: Comparison, c: ConditionSummary) -> tuple[Estimate, Estimate]:
    """Return the measured strategy's Order and Luce strength θ in one condition."""
    s = next(s for s in c.strategies if s.strategy == comp.focal)
    return s.order, strength(s.share, seats=s.seats, n=c.n_players)


def _figure(x: float) -> str:
    """Return a strength with three significant digits, thousands grouped: ``3.23``, ``22.1``, ``1,110``."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    digits = 2 - math.floor(math.log10(abs(x)))
    return f"{round(x, digits):,.{max(digits, 0)}f}"


def strength_text(e: Estimate) -> str:
    """Return a Luce strength θ for the report: ``3.23 [2.91, 3.58]``, or its bound when it is not estimable.

    A strategy that won every game has no estimate, only a lower bound (`analysis.skill.strength`);
    one that won none, an upper bound; neither is ever printed as inf or as a precise huge number.

    >>> strength_text(Estimate(1110.61, 584.23, 2111.24, 19990))
    '1,110 [584, 2,110]'
    >>> strength_text(Estimate(float("nan"), 520.64, float("nan"), 2000))
    'not estimable (it won every game): at least 521'
    >>> strength_text(Estimate(float("nan"), float("nan"), 0.0019, 2000))
    'not estimable (it won no game): at most 0.00190'
    """
    if math.isnan(e.value):
        if math.isfinite(e.low):
            return f"not estimable (it won every game): at least {_figure(e.low)}"
        if math.isfinite(e.high):
            return f"not estimable (it won no game): at most {_figure(e.high)}"
        return "not estimable (no decided games)"
    low = _figure(e.low) if math.isfinite(e.low) else "n/a"
    high = _figure(e.high) if math.isfinite(e.high) else "unbounded"
    return f"{_figure(e.value)} [{low}, {high}]"


def strength_words(comp: Comparison, c: ConditionSummary) -> str:
    """Return the measured strategy's Luce strength against each opponent of a lineup (never pooled over them)."""
    found = strengths_against(c, comp.focal or "")
    return ", ".join(f"against `{other}` {strength_text(e)}" for other, e in found.items())


def direction(comp: Comparison, a: ConditionSummary, b: ConditionSummary, margins: Mapping[str, float]) -> str | None:
    """Return ``more`` or ``less`` if `b` rewards skill more or less than `a` (module doc), else None."""
    if comp.skill_metric is None or not worth_reporting(comp, margins):
        return None
    (oa, _), (ob, _) = _estimates(comp, a), _estimates(comp, b)
    up = comp.differences[comp.skill_metric].value > 0
    if oa.low > 0 and ob.low > 0:
        return "more" if up else "less"
    if oa.high < 0 and ob.high < 0:
        return "less" if up else "more"
    return None


def skill_claim(comp: Comparison, a: ConditionSummary, b: ConditionSummary, margins: Mapping[str, float]) -> str:
    """Return what the planned skill change lets the Answer say, in words."""
    metric = comp.skill_metric or "order"
    verdict = comp.verdict(metric)
    if not verdict.is_claim:
        return f"neither condition is shown to let `{comp.focal}` win more often, for its share"
    more = b.name if comp.differences[metric].value > 0 else a.name
    if not worth_reporting(comp, margins):
        return (
            f"`{comp.focal}` wins more often, for its share, under `{more}`, by less than the smallest effect worth "
            f"reporting ({amount(metric, margins[metric])} of {MEASURE[metric]}), so no claim about skill is made"
        )
    claim = f"`{comp.focal}` wins more often, for its share, under `{more}`"
    way = direction(comp, a, b, margins)
    if way is not None:
        claim += f", so `{b.name}` rewards skill {way} than `{a.name}`"
    else:
        claim += ", but it is not the better player under both, so no claim about skill is made"
    return claim


def skill_change(comp: Comparison) -> str:
    """Return ``its Order changes by X: verdict`` (or log strength) with what it rules out."""
    metric = comp.skill_metric or "order"
    shown = num(comp.differences[metric], signed=True)
    return f"{change_text(comp, metric, f'its {MEASURE[metric]}', shown)}{also(comp, metric)}"


def skill_sentence(
    comp: Comparison, a: ConditionSummary, b: ConditionSummary, margins: Mapping[str, float]
) -> str | None:
    """Return the **Skill** paragraph of one comparison, or None if skill is not compared."""
    metric = comp.skill_metric
    if comp.focal is None or metric is None or metric not in comp.differences:
        return None
    (oa, _), (ob, _) = _estimates(comp, a), _estimates(comp, b)
    shown = num(comp.differences[metric], signed=True)
    text = (
        f"**Skill** (`{comp.focal}`): {skill_claim(comp, a, b, margins)}. Its Order is {num(oa)} under `{a.name}` "
        f"and {num(ob)} under `{b.name}`; its Luce strength is {strength_words(comp, a)} under `{a.name}` and "
        f"{strength_words(comp, b)} under `{b.name}`"
    )
    if metric == "strength":
        text += (
            " (Order falls with table size on its own, so across table sizes the change in log strength is compared)"
        )
    return text + f"; {MEASURE[metric]}: {difference_text(comp, metric, shown)}{also(comp, metric)}."


def _why_not(comp: Comparison, margins: Mapping[str, float]) -> str:
    """Return why a pairing makes no claim about skill, so that a summary never contradicts its detail."""
    metric = comp.skill_metric or "order"
    if not comp.verdict(metric).is_claim:
        return "no claim: its change does not hold after Holm's correction"
    if not worth_reporting(comp, margins):
        return "no claim: its change holds but lies inside the margin"
    return "no claim: its change holds, but the player is not the better one under both rules"


def pairings(analysis: Analysis) -> list[str]:
    """Return one line per pair of rule sets whose skill is measured by several pairings of the ladder."""
    margins = analysis.experiment.margin
    groups: dict[tuple[str, str], list[Comparison]] = {}
    for comp in analysis.comparisons:
        if comp.skill_metric is None or comp.skill_metric not in comp.differences:
            continue
        key = tuple(repr(analysis.experiment.condition(name).rules) for name in (comp.reference, comp.other))
        groups.setdefault((key[0], key[1]), []).append(comp)
    lines = []
    for comps in groups.values():
        if len({c.focal for c in comps}) < 2:
            continue
        ways = []
        for comp in comps:
            a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
            ways.append((comp, direction(comp, a, b, margins)))
        said = "; ".join(
            f"`{c.focal}` (`{c.other}` against `{c.reference}`): "
            + (f"rewards skill {way}" if way else _why_not(c, margins))
            for c, way in ways
        )
        found = {way for _, way in ways}
        first = comps[0]
        if len(found) == 1 and None not in found:
            verdict = f"over {len(comps)} pairings of the ladder, `{first.other}`'s rules reward skill {found.pop()}"
        elif found == {None}:
            verdict = f"none of the {len(comps)} pairings of the ladder supports a claim about skill"
        elif {"more", "less"} <= found:
            verdict = f"the {len(comps)} pairings of the ladder disagree, so no claim about skill is made"
        else:
            verdict = f"not every one of the {len(comps)} pairings of the ladder shows it, so no claim about skill"
        lines.append(
            f"Skill across pairings, `{first.other}`'s rules against `{first.reference}`'s: {verdict} ({said})"
        )
    return lines
