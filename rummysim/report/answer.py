"""The report's answer: plain-English verdicts, each naming its metric, effect and interval.

A rule is answered on two counts (docs/metrics.md): "fairer" on seat advantage (the first
seat's edge r_0 - 1/n nearer zero, a Balance nearer one), and "rewards skill more" when the
better player wins more often for its share (`rummysim.report.skill`). A difference whose
95% interval spans zero, or whose test does not survive Holm's correction, is called
inconclusive, never "equal".
"""

from __future__ import annotations

import math

from rummysim.analysis import Analysis, Comparison, ConditionSummary
from rummysim.analysis.skill import strength
from rummysim.report.skill import pairings, skill_change, skill_claim, skill_sentence
from rummysim.report.wording import (
    also,
    change_text,
    difference_text,
    eq,
    num,
    p_text,
    pp,
    rules_out,
)

__all__ = ["answer", "notable", "num", "p_text", "pp", "rules_out"]

FAIRER = (
    'What "fairer" means here: a rule is fairer on **seat advantage** when the seats win '
    "more evenly, that is the first seat's edge r₀ − 1/n is nearer zero and Balance "
    "1 − max|r_a − r_b| is nearer one. A rule **rewards skill more** when the better player "
    "wins more often for its share: a larger Order (w − 1/n)/(1 − 1/n) at one table size, or "
    "across table sizes a larger Luce strength θ = odds(w)/odds(k/n), which, unlike Order, does "
    "not fall with table size on its own; it is said only when the change holds after Holm's "
    "correction, is at least the smallest effect worth reporting (the margin), and the player "
    "is the better one under both rules. Every interval is 95%; "
    "a difference whose interval spans zero, or whose test does not hold after Holm's "
    "correction across this experiment's planned tests, is *inconclusive*: the data "
    "cannot tell, which is not the same as equal."
)

NOTABLE = ("points_per_hand", "turns_per_hand", "hands_per_game", "rummy_rate", "rummy_point_share",
           "ended_by_stalled", "lead_changes", "comeback_rate")  # fmt: skip
LABELS = {
    "points_per_hand": ("points per hand", 1.0, ""), "turns_per_hand": ("turns per hand", 1.0, ""),
    "hands_per_game": ("hands per game", 1.0, ""), "rummy_rate": ("rummy rate", 100.0, " pp"),
    "rummy_point_share": ("rummy's share of points", 100.0, " pp"), "ended_by_stalled": ("stalled hands", 100.0, " pp"),
    "lead_changes": ("lead changes per game", 1.0, ""), "comeback_rate": ("comeback rate", 100.0, " pp"),
}  # fmt: skip


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
    text = (
        f"**Seat advantage**: {_seat_claim(comp, a, b)}. The seat that plays first in a game's first hand wins "
        f"{pp(ga)} more than its fair share under `{a.name}` and {pp(gb)} under `{b.name}`; "
        f"{difference_text(comp, 'first_seat_advantage_game', pp(d))}{also(comp, 'first_seat_advantage_game')}. "
        f"Hand by hand (descriptive: no planned test, not corrected), the seat that plays first has an edge of "
        f"{pp(ha)} and {pp(hb)}; {difference_text(comp, 'first_seat_advantage_hand', pp(dh))}."
    )
    return text


def _seat_claim(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str:
    """Return which condition is fairer on seat advantage, if that holds after correction."""
    if not comp.verdict("first_seat_advantage_game").is_claim:
        return "neither is shown fairer on seat advantage"
    ga, gb = a.metrics["first_seat_advantage_game"], b.metrics["first_seat_advantage_game"]
    fairer = b.name if abs(gb.value) < abs(ga.value) else a.name
    return f"`{fairer}` is fairer on seat advantage"


def notable(comp: Comparison) -> str | None:
    """Return the descriptive differences whose intervals exclude zero, for the tables (never the Answer)."""
    parts = []
    for metric in NOTABLE:
        d = comp.differences.get(metric)
        if d is None or not comp.verdict(metric).is_shown:
            continue
        label, scale, unit = LABELS[metric]
        digits = 2 if scale == 1.0 or max(abs(d.low), abs(d.high)) < 0.01 else 1
        parts.append(
            f"{label} {d.value * scale:+.{digits}f}{unit} [{d.low * scale:+.{digits}f}, {d.high * scale:+.{digits}f}]"
        )
    if not parts:
        return None
    return f"`{comp.other}` against `{comp.reference}`: " + "; ".join(parts) + "."


def comparison_answer(analysis: Analysis, comp: Comparison) -> list[str]:
    """Return the paragraphs answering one planned comparison."""
    a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
    how = "paired: the same deals, game by game" if comp.paired else "unpaired: another table (players or cards dealt)"
    lines = [f"### `{b.name}` against `{a.name}` ({how}, {comp.games:,} games{pairing(comp)})"]
    lines.append(_seat_sentence(comp, a, b))
    skill = skill_sentence(comp, a, b, analysis.experiment.margin)
    if skill:
        lines.append(skill)
    return lines


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
        text += (
            f"; `{strong.strategy}` wins {pp(strong.per_seat, signed=False, unit='%')} of games per seat it holds "
            f"(fair share {100 / c.n_players:.1f}%), Order {num(strong.order)}, Luce strength against the other "
            f"seats {num(strength(strong.share, seats=strong.seats, n=c.n_players), digits=2)}"
        )
    return text + "."


def answer(analysis: Analysis) -> list[str]:
    """Return the Answer section's paragraphs: a summary, then one block per comparison."""
    lines = []
    lines.append(summary_line(analysis))
    for comp in analysis.comparisons:
        lines += comparison_answer(analysis, comp)
    if not analysis.comparisons or any(c.stronger for c in analysis.conditions):
        lines.append("### Each condition")
        lines += [f"- {condition_answer(c)}" for c in analysis.conditions]
    lines.append(FAIRER)
    return lines


def _rummy_claim(analysis: Analysis, comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str | None:
    """Return what going rummy is worth under each condition, when they differ in its bonus (R8.3)."""
    experiment = analysis.experiment
    if experiment.condition(a.name).rules.rummy_multiplier == experiment.condition(b.name).rules.rummy_multiplier:
        return None
    sa, sb = a.metrics["rummy_point_share"], b.metrics["rummy_point_share"]
    ra, rb = a.metrics["rummy_rate"], b.metrics["rummy_rate"]
    change = " (their difference is descriptive: see the tables)"
    return (
        f"going rummy (R8.3) wins {pp(ra, signed=False, unit='%')} of decided hands and takes "
        f"{pp(sa, signed=False, unit='%')} of all points under `{a.name}`, {pp(rb, signed=False, unit='%')} and "
        f"{pp(sb, signed=False, unit='%')} under `{b.name}`{change}"
    )


def summary_line(analysis: Analysis) -> str:
    """Return the first line of the answer: per comparison what held and what did not, then the skill ladder."""
    parts = []
    for comp in analysis.comparisons:
        a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
        d = comp.differences["first_seat_advantage_game"]
        edge = change_text(comp, "first_seat_advantage_game", "the first seat's edge", pp(d))
        said = [f"{_seat_claim(comp, a, b)} ({edge}{also(comp, 'first_seat_advantage_game')})"]
        if comp.skill_metric is not None and comp.skill_metric in comp.differences:
            margins = analysis.experiment.margin
            said.append(f"{skill_claim(comp, a, b, margins)} ({skill_change(comp)})")
        rummy = _rummy_claim(analysis, comp, a, b)
        if rummy:
            said.append(rummy)
        parts.append(f"`{comp.other}` against `{comp.reference}`: " + "; ".join(said))
    compared = {comp.other for comp in analysis.comparisons if comp.skill_metric} | {
        comp.reference for comp in analysis.comparisons if comp.skill_metric
    }
    for c in analysis.conditions:
        strong = c.stronger
        if strong is None or c.name in compared:
            continue
        others = ", ".join(f"`{s.strategy}`" for s in c.strategies if s is not strong)
        verdict = "wins more than its fair share against" if strong.order.low > 0 else "is not shown to beat"
        parts.append(
            f"`{c.name}`: `{strong.strategy}` {verdict} {others} (wins {pp(strong.per_seat, signed=False, unit='%')}"
            f" of games per seat, Order {num(strong.order)})"
        )
    parts += pairings(analysis)
    if not parts:
        return "**In short**: no comparison was planned."
    return "**In short**:\n\n" + "\n".join(f"- {p}." for p in parts)
