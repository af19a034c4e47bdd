"""The rule settings of one table: a frozen, validated `Rules` and its named presets.

Every variant in the rulebook's variants table (docs/rulebook.md) is a field here, with the names experiment files use.
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
from rummysim.compat import StrEnum
from rummysim.errors import ConfigError, nearest, whole_number
from rummysim.excerpt import excerpt


class Ace(StrEnum):
    """Where the ace may stand in a sequence (R5.3, R9.1)."""

    LOW = "low"
    HIGH_OR_LOW = "high_or_low"


class GoingOut(StrEnum):
    """How the last card may leave the holding (R7.1, R7.2)."""

    ANY = "any"
    DISCARD = "discard"


class LayOffWhen(StrEnum):
    """When a player may lay off (R6.1; house rule R12.1)."""

    ANY = "any"
    AFTER_MELD = "after_meld"


class TakeDiscard(StrEnum):
    """What taking the top discard commits a player to (R4.1; house rule R12.2)."""

    FREE = "free"
    MUST_USE = "must_use"


class StockOut(StrEnum):
    """What an empty stock does (R10.1; house rule R12.3)."""

    REBUILD = "rebuild"
    BLOCK = "block"


def default_dealt(n_players: int) -> int:
    """Return the cards dealt to each player for a player count (R3.2)."""
    return 10 if n_players == 2 else 7 if n_players <= 4 else 6


def _enum(name: str, value: Any, enum: type[Enum], rule: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        valid = ", ".join(e.value for e in enum)
        raise ConfigError(f"{name}: {excerpt(value)} is not one of {valid} ({rule})", key=name) from None


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every setting of the rulebook (docs/rulebook.md), validated on construction (raises `ConfigError`)."""

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
    lay_off: LayOffWhen = LayOffWhen.ANY
    """``any``: lay off at any turn (R6.1); ``after_meld``: only once you have melded this hand (R12.1)."""
    take_discard: TakeDiscard = TakeDiscard.FREE
    """``free``: take the top discard at will (R4.1); ``must_use``: only to play it this turn (R12.2)."""
    stock_out: StockOut = StockOut.REBUILD
    """``rebuild``: an empty stock is rebuilt from the discards (R10.1); ``block``: the hand ends (R12.3)."""

    def __post_init__(self) -> None:
        for name in FIELDS:
            object.__setattr__(self, name, check_setting(name, getattr(self, name)))
        if self.target_score is None and self.max_hands is None:
            raise ConfigError(
                "target_score, max_hands: both are null, so the game could never end; "
                "set a target score, a number of hands or both (R11)",
                key="target_score",
            )
        needed = self.n_players * self.n_dealt + 1
        if needed > N_CARDS:
            raise ConfigError(
                f"cards_dealt: {self.n_players} players x {self.n_dealt} cards need "
                f"{needed - 1} cards and a card for the discard pile, more than the "
                f"52-card deck holds (R1.2, R3.2, R3.3)",
                key="cards_dealt",
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
        for key in changes:
            if key not in FIELDS:
                close = nearest(key, FIELDS)
                hint = f"did you mean {close!r}?" if close else f"settings are {', '.join(FIELDS)}"
                raise ConfigError(f"{key}: not a rule setting; {hint}")
        return dataclasses.replace(self, **changes)

    def __copy__(self) -> Rules:
        """Return an equal copy that shares no attribute dict (the engine hands each seat its own)."""
        new = object.__new__(Rules)
        new.__dict__.update(self.__dict__)
        return new

    def to_dict(self, *, resolved: bool = True) -> dict[str, Any]:
        """Return the settings as plain values; `resolved` fills in the defaults that follow others.

        A house rule (R12) is listed only when it is on: basic rummy's settings read as they
        did before the house rules existed, so its manifests and fingerprints are unchanged.
        """
        data = {f: getattr(self, f) for f in FIELDS if f not in HOUSE_RULES or getattr(self, f) != DEFAULTS[f]}
        for name in CHOICES:
            if name in data:
                data[name] = data[name].value
        if resolved:
            data["cards_dealt"] = self.n_dealt
            data["ace_points"] = self.ace_value
        return data

    def changes(self) -> dict[str, Any]:
        """Return the resolved settings that differ from basic rules at the same table size.

        >>> Rules(n_players=3, ace="high_or_low").changes()
        {'ace': 'high_or_low', 'ace_points': 15}
        """
        basic = Rules(n_players=self.n_players).to_dict()
        return {k: v for k, v in self.to_dict().items() if basic.get(k) != v}


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))
DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(Rules)}
"""Each setting's default: basic rummy (R1-R11) with every house rule off."""

HOUSE_RULES: dict[str, str] = {"lay_off": "R12.1", "take_discard": "R12.2", "stock_out": "R12.3"}
"""The house rules (R12): settings whose default plays the source's rule, and their rule numbers."""

CHOICES: dict[str, tuple[type[StrEnum], str]] = {
    "ace": (Ace, "R5.3, R9.1"),
    "going_out": (GoingOut, "R7"),
    "lay_off": (LayOffWhen, "R6.1, R12.1"),
    "take_discard": (TakeDiscard, "R4.1, R12.2"),
    "stock_out": (StockOut, "R10.1, R12.3"),
}
"""The settings that take one of a few words: name -> (its choices, its rules)."""

MAX_PLAYERS = 6
"""The most players at a table (R1.1)."""

NUMBERS: dict[str, tuple[int, int | None, bool, str]] = {
    "n_players": (2, MAX_PLAYERS, False, "R1.1"),
    "cards_dealt": (1, None, True, "R3.2"),  # the deck bounds it (`Rules.__post_init__`)
    "ace_points": (0, 1000, True, "R8.2, R9.2"),
    "rummy_multiplier": (1, 1000, False, "R8.3"),
    "target_score": (1, 10**9, True, "R11.1"),
    "max_hands": (1, 10**6, True, "R11.2"),
    "stall_after_rebuilds": (0, 10**6, False, "R10.2"),
    "stall_after_turns": (1, 10**6, False, "R10.2"),
    "stall_after_hands": (1, 10**6, False, "R10.2, R11"),
}
"""The whole-number settings: name -> (smallest, largest or None, may be null, rule).

The largest values keep every score within the compiled engine's 64-bit integers with room
to spare: a hand is worth at most (4 aces x 1,000 + 480) x 1,000 points, a game ends
within one hand of 10**9 points or after 10**6 hands, so no score passes about 5 x 10**12
(docs/experiments.md)."""


def check_setting(name: str, value: Any) -> Any:
    """Return a rule setting's value, normalised, if it is valid on its own; else raise `ConfigError`.

    Checks one setting's type and range, from the tables `CHOICES` and `NUMBERS`; `Rules`
    also checks the settings together.
    """
    if name in CHOICES:
        enum, rule = CHOICES[name]
        return _enum(name, value, enum, rule)
    if name not in NUMBERS:
        raise ConfigError(f"{name}: not a rule setting; settings are {', '.join(FIELDS)}", key=name)
    low, high, optional, rule = NUMBERS[name]
    try:
        whole_number(value, name=name, low=low, rule=rule, optional=optional)
    except ConfigError as error:
        error.key = name
        raise
    if high is None or value is None or value <= high:
        return value
    if name == "n_players":
        raise ConfigError(f"{name}: {value} players given, rummy takes {low} to {high} ({rule})", key=name)
    raise ConfigError(f"{name}: {excerpt(value)} is above the largest valid value, {high} ({rule})", key=name)


PRESETS: dict[str, Rules] = {
    "basic": Rules(),
    "ace_high": Rules(ace=Ace.HIGH_OR_LOW),
    "discard_to_go_out": Rules(going_out=GoingOut.DISCARD),
    "no_rummy_bonus": Rules(rummy_multiplier=1),
}
"""The named rule sets of the rulebook's variants table."""
