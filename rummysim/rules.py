"""The rule settings of one table: a frozen, validated `Rules` and its named presets.

Every variant in RULES.md's table is a field here, with the names experiment files use.
Two fields default by another: ``cards_dealt`` follows the player count (R3.2) and
``ace_points`` follows ``ace`` (R9.2); leave them ``None`` for that default and read
the resolved values from `Rules.n_dealt` and `Rules.ace_value`.

>>> Rules(n_players=3).n_dealt
7
>>> Rules.preset("ace_high").ace_value
15
>>> Rules(n_players=4, cards_dealt=13)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rummysim.errors.ConfigError: cards_dealt: 4 players x 13 cards need 52 cards and ... (R1.2, R3.2, R3.3)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any

from rummysim.cards import N_CARDS
from rummysim.errors import ConfigError


class Ace(str, Enum):
    """Where the ace may stand in a sequence (R5.3, R9.1)."""

    LOW = "low"
    HIGH_OR_LOW = "high_or_low"

    def __str__(self) -> str:
        return self.value


class GoingOut(str, Enum):
    """How the last card may leave the holding (R7.1, R7.2)."""

    ANY = "any"
    DISCARD = "discard"

    def __str__(self) -> str:
        return self.value


def default_dealt(n_players: int) -> int:
    """Return the cards dealt to each player for a player count (R3.2)."""
    return 10 if n_players == 2 else 7 if n_players <= 4 else 6


def _check_int(name: str, value: Any, *, low: int, rule: str, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "a whole number or null" if optional else "a whole number"
        raise ConfigError(f"{name}: {value!r} is not {kind} ({rule})")
    if value < low:
        raise ConfigError(f"{name}: {value} is below the smallest valid value, {low} ({rule})")


def _enum(name: str, value: Any, enum: type[Enum], rule: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        valid = ", ".join(e.value for e in enum)
        raise ConfigError(f"{name}: {value!r} is not one of {valid} ({rule})") from None


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every setting of RULES.md, validated on construction (raises `ConfigError`)."""

    n_players: int = 2
    """Players at the table, 2 to 6 (R1.1); experiment files take it from the lineup."""
    cards_dealt: int | None = None
    """Cards dealt to each player; ``None`` follows the R3.2 table (10, 7 or 6)."""
    ace: Ace = Ace.LOW
    """``low``: A-2-3 only (R5.3); ``high_or_low``: Q-K-A too, never K-A-2 (R9.1)."""
    ace_points: int | None = None
    """What an ace scores; ``None`` is 1 with ``ace: low`` and 15 with ``high_or_low`` (R8.2, R9.2)."""
    going_out: GoingOut = GoingOut.ANY
    """``any``: out by meld, lay-off or discard (R7.1); ``discard``: last card discarded (R7.2)."""
    rummy_multiplier: int = 2
    """Points are multiplied by this when the winner goes rummy; 1 switches it off (R8.3)."""
    target_score: int | None = 150
    """The game ends when a score reaches this (R11.1); ``None`` for no target."""
    max_hands: int | None = None
    """The game ends after this many hands (R11.2); ``None`` for no limit."""
    stall_after_rebuilds: int = 3
    """The hand is stalled when the stock would be rebuilt a further time (R10.2)."""
    stall_after_turns: int = 1000
    """The hand is stalled after this many turns in all (R10.2): a cap on endless play."""
    stall_after_hands: int = 50
    """The game ends unfinished after this many stalled hands in a row (R10.2, R11)."""

    def __post_init__(self) -> None:
        _check_int("n_players", self.n_players, low=2, rule="R1.1")
        if self.n_players > 6:
            raise ConfigError(f"n_players: {self.n_players} players given, rummy takes 2 to 6 (R1.1)")
        _check_int("cards_dealt", self.cards_dealt, low=1, rule="R3.2", optional=True)
        object.__setattr__(self, "ace", _enum("ace", self.ace, Ace, "R5.3, R9.1"))
        object.__setattr__(self, "going_out", _enum("going_out", self.going_out, GoingOut, "R7"))
        _check_int("ace_points", self.ace_points, low=0, rule="R8.2, R9.2", optional=True)
        _check_int("rummy_multiplier", self.rummy_multiplier, low=1, rule="R8.3")
        _check_int("target_score", self.target_score, low=1, rule="R11.1", optional=True)
        _check_int("max_hands", self.max_hands, low=1, rule="R11.2", optional=True)
        _check_int("stall_after_rebuilds", self.stall_after_rebuilds, low=0, rule="R10.2")
        _check_int("stall_after_turns", self.stall_after_turns, low=1, rule="R10.2")
        _check_int("stall_after_hands", self.stall_after_hands, low=1, rule="R10.2, R11")
        if self.target_score is None and self.max_hands is None:
            raise ConfigError(
                "target_score, max_hands: both are null, so the game could never end; "
                "set a target score, a number of hands or both (R11)"
            )
        needed = self.n_players * self.n_dealt + 1
        if needed > N_CARDS:
            raise ConfigError(
                f"cards_dealt: {self.n_players} players x {self.n_dealt} cards need "
                f"{needed - 1} cards and a card for the discard pile, more than the "
                f"52-card deck holds (R1.2, R3.2, R3.3)"
            )

    @cached_property
    def n_dealt(self) -> int:
        """Return the cards dealt to each player: `cards_dealt` or the R3.2 default."""
        return default_dealt(self.n_players) if self.cards_dealt is None else self.cards_dealt

    @cached_property
    def ace_value(self) -> int:
        """Return the points of an ace: `ace_points` or the R8.2/R9.2 default."""
        if self.ace_points is not None:
            return self.ace_points
        return 15 if self.ace is Ace.HIGH_OR_LOW else 1

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """Return a named preset (`PRESETS`), with any fields overridden."""
        try:
            base = PRESETS[name]
        except KeyError:
            valid = ", ".join(PRESETS)
            raise ConfigError(f"rules preset {name!r} is unknown; presets are {valid}") from None
        return base.replace(**overrides)

    def replace(self, **changes: Any) -> Rules:
        """Return a copy with some fields changed, validated again."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise ConfigError(f"rules: {sorted(unknown)[0]!r} is not a rule setting; settings are {', '.join(FIELDS)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self, *, resolved: bool = True) -> dict[str, Any]:
        """Return the settings as plain values; `resolved` fills in the defaults that follow others."""
        data = {f: getattr(self, f) for f in FIELDS}
        data["ace"] = self.ace.value
        data["going_out"] = self.going_out.value
        if resolved:
            data["cards_dealt"] = self.n_dealt
            data["ace_points"] = self.ace_value
        return data


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))

PRESETS: dict[str, Rules] = {
    "basic": Rules(),
    "ace_high": Rules(ace=Ace.HIGH_OR_LOW),
    "discard_to_go_out": Rules(going_out=GoingOut.DISCARD),
    "no_rummy_bonus": Rules(rummy_multiplier=1),
}
"""The named rule sets of RULES.md's variant table."""
