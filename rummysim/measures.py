"""The measures an experiment can ask about: what each one is, its unit, and its default margin.

An experiment file names its question's measures (``measures: [first_player_edge_hand,
game_length, skill]``); each becomes a planned comparison of every pair of conditions the
experiment compares, tested and corrected together by Holm's method, and each can carry a
precision target (``precision:``) and a margin (``margin:``) in its own unit. Every other
metric is descriptive: shown under false-discovery-rate control, never in the verdicts.

=========================  ==========================================================  ======  ======
measure                    what it is (the difference compared: other − reference)     unit    margin
=========================  ==========================================================  ======  ======
first_seat_edge            the seat playing first in a game's first hand: its share   pp      1
                           of games won, less 1/n (R3.4, R11)
first_player_edge_hand     the player on the dealer's left, who plays first (R3.4):   pp      0.5
                           share of decided hands won, less 1/n
dealer_edge_hand           the dealer, who plays last: share of decided hands won,    pp      0.5
                           less 1/n
game_length                hands per game (R11)                                        hands   5%
hand_length                turns per hand, all seats (R4)                              turns   5%
points_per_hand            points scored per hand (R8), stalled hands count 0         points  5%
rummy_rate                 share of decided hands won by going rummy (R8.3)           pp      0.5
rummy_point_share          share of all points scored by rummy hands (R8.3)           pp      1
skill                      the measured strategy's Order at one table size (margin    Order   0.02
                           key ``order``), its log Luce strength across sizes          / log   / 0.05
                           (``strength``)
=========================  ==========================================================  ======  ======

The margins are the smallest change worth reporting: below it a change is "small"; docs/metrics.md
says why each default was chosen. A length or a score (5%) is decided on the log of the ratio of its
two levels, so a game 30% shorter is never "small" however short games are; a file that gives such a
measure a margin in its unit (``game_length: 2 hands``) has it decided on the difference instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """One measure a question can plan: its key in experiment files, the analysis metric it reads, its unit."""

    name: str
    """The key in ``measures:``, ``precision:`` and ``margin:``."""
    metric: str
    """The analysis metric whose difference it compares (`rummysim.analysis`)."""
    unit: str
    """``pp``, ``hands``, ``turns``, ``points``, ``""`` (Order) or ``log`` (log strength)."""
    scale: float
    """From the metric's own scale to the unit: 100 for a share shown in percentage points."""
    margin: float
    """The default margin, in the unit: the smallest change worth reporting."""
    noun: str
    """The measure in a player's words, for a verdict sentence."""
    relative: float = 0.0
    """The default margin as a share of the reference's level (0.05: 5%), for a measure decided on the log ratio
    of its two levels (a length or a score, whose size depends on the table); 0: decided on the difference."""


MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure("first_seat_edge", "first_seat_advantage_game", "pp", 100.0, 1.0,
                "the first seat's edge over a whole game"),
        Measure("first_player_edge_hand", "first_seat_advantage_hand", "pp", 100.0, 0.5,
                "the first player's edge in a hand"),
        Measure("dealer_edge_hand", "dealer_advantage_hand", "pp", 100.0, 0.5, "the dealer's edge in a hand"),
        Measure("game_length", "hands_per_game", "hands", 1.0, 1.0, "the length of a game", 0.05),
        Measure("hand_length", "turns_per_hand", "turns", 1.0, 1.0, "the length of a hand", 0.05),
        Measure("points_per_hand", "points_per_hand", "points", 1.0, 1.0, "the points a hand scores", 0.05),
        Measure("rummy_rate", "rummy_rate", "pp", 100.0, 0.5, "how often a hand is won by going rummy"),
        Measure("rummy_point_share", "rummy_point_share", "pp", 100.0, 1.0, "rummy's share of the points"),
        Measure("order", "order", "", 1.0, 0.02, "how much more than its share the better player wins"),
        Measure("strength", "strength", "log", 1.0, 0.05, "the better player's strength"),
    )
}  # fmt: skip
"""Every measure with a margin and a precision target; ``skill`` in ``measures:`` plans ``order`` or ``strength``."""

SKILL = ("order", "strength")
"""The skill measures: Order at one table size and seat count, else log strength (`rummysim.analysis.skill`)."""
PLANNABLE = (*(name for name in MEASURES if name not in SKILL), "skill")
"""What ``measures:`` may list."""
DEFAULT_MEASURES = ("first_seat_edge", "skill")
"""The planned measures of a file without ``measures:``: the first seat's game-level edge and skill, as before
the key existed, so older files and manifests give the same analysis."""
UNIT_WORDS = {"pp": ("pp",), "hands": ("hand", "hands"), "turns": ("turn", "turns"), "points": ("point", "points"),
              "": (), "log": ()}  # fmt: skip
"""The words a margin or precision may carry after its number, by unit (``0.5 pp``, ``1 hand``)."""
UNIT_RANGE = {"pp": 100.0, "hands": 1000.0, "turns": 1000.0, "points": 1000.0, "": 2.0, "log": 5.0}
"""The largest margin or precision of each unit: a whole share (100 pp), Order's whole range (-1 to 1), a log
strength ratio of 5 (a factor of 148), and generous bounds on counts."""


def by_metric(metric: str) -> Measure | None:
    """Return the measure that compares an analysis metric, or None if no measure does.

    >>> by_metric("hands_per_game").name
    'game_length'
    """
    return next((m for m in MEASURES.values() if m.metric == metric), None)


def planned_metrics(measures: tuple[str, ...]) -> set[str]:
    """Return the analysis metrics a list of measures plans (``skill`` plans both skill metrics).

    >>> sorted(planned_metrics(("game_length", "skill")))
    ['hands_per_game', 'order', 'strength']
    """
    names = [n for m in measures for n in (SKILL if m == "skill" else (m,))]
    return {MEASURES[n].metric for n in names}
