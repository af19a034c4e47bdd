"""greedy: play the best arrangement at once and shed the highest deadwood.

Policy: take the top discard only if it lowers the least deadwood of the holding (it
completes or extends a meld) or lays off on the table; otherwise draw from the stock.
Meld the holding's best arrangement (least deadwood) at once, then lay off every card
that fits, chains included. Where going out by a play is forbidden (R7.2) hold back the
highest card whose absence leaves the rest playable, and discard it to go out; never
leave only a card just taken from the discard pile (R4.7). Discard the highest-value
deadwood card (the highest card breaks a tie), never the card just taken (R4.5).
"""

from __future__ import annotations

from rummysim.arrangement import Arranger, arranger
from rummysim.cards import card_points, highest_card, iter_cards
from rummysim.moves import Meld, Pile, Play
from rummysim.rules import Rules
from rummysim.strategies.base import PlayerView, Strategy, TableMeld
from rummysim.strategies.tactics import fitting_cards, lay_off_all, leaves_legal_holding


class Greedy(Strategy):
    """Meld at once, lay off what fits, discard the highest deadwood."""

    name = "greedy"
    description = "melds its best arrangement at once, lays off what fits, discards its highest deadwood"

    _rules: Rules | None = None
    _arranger: Arranger

    def _arrange(self, rules: Rules) -> Arranger:
        if rules is not self._rules:
            self._rules, self._arranger = rules, arranger(rules)
        return self._arranger

    _fits_table: tuple[TableMeld, ...] | None = None
    _fits: int = 0

    def _fitting(self, view: PlayerView) -> int:
        """Return the cards that lay off on the table, recomputed only when the table changes."""
        if view.table is not self._fits_table:
            self._fits_table, self._fits = view.table, fitting_cards(view.table_masks, view.rules.ace)
        return self._fits

    def draw(self, view: PlayerView) -> Pile:
        top = view.top_discard
        if top is None:
            return Pile.STOCK
        if self._fitting(view) >> top & 1:
            return Pile.DISCARD
        deadwood = self._arrange(view.rules).deadwood
        if deadwood(view.holding | 1 << top) < deadwood(view.holding):
            return Pile.DISCARD
        return Pile.STOCK

    def _plan(self, view: PlayerView, holding: int) -> tuple[list[Play], int]:
        """Meld the best arrangement, then lay off all that fits; return the plays and what is left."""
        best = self._arrange(view.rules).arrange(holding)
        if not best.melds and not self._fitting(view) & holding:
            return [], holding
        table = view.table_masks + list(best.melds)
        plays: list[Play] = [Meld(m) for m in best.melds]
        lay_offs, left = lay_off_all(best.deadwood_cards, table, view.rules.ace)
        return plays + lay_offs, left

    def play(self, view: PlayerView) -> list[Play]:
        plays, left = self._plan(view, view.holding)
        if not left and plays and not leaves_legal_holding(0, n_played=1, rules=view.rules, taken=view.taken):
            ace_value = view.rules.ace_value
            for card in sorted(iter_cards(view.holding), key=lambda c: (-card_points(c, ace_value=ace_value), -c)):
                if card == view.taken:
                    continue
                held_plays, held_left = self._plan(view, view.holding ^ 1 << card)
                if not held_left:
                    return held_plays
        while plays and not leaves_legal_holding(left, n_played=len(plays), rules=view.rules, taken=view.taken):
            dropped = plays.pop()
            left |= dropped.cards if isinstance(dropped, Meld) else 1 << dropped.card
        return plays

    def discard(self, view: PlayerView) -> int:
        rules = view.rules
        allowed = view.holding & ~(1 << view.taken) if view.taken is not None else view.holding
        dead = self._arrange(rules).deadwood_cards(view.holding) & allowed
        if dead:
            return highest_card(dead, ace_value=rules.ace_value)
        deadwood = self._arrange(rules).deadwood
        return min(
            iter_cards(allowed),
            key=lambda c: (deadwood(view.holding ^ 1 << c), -card_points(c, ace_value=rules.ace_value), -c),
        )
