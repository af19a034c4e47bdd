"""The atlas's findings: sentences a player can quote, each no more than the corrected test behind it says.

Each kind of sentence rests on one family of `rummysim.analysis.atlas` (its share of the
report's 5%):

- a rule's change of a measure at every table size, and the largest change one rule makes
  (picked from all the single-rule changes, and said to be picked): the cells' simultaneous
  intervals and their answers (`rummysim.analysis.comparison.Answer`);
- a rule that never binds: every pair of cells that differ in it alone played the same hands;
- the fairest tables: rule sets shown fairer than basic rummy to every seat (`fairer`), or a
  sentence that none is;
- rules that do not add up: the interactions that survive Benjamini-Yekutieli, ranked by z
  within each measure, or a sentence that none is shown.

Every function here reads frames (`rummysim.report.atlas.atlas_cells` and its `rule_changes`,
`fairness_table`, `interactions`), so the null atlases of tests/test_atlas_null.py go through
the same code as a real run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from rummysim.analysis.comparison import Answer
from rummysim.analysis.estimates import Estimate
from rummysim.report.explorer_text import level_text
from rummysim.report.wording import interval, rounded

SHOWN = (Answer.YES.value, Answer.UNCLEAR.value, Answer.SMALL.value)
"""The answers whose interval excludes zero: the change's sign is shown."""
FINDINGS_ORDER = ("game_length", "order", "first_player_edge_hand", "dealer_edge_hand")
"""The order of the findings: what changes most for a player first."""


def _sizes(changes: pd.DataFrame) -> str:
    return f"{changes['players'].min()} to {changes['players'].max()} players"


def rule_finding(rule: str, changes: pd.DataFrame, *, noun: str, amount: Mapping[str, str]) -> str | None:
    """Return one sentence on a rule's change of one measure across table sizes, or None if it says nothing firm.

    Firm: at every size the change's sign is shown, the same way (it moves the measure, by how
    much), or at every size the answer is "No" (it changes it by less than the margin).
    `amount`: ``margin`` (the margin in words: ``0.5 pp``, ``5%``), ``unit`` (`` pp``, ``%``, ``""``),
    ``scale`` (100 for pp and %, 1 else) and ``digits``.
    """
    if changes.empty or changes["answer"].isna().any() or (changes["answer"] == "").any():
        return None
    sizes, k, d, unit = _sizes(changes), float(amount["scale"]), int(amount["digits"]), amount["unit"]
    shown = changes["answer"].isin(SHOWN).all()
    if shown and ((changes["change"] > 0).all() or (changes["change"] < 0).all()):
        up = bool((changes["change"] > 0).all())
        size = changes["shown_change"].abs() * k
        if amount["unit"] == "%":
            way = "longer" if up else "shorter"
            return (f"With {rule}, games are {_span(size, d)}% {way} at every table size from {sizes} "
                    f"(each interval clear of zero).")  # fmt: skip
        way = "rises" if up else "falls"
        return f"With {rule}, {noun} {way} at every table size from {sizes}, by {_span(size, d)}{unit}."
    if (changes["answer"] == Answer.NO.value).all():
        return f"With {rule}, {noun} changes by less than {amount['margin']} at every table size from {sizes}."
    return None


def _span(sizes: pd.Series, digits: int) -> str:
    """Return ``2.3 to 10.6`` (the least and the largest, at `digits`), or one number when they print alike."""
    least, most = f"{sizes.min():.{digits}f}", f"{sizes.max():.{digits}f}"
    return least if least == most else f"{least} to {most}"


def largest(changes: pd.DataFrame, *, noun: str, amount: Mapping[str, str], level: float) -> str | None:
    """Return where one rule moves a measure most, among the single-rule changes shown at least the margin.

    Picked from every single-rule change at every size, it is tested as picked: its interval is
    simultaneous with all the others (at `level`), so it covers the picked change too.
    """
    firm = changes[changes["answer"] == Answer.YES.value]
    if firm.empty:
        return None
    row = firm.loc[firm["shown_change"].abs().idxmax()]
    k, d, unit = float(amount["scale"]), int(amount["digits"]), amount["unit"]
    base = "" if unit == "%" else f", from {rounded(row['base'] * k, least=d)[0]}{unit} under basic rummy"
    value, low, high = rounded(row["shown_change"] * k, row["shown_low"] * k, row["shown_high"] * k, least=d, sign="+")
    return (f"The largest change one rule makes to {noun}, picked from all {len(changes)} single-rule changes: "
            f"{row['rule']} at {int(row['players'])} players, {value}{unit} {interval(low, high)}{base} (an "
            f"interval at {level_text(level)} with every change of the atlas at once, so it holds for the one "
            "picked).")  # fmt: skip


def never_bind_sentences(rules: Iterable[str]) -> list[str]:
    """Return the sentence for each rule that never binds (`rummysim.analysis.atlas.never_binds`)."""
    return [f"With {rule}, the bots play exactly the same hands, row for row, in every cell that differs in it "
            "alone: the rule never binds them." for rule in rules]  # fmt: skip


def fairness_sentences(
    table: pd.DataFrame, words: Mapping[str, str], alike: Sequence[Sequence[str]], *, alpha: float
) -> list[str]:  # fmt: skip
    """Return, per table size, the rule sets shown fairer than basic rummy to every seat, or that none is.

    `table`: `rummysim.analysis.atlas.fairness_table` (its ``shown`` survives Holm); `words`:
    each condition's rule set in words; `alike`: groups of conditions that play identically,
    said once.
    """
    out = []
    same = {name: group for group in alike for name in group}
    for players, rows in table.groupby("players"):
        n, tested = int(str(players)), int(rows["p"].notna().sum())
        base = rows["basic"].dropna()
        unfair = f"{_spread(float(base.iloc[0]), n)} pp" if len(base) else "unknown"
        found = rows[rows["shown"].astype(bool)]
        head = (f"At {n} players, basic rummy's seats win shares of the hands that differ from the fair share "
                f"({100 / n:.3g}%) by {unfair} on average (root mean square)")  # fmt: skip
        if found.empty:
            out.append(f"{head}; no rule set is shown fairer to every seat ({tested} tested, one-sided, Holm).")
            continue
        said, seen = [], set()
        for row in found.sort_values("change").itertuples():
            if row.condition in seen:
                continue
            group = [g for g in same.get(str(row.condition), [str(row.condition)]) if g in set(rows["condition"])]
            seen.update(group)
            names = " = ".join(words.get(g, g) for g in group)
            said.append(f"{names} ({_spread(float(row.unfairness), n)} pp)")
        out.append(f"{head}; fairer to every seat ({tested} tested, one-sided, Holm at {alpha * 100:g}% over the "
                   f"sizes): {'; '.join(said)}.")  # fmt: skip
    return out


def _spread(unfairness: float, n: int) -> str:
    """Return the root mean square of the seats' distances from the fair share, in pp: √(max(U, 0) / n) × 100."""
    return f"{math.sqrt(max(unfairness, 0.0) / n) * 100:.2f}"


def interaction_lines(
    found: pd.DataFrame, labels: Mapping[str, tuple[str, float, int]], players: Mapping[str, int],
    words: Callable[[str], str], *, shown: int = 5,
) -> list[str]:  # fmt: skip
    """Return the interactions that survive Benjamini-Yekutieli (`interactions`), the `shown` largest |z| a measure.

    `labels`: metric -> (its label, scale, digits); `players`: arm -> its table size; `words`:
    a term (``ace=high_or_low × stock_out=block``) as a player says it.
    """
    lines = []
    for measure, rows in found[found["shown"].astype(bool)].groupby("measure", sort=False):
        label, k, d = labels[str(measure)]
        for r in rows.head(shown).itertuples():
            e = Estimate(r.estimate * k, r.low * k, r.high * k, 0)
            lines.append(f"- {label}, {players.get(str(r.arm), '?')} players: {words(str(r.term))}: "
                         f"{_interval(e, d)} (z = {r.z:+.1f})")  # fmt: skip
        if len(rows) > shown:
            lines.append(f"- {label}: {len(rows) - shown} more survive (`summary_effects.csv`).")
    return lines


def _interval(e: Estimate, digits: int) -> str:
    """Return ``+1.50 [+1.43, +1.57]``, each number printed once as every table prints it (`wording.rounded`)."""
    value, low, high = rounded(e.value, e.low, e.high, least=digits, sign="+")
    return f"{value} {interval(low, high)}"


def firm_changes(changes: pd.DataFrame) -> np.ndarray:
    """Return which single-rule changes have their sign shown (the heat maps' mark): their answers, not 95%."""
    return changes["answer"].isin(SHOWN).to_numpy()
