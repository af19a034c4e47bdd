"""What a person types at the terminal (`rummysim.terminal`): the commands, their help, and typed cards and
lay-offs made plays, each refusal a `Retry` that says the rule it breaks.

`could_play` is the check of R12.2 the ``draw discard`` command makes: whether the top
discard could be melded or laid off this turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummysim.cards import card_code, parse_card, parse_cards
from rummysim.core import may_lay_off
from rummysim.errors import RummysimError
from rummysim.melds import can_lay_off, lay_off_fits, meld_table, meld_text
from rummysim.moves import LayOff, Meld, Play, Rejected
from rummysim.rules import GoingOut, LayOffWhen, Rules
from rummysim.table import TableMeld, place

HELP = """\
Commands (card codes: rank A 2-9 T or 10 J Q K, then suit C D H S; 7H, 10D, KS):
  draw stock            draw the top card of the stock (face down)            R4.1
  draw discard          take the top card of the discard pile                 R4.1
  meld 7H 8H 9H         meld 3+ cards: a group of one rank or a sequence      R5
  layoff 6C [2]         add a card to a meld on the table (its number if      R6
                        the card fits more than one); several: layoff 6C 7C
  undo                  take back this turn's last meld or lay-off
  discard KD            discard a card face up; this ends your turn           R4.3
  hint                  what the adviser bot would do now (expert, or --hint)
  table                 show the table again
  help                  this list
  quit                  stop the game
A turn: draw one card, meld and lay off as you like, then discard one card. You may
not discard a card you took from the discard pile this turn (R4.5). Play your last
card (by meld, lay-off or discard) to go out and score the others' cards (R7, R8).
"""

HOUSE_HELP = {
    "lay_off": "You lay off only once you have melded this hand; a meld earlier in the turn counts (R12.1).",
    "take_discard": "You take the top discard only to meld or lay it off this turn, before you discard (R12.2).",
    "stock_out": "Block rummy: when the stock is empty at the start of a turn the hand ends; the lowest hand value\n"
    "wins the others' hand values less its own (R12.3).",
}
"""What `help` adds for each house rule that is on (R12)."""

COMMANDS = ("draw", "meld", "layoff", "undo", "discard", "hint", "table", "help", "quit")
ALIASES = {"lay": "layoff", "lo": "layoff", "m": "meld", "?": "help", "h": "help", "exit": "quit", "show": "table"}
EXAMPLES = {"meld": "meld 7H 8H 9H", "layoff": "layoff 6C", "discard": "discard KD"}


class Retry(Exception):
    """A command that can not be done now; the message says why, and the prompt comes again."""


def parse_lay_offs(
    args: list[str], *, holding: int, table: tuple[TableMeld, ...], seat: int, rules: Rules
) -> list[Play]:
    """Return the lay-offs of ``layoff CARD [CARD ...] [MELD]`` by `seat`, finding the meld each card fits (R6.1)."""
    args = [a for a in args if a.lower() != "on"]
    number = None
    if args and args[-1].isdigit():
        number = int(args.pop())
        if not 1 <= number <= len(table):
            valid = f"[1] to [{len(table)}]" if table else "none yet"
            raise Retry(f"There is no meld [{number}]; the melds on the table are {valid} (R6.1).")
    if not args:
        raise Retry("Lay off which card? For example: layoff 6C (R6.1).")
    melded = any(m.melded_by == seat for m in table)  # this turn's melds are on `table` already
    if not may_lay_off(melded, rules.lay_off is LayOffWhen.AFTER_MELD):
        raise Retry("Not allowed: with lay_off: after_meld you lay off only once you have melded this hand (R12.1).")
    cards = [to_card(a) for a in args]
    melds = [m.cards for m in table]
    found: list[Play] = []
    for card in cards:
        if not holding >> card & 1:
            raise Retry(f"Not allowed: {card_code(card)} is not in your holding (R6.1).")
        if number is not None:
            target = number - 1
            if not can_lay_off(melds[target], card, rules.ace):
                raise Retry(f"Not allowed: {card_code(card)} does not fit meld [{number}] "
                             f"{meld_text(melds[target])} (R6.1).")  # fmt: skip
        else:
            fits = [i for i, m in enumerate(melds) if can_lay_off(m, card, rules.ace)]
            if not fits:
                raise Retry(
                    f"Not allowed: {card_code(card)} fits no meld on the table: a lay-off is the fourth card "
                    "of a group or extends a sequence at either end (R6.1)."
                )
            if len(fits) > 1:
                choices = " or ".join(f"layoff {card_code(card)} {i + 1}" for i in fits)
                raise Retry(f"{card_code(card)} fits more than one meld; say which: {choices}.")
            target = fits[0]
        found.append(LayOff(card, target))
        holding = place(found[-1:], holding=holding, melds=melds)
    return found


def could_play(card: int, *, holding: int, table: Sequence[int], melded: bool, rules: Rules) -> bool:
    """Return True if some plays this turn could meld or lay off `card` once it is taken into `holding` (R12.2).

    By a meld with it (R5), or by laying it off on a meld of `table` (R6.1), the cards between
    laid off first; with ``lay_off: after_meld`` and no meld of the seat's own yet (`melded`),
    after a meld of this turn (R12.1). The plays may not leave an empty holding when the last
    card must be discarded (R7.2). Every True is a legal turn; a False may miss one only where
    a lay-off chain would use a card the discard needs under R7.2.
    """
    bit = 1 << card
    holding |= bit
    discard_to_go_out = rules.going_out is GoingOut.DISCARD
    melds = [m for m in meld_table(rules.ace) if m & holding == m]
    if any(m & bit and (holding ^ m or not discard_to_go_out) for m in melds):
        return True
    first_melds = (
        [0] if may_lay_off(melded, rules.lay_off is LayOffWhen.AFTER_MELD) else [m for m in melds if not m & bit]
    )
    for first in first_melds:
        rest = holding ^ first
        for meld in [*table, first] if first else table:
            reach = meld
            while True:  # lay off what fits, nearer cards first, until the card fits or nothing does
                fits = lay_off_fits(reach, rules.ace) & rest & ~reach
                if fits & bit:
                    if (rest & ~reach & ~bit) or not discard_to_go_out:
                        return True
                    break
                if not fits:
                    break
                reach |= fits
    return False


def is_card(text: str) -> bool:
    """Return True if `text` is a card code (``7H``, ``10D``)."""
    try:
        parse_card(text)
    except RummysimError:
        return False
    return True


def to_card(text: str) -> int:
    """Return the card typed, or raise `Retry` saying why it is none."""
    try:
        return parse_card(text)
    except RummysimError as error:
        raise Retry(f"Not a card: {error}.") from None


def to_cards(text: str) -> int:
    """Return the cards typed, as a mask, or raise `Retry` saying which is none."""
    try:
        return parse_cards(text)
    except RummysimError as error:
        raise Retry(f"Not a card: {error}.") from None


def not_allowed(rejected: Rejected, *, mine: bool = False) -> str:
    """Return a refused move in the player's words: its reason and rule; `mine` says "your holding"."""
    reason = rejected.reason.replace("the holding", "your holding") if mine else rejected.reason
    return f"Not allowed: {reason} ({rejected.rule})."


def play_text(play: Play, table: Sequence[TableMeld]) -> str:
    """Return a play made on `table` as the player is told it: ``7H 8H 9H as meld [1]``, ``6C on meld [2] ...``."""
    if isinstance(play, Meld):
        number = next(i for i, m in enumerate(table) if m.cards == play.cards) + 1
        return f"{meld_text(play.cards)} as meld [{number}]"
    return f"{card_code(play.card)} on meld [{play.meld + 1}] {meld_text(table[play.meld].cards)}"


def command_for(play: Play, table: Sequence[TableMeld], rules: Rules) -> str:
    """Return the command that makes a play on `table`: ``meld 7H 8H 9H`` or ``layoff 6C 2``."""
    if isinstance(play, Meld):
        return f"meld {meld_text(play.cards)}"
    fits = [i for i, m in enumerate(table) if can_lay_off(m.cards, play.card, rules.ace)]
    number = f" {play.meld + 1}" if len(fits) > 1 else ""
    return f"layoff {card_code(play.card)}{number}"
