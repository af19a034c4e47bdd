"""Moves a player makes, the public events that record them, and the pure rules of a turn.

A turn (R4) is a draw from a `Pile`, any number of `Meld` and `LayOff` plays, and a
discard. The engine validates a strategy's answers with `check_draw`,
`rummysim.table.apply_plays` and `check_discard`; bots may call the same functions to
test a plan before answering.
Every performed move is logged as a frozen event, which is also what observers see.

A bot's answer is turned into plain values before any check (`plain_int`,
`plain_plays`): an ``int`` subclass whose ``==`` lies, a `Meld` subclass whose
``cards`` changes between reads, or a sequence that answers differently each time it
is walked is read once, as what it holds, and checked as that.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import NamedTuple

from rummysim.cards import FULL_DECK, CardsLike, card_code, parse_card, parse_cards, to_text
from rummysim.compat import StrEnum
from rummysim.melds import is_meld, meld_text


class Pile(StrEnum):
    """Where a card is drawn from (R4.1)."""

    STOCK = "stock"
    DISCARD = "discard"


class WentOutBy(StrEnum):
    """How the hand ended: how the winner's last card left the holding (R7.1), or by a block (R12.3)."""

    DISCARD = "discard"
    MELD = "meld"
    LAY_OFF = "lay_off"
    BLOCK = "block"
    """No one went out: the stock ran out under block rummy and the lowest hand value won (R12.3)."""


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
        return f"lay off {card_or_shown(self.card)} on meld {self.meld}"


Play = Meld | LayOff


def card_or_shown(card: object) -> str:
    """Return a card's code if it is a card int, else the value as an error message shows it."""
    return card_code(card) if type(card) is int and 0 <= card < 52 else shown(card)


def shown(value: object, *, width: int = 60) -> str:
    """Return a bot's answer as text for an error message: its repr, cut to `width`, never raising."""
    try:
        text = repr(value)
    except Exception:
        text = f"<a {type(value).__name__} whose repr fails>"
    return text if len(text) <= width else text[: width - 3] + "..."


def plain_int(value: object) -> int | None:
    """Return a whole-number answer as a plain ``int``, or None if it is not one (a bool is not).

    An ``int`` subclass gives the number it holds, whatever its methods say; numpy
    integers and other ``__index__`` types give their index.

    >>> class Liar(int):
    ...     def __eq__(self, other): return False
    >>> type(plain_int(Liar(7))), plain_int(Liar(7)) == 7
    (<class 'int'>, True)
    """
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int.__index__(value)
    try:
        index = operator.index(value)  # type: ignore[arg-type]
    except Exception:
        return None
    return int.__index__(index)


def plain_plays(answer: object) -> list[Play]:
    """Return a `play` answer as a list of plain `Meld` and `LayOff` moves, each field read once (R4.2).

    None or an empty sequence is no play. Raises `Rejected` for anything else that is not
    a sequence of moves of whole numbers.
    """
    if answer is None:
        return []
    if isinstance(answer, (str, bytes, dict)):
        raise Rejected("R4.2", f"play answered {shown(answer)}, not a sequence of Meld and LayOff moves")
    try:
        items = list(answer)  # type: ignore[call-overload]
    except Exception:
        raise Rejected("R4.2", f"play answered {shown(answer)}, not a sequence of Meld and LayOff moves") from None
    plays: list[Play] = []
    for item in items:
        # `type(x) is int` is plain_int's own first test, made here to save a call per field
        if isinstance(item, Meld):
            cards = item.cards
            mask = cards if type(cards) is int else plain_int(cards)
            if mask is None:
                raise Rejected("R4.2", f"meld {shown(cards)}: not a mask of cards (bits 0 to 51)")
            plays.append(Meld(mask))
        elif isinstance(item, LayOff):
            card, meld = item.card, item.meld
            card_int = card if type(card) is int else plain_int(card)
            meld_int = meld if type(meld) is int else plain_int(meld)
            if card_int is None:
                raise Rejected("R6.1", f"lay off {shown(card)}: not a card")
            if meld_int is None:
                raise Rejected("R6.1", f"lay off {card_or_shown(card_int)} on meld {shown(meld)}: not a meld's number")
            plays.append(LayOff(card_int, meld_int))
        else:
            raise Rejected("R4.2", f"play {shown(item)} is neither a Meld nor a LayOff")
    return plays


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
    """Return the pile if it may be drawn from, else raise `Rejected` (R4.1, R4.6).

    The answer is a `Pile` or its text (``"stock"``, ``"discard"``); what comes back is
    always one of the two members.
    """
    if pile is Pile.STOCK or pile is Pile.DISCARD:
        chosen = pile
    else:
        text = str.__str__(pile) if isinstance(pile, str) else None  # a str subclass gives the text it holds
        if text not in ("stock", "discard"):
            raise Rejected("R4.1", f"draw {shown(pile)} is not a pile; answer Pile.STOCK or Pile.DISCARD")
        chosen = Pile.STOCK if text == "stock" else Pile.DISCARD
    if chosen is Pile.DISCARD and not discard_pile_size:
        raise Rejected("R4.6", "draw discard: the discard pile is empty, so the card must come from the stock")
    return chosen


def check_discard(card: object, *, holding: int, taken: int | None) -> int:
    """Return the card, a plain ``int``, if it may be discarded, else raise `Rejected` (R4.3, R4.5).

    The answer is a card int or a card code; it is made a plain value before it is checked.
    """
    if isinstance(card, str):
        text = str.__str__(card)
        try:
            number: int | None = parse_card(text)
        except ValueError:
            raise Rejected("R4.3", f"discard {shown(text)} is not a card code") from None
    else:
        number = plain_int(card)
    if number is None or not 0 <= number < 52 or not holding >> number & 1:
        shown_card = card_or_shown(card if number is None else number)
        raise Rejected("R4.3", f"discard {shown_card}: not a card in the holding")
    if number == taken:
        raise Rejected("R4.5", f"discard {card_code(number)}: taken from the discard pile this turn")
    return number
