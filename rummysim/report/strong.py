"""With strong players: whether each verdict holds when the players are good (``strong: true`` conditions).

A question is answered with the lineup its file names (three greedy, say), and a referee
asks whether the answer holds when the players are good. The conditions marked
``strong: true`` play the same rules with a strong lineup (`expert` at every seat, one
`expert` against greedy); their comparisons are tested in a family of their own
(`rummysim.analysis.analyze`), so they never change the question's verdicts. Beside each
verdict, `holds` says for each strong comparison of the same two rule sets:

- **the same**: its answer is the verdict's own, Yes, Yes of unclear size, Yes but small or
  No (and a change goes the same way), which its interval supports, since the answer is
  read from it;
- **can't tell at ±X**: its interval, of half-width X, cannot tell (too few games for the
  change the margin asks about);
- otherwise how it differs: its own answer and change, such as ``No: change -0.1
  [-1.2, +1.0] pp`` against a verdict of Yes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from rummysim.analysis import Analysis, Comparison
from rummysim.analysis.compare import Answer
from rummysim.report.verdicts import Verdict, is_strong, lineup_words, verdict_of, verdicts
from rummysim.report.wording import change_with_unit, significant


def _same_rules(analysis: Analysis, a: Comparison, b: Comparison) -> bool:
    experiment = analysis.experiment
    return all(
        experiment.condition(x).rules == experiment.condition(y).rules
        for x, y in ((a.reference, b.reference), (a.other, b.other))
    )


def checks_of(analysis: Analysis, verdict: Verdict) -> list[Verdict]:
    """Return the strong players' verdicts on the same change of rules and the same measure as `verdict`."""
    found = []
    for comp in analysis.comparisons:
        if is_strong(analysis, comp) and _same_rules(analysis, comp, verdict.comparison):
            check = verdict_of(analysis, comp, verdict.measure.metric)
            if check is not None:
                found.append(check)
    return found


def _agrees(verdict: Verdict, check: Verdict) -> bool:
    """Whether the check's interval supports the verdict: the same answer (and way), never a can't tell."""
    if check.answer is not verdict.answer or check.answer is Answer.CANT_TELL:
        return False
    if verdict.answer in (Answer.YES, Answer.UNCLEAR, Answer.SMALL):
        return (check.change.value > 0) == (verdict.change.value > 0)
    return True


def holds(analysis: Analysis, verdict: Verdict) -> str:
    """Return whether the verdict holds with strong players, in words, or "" with no check of it.

    ``With strong players (1,600 games each): three expert, the same (change -2.7 hands);
    expert against two greedy, can't tell at ±0.98 pp.``
    """
    checks = checks_of(analysis, verdict)
    if not checks:
        return ""
    games = {check.comparison.games for check in checks}
    said = []
    for check in checks:
        lineup = lineup_words(analysis.experiment.condition(check.comparison.other))
        who = lineup if len(games) == 1 else f"{lineup} ({check.comparison.games:,} games)"
        change = check.change
        unit = f" {check.unit}" if check.unit in ("pp", "hands", "turns", "points") else check.unit  # % or none
        numbers = f"change {change_with_unit(change, unit)}" if math.isfinite(change.low) else "no interval"
        if _agrees(verdict, check):
            said.append(f"{who}, the same ({numbers})")
        elif check.answer is Answer.CANT_TELL and math.isfinite(change.low):
            half = significant((change.high - change.low) / 2, up=True)
            said.append(f"{who}, can't tell at ±{half}{unit}")
        else:
            said.append(f"{who}, differs: {check.answer.value} ({numbers})")
    each = (
        f" ({next(iter(games)):,} games each)"
        if len(games) == 1 and len(checks) > 1
        else (f" ({next(iter(games)):,} games)" if len(games) == 1 else "")
    )
    return f" With strong players{each}: {'; '.join(said)}."


def strong_section(analysis: Analysis) -> list[str]:
    """Return the report's section on its checks with strong players: who played, then their own verdicts."""
    found = verdicts(analysis, strong=True)
    if not found:
        return []
    played = sorted({c.name for c in analysis.experiment.conditions if c.strong})
    lineups = dict.fromkeys(lineup_words(analysis.experiment.condition(name)) for name in played)
    intro = (
        f"The same rules played by strong players ({', '.join(lineups)}), each condition on the games its file "
        "names. Their comparisons are tested in a family of their own, so they never change the verdicts above; "
        "beside each verdict above, whether it holds with them. Their own verdicts:"
    )
    return ["## With strong players", intro, *grouped(found)]


def grouped(found: Sequence[Verdict], notes: Sequence[str] = (), reasons: Mapping[str, str] | None = None) -> list[str]:
    """Return verdicts as markdown, grouped by comparison: a bold title, then ``- **Yes**: ...`` items.

    `notes`, one per verdict, follow their sentences (whether it holds with strong players); `reasons`, a group's
    "Why: ..." (`rummysim.report.why`), follow its items.
    """
    notes = list(notes) or [""] * len(found)
    lines, groups = [], dict.fromkeys(v.group for v in found)
    for group in groups:
        items = [(v, note) for v, note in zip(found, notes, strict=True) if v.group == group]
        bullets = "\n".join(f"- **{v.answer.value}**{v.sentence[len(v.answer.value) :]}{note}" for v, note in items)
        title = f"**{group[0].upper()}{group[1:]}**" if len(groups) > 1 else ""
        lines += [title, bullets, (reasons or {}).get(group, "")]
    return [line for line in lines if line]
