"""What a bot sees (`PlayerView`) and what it must answer (`Strategy`).

A strategy makes three decisions a turn (R4), each given a frozen `PlayerView` of what
its seat may know: `draw` (which pile), `play` (melds and lay-offs, possibly none) and
`discard` (which card). It may also `observe` public events. The view carries its own
holding, the table with who played which card, the discard pile, counts of the stock and
of the other holdings, the scores and the public history: never another holding nor the
stock order, and nothing through which the game could be changed (every part is an int,
a tuple or a frozen object).

Strategies live below the engine in the layer order, so a bot cannot import the
engine's state: hiding is part of the import graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from rummysim.cards import iter_cards
from rummysim.moves import Event, Pile, Play, Rejected, check_discard, check_draw, plain_plays
from rummysim.rules import Rules
from rummysim.table import Applied, TableMeld, apply_plays


class PlayerView(NamedTuple):
    """Everything one seat may know when it decides; frozen."""

    seat: int
    """This seat, 0-based."""
    n_players: int
    dealer: int
    """The dealer's seat; the seat to its left played first (R3.4)."""
    rules: Rules
    hand: int
    """The hand's number within the game, from 0."""
    turn: int
    """The turn's number within the hand, from 0."""
    holding: int
    """This seat's cards, as a mask."""
    drawn: int | None
    """The card this seat drew this turn, once it has drawn."""
    taken: int | None
    """The card taken from the discard pile this turn, which may not be discarded (R4.5)."""
    table: tuple[TableMeld, ...]
    """Every meld on the table, in the order played; `LayOff.meld` indexes it."""
    discard_pile: tuple[int, ...]
    """The discard pile, bottom first: every card in it was shown face up."""
    stock_size: int
    holding_sizes: tuple[int, ...]
    """How many cards each seat holds."""
    has_melded: tuple[bool, ...]
    """Whether each seat has melded or laid off this hand (going rummy, R8.3)."""
    scores: tuple[int, ...]
    """Each seat's score in the game before this hand (R11)."""
    n_rebuilds: int
    """How many times the stock has been rebuilt this hand (R10)."""
    history: tuple[Event, ...]
    """The public events of this hand so far."""

    @property
    def top_discard(self) -> int | None:
        """Return the card on top of the discard pile, or None if it is empty."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def cards(self) -> list[int]:
        """Return the holding as a list of card ints."""
        return list(iter_cards(self.holding))

    @property
    def table_masks(self) -> list[int]:
        """Return the melds on the table as masks, in table order."""
        return [m.cards for m in self.table]

    def next_seat(self, steps: int = 1) -> int:
        """Return the seat that plays `steps` turns after this one (R3.4)."""
        return (self.seat + steps) % self.n_players

    # -- legality, by the engine's own checks: can_... / explain_... / apply_plays ----------
    def explain_draw(self, pile: object) -> Rejected | None:
        """Return why drawing from `pile` would be rejected, with its rule (R4.1, R4.6), or None if it may.

        With ``take_discard: must_use`` a card taken must also be played this turn (R12.2):
        `explain_plays` says whether a plan does.
        """
        try:
            check_draw(pile, discard_pile_size=len(self.discard_pile))
        except Rejected as rejected:
            return rejected
        return None

    def can_draw(self, pile: object) -> bool:
        """Return whether drawing from `pile` is allowed now (R4.1, R4.6)."""
        return self.explain_draw(pile) is None

    def apply_plays(self, plays: Sequence[Play], *, taken: int | None = None) -> Applied:
        """Return the holding, table and events these plays would leave; raise `Rejected` if they are illegal.

        The engine's own check (`rummysim.table.apply_plays`: R4.2, R4.7, R5, R6, R7.2, R12.1,
        R12.2). Before the draw, pass the card a plan would take as `taken` and a holding
        that includes it is assumed.
        """
        holding = self.holding
        if taken is None:
            taken = self.taken
        elif self.drawn is None:
            holding |= 1 << taken
        return apply_plays(
            plain_plays(plays), seat=self.seat, holding=holding, table=self.table, rules=self.rules, taken=taken
        )

    def explain_plays(self, plays: Sequence[Play], *, taken: int | None = None) -> Rejected | None:
        """Return why these melds and lay-offs would be rejected, with the rule they break, or None if legal."""
        try:
            self.apply_plays(plays, taken=taken)
        except Rejected as rejected:
            return rejected
        return None

    def can_play(self, plays: Sequence[Play], *, taken: int | None = None) -> bool:
        """Return whether these melds and lay-offs, in order, are legal now (see `apply_plays`)."""
        return self.explain_plays(plays, taken=taken) is None

    def explain_discard(self, card: object) -> Rejected | None:
        """Return why discarding `card` would be rejected, with its rule (R4.3, R4.5), or None if it may."""
        try:
            check_discard(card, holding=self.holding, taken=self.taken)
        except Rejected as rejected:
            return rejected
        return None

    def can_discard(self, card: object) -> bool:
        """Return whether `card` may be discarded now (R4.3, R4.5)."""
        return self.explain_discard(card) is None


class Strategy:
    """Base class of a bot: subclass it and answer the three decisions of a turn.

    Give the subclass a `name` and a one-line `description`; parameters are keyword
    arguments of ``__init__`` with defaults, after ``rng``, which the caller passes so
    that games replay exactly. Use only ``self.rng`` for randomness.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    searches: ClassVar[bool] = False
    """True for a bot that judges its moves by playouts (`rummysim.strategies.rollout.rewards`)."""
    compiled_search: ClassVar[bool] = False
    """True for a bot whose search is a compiled kernel of its own (`expert`): a run compiles it before play."""

    def __init__(self, *, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng(0)

    def draw(self, view: PlayerView) -> Pile:
        """Return the pile to draw from (R4.1, R4.6)."""
        raise NotImplementedError

    def play(self, view: PlayerView) -> Sequence[Play]:
        """Return the melds and lay-offs to play, in order; possibly none (R4.2, R5-R7)."""
        raise NotImplementedError

    def discard(self, view: PlayerView) -> int:
        """Return the card to discard (R4.3, R4.5)."""
        raise NotImplementedError

    def observe(self, event: Event) -> None:
        """Take note of a public event; the default ignores it."""

    @property
    def params(self) -> dict[str, Any]:
        """Return the parameters this bot was made with."""
        return {}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({params})"


def observes(strategy: object) -> bool:
    """Return True if a strategy overrides `Strategy.observe` (so events are worth sending)."""
    method = getattr(type(strategy), "observe", None)
    return method is not None and method is not Strategy.observe
