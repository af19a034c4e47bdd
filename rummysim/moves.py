"""Moves a player makes, the public events that record them, and the pure rules of a turn.

A turn (R4) is a draw from a `Pile`, any number of `Meld` and `LayOff` plays, and a
discard. The engine validates a strategy's answers with `check_draw`, `apply_plays` and
`check_discard`; bots may call the same functions to test a plan before answering.
Every performed move is logged as a frozen event, which is also what observers see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rummysim.cards import FULL_DECK, CardsLike, card_code, parse_card, parse_cards, to_text
from rummysim.compat import StrEnum
from rummysim.melds import can_lay_off, is_meld, meld_text
from rummysim.rules import GoingOut, Rules


class Pile(StrEnum):
    """Where a card is drawn from (R4.1)."""

    STOCK = "stock"
    DISCARD = "discard"


class WentOutBy(StrEnum):
    """How the winner's last card left the holding (R7.1)."""

    DISCARD = "discard"
    MELD = "meld"
    LAY_OFF = "lay_off"


@dataclass(frozen=True, slots=True)
class Meld:
    """Play three or more cards from the holding as a new meld (R5)."""

    cards: int
    """The cards, as a mask."""

    @classmethod
    def of(cls, cards: CardsLike) -> Meld:
        """Return the move for cards given as codes: ``Meld.of("7H 8H 9H")``."""
        return cls(parse_cards(cards))

    def __str__(self) -> str:
        if not isinstance(self.cards, int) or self.cards <= 0 or self.cards & ~FULL_DECK:
            return f"meld {self.cards!r}"
        return f"meld {meld_text(self.cards) if is_meld(self.cards) else to_text(self.cards)}"


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card from the holding to a meld on the table (R6)."""

    card: int
    """The card."""
    meld: int
    """The meld's index in `PlayerView.table`; melds played earlier in the same turn follow on."""

    @classmethod
    def of(cls, card: str | int, meld: int) -> LayOff:
        """Return the move for a card given as a code: ``LayOff.of("6C", 0)``."""
        return cls(parse_card(card), meld)

    def __str__(self) -> str:
        return f"lay off {_code(self.card)} on meld {self.meld}"


Play = Meld | LayOff


def _code(card: object) -> str:
    return card_code(card) if type(card) is int and 0 <= card < 52 else repr(card)


# -- events: the public record of every move, in the order played ---------------------


class HandStarted(NamedTuple):
    """A hand was dealt (R3): who dealt and the card turned up to start the discard pile."""

    hand: int
    dealer: int
    upcard: int


class Drew(NamedTuple):
    """A seat drew (R4.1); `card` is shown only when it came from the discard pile."""

    seat: int
    pile: Pile
    card: int | None


class Melded(NamedTuple):
    """A seat played a new meld (R5.4); `meld` is its index on the table."""

    seat: int
    cards: int
    meld: int


class LaidOff(NamedTuple):
    """A seat laid a card off on the meld at index `meld` (R6)."""

    seat: int
    card: int
    meld: int


class Discarded(NamedTuple):
    """A seat discarded a card face up (R4.3)."""

    seat: int
    card: int


class StockRebuilt(NamedTuple):
    """The discard pile but its top card was shuffled into a new stock (R10.1)."""

    n_cards: int


class HandEnded(NamedTuple):
    """The hand is over: scored (R8) or stalled (R10.2). Holdings are shown for scoring."""

    winner: int | None
    points: int
    went_out_by: WentOutBy | None
    went_rummy: bool
    stalled: bool
    holdings: tuple[int, ...]


Event = HandStarted | Drew | Melded | LaidOff | Discarded | StockRebuilt | HandEnded


# -- the rules of a turn, as pure functions --------------------------------------------


class Rejected(Exception):
    """A move breaks a rule; the engine adds the seat, strategy and seed."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{reason} ({rule})")
        self.rule = rule
        self.reason = reason


def check_draw(pile: object, *, discard_pile_size: int) -> Pile:
    """Return the pile if it may be drawn from, else raise `Rejected` (R4.1, R4.6)."""
    if pile is Pile.STOCK:
        return pile
    if not isinstance(pile, Pile):
        try:
            pile = Pile(pile)
        except ValueError:
            raise Rejected("R4.1", f"draw {pile!r} is not a pile; answer Pile.STOCK or Pile.DISCARD") from None
    if pile is Pile.DISCARD and not discard_pile_size:
        raise Rejected("R4.6", "draw discard: the discard pile is empty, so the card must come from the stock")
    return pile


def apply_plays(
    plays: Iterable[object],
    *,
    holding: int,
    table: Sequence[int],
    rules: Rules,
    taken: int | None,
) -> tuple[int, list[int], list[Play]]:
    """Play melds and lay-offs in order; return the holding, the table and the plays (R4.2, R5-R7).

    `table` holds the melds' masks in table order and is not changed; `taken` is the card
    drawn from the discard pile this turn, if any. Raises `Rejected` on the first
    illegal play, or when the plays together leave a holding the rules forbid.
    """
    melds = list(table)
    done: list[Play] = []
    for play in plays:
        if isinstance(play, Meld):
            if not isinstance(play.cards, int) or play.cards <= 0 or play.cards & ~FULL_DECK:
                raise Rejected("R4.2", f"meld {play.cards!r}: not a mask of cards (bits 0 to 51)")
            if play.cards & holding != play.cards:
                missing = to_text(play.cards & ~holding)
                raise Rejected("R4.2", f"{play}: {missing} not in the holding")
            if not is_meld(play.cards, rules.ace):
                why = "Q-K-A needs ace: high_or_low; " if rules.ace == "low" else ""
                raise Rejected(
                    "R5.1, R5.2, R5.3, R9.1",
                    f"{play}: not a group of 3-4 of a rank nor a sequence of 3+ in a suit ({why}K-A-2 never wraps)",
                )
            holding ^= play.cards
            melds.append(play.cards)
        elif isinstance(play, LayOff):
            bit = 1 << play.card if isinstance(play.card, int) and 0 <= play.card < 52 else 0
            if not bit & holding:
                raise Rejected("R6.1", f"{play}: {_code(play.card)} is not in the holding")
            if not (isinstance(play.meld, int) and 0 <= play.meld < len(melds)):
                raise Rejected("R6.1", f"{play}: there is no meld {play.meld!r}; the table has {len(melds)}")
            if not can_lay_off(melds[play.meld], play.card, rules.ace):
                raise Rejected("R6.1", f"{play}: {_code(play.card)} does not fit {meld_text(melds[play.meld])}")
            holding ^= bit
            melds[play.meld] |= bit
        else:
            raise Rejected("R4.2", f"play {play!r} is neither a Meld nor a LayOff")
        done.append(play)
    if not holding and done and rules.going_out is GoingOut.DISCARD:
        raise Rejected("R7.2", "the plays leave no card, but with going_out: discard the last card must be discarded")
    if taken is not None and holding == 1 << taken and done:
        raise Rejected(
            "R4.7",
            f"the plays leave only {card_code(taken)}, taken from the discard pile this turn, "
            "which may not be discarded",
        )
    return holding, melds, done


def check_discard(card: object, *, holding: int, taken: int | None) -> int:
    """Return the card if it may be discarded, else raise `Rejected` (R4.3, R4.5)."""
    if isinstance(card, str):
        try:
            card = parse_card(card)
        except ValueError:
            raise Rejected("R4.3", f"discard {card!r} is not a card code") from None
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52 or not holding >> card & 1:
        raise Rejected("R4.3", f"discard {_code(card)}: not a card in the holding")
    if card == taken:
        raise Rejected("R4.5", f"discard {card_code(card)}: taken from the discard pile this turn")
    return card
