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
    """Return an estimate in percentage points: ``+1.2 pp [+0.3, +2.1]`` (more digits when small, `rounded`).

    >>> pp(Estimate(0.012, 0.003, 0.021, 100)), pp(Estimate(-0.00004, -0.0015, 0.0014, 100))
    ('+1.2 pp [+0.3, +2.1]', '-0.004 pp [-0.15, +0.14]')
    """
    missing = missing_text(e)
    if missing and math.isnan(e.value):
        return missing
    value, low, high = rounded(e.value * 100, e.low * 100, e.high * 100, least=1, sign="+" if signed else "")
    return f"{value}{unit} ({missing})" if missing else f"{value}{unit} {interval(low, high)}"


def num(e: Estimate, *, digits: int = 3, signed: bool = False) -> str:
    """Return ``value [low, high]`` with at least `digits` decimals, more if the interval is narrower (`rounded`).

    >>> num(Estimate(0.0005, 0.0002, 0.0008, 100)), num(Estimate(0.0292, 0.0289, 0.0295, 100))
    ('0.00050 [0.00020, 0.00080]', '0.0292 [0.0289, 0.0295]')
    """
    missing = missing_text(e)
    if missing and math.isnan(e.value):
        return missing
    value, low, high = rounded(e.value, e.low, e.high, least=digits, sign="+" if signed else "")
    return f"{value} ({missing})" if missing else f"{value} {interval(low, high)}"


def interval(low: str, high: str) -> str:
    """Return printed ends as an interval, ``[low, high]``, or ``(no spread)`` when they are one number (every game
    alike: a share of every seat, a count that is zero in every game), never ``[0.000, 0.000]``."""
    return "(no spread)" if low == high else f"[{low}, {high}]"


MORE = 3
"""The most decimals `rounded` adds so that a value and its interval's ends read apart."""


def rounded(*xs: float, least: int = 0, sign: str = "") -> list[str]:
    """Return numbers (a value and its interval's ends) printed once, each as every sentence and table shows it.

    At two significant digits of the largest and at least `least` decimals; up to `MORE` more, while two numbers
    that differ print alike (``-0.03 [-0.04, -0.03]`` is ``-0.031 [-0.037, -0.025]``). A number that is not zero
    but would print as zero gets one significant digit of its own (``-0.00005``, never ``-0.00``); an exact zero,
    or rounding noise below `TINY`, is ``0`` at the common decimals, with no minus sign. `sign` ``"+"`` signs them.

    >>> rounded(-0.0817, -0.16335, -0.00005, least=2, sign="+")
    ['-0.08', '-0.16', '-0.00005']
    >>> rounded(-0.0308, -0.0367, -0.0251, least=2, sign="+"), rounded(-26.83, -26.92, -26.74)
    (['-0.031', '-0.037', '-0.025'], ['-26.8', '-26.9', '-26.7'])
    """
    clean = [0.0 if abs(x) < TINY else x for x in xs]
    finite = [x for x in clean if math.isfinite(x)]
    widest = max((abs(x) for x in finite), default=0.0)
    digits = least if widest == 0 else max(least, 1 - math.floor(math.log10(widest)))
    apart = len(set(finite))
    for more in range(MORE + 1):
        shown = [_figure(x, digits + more, sign) for x in clean]
        if len({t for t, x in zip(shown, clean, strict=True) if math.isfinite(x)}) == apart:
            break
    return shown


def _figure(x: float, digits: int, sign: str) -> str:
    """Return one number at `digits` decimals, or at one significant digit of its own where those show zero."""
    if not math.isfinite(x):
        return "n/a"
    if x and round(x, digits) == 0:
        digits = min(-math.floor(math.log10(abs(x))), 12)
    return f"{round(x, digits) + 0.0:{sign}.{digits}f}"  # + 0.0: no "-0.00"


def p_text(p: float) -> str:
    """Return a p-value for text: two significant digits, or a bound below floating point's reach."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def verdict_text(comp: Comparison, metric: str) -> str:
    """Return the verdict in words; an untested interval that excludes zero says it is uncorrected."""
    verdict = comp.verdict(metric)
    if verdict is Verdict.UNCORRECTED and metric in ("first_seat_advantage_game", "order"):
        return "interval excludes zero; no exact test fits this unpaired pair, so it is not corrected"
    if verdict is Verdict.EXACTLY_ZERO:
        return f"no game changed: the difference is exactly 0 in each of {comp.games:,} paired games"
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
    """Return a log ratio's interval as percentage changes, its ends as the change beside it shows them
    (`percent_text`): ``[-30.6%, -30.2%]``.

    >>> percent_ends(Estimate(-0.363, -0.365, -0.36, 10))
    '[-30.6%, -30.2%]'
    """
    _, low, high = rounded(*(100 * math.expm1(x) for x in (e.value, e.low, e.high)), sign="+")
    return f"[{low}%, {high}%]"


def ends(metric: str, e: Estimate) -> str:
    """Return an interval's ends as the change beside them shows them (`signed`): ``[-0.294, -0.287]``,
    ``[+0.3, +2.1] pp``.

    >>> ends("order", Estimate(-0.291, -0.2941, -0.2873, 100))
    '[-0.294, -0.287]'
    >>> ends("first_seat_advantage_game", Estimate(0.012, 0.003, 0.021, 100))
    '[+0.3, +2.1] pp'
    >>> ends("order", Estimate(-0.08, -0.16, -0.00005, 1))
    '[-0.160, -0.00005]'
    """
    scale, unit = unit_of(metric)
    least = 3 if scale == 1.0 and not unit else 1
    _, low, high = rounded(e.value * scale, e.low * scale, e.high * scale, least=least, sign="+")
    return f"[{low}, {high}]{unit}"


def also(comp: Comparison, metric: str) -> str:
    said = rules_out(comp, metric)
    return f"; it {said}" if said and not said.startswith("a change") else f"; {said}" if said else ""


def change_text(comp: Comparison, metric: str, what: str, shown: str) -> str:
    """Return ``WHAT changes by X: verdict``, or only the verdict when nothing changed or happened."""
    if comp.verdict(metric) in (Verdict.EXACTLY_ZERO, Verdict.NO_EVENTS):
        return verdict_text(comp, metric)
    return f"{what} changes by {shown}: {verdict_text(comp, metric)}"


def signed(e: Estimate, *, scale: float = 1.0) -> str:
    """Return a change ``+5.66 [+5.64, +5.67]``, each number printed once (`rounded`, at least 2 decimals), so the
    ends differ from each other and a nonzero end from zero.

    The verdicts, their evidence, the forest plot and "What else changes" all show a change so:

    >>> signed(Estimate(0.00012, 0.00005, 0.0002, 10), scale=100.0), signed(Estimate(-7.26, -7.292, -7.229, 10))
    ('+0.012 [+0.005, +0.020]', '-7.26 [-7.29, -7.23]')
    """
    value, low, high = rounded(e.value * scale, e.low * scale, e.high * scale, least=2, sign="+")
    return f"{value} {interval(low, high)}" if math.isfinite(e.low) else value


def size_shown(e: Estimate, *, scale: float = 1.0) -> str:
    """Return the size of a change as `signed` prints it, without its sign: what a sentence says the change is by.

    >>> size_shown(Estimate(-0.0817, -0.16335, -0.00005, 10))
    '0.08'
    """
    return signed(e, scale=scale).split(" ", 1)[0].lstrip("+-")


def decimals(e: Estimate, *, scale: float = 1.0) -> int:
    """Return the decimals `signed` prints a change's value with, for levels shown beside it."""
    text = signed(e, scale=scale).split(" ", 1)[0]
    return len(text.split(".")[1]) if "." in text else 0


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
        return f"{rounded(e.value, least=1, sign='+')[0]}%", ""
    value, low, high = rounded(e.value, e.low, e.high, sign="+")  # the value and both ends, each shown apart
    return f"{value}%", interval(low, high)
