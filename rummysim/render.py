"""Text for people: holdings, the table, the piles and the public events of a hand.

`rummysim replay` and `rummysim play` draw the game with these. Seats are named by the
caller (`who[seat]`: ``"seat 1 (greedy)"`` in a replay, ``"you"`` at the terminal) and
melds are numbered from 1 in table order, as the player types them (``layoff 6C 2``).

>>> from rummysim.cards import parse_cards
>>> holding_text(parse_cards("7H 2C KD 9C 8H"))
'2C 9C | KD | 7H 8H'
"""

from __future__ import annotations

from collections.abc import Sequence

from rummysim.cards import N_CARDS, card_code, iter_cards, points, to_text
from rummysim.melds import meld_text
from rummysim.moves import Discarded, Drew, Event, HandEnded, LaidOff, Melded, Pile, StockRebuilt, WentOutBy
from rummysim.table import TableMeld

_SUIT_LANE = (1 << 13) - 1


def holding_text(holding: int) -> str:
    """Return a holding's codes sorted by suit (C D H S) and rank, suits apart: ``2C 9C | KD``."""
    if not holding:
        return "(no cards)"
    suits = (to_text(holding & _SUIT_LANE << 13 * suit) for suit in range(4))
    return " | ".join(s for s in suits if s)


def meld_line(number: int, meld: TableMeld, who: Sequence[str]) -> str:
    """Return one meld of the table with the seat that melded it and who laid off on it (R5.4, R6.2)."""
    line = f"[{number}] {meld_text(meld.cards):<14}  melded by {who[meld.melded_by]}"
    if meld.laid_off:
        line += "; laid off: " + ", ".join(f"{card_code(c)} by {who[s]}" for c, s in meld.laid_off)
    return line


def table_lines(table: Sequence[TableMeld], who: Sequence[str]) -> list[str]:
    """Return the table, one meld a line, numbered from 1; or a line saying it is empty."""
    if not table:
        return ["no melds on the table yet"]
    return [meld_line(i + 1, meld, who) for i, meld in enumerate(table)]


def piles_text(discard_pile: Sequence[int], stock_size: int) -> str:
    """Return the discard pile's top card and size and the stock's size (R3.3)."""
    if discard_pile:
        cards = "card" if len(discard_pile) == 1 else "cards"
        top = f"discard pile: {card_code(discard_pile[-1])} on top ({len(discard_pile)} {cards})"
    else:
        top = "discard pile: empty"
    return f"{top}; stock: {stock_size} cards"


def scores_text(scores: Sequence[int], who: Sequence[str]) -> str:
    """Return every seat's game score (R11)."""
    return ", ".join(f"{who[seat]} {score}" for seat, score in enumerate(scores))


_YOU = {"takes": "take", "draws": "draw", "melds": "meld", "lays off": "lay off", "discards": "discard",
        "goes out": "go out", "holds": "hold", "scores": "score"}  # fmt: skip


def _subject(seat: int, verb: str, who: Sequence[str], you: int | None) -> str:
    """Return ``seat 1 (greedy) melds`` or, for the player at the terminal, ``You meld``."""
    return f"You {_YOU[verb]}" if seat == you else f"{who[seat]} {verb}"


def event_line(event: Event, who: Sequence[str], *, drawn: int | None = None, you: int | None = None) -> str:
    """Return a public event as a sentence.

    `drawn` names a card drawn from the stock, where it may be shown; `you` is the seat
    addressed as "You".
    """
    if isinstance(event, Drew):
        if event.pile is Pile.DISCARD and event.card is not None:
            return f"{_subject(event.seat, 'takes', who, you)} {card_code(event.card)} from the discard pile"
        seen = f" ({card_code(drawn)})" if drawn is not None and 0 <= drawn < N_CARDS else ""
        return f"{_subject(event.seat, 'draws', who, you)} from the stock{seen}"
    if isinstance(event, Melded):
        return f"{_subject(event.seat, 'melds', who, you)} {meld_text(event.cards)} as meld [{event.meld + 1}]"
    if isinstance(event, LaidOff):
        return f"{_subject(event.seat, 'lays off', who, you)} {card_code(event.card)} on meld [{event.meld + 1}]"
    if isinstance(event, Discarded):
        return f"{_subject(event.seat, 'discards', who, you)} {card_code(event.card)}"
    if isinstance(event, StockRebuilt):
        return f"the stock ran out: {event.n_cards} cards of the discard pile are shuffled into a new stock (R10.1)"
    if isinstance(event, HandEnded):
        return ending_lines(event, who, ace_value=None, you=you)[0]
    return str(event)


def ending_lines(ended: HandEnded, who: Sequence[str], *, ace_value: int | None, you: int | None = None) -> list[str]:
    """Return how the hand ended and, with `ace_value`, each holding left and its points (R7, R8, R10.2, R12.3)."""
    blocked = ended.went_out_by == WentOutBy.BLOCK
    if blocked:
        lowest = "a tie for the lowest: stalled, nobody scores" if ended.winner is None else (
            f"{_subject(ended.winner, 'scores', who, you)} {ended.points}"
        )  # fmt: skip
        lines = [f"blocked: the stock ran out, lowest hand value wins: {lowest} (R12.3)"]
    elif ended.stalled or ended.winner is None:
        lines = ["the hand is stalled: nobody went out, nobody scores (R10.2)"]
    else:
        how = {"discard": "discarding", "meld": "melding", "lay_off": "laying off"}
        by = how.get(str(ended.went_out_by), str(ended.went_out_by))
        rummy = ", going rummy: points doubled (R8.3)" if ended.went_rummy else ""
        lines = [
            f"{_subject(ended.winner, 'goes out', who, you)} by {by} the last card{rummy}, scoring {ended.points} (R8)"
        ]
    if ace_value is not None:
        for seat, holding in enumerate(ended.holdings):
            if seat != ended.winner or blocked:  # a blocked hand's winner holds cards too
                held = holding_text(holding) if holding else "no cards"
                points_left = points(holding, ace_value=ace_value)
                unit = "point" if points_left == 1 else "points"
                lines.append(f"  {_subject(seat, 'holds', who, you)} {held}: {points_left} {unit}")
    return lines


def cards_text(cards: int) -> str:
    """Return the codes of a mask in suit-then-rank order, or ``-`` for none."""
    return " ".join(card_code(c) for c in iter_cards(cards)) or "-"
