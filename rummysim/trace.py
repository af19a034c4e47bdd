"""What the engine may keep beside a hand without changing it: the trace and the audit.

`play_hand(trace=True)` keeps a `TurnRecord` per turn (`turn_record`), with the private
card drawn, for traces and replays; `play_hand(audit=True)` checks after every event
that each of the 52 cards is in exactly one place (`check_cards`, R1.2). Both read the
hand's state; neither changes it, nor anything a bot is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rummysim.cards import FULL_DECK, card_code, to_text
from rummysim.moves import Discarded, Drew, Event, LaidOff, LayOff, Meld, Melded
from rummysim.records import TurnRecord
from rummysim.table import TableMeld


def turn_record(
    moves: Sequence[Event], *, game: int, hand: int, turn: int, seat: int, strategy: str, drawn: int | None,
    holding: int,
) -> TurnRecord:  # fmt: skip
    """Return the record of one turn from its public events (`moves`), the card drawn and the holding after it."""
    drew = next(e for e in moves if isinstance(e, Drew))
    plays = "; ".join(
        str(Meld(e.cards)) if isinstance(e, Melded) else str(LayOff(e.card, e.meld))
        for e in moves
        if isinstance(e, (Melded, LaidOff))
    )
    discard = next((card_code(e.card) for e in moves if isinstance(e, Discarded)), "")
    return TurnRecord(
        game=game, hand=hand, turn=turn, seat=seat, strategy=strategy, pile=str(drew.pile),
        drew=card_code(drawn) if drawn is not None else "", plays=plays, discard=discard, holding=to_text(holding),
    )  # fmt: skip


def check_cards(
    holdings: Sequence[int], sizes: Sequence[int], stock: Iterable[int], discard_pile: Iterable[int],
    table: Iterable[TableMeld],
) -> None:  # fmt: skip
    """Raise AssertionError unless all 52 cards are in exactly one place (R1.2) and `sizes` count the holdings."""
    places = [*holdings, *(1 << c for c in stock), *(1 << c for c in discard_pile), *(m.cards for m in table)]
    seen = 0
    for mask in places:
        if seen & mask:
            raise AssertionError(f"card in two places: {to_text(seen & mask)}")
        seen |= mask
    if seen != FULL_DECK:
        raise AssertionError(f"cards missing: {to_text(FULL_DECK & ~seen)}")
    if [h.bit_count() for h in holdings] != list(sizes):
        raise AssertionError("holding sizes out of step")
