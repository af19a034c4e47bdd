"""The table as a value, and the one function that applies plays to it (R4.2, R5, R6, R7).

The table is a tuple of frozen `TableMeld`s in the order they were played: each meld's
cards as a mask, who melded it and who laid off which card on it since. Nothing changes
it in place: `apply_plays` checks a player's melds and lay-offs against the rules and
returns the new holding, the new table and the public events they make; `apply_event`
replays one public event (`Melded`, `LaidOff`) onto a holding and a table. The engine,
replay, the terminal player and the bots' planners all go through these functions, so a
new meld or lay-off rule is one edit here.

Planners that search many plans work on the melds' masks alone (`place`), the same
move applied to a list of masks, without the record of who played what.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rummysim.cards import BITS, FULL_DECK, card_code, to_text
from rummysim.core import NO_CARD, keeps_taken, leaves_legal_holding, may_lay_off
from rummysim.melds import MeldKind, can_lay_off, is_meld, meld_kind, meld_set, meld_text
from rummysim.moves import LaidOff, LayOff, Meld, Melded, Play, Rejected, card_or_shown
from rummysim.rules import GoingOut, LayOffWhen, Rules, TakeDiscard


class TableMeld(NamedTuple):
    """A meld on the table and who played which of its cards (R5.4, R6.2)."""

    cards: int
    """All of its cards, as a mask."""
    melded_by: int
    """The seat that played the meld."""
    laid_off: tuple[tuple[int, int], ...] = ()
    """``(card, seat)`` for each card laid off on it since, in order."""

    @property
    def kind(self) -> MeldKind:
        """Return whether it is a group or a sequence."""
        return meld_kind(self.cards)

    def played_by(self, card: int) -> int:
        """Return the seat that put a card of this meld on the table."""
        for laid, seat in self.laid_off:
            if laid == card:
                return seat
        if not self.cards >> card & 1:
            raise KeyError(card)
        return self.melded_by

    def __str__(self) -> str:
        return meld_text(self.cards)


_new = tuple.__new__
"""Build a named tuple from a tuple of all its fields, in order: a Python call fewer than ``Cls(...)``."""

# the settings' members, read through their enum classes once rather than at every call
_AFTER_MELD, _DISCARD_TO_GO_OUT, _MUST_USE = LayOffWhen.AFTER_MELD, GoingOut.DISCARD, TakeDiscard.MUST_USE

Table = tuple[TableMeld, ...]
"""The melds on the table, in the order played; `LayOff.meld` indexes it."""


class Applied(NamedTuple):
    """What plays leave: the holding, the table and the public events, in order."""

    holding: int
    table: Table
    events: tuple[Melded | LaidOff, ...]


def cards_played(event: Melded | LaidOff) -> int:
    """Return the cards a public meld or lay-off moved from the seat's holding to the table, as a mask."""
    return event.cards if isinstance(event, Melded) else 1 << event.card


def apply_event(event: Melded | LaidOff, *, holding: int, table: Sequence[TableMeld]) -> tuple[int, Table]:
    """Return the holding and the table once a public meld or lay-off is made (R5.4, R6.2).

    The event is taken as played: `apply_plays` is where plays are checked.
    """
    if isinstance(event, Melded):
        return _melded(holding, tuple(table), event.seat, event.cards)
    return _laid_off(holding, tuple(table), event.seat, event.card, event.meld)


# fields by position, in TableMeld's order (cards, melded_by, laid_off): these run for every play
def _melded(holding: int, table: Table, seat: int, cards: int) -> tuple[int, Table]:
    """Return the holding and the table once `seat` melds `cards` (R5.4)."""
    return holding ^ cards, (*table, _new(TableMeld, (cards, seat, ())))


def _laid_off(holding: int, table: Table, seat: int, card: int, meld: int) -> tuple[int, Table]:
    """Return the holding and the table once `seat` lays `card` off on meld number `meld` (R6.2)."""
    old = table[meld]
    new = _new(TableMeld, (old.cards | BITS[card], old.melded_by, (*old.laid_off, (card, seat))))
    return holding ^ BITS[card], (*table[:meld], new, *table[meld + 1 :])


def apply_plays(
    plays: Iterable[object],
    *,
    seat: int,
    holding: int,
    table: Sequence[TableMeld],
    rules: Rules,
    taken: int | None,
) -> Applied:
    """Check a seat's melds and lay-offs in order and apply them (R4.2, R4.7, R5, R6, R7.2, R12.1, R12.2).

    `taken` is the card drawn from the discard pile this turn, if any. Returns the
    holding, the table and the events; raises `Rejected` at the first illegal play, or
    when the plays together leave a holding the rules forbid. Bots may call it to test a
    plan before answering: it is the engine's own check.
    """
    holding, after, events = checked_plays(plays, seat, holding, tuple(table), rules, taken)
    return _new(Applied, (holding, after, tuple(events)))  # (holding, table, events)


def checked_plays(
    plays: Iterable[object], seat: int, holding: int, table: Table, rules: Rules, taken: int | None
) -> tuple[int, Table, list[Melded | LaidOff]]:
    """`apply_plays`, its arguments by position and its answer a plain tuple with the events in a list: the engine's.

    Each play's event is applied as `apply_event` applies it (`_melded`, `_laid_off`).
    """
    events: list[Melded | LaidOff] = []
    legal = meld_set(rules.ace)
    # R12.1: whether the seat has a meld of its own on the table, melds earlier in these plays included
    after_meld = rules.lay_off is _AFTER_MELD
    melded = after_meld and any(m.melded_by == seat for m in table)
    for play in plays:
        # a plain, legal play is checked at once (`_checked`'s tests, in one); `_checked` rules on any other
        if type(play) is Meld and type(cards := play.cards) is int and cards & holding == cards and cards in legal:
            events.append(_new(Melded, (seat, cards, len(table))))  # event_of(play): (seat, cards, meld)
            holding, table = _melded(holding, table, seat, cards)
            melded = True
            continue
        if type(play) is LayOff and _lays_off(play, holding, table, legal) and may_lay_off(melded, after_meld):
            card, meld = play.card, play.meld
            events.append(_new(LaidOff, (seat, card, meld)))  # event_of(play): (seat, card, meld)
            holding, table = _laid_off(holding, table, seat, card, meld)
            continue
        event = _checked(play, seat, holding, table, rules, melded)
        events.append(event)
        holding, table = apply_event(event, holding=holding, table=table)
        melded = melded or type(event) is Melded
    taken_card = NO_CARD if taken is None else taken
    if not leaves_legal_holding(holding, len(events), rules.going_out is _DISCARD_TO_GO_OUT, taken_card):
        if not holding:
            raise Rejected(
                "R7.2", "the plays leave no card, but with going_out: discard the last card must be discarded"
            )
        raise Rejected(
            "R4.7",
            f"the plays leave only {card_code(taken_card)}, taken from the discard pile this turn, "
            "which may not be discarded",
        )
    if taken is not None and keeps_taken(holding, taken_card, rules.take_discard is _MUST_USE):
        raise taken_unused(taken_card)
    return holding, table, events


def taken_unused(taken: int) -> Rejected:
    """Return the rejection of a turn whose plays keep the card taken from the discard pile (R12.2)."""
    return Rejected(
        "R12.2",
        f"the plays keep {card_code(taken)}, taken from the discard pile this turn; with take_discard: must_use "
        "it must be melded or laid off in the same turn",
    )


def event_of(play: Play, *, seat: int, table: Sequence[TableMeld]) -> Melded | LaidOff:
    """Return the public event of a play made by a seat at this table (not checked: see `apply_plays`)."""
    if isinstance(play, Meld):
        return Melded(seat, play.cards, len(table))  # (seat, cards, meld)
    return LaidOff(seat, play.card, play.meld)  # (seat, card, meld)


def _lays_off(play: LayOff, holding: int, table: Table, legal: frozenset[int]) -> bool:
    """Return True if a lay-off of plain ints lays a card of the holding on a meld it fits (R6.1).

    `legal` is every legal meld (`rummysim.melds.meld_set`).
    """
    card, meld = play.card, play.meld
    if type(card) is not int or type(meld) is not int or not (0 <= card < 52 and 0 <= meld < len(table)):
        return False
    cards, bit = table[meld].cards, 1 << card
    return holding & bit != 0 and not cards & bit and cards | bit in legal


def _checked(play: object, seat: int, holding: int, table: Table, rules: Rules, melded: bool) -> Melded | LaidOff:
    """Return the event of one play if it is legal now, else raise `Rejected` (R4.2, R5, R6.1, R12.1).

    `melded` tells whether the seat has a meld of its own on the table (R12.1 reads it).
    """
    if isinstance(play, Meld):
        if not isinstance(play.cards, int) or play.cards <= 0 or play.cards & ~FULL_DECK:
            raise Rejected("R4.2", f"meld {play.cards!r}: not a mask of cards (bits 0 to 51)")
        if play.cards & holding != play.cards:
            raise Rejected("R4.2", f"{play}: {to_text(play.cards & ~holding)} not in the holding")
        if not is_meld(play.cards, rules.ace):
            why = "Q-K-A needs ace: high_or_low; " if rules.ace == "low" else ""
            raise Rejected(
                "R5.1, R5.2, R5.3, R9.1",
                f"{play}: not a group of 3-4 of a rank nor a sequence of 3+ in a suit ({why}K-A-2 never wraps)",
            )
        return _new(Melded, (seat, play.cards, len(table)))  # event_of(play), inline: (seat, cards, meld)
    if isinstance(play, LayOff):
        bit = 1 << play.card if isinstance(play.card, int) and 0 <= play.card < 52 else 0
        if not bit & holding:
            raise Rejected("R6.1", f"{play}: {card_or_shown(play.card)} is not in the holding")
        if not (isinstance(play.meld, int) and 0 <= play.meld < len(table)):
            raise Rejected("R6.1", f"{play}: there is no meld {play.meld!r}; the table has {len(table)}")
        meld = table[play.meld].cards
        if not may_lay_off(melded, rules.lay_off is _AFTER_MELD):
            raise Rejected(
                "R12.1", f"{play}: with lay_off: after_meld a player lays off only once they have melded this hand"
            )
        if not can_lay_off(meld, play.card, rules.ace):
            raise Rejected("R6.1", f"{play}: {card_or_shown(play.card)} does not fit {meld_text(meld)}")
        return _new(LaidOff, (seat, play.card, play.meld))  # event_of(play), inline: (seat, card, meld)
    raise Rejected("R4.2", f"play {play!r} is neither a Meld nor a LayOff")


def place(plays: Iterable[Play], *, holding: int, melds: list[int]) -> int:
    """Apply plays known to be legal to melds' masks, in place; return the holding left (R5.4, R6).

    For planners that try many plans: the same moves as `apply_plays`, without checks
    and without the record of who played what.
    """
    for play in plays:
        if isinstance(play, Meld):
            holding ^= play.cards
            melds.append(play.cards)
        else:
            holding ^= 1 << play.card
            melds[play.meld] |= 1 << play.card
    return holding
