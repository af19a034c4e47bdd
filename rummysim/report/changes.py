"""What else changes: the largest changes nobody planned, in the reader's units, under false-discovery control.

Every difference that is not one of the experiment's planned measures has a test of its own
(`rummysim.analysis.compare.fdr`), and the tests of a whole experiment are corrected together
by Benjamini-Hochberg's method at 5%: among the changes listed, at most about 1 in 20 is expected
to be noise, and a run where nothing changes lists none in at least 95% of runs (docs/metrics.md
has the rate measured on null runs). A change is listed only when its test holds after that
correction and its 95% interval excludes zero; the largest, relative to the reference's level,
come first.
"""

from __future__ import annotations

import math

from rummysim.analysis import Analysis, Comparison
from rummysim.analysis.compare import Verdict
from rummysim.report.wording import decimals, signed

LABELS: dict[str, tuple[str, float, str]] = {
    # metric: (in words, scale to the unit shown, the unit)
    "points_per_hand": ("points per hand", 1.0, " points"),
    "turns_per_hand": ("turns per hand", 1.0, " turns"),
    "hands_per_game": ("hands per game", 1.0, " hands"),
    "ended_by_discard": ("hands ended by a discard", 100.0, " pp"),
    "ended_by_meld": ("hands ended by a meld", 100.0, " pp"),
    "ended_by_lay_off": ("hands ended by a lay-off", 100.0, " pp"),
    "ended_by_block": ("hands ended by a block (R12.3)", 100.0, " pp"),
    "ended_by_stalled": ("stalled hands (R10.2)", 100.0, " pp"),
    "rummy_rate": ("hands won by going rummy", 100.0, " pp"),
    "rummy_point_share": ("rummy's share of the points", 100.0, " pp"),
    "lead_changes": ("lead changes per game", 1.0, ""),
    "comeback_rate": ("games won from behind at half-time", 100.0, " pp"),
    "tied_games": ("tied games", 100.0, " pp"),
    "stalled_games": ("games ended unfinished", 100.0, " pp"),
    "first_seat_advantage_hand": ("the first player's edge in a hand", 100.0, " pp"),
    "dealer_advantage_hand": ("the dealer's edge in a hand", 100.0, " pp"),
    "first_seat_advantage_game": ("the first seat's edge over a game", 100.0, " pp"),
    "order": ("the measured strategy's Order", 1.0, ""),
    "strength": ("the measured strategy's log strength", 1.0, ""),
}
SHOWN = 6
"""The most changes listed per comparison; the rest are in the comparisons table."""
INTRO = (
    "Changes the question did not plan, largest first (relative to the reference's level), in each measure's own "
    "unit with its 95% interval. They are *descriptive*: each is tested, and the tests of the whole experiment are "
    "corrected together by Benjamini-Hochberg's method, so at most about 1 in 20 of the changes listed is expected "
    "to be noise; the verdicts above claim none of them."
)


def listed(comp: Comparison) -> list[str]:
    """Return the comparison's descriptive changes that "What else changes" lists: discovered at a 5% FDR."""
    return [m for m in comp.descriptive if m in LABELS and comp.verdict(m) is Verdict.DISCOVERED]


def change_line(analysis: Analysis, comp: Comparison, metric: str) -> str:
    """Return one change in words: ``hands per game −7.26 [−7.29, −7.23] hands (23.86 → 16.60)``."""
    label, scale, unit = LABELS[metric]
    d = comp.differences[metric]
    line = f"{label} {signed(d, scale=scale)}{unit}"
    before = analysis.condition(comp.reference).metrics.get(metric)
    after = analysis.condition(comp.other).metrics.get(metric)
    if before is not None and after is not None and math.isfinite(before.value) and math.isfinite(after.value):
        digits = decimals(d, scale=scale)  # as many as the change shows, so the two levels differ as it says
        line += f" ({before.value * scale:.{digits}f} → {after.value * scale:.{digits}f})"
    return line


def other_changes(analysis: Analysis, titles: dict[int, str]) -> list[str]:
    """Return the "what else changes" lines, one per comparison with any; `titles` names each comparison by index."""
    lines = []
    for i, comp in enumerate(analysis.comparisons):
        found = _ranked(analysis, comp)
        if not found:
            continue
        shown = [f"  - {change_line(analysis, comp, metric)}" for metric in found[:SHOWN]]
        if len(found) > SHOWN:
            shown.append(f"  - and {len(found) - SHOWN} more in the comparisons table")
        lines.append(f"- **{titles[i][0].upper()}{titles[i][1:]}**:\n" + "\n".join(shown))
    return lines


def _ranked(analysis: Analysis, comp: Comparison) -> list[str]:
    """Return the metrics to list, largest change relative to the reference's level first."""
    sizes = []
    for metric in listed(comp):
        d = comp.differences[metric]
        base = analysis.condition(comp.reference).metrics.get(metric)
        level = abs(base.value) if base is not None and math.isfinite(base.value) else float("nan")
        if level == 0:  # from nothing to something (hands ended by a block, R12.3): the largest change there is
            relative = math.inf if d.value else 0.0
        else:
            relative = abs(d.value) / level if math.isfinite(level) else 0.0
        sizes.append((metric, relative))
    return [m for m, _ in sorted(sizes, key=lambda x: -x[1])]
