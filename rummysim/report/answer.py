"""The report's answer: plain-English verdicts, each naming its metric, effect and interval.

"Fairer" is answered on two counts (docs/metrics.md): a smaller seat advantage (the
first seat's edge r_0 - 1/n nearer zero, a Balance nearer one), and a larger Order (the
better player wins more often). A difference whose 95% interval spans zero, or whose
test does not survive Holm's correction, is called inconclusive, never "equal".
"""

from __future__ import annotations

import math

from rummysim.analysis import Analysis, Comparison, ConditionSummary, Estimate
from rummysim.analysis.compare import Verdict

FAIRER = (
    'What "fairer" means here: a rule is fairer on **seat advantage** when the seats win '
    "more evenly, that is the first seat's edge r₀ − 1/n is nearer zero and Balance "
    "1 − max|r_a − r_b| is nearer one; and fairer on **skill** when the better player wins "
    "more often, that is Order (w − 1/n)/(1 − 1/n) is larger. Every interval is 95%; "
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
EVENTS = {
    "points_per_hand": "points scored", "turns_per_hand": "turns", "hands_per_game": "hands",
    "ended_by_discard": "hands ended by a discard", "ended_by_meld": "hands ended by a meld",
    "ended_by_lay_off": "hands ended by a lay-off", "ended_by_stalled": "stalled hands", "rummy_rate": "rummies",
    "rummy_point_share": "points from rummies", "lead_changes": "lead changes", "comeback_rate": "comebacks",
    "tied_games": "tied games", "stalled_games": "unfinished games",
}  # fmt: skip
"""What each counted metric counts, for "no ... in either condition"."""


def _missing(e: Estimate) -> str | None:
    """Return how to show an estimate that could not be computed, or None if it was."""
    if math.isnan(e.value):
        return "n/a (no games to measure it)"
    if math.isnan(e.low):
        return "no interval (fewer than 2 games)"
    return None


def pp(e: Estimate, *, signed: bool = True, unit: str = " pp") -> str:
    """Return an estimate in percentage points: ``+1.2 pp [+0.3, +2.1]`` (more digits when small).

    >>> pp(Estimate(0.012, 0.003, 0.021, 100))
    '+1.2 pp [+0.3, +2.1]'
    """
    sign = "+" if signed else ""
    digits = _digits(e, scale=100.0, least=1)
    missing = _missing(e)
    if missing:
        return missing if math.isnan(e.value) else f"{e.value * 100:{sign}.{digits}f}{unit} ({missing})"
    return f"{e.value * 100:{sign}.{digits}f}{unit} [{e.low * 100:{sign}.{digits}f}, {e.high * 100:{sign}.{digits}f}]"


def num(e: Estimate, *, digits: int = 3, signed: bool = False) -> str:
    """Return ``value [low, high]`` with at least `digits` decimals, more if the interval is narrower.

    >>> num(Estimate(0.0005, 0.0002, 0.0008, 100))
    '0.00050 [0.00020, 0.00080]'
    """
    sign = "+" if signed else ""
    digits = _digits(e, scale=1.0, least=digits)
    missing = _missing(e)
    if missing:
        return missing if math.isnan(e.value) else f"{e.value:{sign}.{digits}f} ({missing})"
    return f"{e.value:{sign}.{digits}f} [{e.low:{sign}.{digits}f}, {e.high:{sign}.{digits}f}]"


def _digits(e: Estimate, *, scale: float, least: int) -> int:
    """Return enough decimals that an interval's ends show two significant digits, at most 4 more."""
    widest = max(abs(e.low), abs(e.high), abs(e.value)) * scale
    if not math.isfinite(widest) or widest == 0:
        return least
    return min(max(least, 1 - math.floor(math.log10(widest))), least + 4)


def p_text(p: float) -> str:
    """Return a p-value for text: two significant digits, or a bound below floating point's reach."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def _verdict(comp: Comparison, metric: str) -> str:
    """Return the verdict in words; an untested interval that excludes zero says it is uncorrected."""
    verdict = comp.verdict(metric)
    if verdict is Verdict.UNCORRECTED and metric in ("first_seat_advantage_game", "order"):
        return "interval excludes zero; no exact test fits this unpaired pair, so it is not corrected"
    if verdict is Verdict.EXACTLY_ZERO:
        return f"no game changed: difference 0 [0, 0] over {comp.games:,} paired games"
    if verdict is Verdict.NO_EVENTS:
        return f"no {EVENTS.get(metric, metric)} in either condition"
    return str(verdict)


def _status(comp: Comparison, metric: str) -> str:
    test = comp.tests.get(metric)
    verdict = _verdict(comp, metric)
    if test is None or comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return verdict
    if comp.verdict(metric) is Verdict.NOT_COMPUTED:
        return f"interval excludes zero, but its test ({test.method}) could not be computed (too few games)"
    return f"{test.method} p {_eq(test.p)}, Holm-adjusted p {_eq(test.p_holm)}: {verdict}"


def _difference(comp: Comparison, metric: str, shown: str, *, lead: str = "difference ") -> str:
    """Return ``difference X (status)``, or only the status when nothing changed or nothing happened."""
    if comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return _verdict(comp, metric)
    return f"{lead}{shown} ({_status(comp, metric)})"


def _eq(p: float) -> str:
    text = p_text(p)
    return text if text.startswith("<") else f"= {text}"


def _amount(metric: str, x: float) -> str:
    """Return a size of change in the metric's unit with two significant digits: ``1.4 pp``, ``0.021``."""
    scale, unit = (1.0, "") if metric == "order" else (100.0, " pp")
    x = abs(x) * scale
    digits = 1 if x == 0 or not math.isfinite(x) else max(0, 1 - math.floor(math.log10(x)))
    return f"{x:.{digits}f}{unit}"


def rules_out(comp: Comparison, metric: str) -> str | None:
    """Return what a planned difference rules out, and the smallest change the run could detect (issue 13)."""
    b = comp.bounds.get(metric)
    verdict = comp.verdict(metric)
    if b is None or math.isnan(b.interval.low) or verdict in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return None
    margin = _amount(metric, b.margin)
    if b.equivalent:
        head = f"rules out a change of {margin} (the margin) or more either way"
    elif verdict.is_claim:
        head = f"rules out changes outside [{_signed(metric, b.interval.low)}, {_signed(metric, b.interval.high)}]"
    else:
        head = f"a change of up to {_amount(metric, b.possible)} is still possible, beyond the margin of {margin}"
    return f"{head}; the run could detect a change of {_amount(metric, b.detectable)} (80% power after Holm)"


def _signed(metric: str, x: float) -> str:
    return ("+" if x >= 0 else "-") + _amount(metric, x)


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
        f"{_difference(comp, 'first_seat_advantage_game', pp(d))}{_also(comp, 'first_seat_advantage_game')}. "
        f"Hand by hand (descriptive: no planned test, not corrected), the seat that plays first has an edge of "
        f"{pp(ha)} and {pp(hb)}; {_difference(comp, 'first_seat_advantage_hand', pp(dh))}."
    )
    return text


def _seat_claim(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str:
    """Return which condition is fairer on seat advantage, if that holds after correction."""
    if not comp.verdict("first_seat_advantage_game").is_claim:
        return "neither is shown fairer on seat advantage"
    ga, gb = a.metrics["first_seat_advantage_game"], b.metrics["first_seat_advantage_game"]
    fairer = b.name if abs(gb.value) < abs(ga.value) else a.name
    return f"`{fairer}` is fairer on seat advantage"


def _orders(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> tuple[Estimate, Estimate]:
    oa = next(s.order for s in a.strategies if s.strategy == comp.focal)
    ob = next(s.order for s in b.strategies if s.strategy == comp.focal)
    return oa, ob


def _skill_claim(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str:
    """Return under which condition the focal strategy wins more, if that holds after correction."""
    if not comp.verdict("order").is_claim:
        return f"neither condition is shown to let `{comp.focal}` win more often"
    oa, ob = _orders(comp, a, b)
    more = b.name if ob.value > oa.value else a.name
    claim = f"`{comp.focal}` wins more often, for its share, under `{more}`"
    if oa.low > 0 and ob.low > 0:  # the better player in both: skill shows more there
        claim += f", so `{more}` lets skill show more: it is fairer on skill"
    return claim


def _skill_sentence(comp: Comparison, a: ConditionSummary, b: ConditionSummary) -> str | None:
    if comp.focal is None or "order" not in comp.differences:
        return None
    oa, ob = _orders(comp, a, b)
    return (
        f"**Skill**: {_skill_claim(comp, a, b)}. The Order of `{comp.focal}` is {num(oa)} under `{a.name}` "
        f"and {num(ob)} under `{b.name}`; {_difference(comp, 'order', num(comp.differences['order'], signed=True))}"
        f"{_also(comp, 'order')}."
    )


def _also(comp: Comparison, metric: str) -> str:
    said = rules_out(comp, metric)
    return f"; it {said}" if said and not said.startswith("a change") else f"; {said}" if said else ""


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
    skill = _skill_sentence(comp, a, b)
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
        text += f" (chi-square test of equal seats p {_eq(c.uniform_game.p)})"
    strong = c.stronger
    if strong is not None:
        text += (
            f"; `{strong.strategy}` wins {pp(strong.per_seat, signed=False, unit='%')} of games per seat it holds "
            f"(fair share {100 / c.n_players:.1f}%), Order {num(strong.order)}"
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


def _change(comp: Comparison, metric: str, what: str, shown: str) -> str:
    """Return ``WHAT changes by X: verdict``, or only the verdict when nothing changed or happened."""
    if comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return _verdict(comp, metric)
    return f"{what} changes by {shown}: {_verdict(comp, metric)}"


def summary_line(analysis: Analysis) -> str:
    """Return the first line of the answer: per comparison what held and what did not, then the skill ladder."""
    parts = []
    for comp in analysis.comparisons:
        a, b = analysis.condition(comp.reference), analysis.condition(comp.other)
        d = comp.differences["first_seat_advantage_game"]
        edge = _change(comp, "first_seat_advantage_game", "the first seat's edge", pp(d))
        said = [f"{_seat_claim(comp, a, b)} ({edge}{_also(comp, 'first_seat_advantage_game')})"]
        if comp.focal is not None and "order" in comp.differences:
            order = _change(comp, "order", "its Order", num(comp.differences["order"], signed=True))
            said.append(f"{_skill_claim(comp, a, b)} ({order}{_also(comp, 'order')})")
        rummy = _rummy_claim(analysis, comp, a, b)
        if rummy:
            said.append(rummy)
        parts.append(f"`{comp.other}` against `{comp.reference}`: " + "; ".join(said))
    compared = {comp.other for comp in analysis.comparisons if comp.focal} | {
        comp.reference for comp in analysis.comparisons if comp.focal
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
    if not parts:
        return "**In short**: no comparison was planned."
    return "**In short**:\n\n" + "\n".join(f"- {p}." for p in parts)
