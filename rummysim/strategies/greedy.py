"""greedy: play the best arrangement at once and shed the highest deadwood.

Policy: take the top discard only if it lowers the least deadwood of the holding (it
completes or extends a meld) or lays off on the table; otherwise draw from the stock.
Meld the holding's best arrangement (least deadwood) at once, then lay off every card
that fits, chains included. Where going out by a play is forbidden (R7.2) hold back the
highest card whose absence leaves the rest playable, and discard it to go out; never
leave only a card just taken from the discard pile (R4.7). Discard the highest-value
deadwood card (the highest card breaks a tie), never the card just taken (R4.5).

The policy is written as pure functions over masks (`takes_discard`, `plan_plays`,
`choose_discard`) so that searching bots can play it out fast without views.
"""

from __future__ import annotations

from collections.abc import Callable

from rummysim.arrangement import Arranger, arranger
from rummysim.cards import BITS, card_points, highest_card, highest_cards, iter_cards
from rummysim.core import NO_CARD, leaves_legal_holding, may_lay_off
from rummysim.melds import lay_off_table
from rummysim.moves import Meld, Pile, Play
from rummysim.rules import Ace, GoingOut, LayOffWhen, Rules, TakeDiscard
from rummysim.strategies.base import PlayerView, Strategy, TableMeld
from rummysim.strategies.tactics import fitting_cards, lay_off_all

# the settings' members, read through their enum classes once rather than at every call
_AFTER_MELD, _DISCARD_TO_GO_OUT, _MUST_USE = LayOffWhen.AFTER_MELD, GoingOut.DISCARD, TakeDiscard.MUST_USE


def takes_discard(
    holding: int, top: int, *, fits: int, arr: Arranger, rules: Rules, melded: bool, table: list[int]
) -> bool:
    """Return True if greedy takes `top`: it lays off (`fits`) or lowers the least deadwood.

    A lay-off counts only where the seat may lay off (R12.1: `melded`, whether it has melded
    this hand). With ``take_discard: must_use`` it takes the card only if its plays this turn
    would play it (R12.2): it never keeps a taken card it cannot use.
    """
    lays_off = may_lay_off(melded, rules.lay_off is _AFTER_MELD)
    if not ((lays_off and fits >> top & 1) or arr.lowers(holding, top)):
        return False
    must_use = rules.take_discard is _MUST_USE
    return not must_use or plays_taken(holding, top, fits=fits, arr=arr, rules=rules, melded=melded, table=table)


def plays_taken(
    holding: int, top: int, *, fits: int, arr: Arranger, rules: Rules, melded: bool, table: list[int]
) -> bool:
    """Return True if greedy's plays, once it took `top` from the discard pile, would play it (R12.2)."""
    _, left = plan_plays(holding | 1 << top, table, fits=fits, rules=rules, taken=top, arr=arr, melded=melded)
    return not left >> top & 1


def _melds_and_lay_offs(
    holding: int, table: list[int], fits: int, arr: Arranger, lays_off: bool = True, *, meld_known: bool = False
) -> tuple[list[Play], int]:
    """Return the best arrangement's melds, every lay-off after them, and the holding left (R5, R6).

    `fits` is `fitting_cards(table)`: with the new melds' own fits it tells when nothing is left to lay off.
    Without `lays_off` (R12.1: the seat has not melded) it lays off only after a meld of its own.
    `meld_known` says the caller found a meld in the holding already (`Arranger.has_meld`).

    The holding left holds no meld: a best arrangement's deadwood holds none (melding it would leave less).
    """
    table_fits = fits if lays_off else 0
    if not table_fits & holding and not (meld_known or arr.has_meld(holding)):
        return [], holding  # nothing to play: what the arrangement below would find, found faster
    new_melds, dead, _ = arr.arrange(holding)  # the best arrangement's melds and deadwood
    if not new_melds and not table_fits & holding:
        return [], holding
    plays: list[Play] = list(map(Meld, new_melds))
    if new_melds:
        fits_of = lay_off_table(arr.ace)
        for meld in new_melds:  # fitting_cards(new_melds), written out
            fits |= fits_of[meld]
    if not fits & dead:
        return plays, dead  # no card left fits any meld: lay_off_all would lay none off
    lay_offs, left = lay_off_all(dead, [*table, *new_melds], arr.ace)
    plays += lay_offs
    return plays, left


def plan_plays(
    holding: int, table: list[int], *, fits: int, rules: Rules, taken: int | None, arr: Arranger, melded: bool = True
) -> tuple[list[Play], int]:
    """Return greedy's plays for a holding and the holding they leave (R4.7, R5, R6, R7.2, R12.1).

    `table` holds the melds' masks and `fits` the cards that lay off on them (`fitting_cards`);
    `melded` tells whether the seat has melded this hand (with ``lay_off: after_meld`` it lays
    off only then, or after a meld of this turn, R12.1).
    """
    plays, left, _ = _plan(holding, table, fits, rules, taken, arr, melded)
    return plays, left


def _plan(
    holding: int, table: list[int], fits: int, rules: Rules, taken: int | None, arr: Arranger, melded: bool,
    meld_known: bool = False,
) -> tuple[list[Play], int, bool]:  # fmt: skip
    """Return `plan_plays`' plays and holding left, and whether that holding surely holds no meld (arguments by
    position, in `plan_plays`' order).

    It does unless plays were taken back so as not to leave a holding the rules forbid (R4.7, R7.2).
    """
    lays_off = may_lay_off(melded, rules.lay_off is _AFTER_MELD)
    plays, left = _melds_and_lay_offs(holding, table, fits, arr, lays_off, meld_known=meld_known)
    # tactics.leaves_legal_holding's arguments, made once
    discard_to_go_out, taken_card = rules.going_out is _DISCARD_TO_GO_OUT, NO_CARD if taken is None else taken
    if not left and plays and not leaves_legal_holding(0, 1, discard_to_go_out, taken_card):
        ace_value = rules.ace_value
        for card in sorted(iter_cards(holding), key=lambda c: (-card_points(c, ace_value=ace_value), -c)):
            if card != taken:
                held_plays, held_left = _melds_and_lay_offs(holding ^ 1 << card, table, fits, arr, lays_off)
                if not held_left:
                    return held_plays, 1 << card, True
    meldless = True
    while plays and not leaves_legal_holding(left, len(plays), discard_to_go_out, taken_card):
        dropped = plays.pop()
        left |= dropped.cards if isinstance(dropped, Meld) else 1 << dropped.card
        meldless = False
    return plays, left, meldless


def choose_discard(holding: int, *, taken: int | None, rules: Rules, arr: Arranger) -> int:
    """Return greedy's discard: the highest deadwood card other than `taken` (R4.3, R4.5)."""
    allowed = holding & ~(1 << taken) if taken is not None else holding  # discardable(holding, taken)
    dead = arr.deadwood_cards(holding) & allowed
    if dead:
        return highest_card(dead, ace_value=rules.ace_value)
    deadwood = arr.deadwood
    return min(
        iter_cards(allowed), key=lambda c: (deadwood(holding ^ 1 << c), -card_points(c, ace_value=rules.ace_value), -c)
    )


_last_table: tuple[tuple[TableMeld, ...], Ace | None, list[int], int] = ((), None, [], 0)
"""The last table a greedy bot looked at, its ace setting, its melds' masks and the cards that lay off on it."""


def _table_fits(table: tuple[TableMeld, ...], ace: Ace) -> tuple[list[int], int]:
    """Return the melds' masks of a table (never to be changed) and the cards that lay off on it (R6.1).

    Every seat of a hand looks at each new table: the last one's answer is kept for the next seat.
    """
    global _last_table
    last = _last_table  # read once: the four parts always belong together
    if last[0] is table and last[1] is ace:
        return last[2], last[3]
    masks = [meld.cards for meld in table]  # PlayerView.table_masks
    fits = fitting_cards(masks, ace)
    _last_table = (table, ace, masks, fits)
    return masks, fits


_STOCK, _DISCARD = Pile.STOCK, Pile.DISCARD  # a member read through its enum class costs a lookup each time


class Greedy(Strategy):
    """Meld at once, lay off what fits, discard the highest deadwood."""

    name = "greedy"
    description = "melds its best arrangement at once, lays off what fits, discards its highest deadwood"

    _rules: Rules | None = None
    _arranger: Arranger
    _fits_table: tuple[TableMeld, ...] | None = None
    _fits: int = 0

    _plain: bool = True
    """No house rule changes greedy's draw (R12.1, R12.2): the fast path of `draw` applies."""
    _highest: Callable[[int], int]
    """`highest_card` under the rules' ace value."""

    def _arrange(self, rules: Rules) -> Arranger:
        if rules is not self._rules:
            self._rules, self._arranger = rules, arranger(rules)
            self._plain = rules.lay_off is LayOffWhen.ANY and rules.take_discard is TakeDiscard.FREE
            self._highest = highest_cards(rules.ace_value)
            self._meldless = 0  # known under the last rules' ace only
        return self._arranger

    _masks: list[int]

    def _fitting(self, view: PlayerView) -> int:
        """Return the cards that lay off on the table, recomputed only when the table changes."""
        if view.table is not self._fits_table:
            self._fits_table = table = view.table
            self._masks, self._fits = _table_fits(table, view.rules.ace)
        return self._fits

    # The decisions test the two caches inline (the same tests as `_arrange` and `_fitting`):
    # a call fewer each, three times a turn.
    def draw(self, view: PlayerView) -> Pile:
        pile = view.discard_pile
        if not pile:
            return _STOCK
        top = pile[-1]
        fits = self._fits if view.table is self._fits_table else self._fitting(view)
        arr = self._arranger if view.rules is self._rules else self._arrange(view.rules)
        if self._plain:  # takes_discard(view.holding, top, ...), written out
            return _DISCARD if fits & BITS[top] or arr.lowers(view.holding, top) else _STOCK
        melded = view.has_melded[view.seat]
        takes = takes_discard(view.holding, top, fits=fits, arr=arr, rules=view.rules, melded=melded, table=self._masks)
        return _DISCARD if takes else _STOCK

    # A holding in which `play` found no meld, or that its plays leave with none: `discard` then knows
    # every card is deadwood. It holds for the arranger's ace setting: `_arrange` forgets it with the rules.
    _meldless: int = 0
    # The view `play` played nothing with, and the discard it found for it: the engine asks the discard with it.
    _discard_view: PlayerView | None = None
    _discard_card: int = -1

    def play(self, view: PlayerView) -> list[Play]:
        fits = self._fits if view.table is self._fits_table else self._fitting(view)  # caches the table's masks too
        rules = view.rules
        arr = self._arranger if rules is self._rules else self._arrange(rules)
        holding = view.holding
        lays_off = fits & holding
        if not lays_off and not arr.has_meld(holding):  # plan_plays' first test, without the calls
            self._meldless = holding
            taken = view.taken
            allowed = holding & ~(1 << taken) if taken is not None else holding
            if allowed:  # the discard's answer, asked next with this very view: all of the holding is deadwood
                self._discard_view, self._discard_card = view, self._highest(allowed)
            return []
        melded = view.has_melded[view.seat]
        plays, left, meldless = _plan(holding, self._masks, fits, rules, view.taken, arr, melded, not lays_off)
        if meldless:  # what a best arrangement leaves: the discard's fast path holds
            self._meldless = left
        return plays

    def discard(self, view: PlayerView) -> int:
        if view is self._discard_view:
            return self._discard_card
        rules = view.rules
        arr = self._arranger if rules is self._rules else self._arrange(rules)
        holding, taken = view.holding, view.taken
        if holding == self._meldless:
            allowed = holding & ~(1 << taken) if taken is not None else holding
            if allowed:  # choose_discard's answer: all of the holding is deadwood
                return self._highest(allowed)  # highest_card(allowed, ace_value=rules.ace_value)
        return choose_discard(holding, taken=taken, rules=rules, arr=arr)
