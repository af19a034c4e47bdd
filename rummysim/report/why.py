"""Why a rule changes what it changes, where the reason is known: the rulebook's mechanism, then what was measured.

`MECHANISM` says, a rule setting, how the rule works on the game (the cheat sheet prints it
as it stands). `reasons` says it for each comparison of a report, with the run's own figures
beside it (95% intervals), and only where they bear it out: a hand that scores more is the
reason games end sooner only if the run measured hands scoring more; block rummy's turns per
seat are the reason of a shift in the seats' shares, and the report says how many of its
hands ended that way and from how large a stock. A comparison whose rules differ in a setting
without a known mechanism, or in more than one, gets no reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from rummysim.analysis import Analysis, Comparison, Estimate
from rummysim.cards import N_CARDS
from rummysim.report.verdicts import rule_words
from rummysim.report.wording import interval, rounded
from rummysim.rules import Rules, StockOut

MECHANISM = {
    "ace": "an ace worth 15 makes each hand worth more (R9), so a game reaches its target in fewer hands",
    "rummy_multiplier": "going rummy multiplies a hand's points (R8.3), so a game reaches its target in fewer hands "
    "and a player who goes rummy often gains most",
    "stock_out": "the hand ends when the stock runs out (R12.3): with more players the stock allows each seat fewer "
    "draws before it does, and not every seat the same number, so the seats' chances move apart",
    "going_out": "a player can no longer go out by melding or laying off its last card (R7.2), so hands last longer",
}
"""Why a rule setting changes what it does, where the reason is known (docs/atlas.md, docs/reading-a-report.md)."""


def reasons(analysis: Analysis, comparisons: Iterable[Comparison]) -> dict[int, str]:
    """Return "Why: ..." for each comparison (by ``id``) whose reason is known and borne out (`reason`); a mechanism
    said once is "as above" after, with the comparison's own figures."""
    said: dict[int, str] = {}
    told: set[str] = set()
    for comp in {id(c): c for c in comparisons}.values():  # each comparison once, though several verdicts name it
        found = reason(analysis, comp)
        if found is not None:
            key, mechanism, figures = found
            if key in told and figures:
                said[id(comp)] = f"*Why*: as above; {figures}."
            else:
                said[id(comp)] = f"*Why*: {'; '.join(x for x in (mechanism, figures) if x)}."
            told.add(key)
    return said


def reason(analysis: Analysis, comp: Comparison) -> tuple[str, str, str] | None:
    """Return (the rule setting, its mechanism, the run's figures that bear it out) for one comparison, or None if no
    reason is known or the figures do not show it (`MECHANISM`)."""
    a = analysis.experiment.condition(comp.reference).rules
    b = analysis.experiment.condition(comp.other).rules
    keys = [k for k in MECHANISM if getattr(a, k) != getattr(b, k)]
    if len(keys) != 1 or len(rule_words(b.to_dict(), base=a.to_dict())) != 1:
        return None  # no known mechanism, or more than one setting differs: no single reason to name
    found = REASONS[keys[0]](analysis, comp, a, b)
    return (keys[0], *found) if found else None


def _percent(e: Estimate | None) -> str:
    """Return a share with its 95% interval: ``31.2% [30.8, 31.6]``; "" if not measured."""
    if e is None or not math.isfinite(e.value):
        return ""
    x, lo, hi = rounded(100 * e.value, 100 * e.low, 100 * e.high, least=1)
    return f"{x}% {interval(lo, hi)}"


def _rises(comp: Comparison, metric: str) -> bool:
    """Return whether the run shows `metric` higher under the other rules: its 95% interval above zero."""
    d = comp.differences.get(metric)
    return d is not None and math.isfinite(d.low) and d.low > 0


def _scores_more(analysis: Analysis, comp: Comparison, what: str, rules: Rules) -> tuple[str, str] | None:
    """Return the points reason: `what` makes hands score more, so a game reaches its target in fewer hands."""
    if not _rises(comp, "points_per_hand"):
        return None
    was = analysis.condition(comp.reference).metrics["points_per_hand"]
    now = analysis.condition(comp.other).metrics["points_per_hand"]
    x, lo, hi, y, ylo, yhi = rounded(now.value, now.low, now.high, was.value, was.low, was.high, least=1)
    target = f"its {rules.target_score} points" if rules.target_score is not None else "its end"
    return (f"{what}, so a hand scores more and a game reaches {target} in fewer hands",
            f"here a hand scores {x} points {interval(lo, hi)} instead of {y} {interval(ylo, yhi)}")  # fmt: skip


def _ace(analysis: Analysis, comp: Comparison, a: Rules, b: Rules) -> tuple[str, str] | None:
    """R9.2: an ace worth 15 (high or low) instead of 1."""
    if b.ace_value <= a.ace_value:
        return None
    return _scores_more(analysis, comp, f"an ace counts {b.ace_value} points instead of {a.ace_value} (R9.2)", b)


def _rummy(analysis: Analysis, comp: Comparison, a: Rules, b: Rules) -> tuple[str, str] | None:
    """R8.3: going rummy multiplies the hand's points."""
    if b.rummy_multiplier <= a.rummy_multiplier:
        return None
    times = {2: "doubles", 3: "triples"}.get(b.rummy_multiplier, f"multiplies by {b.rummy_multiplier}")
    return _scores_more(analysis, comp, f"going rummy {times} a hand's points (R8.3)", b)


def _block(analysis: Analysis, comp: Comparison, a: Rules, b: Rules) -> tuple[str, str] | None:
    """R12.3: the hand ends at the turn that finds the stock empty, so the seats before it have had a turn more."""
    if b.stock_out is not StockOut.BLOCK or a.stock_out is StockOut.BLOCK:
        return None
    blocked = _percent(analysis.condition(comp.other).metrics.get("ended_by_block"))
    stock = N_CARDS - b.n_players * b.n_dealt - 1
    said = ("with block rummy a hand ends at the start of the first turn that finds the stock empty, so the seats "
            "that play before that turn in the round have had one turn more: the first player never fewer than "
            "anyone, the dealer, who plays last, never more (R3.4, R12.3)")  # fmt: skip
    figures = (
        f"here {blocked} of the hands end that way, from a stock of {stock} cards at {b.n_players} players (R3.2, R3.3)"
    )
    return said, figures if blocked else ""


def _discard(analysis: Analysis, comp: Comparison, a: Rules, b: Rules) -> tuple[str, str] | None:
    """R7.2: going out needs a last card to discard."""
    if b.going_out == a.going_out or b.going_out.value != "discard" or not _rises(comp, "turns_per_hand"):
        return None
    ref = analysis.condition(comp.reference).metrics
    by_meld, by_lay_off = _percent(ref.get("ended_by_meld")), _percent(ref.get("ended_by_lay_off"))
    said = ("going out only by a discard, a player who could meld or lay off every card must keep one to discard "
            "(R7.2), so the hand goes on")  # fmt: skip
    figures = f"going out by any play, {by_meld} of the hands end by a meld and {by_lay_off} by a lay-off"
    return said, figures if by_meld and by_lay_off else ""


REASONS: dict[str, Callable[[Analysis, Comparison, Rules, Rules], tuple[str, str] | None]] = {
    "ace": _ace, "rummy_multiplier": _rummy, "stock_out": _block, "going_out": _discard,
}  # fmt: skip
"""A rule setting's reason with its figures, by the setting `MECHANISM` names."""
