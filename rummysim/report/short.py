"""The answer on one screen: "In short" in a player's terms, then one compact table of the verdicts.

A player asks how often the first player, the dealer and the better player win, and how
long games last, under one rule and under the other. "In short" says that, for the question's
lineup (its first comparison), each level under both rules and the verdict's word where it is
not a plain Yes; changes not shown are named together at the end. Then `answer_table`: a row a
planned measure, the two levels, the change with the interval that decided it, the verdict and
the strong players' verdict (`rummysim.report.strong`), or where the run played none, "not
checked". `verdict_records` holds every verdict with its numbers, for ``verdicts.json``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rummysim.analysis import Analysis, Comparison, ConditionSummary
from rummysim.analysis.compare import Answer
from rummysim.report.strong import checks_of
from rummysim.report.verdicts import Verdict, group_words, lineup_words
from rummysim.report.wording import change_with_unit, percent_text

NOT_SHOWN = (Answer.NO, Answer.CANT_TELL)
WORDS = 60
"""The most words "In short" spends on what was not shown (the table below names it too)."""
QUALIFIER = {Answer.YES: "", Answer.UNCLEAR: "size unclear", Answer.SMALL: "small"}
"""What "In short" says beside a level that changed, where the change is not a plain Yes."""
UNSHOWN = {
    "first_seat_edge": "the first seat's game wins", "first_player_edge_hand": "the first player's share",
    "dealer_edge_hand": "the dealer's share", "game_length": "the length of a game", "hand_length": "a hand's length",
    "points_per_hand": "the points a hand scores", "rummy_rate": "how often rummy wins a hand",
    "rummy_point_share": "rummy's share of the points", "order": "{focal}'s share of games",
    "strength": "{focal}'s share of games",
}  # fmt: skip
"""A measure in few words, for the closing "not shown to change: ..." of "In short"."""
EDGE_OF = {"first_player_edge_hand": "first_seat_advantage_hand", "dealer_edge_hand": "dealer_advantage_hand",
           "first_seat_edge": "first_seat_advantage_game"}  # fmt: skip


def level(v: Verdict, summary: ConditionSummary) -> str:
    """Return a condition's level of a verdict's measure as a player reads it: a share won, a length, a score.

    An edge reads as the share won (``34.0% of hands``), skill as the better player's share of its games.
    """
    name, metric = v.measure.name, v.measure.metric
    if name in ("order", "strength"):
        share = next((s.share for s in summary.strategies if s.strategy == v.comparison.focal), None)
        return f"{100 * share.value:.1f}%" if share is not None and math.isfinite(share.value) else "n/a"
    e = summary.metrics.get(metric)
    if e is None or not math.isfinite(e.value):
        return "n/a"
    if name in EDGE_OF:
        return f"{100 * (e.value + 1 / summary.n_players):.1f}%"
    if v.measure.unit == "pp":
        return f"{100 * e.value:.2f}%" if abs(e.value) < 0.1 else f"{100 * e.value:.1f}%"
    return f"{e.value:.{2 if abs(e.value) < 10 else 1 if abs(e.value) < 100 else 0}f}"  # 7.21, 16.0, 142


def fair(v: Verdict, summary: ConditionSummary) -> str:
    """Return the fair share beside a share won (``fair share 33.3%``), or "" for a measure without one."""
    if v.measure.name in EDGE_OF:
        return f"{100 / summary.n_players:.1f}%"
    if v.measure.name in ("order", "strength"):
        share = next((s for s in summary.strategies if s.strategy == v.comparison.focal), None)
        return f"{100 * share.fair_share:.1f}%" if share is not None and math.isfinite(share.fair_share) else ""
    return ""


def _clause(analysis: Analysis, v: Verdict, *, fair_share: bool, first: Comparison | None = None) -> str:
    """Return one measure's clause of "In short": the level under both rules, in a player's words.

    `fair_share`: say the fair share beside an edge's shares (once, at the last edge of the sentence); `first`:
    the comparison whose lineup the sentence names already (a skill clause of it says no opponents again).
    """
    a, b = analysis.condition(v.comparison.reference), analysis.condition(v.comparison.other)
    was, now = level(v, a), level(v, b)
    focal = f"`{v.comparison.focal}`"
    said = {
        "first_player_edge_hand": f"the first player wins {now} of hands instead of {was}",
        "dealer_edge_hand": f"the dealer {now} instead of {was}",
        "first_seat_edge": f"the first seat wins {now} of games instead of {was}",
        "game_length": f"games last {now} hands instead of {was}",
        "hand_length": f"hands last {now} turns instead of {was}",
        "points_per_hand": f"a hand scores {now} points instead of {was}",
        "rummy_rate": f"going rummy wins {now} of hands instead of {was}",
        "rummy_point_share": f"rummy hands take {now} of the points instead of {was}",
        "order": f"{focal} wins {now} of its games instead of {was}",
        "strength": f"{focal} wins {now} of its games instead of {was}",
    }[v.measure.name]
    if v.measure.name in ("order", "strength") and v.comparison is not first:
        said += f" against {_opponents(analysis, v.comparison)}"
    notes = [QUALIFIER.get(v.answer, "")]
    if v.unit == "%" and math.isfinite(v.change.value):  # a length or a score: how much, as a share
        way = {"points_per_hand": ("more", "fewer")}.get(v.measure.name, ("longer", "shorter"))
        notes.insert(0, f"{percent_text(v.change)[0].lstrip('+-')} {way[v.change.value < 0]}")
    if fair_share and v.measure.name in EDGE_OF:
        notes.append(f"fair share {fair(v, b)}")
    notes = [n for n in notes if n]
    return f"{said} ({'; '.join(notes)})" if notes else said


def _clauses(analysis: Analysis, found: Sequence[Verdict], *, first: Comparison | None = None) -> list[str]:
    """Return the clauses of verdicts in one sentence, the fair share said once, beside its last edge (`_clause`)."""
    last_edge = max((i for i, v in enumerate(found) if v.measure.name in EDGE_OF), default=-1)
    return [_clause(analysis, v, fair_share=i == last_edge, first=first) for i, v in enumerate(found)]


def _opponents(analysis: Analysis, comp: Comparison) -> str:
    """Return who the measured strategy plays against: ``two greedy``."""
    words = lineup_words(analysis.experiment.condition(comp.other))
    return words.split(" against ", 1)[1] if " against " in words else words


def in_short(analysis: Analysis, found: Sequence[Verdict]) -> str:
    """Return "In short": the question's first comparison (and the skill verdicts of the same rules), in a player's
    terms; what was not shown is added while the whole stays within `WORDS`; "" if nothing was planned."""
    if not found:
        return ""
    first = found[0].comparison
    rules = group_words(analysis, first)
    mine = [v for v in found if v.comparison is first or (group_words(analysis, v.comparison) == rules
                                                          and v.measure.name in ("order", "strength"))]  # fmt: skip
    changed = [v for v in mine if v.answer not in NOT_SHOWN]
    shown = _clauses(analysis, changed, first=first)
    small = [v for v in changed if v.answer is Answer.SMALL]
    if len(" ".join(shown).split()) > WORDS - 15 and len(small) > 1:  # too long: the small changes named together
        changed = [v for v in changed if v.answer is not Answer.SMALL]
        shown = _clauses(analysis, changed, first=first)
        shown.append(f"small changes in {_joined([_unshown(v) for v in small])}")
    lineup = lineup_words(analysis.experiment.condition(first.other))
    head = f"**In short**: with {rules[0]} instead of {rules[1]} ({lineup})"
    while len(f"{head} {' '.join(shown)}".split()) > WORDS and any(v.comparison is not first for v in changed):
        drop = max(i for i, v in enumerate(changed) if v.comparison is not first)  # another lineup's: in the table
        changed, shown = changed[:drop] + changed[drop + 1 :], shown[:drop] + shown[drop + 1 :]

    def named(answer: Answer) -> list[str]:
        return [_unshown(v) for v in mine if v.answer is answer]

    text = f"{head}, {_joined(shown)}." if shown else f"{head}, no change is shown."
    rest = []
    if named(Answer.NO):
        rest.append(f"No change worth reporting in {_joined(named(Answer.NO))}.")
    if named(Answer.CANT_TELL):
        rest.append(f"Too few games to tell for {_joined(named(Answer.CANT_TELL))}.")
    others = len({id(v.comparison) for v in found} - {id(first)} - {id(v.comparison) for v in mine})
    if others:
        rest.append(f"{others} more comparison{'s' if others > 1 else ''} in the table.")
    for sentence in rest:  # what was not shown is in the table below: said here while the words allow
        if len(f"{text} {sentence}".replace("*", "").split()) <= WORDS:
            text += f" {sentence}"
    return text


def other_sizes(analysis: Analysis, found: Sequence[Verdict]) -> str:
    """Return what the question's rules change at the other table sizes the run played, or "" if it played one.

    For each other size, its clear changes (Yes, of any size) in the players' shares and the length of a game, as
    "In short" says them. It opens "The table size matters" only where a change at another size is shown to differ
    from the one at the question's size: their intervals, both simultaneous over the run's planned changes, do not
    overlap; otherwise "At other table sizes".
    """
    if not found:
        return ""
    first = found[0].comparison
    rules, size = group_words(analysis, first), analysis.condition(first.other).n_players
    mine = {v.measure.name: v.change for v in found if v.comparison is first}
    others: dict[int, list[Verdict]] = {}
    for v in found:
        n = analysis.condition(v.comparison.other).n_players
        clear = v.answer in (Answer.YES, Answer.UNCLEAR) and v.measure.name in (*EDGE_OF, "game_length")
        if clear and n != size and group_words(analysis, v.comparison) == rules:
            others.setdefault(n, []).append(v)
    if not others:
        return ""

    def apart(v: Verdict) -> bool:
        c = mine.get(v.measure.name)
        return c is not None and (v.change.low > c.high or v.change.high < c.low)

    head = "The table size matters" if any(apart(v) for vs in others.values() for v in vs) else "At other table sizes"
    clauses = []
    for n, vs in sorted(others.items()):
        said = _joined(_clauses(analysis, vs))
        clauses.append(
            f"at {n} players ({lineup_words(analysis.experiment.condition(vs[0].comparison.other))}), {said}"
        )
    return f"**{head}**: {'; '.join(clauses)}."


def _unshown(v: Verdict) -> str:
    """Return a measure in few words (`UNSHOWN`), for a list of measures."""
    return UNSHOWN[v.measure.name].format(focal=f"`{v.comparison.focal}`")


def _joined(items: Sequence[str]) -> str:
    """Return ``a, b and c``; items with commas of their own are joined by semicolons."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    sep = "; " if any("," in item for item in items) else ", "
    return f"{sep.join(items[:-1])}{';' if sep == '; ' else ''} and {items[-1]}"


def strong_cell(analysis: Analysis, v: Verdict) -> str:
    """Return the strong players' verdicts on a measure (``Can't tell (both)``, ``three expert: Yes; expert against
    two greedy: No``), or "not checked", naming what plays them."""
    checks = checks_of(analysis, v)
    if not checks:
        if any(c.strong for c in analysis.experiment.conditions):
            return "not checked for this measure"
        return "not checked (`strong: true` conditions play them)"
    answers = {c.answer.value for c in checks}
    if len(answers) == 1 and len(checks) > 1:
        return f"{answers.pop()} (both)" if len(checks) == 2 else f"{answers.pop()} (all {len(checks)})"
    return "; ".join(
        f"{lineup_words(analysis.experiment.condition(c.comparison.other))}: {c.answer.value}" for c in checks
    )


def answer_table(analysis: Analysis, found: Sequence[Verdict]) -> list[str]:
    """Return the compact table of the verdicts: a row a planned measure, grouped by lineup (named once)."""
    if not found:
        return []
    rules = group_words(analysis, found[0].comparison)
    same = all(group_words(analysis, v.comparison) == rules for v in found)
    was, now = (rules[1], rules[0]) if same else ("reference", "other")
    experiment = analysis.experiment
    played = dict.fromkeys(lineup_words(c) for c in experiment.conditions if c.strong and experiment.games_of(c))
    strong = f" | strong players ({'; '.join(played)})" if played else ""
    lines = [
        f"| lineup | measure | {was} | {now} | change [interval] | verdict{strong} |",
        "| :--- | :--- | ---: | ---: | ---: | :---" + (" | :--- |" if strong else " |"),
    ]
    previous = None
    for v in found:
        a, b = analysis.condition(v.comparison.reference), analysis.condition(v.comparison.other)
        change = change_shown(v)
        lineup = lineup_words(analysis.experiment.condition(v.comparison.other))
        cells = ["" if lineup == previous else lineup, _row_label(v), level(v, a), level(v, b), change,
                 f"**{v.answer.value}**", *([strong_cell(analysis, v)] if strong else [])]  # fmt: skip
        previous = lineup
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return ["\n".join(lines), *([] if strong else [unchecked(analysis)])]


def unchecked(analysis: Analysis) -> str:
    """Say that this run checked no verdict with strong players, and how the file's checks would be played."""
    experiment = analysis.experiment
    left = [c for c in experiment.conditions if c.strong and not experiment.games_of(c)]
    if not left:
        return "Strong players: not checked (the file's `strong: true` conditions play them)."
    lineups = "; ".join(dict.fromkeys(lineup_words(c) for c in left))
    return (f"Strong players: not checked in this run. `rummysim run {experiment.source or 'FILE'} --strong` plays "
            f"the file's checks ({lineups}) into the same folder, minutes more.")  # fmt: skip


def change_shown(v: Verdict) -> str:
    """Return a verdict's change with the interval that decided it and its unit: ``+0.13 [+0.05, +0.21] pp``."""
    if not math.isfinite(v.change.low):
        return "no interval"
    return change_with_unit(v.change, v.unit if v.unit == "%" else f" {v.unit}" if v.unit else "")


ORDER, STRENGTH = "'s Order", "'s log strength"


def _row_label(v: Verdict) -> str:
    """Return a row's measure as its levels read: a share won where the verdict is on an edge or on skill."""
    labels = {
        "first_player_edge_hand": "first player's share of hands",
        "dealer_edge_hand": "dealer's share of hands",
        "first_seat_edge": "first seat's share of games",
        "order": f"{v.label.replace(ORDER, '')}'s share of games (Order)",
        "strength": f"{v.label.replace(STRENGTH, '')}'s share of games (strength)",
    }  # fmt: skip
    return labels.get(v.measure.name, v.label.removeprefix("the "))


def verdict_records(analysis: Analysis, found: Sequence[Verdict]) -> list[dict[str, Any]]:
    """Return every verdict with its numbers, for ``verdicts.json``: what others cite."""
    records = []
    for v in found:
        a, b = analysis.condition(v.comparison.reference), analysis.condition(v.comparison.other)
        test = v.comparison.tests.get(v.measure.metric)
        records.append({
            "reference": v.comparison.reference, "other": v.comparison.other, "comparison": v.group,
            "lineup": lineup_words(analysis.experiment.condition(v.comparison.other)), "measure": v.measure.name,
            "answer": v.answer.value, "sentence": v.sentence.replace("`", ""),
            "change": v.change.value, "low": v.change.low, "high": v.change.high, "unit": v.unit,
            "level": v.level, "margin": v.margin, "reference_level": level(v, a), "other_level": level(v, b),
            "games": v.comparison.games, "paired": v.comparison.paired,
            "test": test.method if test else None, "p": test.p if test else None,
            "p_holm": test.p_holm if test else None,
            "strong": [{"lineup": lineup_words(analysis.experiment.condition(c.comparison.other)),
                        "answer": c.answer.value, "change": c.change.value, "low": c.change.low,
                        "high": c.change.high, "unit": c.unit} for c in checks_of(analysis, v)],
        })  # fmt: skip
    return [_plain(r) for r in records]


def _plain(value: Any) -> Any:
    """Return `value` with every NaN or infinity as None, for strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
