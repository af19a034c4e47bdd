"""The words of a verdict: estimates, p-values and what a planned difference rules out, as text.

Shared by the Answer (`rummysim.report.answer`) and the skill sentences (`rummysim.report.skill`);
every verdict itself is decided in `rummysim.analysis.compare.Verdict`, and only worded here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rummysim.analysis import Comparison, Estimate
from rummysim.analysis.compare import Verdict
from rummysim.measures import MEASURES, by_metric
from rummysim.rules import DEFAULTS, HOUSE_RULES

EVENTS = {
    "points_per_hand": "points scored", "turns_per_hand": "turns", "hands_per_game": "hands",
    "ended_by_discard": "hands ended by a discard", "ended_by_meld": "hands ended by a meld",
    "ended_by_lay_off": "hands ended by a lay-off", "ended_by_block": "hands ended by a block",
    "ended_by_stalled": "stalled hands", "rummy_rate": "rummies",
    "rummy_point_share": "points from rummies", "lead_changes": "lead changes", "comeback_rate": "comebacks",
    "tied_games": "tied games", "stalled_games": "unfinished games",
}  # fmt: skip
"""What each counted metric counts, for "no ... in either condition"."""


def settings_said(rules: Mapping[str, Any]) -> dict[str, Any]:
    """Return resolved settings (`Rules.to_dict`) with each house rule that is off at its default (R12).

    `Rules.to_dict` leaves an unused house rule out, so two conditions that differ by one
    would otherwise seem to agree on it.

    >>> settings_said({"ace": "low"})
    {'ace': 'low', 'lay_off': 'any', 'take_discard': 'free', 'stock_out': 'rebuild'}
    """
    return {**rules, **{key: DEFAULTS[key].value for key in HOUSE_RULES if key not in rules}}


TINY = 1e-12
"""Below this an estimate's value or end is rounding noise (a bootstrap's -8.3e-17), shown as 0."""


def missing_text(e: Estimate) -> str | None:
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
    digits = digits_for(e, scale=100.0, least=1)
    missing = missing_text(e)
    if missing:
        return missing if math.isnan(e.value) else f"{e.value * 100:{sign}.{digits}f}{unit} ({missing})"
    return f"{e.value * 100:{sign}.{digits}f}{unit} [{e.low * 100:{sign}.{digits}f}, {e.high * 100:{sign}.{digits}f}]"


def num(e: Estimate, *, digits: int = 3, signed: bool = False) -> str:
    """Return ``value [low, high]`` with at least `digits` decimals, more if the interval is narrower.

    >>> num(Estimate(0.0005, 0.0002, 0.0008, 100))
    '0.00050 [0.00020, 0.00080]'
    """
    sign = "+" if signed else ""
    value, low, high = (0.0 if abs(x) < TINY else x for x in (e.value, e.low, e.high))
    e = Estimate(value, low, high, e.n)  # no "-0.000", no 8.3e-17
    digits = digits_for(e, scale=1.0, least=digits)
    missing = missing_text(e)
    if missing:
        return missing if math.isnan(e.value) else f"{e.value:{sign}.{digits}f} ({missing})"
    return f"{e.value:{sign}.{digits}f} [{e.low:{sign}.{digits}f}, {e.high:{sign}.{digits}f}]"


def digits_for(e: Estimate, *, scale: float, least: int) -> int:
    """Return enough decimals that an interval's ends show two significant digits, at most 4 more."""
    widest = max(abs(e.low), abs(e.high), abs(e.value)) * scale
    if not math.isfinite(widest) or widest < TINY:
        return least
    return min(max(least, 1 - math.floor(math.log10(widest))), least + 4)


def p_text(p: float) -> str:
    """Return a p-value for text: two significant digits, or a bound below floating point's reach."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def verdict_text(comp: Comparison, metric: str) -> str:
    """Return the verdict in words; an untested interval that excludes zero says it is uncorrected."""
    verdict = comp.verdict(metric)
    if verdict is Verdict.UNCORRECTED and metric in ("first_seat_advantage_game", "order"):
        return "interval excludes zero; no exact test fits this unpaired pair, so it is not corrected"
    if verdict is Verdict.EXACTLY_ZERO:
        return f"no game changed: difference 0 [0, 0] over {comp.games:,} paired games"
    if verdict is Verdict.NO_EVENTS:
        return f"no {EVENTS.get(metric, metric)} in either condition"
    return str(verdict)


def status_text(comp: Comparison, metric: str) -> str:
    test = comp.tests.get(metric)
    verdict = verdict_text(comp, metric)
    if test is None or comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return verdict
    if math.isnan(test.p):
        return f"{verdict}: its test ({test.method}) could not be computed (too few games)"
    if comp.verdict(metric) is Verdict.NOT_COMPUTED:
        return f"interval excludes zero, but its test ({test.method}) could not be computed (too few games)"
    return f"{test.method} p {eq(test.p)}, Holm-adjusted p {eq(test.p_holm)}: {verdict}"


def difference_text(comp: Comparison, metric: str, shown: str, *, lead: str = "difference ") -> str:
    """Return ``difference X (status)``, or only the status when nothing changed or nothing happened."""
    if comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return verdict_text(comp, metric)
    return f"{lead}{shown} ({status_text(comp, metric)})"


def eq(p: float) -> str:
    text = p_text(p)
    return text if text.startswith("<") else f"= {text}"


def amount(metric: str, x: float, *, up: bool = False) -> str:
    """Return a size of change in the metric's unit with two significant digits: ``1.4 pp``, ``0.021``.

    `up` rounds away from zero with a third significant digit, for a bound that must not be
    understated but should read beside an interval shown to two ("rules out more than X"):

    >>> amount("order", 0.02649), amount("order", 0.02641, up=True), amount("first_seat_edge", 0.002602, up=True)
    ('0.026', '0.0265', '0.261 pp')
    """
    scale, unit = unit_of(metric)
    return significant(abs(x) * scale, up=up, extra=1 if up else 0) + unit


def unit_of(metric: str) -> tuple[float, str]:
    """Return (the scale to its unit, the unit after a number) of a measure or its metric (`rummysim.measures`).

    >>> unit_of("first_seat_advantage_game"), unit_of("game_length"), unit_of("order")
    ((100.0, ' pp'), (1.0, ' hands'), (1.0, ''))
    """
    measure = MEASURES.get(metric) or by_metric(metric)
    if measure is None:
        return 1.0, ""
    return measure.scale, f" {measure.unit}" if measure.unit not in ("", "log") else ""


def significant(x: float, *, up: bool = False, extra: int = 0) -> str:
    """Return x ≥ 0 to two significant digits (and `extra` more); `up` rounds away from zero, never understating.

    >>> significant(0.2604, up=True), significant(7.36), significant(0.02641, up=True, extra=1)
    ('0.27', '7.4', '0.0265')
    """
    digits = 1 if x == 0 or not math.isfinite(x) else max(0, 1 - math.floor(math.log10(x)))
    digits += extra
    if up and math.isfinite(x):
        x = math.ceil(round(x * 10**digits, 9)) / 10**digits
    return f"{x:.{digits}f}"


def rules_out(comp: Comparison, metric: str) -> str | None:
    """Return what a planned change's simultaneous interval rules out, and the smallest change the run could detect.

    A relative measure (decided on its log ratio) speaks in percentages of the reference's level.
    """
    b = comp.bounds.get(metric)
    verdict = comp.verdict(metric)
    if b is None or math.isnan(b.interval.low) or verdict in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return None

    def size(x: float, *, up: bool = False) -> str:
        if b.relative:
            return f"{significant(abs(math.expm1(x)) * 100, up=up, extra=1 if up else 0)}%"
        return amount(metric, x, up=up)

    margin = size(b.margin)
    if b.shown:
        outside = percent_ends(b.interval) if b.relative else ends(metric, b.interval)
        head = f"rules out changes outside {outside}"
        head += f", within the margin of {margin}" if b.equivalent else ""
    elif b.equivalent:
        head = f"rules out a change of more than {size(b.possible, up=True)} either way, within the margin of {margin}"
    else:
        head = f"a change of up to {size(b.possible, up=True)} is still possible, beyond the margin of {margin}"
    return f"{head}; the run could detect a change of {size(b.detectable)} (80% power, all planned changes at once)"


def percent_ends(e: Estimate) -> str:
    """Return a log ratio's interval as percentage changes: ``[-30.6%, -30.2%]``.

    >>> percent_ends(Estimate(-0.36, -0.365, -0.36, 10))
    '[-30.6%, -30.2%]'
    """
    low, high = (100 * math.expm1(x) for x in (e.low, e.high))
    digits = digits_for(Estimate(0.0, low, high, e.n), scale=1.0, least=1)
    return f"[{low:+.{digits}f}%, {high:+.{digits}f}%]"


def ends(metric: str, e: Estimate) -> str:
    """Return an interval's ends as the difference itself is shown: ``[-0.294, -0.287]``, ``[+0.3, +2.1] pp``.

    >>> ends("order", Estimate(-0.291, -0.2941, -0.2873, 100))
    '[-0.294, -0.287]'
    >>> ends("first_seat_advantage_game", Estimate(0.012, 0.003, 0.021, 100))
    '[+0.3, +2.1] pp'
    """
    scale, unit = unit_of(metric)
    digits = digits_for(e, scale=scale, least=3 if scale == 1.0 and not unit else 1)
    return f"[{e.low * scale:+.{digits}f}, {e.high * scale:+.{digits}f}]{unit}"


def also(comp: Comparison, metric: str) -> str:
    said = rules_out(comp, metric)
    return f"; it {said}" if said and not said.startswith("a change") else f"; {said}" if said else ""


def change_text(comp: Comparison, metric: str, what: str, shown: str) -> str:
    """Return ``WHAT changes by X: verdict``, or only the verdict when nothing changed or happened."""
    if comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return verdict_text(comp, metric)
    return f"{what} changes by {shown}: {verdict_text(comp, metric)}"


def decimals(e: Estimate, *, scale: float = 1.0) -> int:
    """Return decimals enough that an interval's ends differ from zero and from each other (one significant digit
    of the smallest of |low|, |high| and the width, at least 2); with no interval, two significant digits."""
    low, high, value = e.low * scale, e.high * scale, abs(e.value * scale)
    if not math.isfinite(low):
        return 2 if not value or not math.isfinite(value) else min(max(2, 1 - math.floor(math.log10(value))), 6)
    smallest = min(abs(low), abs(high), abs(high - low))
    return 2 if not smallest or not math.isfinite(smallest) else min(max(2, -math.floor(math.log10(smallest))), 6)


def signed(e: Estimate, *, scale: float = 1.0) -> str:
    """Return a change ``+5.66 [+5.64, +5.67]`` with enough digits that the ends differ from zero and each other.

    The verdicts' evidence, the forest plot and "What else changes" all show a change so:

    >>> signed(Estimate(0.00012, 0.00005, 0.0002, 10), scale=100.0), signed(Estimate(-7.26, -7.292, -7.229, 10))
    ('+0.012 [+0.005, +0.020]', '-7.26 [-7.29, -7.23]')
    """
    digits = decimals(e, scale=scale)

    def text(x: float) -> str:
        return f"{round(x * scale, digits) + 0.0:+.{digits}f}"  # + 0.0: no "-0.00"

    return f"{text(e.value)} [{text(e.low)}, {text(e.high)}]" if math.isfinite(e.low) else text(e.value)


def change_with_unit(e: Estimate, unit: str) -> str:
    """Return a signed change with its unit: after the interval (``-7.26 [-7.29, -7.23] hands``), or, for a
    percentage change (``%``), after the value, rounded once for the value and its ends (`percent_text`).

    >>> e, f = Estimate(-30.76, -32.32, -29.16, 1), Estimate(0.13, 0.05, 0.21, 1)
    >>> change_with_unit(e, "%"), change_with_unit(f, " pp")
    ('-31% [-32, -29]', '+0.13 [+0.05, +0.21] pp')
    """
    if unit != "%":
        return f"{signed(e)}{unit}"
    value, ends = percent_text(e)
    return f"{value} {ends}".rstrip()


def percent_text(e: Estimate) -> tuple[str, str]:
    """Return a percentage change and its interval's ends, to two significant digits of the largest and as many
    more decimals as the value and both ends need to read apart: ``('-31%', '[-32, -29]')``.

    >>> percent_text(Estimate(-30.76, -30.9, -30.6, 1)), percent_text(Estimate(-0.9, -1.5, -0.3, 1))
    (('-30.8%', '[-30.9, -30.6]'), ('-0.9%', '[-1.5, -0.3]'))
    >>> percent_text(Estimate(-15.3, -15.8, -14.9, 1))
    ('-15.3%', '[-15.8, -14.9]')
    """
    if not math.isfinite(e.low):
        return f"{e.value:+.1f}%", ""
    widest = max(abs(e.low), abs(e.high), abs(e.value), 1e-9)
    digits = max(0, 1 - math.floor(math.log10(widest)))
    while digits < 4 and len({round(x, digits) for x in (e.low, e.value, e.high)}) < 3:
        digits += 1  # the value and both ends, each shown apart

    def text(x: float) -> str:
        return f"{round(x, digits) + 0.0:+.{digits}f}"

    return f"{text(e.value)}%", f"[{text(e.low)}, {text(e.high)}]"
