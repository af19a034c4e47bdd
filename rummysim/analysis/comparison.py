"""A comparison's record and how it stands: its planned tests, each difference's `Verdict`, its `Answer`.

Decided once here, from a `Comparison` that `rummysim.analysis.compare` fills in and the skill
measure (`rummysim.analysis.skill`) adds to; the report only words them (`rummysim.report.wording`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rummysim.analysis.equivalence import Bounds, Spread
from rummysim.analysis.estimates import Estimate
from rummysim.compat import StrEnum

ALPHA = 0.05
"""The level of every test, planned or descriptive: 5%."""


class Verdict(StrEnum):
    """How a difference stands, decided once here; the report words each one."""

    HOLDS = "holds with every planned change at once"
    """A planned change whose simultaneous interval (`rummysim.analysis.equivalence.simultaneous`) excludes zero."""
    NOT_AFTER_HOLM = "inconclusive with every planned change at once"
    """A planned change whose 95% interval excludes zero but whose simultaneous interval does not."""
    INCONCLUSIVE = "inconclusive"
    """Its interval spans zero, or could not be computed (too few games)."""
    UNCORRECTED = "interval excludes zero (uncorrected: no planned test)"
    """Its interval excludes zero and no test covers it: descriptive, not corrected, never in the Answer."""
    DISCOVERED = "a change at a 5% false discovery rate (descriptive)"
    """Descriptive: its interval excludes zero and its test holds after Benjamini-Hochberg's correction across every
    descriptive difference of the experiment."""
    NOT_AFTER_FDR = "inconclusive at a 5% false discovery rate (descriptive)"
    """Descriptive: its interval excludes zero, but its test does not hold after Benjamini-Hochberg's correction."""
    EXACTLY_ZERO = "exactly zero"
    """Every paired game gave the same value in both conditions: difference 0 [0, 0]."""
    NO_EVENTS = "no events in either condition"
    """What it counts happened in neither condition, so there is nothing to compare."""
    DIFFERS = "differs after Holm's correction"
    """A test of a whole distribution (the winning seat's) holds after Holm's correction."""
    NO_DIFFERENCE_SHOWN = "no difference shown"
    """A test of a whole distribution does not hold after Holm's correction."""
    NOT_COMPUTED = "test could not be computed (too few games)"
    """Its planned test has no p-value: a singular table on a small run (Stuart-Maxwell), or no data."""

    @property
    def is_shown(self) -> bool:
        """Return True if the sign of the difference is resolved (corrected or not)."""
        return self in (Verdict.HOLDS, Verdict.DISCOVERED, Verdict.UNCORRECTED)

    @property
    def is_claim(self) -> bool:
        """Return True if the Answer may claim the difference: its planned test holds after Holm's correction."""
        return self is Verdict.HOLDS


class Answer(StrEnum):
    """A planned comparison's answer, read from its simultaneous interval [L, U] (1 − α/m) and its margin X.

    - ``Yes``: [L, U] lies wholly at or beyond X on one side: a change at least as large as the margin;
    - ``Yes, of unclear size``: [L, U] excludes zero and straddles X: a change, whose size may be small;
    - ``Yes, but small``: [L, U] excludes zero and lies inside ±X: a real change, smaller than the margin;
    - ``No``: [L, U] holds zero and lies inside ±X: any change is smaller than X (equivalence);
    - ``Can't tell``: [L, U] holds zero and reaches beyond ±X: a change that large is still possible.

    All m intervals of a run cover their changes at once with 95% confidence, so all its answers are right
    together: the chance of any false "Yes", "No" or "Yes, but small" in a run is at most 5%.
    """

    YES = "Yes"
    UNCLEAR = "Yes, of unclear size"
    SMALL = "Yes, but small"
    NO = "No"
    CANT_TELL = "Can't tell"


@dataclass
class Test:
    """One planned test: its p-value, and the p-value after Holm's correction."""

    metric: str
    method: str
    p: float
    p_holm: float = float("nan")
    """Planned tests: the p-value after Holm's correction across the experiment's planned tests."""
    p_fdr: float = float("nan")
    """Descriptive tests: the p-value after Benjamini-Hochberg's correction across the experiment's descriptive
    tests."""


@dataclass
class Comparison:
    """Condition `other` against its `reference`: differences other - reference."""

    reference: str
    other: str
    paired: bool
    games: int
    differences: dict[str, Estimate] = field(default_factory=dict)
    tests: dict[str, Test] = field(default_factory=dict)
    """The planned tests (the experiment's ``measures:``, plus the winning seat's distribution with the first
    seat's edge), corrected together by Holm's method (`holm`)."""
    descriptive: dict[str, Test] = field(default_factory=dict)
    """The tests of every other difference, corrected together by Benjamini-Hochberg's method (`fdr`)."""
    planned: frozenset[str] = frozenset()
    """The metrics the experiment plans (`rummysim.measures.planned_metrics`)."""
    focal: str | None = None
    """The strategy whose skill is compared (`rummysim.analysis.skill.measured`), if any."""
    skill_metric: str | None = None
    """Its planned skill measure: ``order`` at one table size and seat count, else ``strength`` (`analysis.skill`)."""
    no_events: set[str] = field(default_factory=set)
    """Metrics whose events (rummies, stalls, ties, ...) happened in neither condition."""
    variance_ratios: dict[str, float] = field(default_factory=dict)
    """Paired only: each difference's variance over an unpaired design's on the same games (`variance_ratio`)."""
    spreads: dict[str, Spread] = field(default_factory=dict)
    """The standard errors of each planned difference (`MEASURES`), for its smallest detectable change."""
    log_ratios: dict[str, Estimate] = field(default_factory=dict)
    """The planned relative measures' log(other / reference) with its 95% interval (delta method), on which their
    verdicts are decided (`rummysim.margins.RELATIVE`)."""
    bounds: dict[str, Bounds] = field(default_factory=dict)
    """What each planned difference rules out (`rule_out`, after Holm's correction)."""

    def verdict(self, metric: str) -> Verdict:
        """Return how a difference stands (`Verdict`)."""
        if metric in self.no_events:
            return Verdict.NO_EVENTS
        diff = self.differences[metric]
        if diff.value == diff.low == diff.high == 0.0:
            return Verdict.EXACTLY_ZERO
        if np.isnan(diff.low) or diff.spans_zero:
            return Verdict.INCONCLUSIVE
        test = self.tests.get(metric)
        if test is None:
            found = self.descriptive.get(metric)
            if found is None:
                return Verdict.UNCORRECTED
            if np.isnan(found.p_fdr):
                return Verdict.NOT_COMPUTED
            return Verdict.DISCOVERED if found.p_fdr < ALPHA else Verdict.NOT_AFTER_FDR
        bounds = self.bounds.get(metric)
        if bounds is not None and np.isfinite(bounds.interval.low):  # read from the simultaneous interval
            return Verdict.HOLDS if bounds.shown else Verdict.NOT_AFTER_HOLM
        if np.isnan(test.p):
            return Verdict.NOT_COMPUTED
        return Verdict.HOLDS if test.p_holm < ALPHA else Verdict.NOT_AFTER_HOLM

    def answer(self, metric: str) -> Answer:
        """Return a planned change's answer (`Answer`), read from its simultaneous interval and margin (`rule_out`)."""
        if metric in self.no_events or self.verdict(metric) is Verdict.EXACTLY_ZERO:
            return Answer.NO
        return answer_of(self.bounds.get(metric))

    def distribution_verdict(self, metric: str) -> Verdict:
        """Return how a test of a whole distribution stands, such as the winning seat's (Stuart-Maxwell)."""
        if np.isnan(self.tests[metric].p):
            return Verdict.NOT_COMPUTED
        return Verdict.DIFFERS if self.tests[metric].p_holm < ALPHA else Verdict.NO_DIFFERENCE_SHOWN


def answer_of(b: Bounds | None) -> Answer:
    """Return the `Answer` a simultaneous interval and its margin give (`Comparison.answer` without its exact zeros)."""
    if b is None or not (np.isfinite(b.interval.low) and np.isfinite(b.interval.high)):
        return Answer.CANT_TELL
    if b.shown:
        return Answer.SMALL if b.equivalent else Answer.YES if b.beyond else Answer.UNCLEAR
    return Answer.NO if b.equivalent else Answer.CANT_TELL
