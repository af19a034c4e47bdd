"""The report's evidence: each comparison's statistics behind its verdicts, and each condition alone.

The verdicts themselves open the report (`rummysim.report.verdicts`); this is the detail
beneath them. Seat advantage: the first seat's edge r_0 - 1/n over games and over hands, the
dealer's over hands; skill: the measured strategy's Order and strength
(`rummysim.report.skill`). A difference whose 95% interval spans zero, or whose test does not
survive its correction, is called inconclusive, never "equal".
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from rummysim.analysis import Analysis, Comparison, ConditionSummary
from rummysim.analysis.metrics import StrategyShare
from rummysim.analysis.skill import strengths_against
from rummysim.measures import by_metric
from rummysim.report.skill import pairings, skill_sentence, strength_text
from rummysim.report.verdicts import group_title
from rummysim.report.wording import (
    also,
    difference_text,
    eq,
    num,
    p_text,
    pp,
    rules_out,
    signed,
    unit_of,
)

__all__ = ["evidence", "num", "p_text", "pp", "rules_out"]


def pairing(comp: Comparison) -> str:
    """Return what pairing bought: the planned differences' variance against an unpaired design's (issue 13)."""
    ratios = [(m, comp.variance_ratios.get(m, float("nan"))) for m in ("first_seat_advantage_game", "order")]
    shown = [f"{NAMES[m]} {r:.2f}" for m, r in ratios if math.isfinite(r) and m in comp.differences]
    if not shown:
        return ""
    return "; variance against an unpaired design of as many games: " + ", ".join(shown)


NAMES = {"first_seat_advantage_game": "the first seat's edge", "order": "Order"}


def _seat_sentence(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str:
    d = comp.differences["first_seat_advantage_game"]
    ga, gb = a.metrics["first_seat_advantage_game"], b.metrics["first_seat_advantage_game"]
    ha, hb = a.metrics["first_seat_advantage_hand"], b.metrics["first_seat_advantage_hand"]
    dh = comp.differences["first_seat_advantage_hand"]
    da, db = a.metrics["dealer_advantage_hand"], b.metrics["dealer_advantage_hand"]
    dd = comp.differences["dealer_advantage_hand"]
    text = (
        f"**Seat advantage**: {_seat_claim(comp, a, b)}. The seat that plays first in a game's first hand wins "
        f"{pp(ga)} more than its fair share under `{a.name}` and {pp(gb)} under `{b.name}`; "
        f"{difference_text(comp, 'first_seat_advantage_game', pp(d))}{also(comp, 'first_seat_advantage_game')}. "
        f"Hand by hand, the player on the dealer's left, who plays first (R3.4), has an edge of {pp(ha)} and "
        f"{pp(hb)}; {difference_text(comp, 'first_seat_advantage_hand', pp(dh))}"
        f"{also(comp, 'first_seat_advantage_hand')}. The dealer, who plays last, has an edge of {pp(da)} and "
        f"{pp(db)}; {difference_text(comp, 'dealer_advantage_hand', pp(dd))}{also(comp, 'dealer_advantage_hand')}."
    )
    return text


def _seat_claim(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str:
    """Return which condition is fairer on seat advantage over whole games, if that holds after correction."""
    if not comp.verdict("first_seat_advantage_game").is_claim:
        return "over whole games, neither is shown fairer"
    ga, gb = a.metrics["first_seat_advantage_game"], b.metrics["first_seat_advantage_game"]
    fairer = b.name if abs(gb.value) < abs(ga.value) else a.name
    return f"over whole games, `{fairer}` is fairer"


def comparison_answer(analysis: Analysis, comp: Comparison) -> list[str]:
    """Return the paragraphs answering one planned comparison."""
    a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
    how = "paired: the same deals, game by game" if comp.paired else "unpaired: another table (players or cards dealt)"
    lines = [f"### {group_title(analysis, comp)}: `{b.name}` against `{a.name}`",
             f"{how[0].upper()}{how[1:]}, {comp.games:,} games{pairing(comp)}."]  # fmt: skip
    lines.append(_seat_sentence(comp, a, b))
    skill = skill_sentence(comp, a, b, analysis.experiment.margin)
    if skill:
        lines.append(skill)
    lines += [_measure_sentence(comp, a, b, metric) for metric in comp.tests if metric not in TOLD]
    return lines


TOLD = ("first_seat_advantage_game", "first_seat_advantage_hand", "dealer_advantage_hand", "seat_distribution_game",
        "order", "strength")  # fmt: skip
"""The planned metrics the seat and skill paragraphs tell; any other planned measure has a paragraph of its own."""


def _measure_sentence(comp: Comparison, a: ConditionSummary, b: ConditionSummary, metric: str) -> str:
    """Return the evidence of a planned measure other than seat advantage and skill: levels, test, what it rules out."""
    measure = by_metric(metric)
    noun = measure.noun if measure else metric.replace("_", " ")
    scale, unit = unit_of(metric)
    ea, eb = a.metrics[metric], b.metrics[metric]
    levels = f"{num(ea.shifted(0.0, scale=scale))}{unit} under `{a.name}` and {num(eb.shifted(0.0, scale=scale))}{unit}"
    shown = f"{signed(comp.differences[metric], scale=scale)}{unit}"
    return (
        f"**{noun[0].upper()}{noun[1:]}**: {levels} under `{b.name}`; "
        f"{difference_text(comp, metric, shown)}{also(comp, metric)}."
    )


def condition_answer(c: ConditionSummary) -> str:
    """Return one line on a condition alone: its seat edge and, with mixed strategies, the stronger one."""
    text = (
        f"`{c.name}` ({c.n_players} players, {c.games:,} games): first-seat edge "
        f"{pp(c.metrics['first_seat_advantage_game'])} of games and {pp(c.metrics['first_seat_advantage_hand'])} "
        f"of hands; Balance of games {num(c.metrics['balance_game'])}"
    )
    if not math.isnan(c.uniform_game.p):
        text += f" (chi-square test of equal seats p {eq(c.uniform_game.p)})"
    strong = c.stronger
    if strong is not None:
        found = strengths_against(c, strong.strategy).items()
        against = ", ".join(f"against `{other}` {strength_text(e)}" for other, e in found)
        fair = 100 * strong.seats / c.n_players
        text += (
            f"; `{strong.strategy}`'s {strong.seats} seat{'s' if strong.seats > 1 else ''} win "
            f"{pp(strong.share, signed=False, unit='%')} of games (fair share {fair:.1f}%), "
            f"Order {num(strong.order)}, Luce strength {against}"
        )
    return text + "."


def evidence(analysis: Analysis) -> list[str]:
    """Return the evidence section's paragraphs: one block per comparison, skill across pairings, each condition."""
    lines = []
    for comp in analysis.comparisons:
        lines += comparison_answer(analysis, comp)
        a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
        rummy = _rummy_claim(analysis, comp, a, b)
        if rummy:
            lines.append(f"**Going rummy**: {rummy}.")
    lines += [line + "." for line in pairings(analysis)]
    lines.append("### Each condition")
    lines += [f"- {condition_answer(c)}" for c in analysis.conditions]
    lines += [f"- {line}." for line in lone_skill(analysis)]
    return lines


def _mixed(analysis: Analysis) -> Iterator[tuple[ConditionSummary, StrategyShare, list[str]]]:
    """Yield each mixed lineup's condition, its stronger strategy and the others (quoted names)."""
    for c in analysis.conditions:
        strong = c.stronger
        if strong is not None:
            yield c, strong, [f"`{s.strategy}`" for s in c.strategies if s is not strong]


def lone_skill(analysis: Analysis) -> list[str]:
    """Return, for each mixed lineup no comparison measures, whether its stronger strategy beats the others."""
    compared = {name for comp in analysis.comparisons if comp.skill_metric for name in (comp.other, comp.reference)}
    lines = []
    for c, strong, opponents in _mixed(analysis):
        if c.name in compared:
            continue
        others = ", ".join(opponents)
        verdict = "wins more than its fair share against" if strong.order.low > 0 else "is not shown to beat"
        lines.append(
            f"`{c.name}`: `{strong.strategy}` {verdict} {others} (its seats win "
            f"{pp(strong.share, signed=False, unit='%')} of games, Order {num(strong.order)})"
        )
    return lines


def lineup_answers(analysis: Analysis) -> list[str]:
    """Return the answer of a run that planned no comparison: for each mixed lineup, its stronger strategy's share
    of the games against its fair share, in a player's words (the evidence gives the rest)."""
    lines = []
    for c, strong, opponents in _mixed(analysis):
        others = " and ".join(opponents)
        fair = 100 * strong.seats / c.n_players
        seats = f"its {strong.seats} seats" if strong.seats > 1 else "it"
        share = pp(strong.share, signed=False, unit="%")
        order = strong.order
        shown = "more than" if order.low > 0 else "less than" if order.high < 0 else "not shown to differ from"
        lines.append(
            f"**`{strong.strategy}` wins {share} of the games against {others}**: {shown} the fair share of "
            f"{fair:.1f}% {seats} would win if skill did not matter (`{c.name}`, {c.n_players} players, "
            f"{c.games:,} games)"
        )
    return lines


def _rummy_claim(analysis: Analysis, comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str | None:
    """Return what going rummy is worth under each condition, when they differ in its bonus (R8.3)."""
    experiment = analysis.experiment
    if experiment.condition(a.name).rules.rummy_multiplier == experiment.condition(b.name).rules.rummy_multiplier:
        return None
    sa, sb = a.metrics["rummy_point_share"], b.metrics["rummy_point_share"]
    ra, rb = a.metrics["rummy_rate"], b.metrics["rummy_rate"]
    return (
        f"going rummy (R8.3) wins {pp(ra, signed=False, unit='%')} of decided hands and takes "
        f"{pp(sa, signed=False, unit='%')} of all points under `{a.name}`, {pp(rb, signed=False, unit='%')} and "
        f"{pp(sb, signed=False, unit='%')} under `{b.name}`"
    )
