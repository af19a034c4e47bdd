"""The report's glossary: every term a reader meets, in a line or two (docs/metrics.md has the formulas)."""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "Yes / Yes, of unclear size / Yes, but small / No / Can't tell": (
        "a verdict, read from the change's simultaneous interval (the one printed beside it) and the margin. *Yes*: "
        "a change at least as large as the margin, the whole interval beyond it. *Yes, of unclear size*: a real "
        "change, which may or may not reach the margin. *Yes, but small*: a real change, the whole interval inside "
        "the margin. *No*: no change shown and the whole interval inside the margin, so any change is smaller than "
        "the number given. *Can't tell*: no change shown, and a change as large as the number given is still "
        "possible."
    ),
    "simultaneous interval": (
        "the interval beside a verdict: widened so that the intervals of all m planned changes of a run hold their "
        "true values together in 95 of 100 runs (each at 1 − 5%/m, Bonferroni). So the chance that any verdict of "
        "the run is wrong, a 'Yes', a 'No' or a 'Yes, but small', is at most 5%."
    ),
    "pp (percentage points)": (
        "the difference between two percentages: from 33.3% to 33.8% is +0.5 pp. An *edge* is a win share less the "
        "fair share 1/n of n players, in pp."
    ),
    "first player, dealer, first seat": (
        "the player on the dealer's left plays first in a hand and the dealer plays last (R3.4); the deal passes "
        "left after every hand, so over a whole game the seat that played first in its first hand (the *first "
        "seat*) plays first in every n-th hand."
    ),
    "95% interval": (
        "the range of changes the games are consistent with: in 95 of 100 runs it holds the true value. Intervals "
        "over games resample whole games (a game's hands share their luck)."
    ),
    "paired": (
        "two conditions played on the same deals, game by game, so their difference is measured on identical luck "
        "and needs far fewer games than two separate runs."
    ),
    "margin": (
        "the smallest change worth reporting, per measure (the experiment's `margin:`); a change inside it is "
        "'small', and an interval inside it rules out any larger change (an equivalence test, TOST). A game's or a "
        "hand's length and the points a hand scores have a margin of 5% of the reference's level, decided on the "
        "ratio of the two levels, unless the file gives one in hands, turns or points."
    ),
    "Holm's correction": (
        "the planned comparisons' exact tests, corrected together so that the chance of any false change among "
        "them stays at 5% (Holm 1979): supporting p-values beside the verdicts, which are read from the "
        "simultaneous intervals."
    ),
    "false discovery rate (Benjamini-Hochberg)": (
        "the descriptive changes are tested together so that at most about 1 in 20 of those listed is noise "
        "(Benjamini and Hochberg 1995)."
    ),
    "Order": (
        "how much more than its fair share a strategy wins: (w − k/n) / (1 − k/n) for a strategy holding k of n "
        "seats whose seats win a share w of games; 0 at its fair share, 1 when it wins every game. A rule that lets "
        "skill show raises the better player's Order."
    ),
    "Luce strength": (
        "a strategy's strength θ = odds(w) / odds(k/n), the odds of winning over the odds of its seat share: 1 is a "
        "fair share, and a constant θ at every table size (Luce 1959; Bradley-Terry for two players); compared as "
        "log θ across table sizes, where Order falls on its own."
    ),
    "Balance": "1 − the largest gap between two seats' win shares: 1 when every seat wins equally often.",
    "detectable change": (
        "the smallest change this run would find 80% of the time after Holm's correction: how sharp the run was."
    ),
    "going rummy, stalled": (
        "going rummy is playing every card in one turn having melded nothing before (R8.3), which doubles the "
        "points by default; a stalled hand ends with no winner after too many stock rebuilds (R10.2)."
    ),
}


def glossary_lines() -> list[str]:
    """Return the glossary as markdown: one definition list item per term."""
    return [f"- **{term}**: {text}" for term, text in GLOSSARY.items()]
