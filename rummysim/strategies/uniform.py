"""uniform: a uniformly random legal choice at every decision; the fuzzer and the baseline.

Policy: draw from a pile chosen at random among those allowed (R4.6; with ``take_discard:
must_use`` the discard pile only when its top card could be played this turn, R12.2).
Then, again and again, pick at random among "stop" and every legal meld and lay-off of
the moment (lay-offs only once it has melded under ``lay_off: after_meld``, R12.1),
leaving out only those that would leave a holding the rules forbid (R4.7, R7.2), until
"stop" comes up; while a card taken under ``must_use`` is still held, the choice is among
the plays of that card, with no "stop". Discard a random card of the holding other than one just taken from
the discard pile (R4.5).

Its choices come from a counter-based `rummysim.seeding.Stream` keyed by one number of
its generator, so the compiled engine's uniform makes the same ones.
"""

from __future__ import annotations

import numpy as np

from rummysim.cards import iter_cards
from rummysim.core import may_lay_off
from rummysim.moves import Meld, Pile, Play
from rummysim.rules import LayOffWhen, TakeDiscard
from rummysim.seeding import Stream
from rummysim.strategies.base import PlayerView, Strategy
from rummysim.strategies.tactics import lay_offs_in, leaves_legal_holding, melds_in
from rummysim.table import place


class Uniform(Strategy):
    """A uniformly random legal choice at every decision."""

    name = "uniform"
    description = "a uniformly random legal choice at every decision; the baseline and fuzzer"

    def __init__(self, *, rng: np.random.Generator | None = None) -> None:
        super().__init__(rng=rng)
        self.stream = Stream(self.rng)

    def _pick(self, n: int) -> int:
        return self.stream.below(n)

    def draw(self, view: PlayerView) -> Pile:
        if not view.discard_pile:
            return Pile.STOCK
        top = view.discard_pile[-1]
        melded = view.has_melded[view.seat]
        if view.rules.take_discard is TakeDiscard.MUST_USE and not self._options(
            view, holding=view.holding | 1 << top, table=view.table_masks, melded=melded, pending=top
        ):
            return Pile.STOCK  # the top discard could not be played this turn: only the stock is allowed (R12.2)
        return (Pile.STOCK, Pile.DISCARD)[self._pick(2)]

    @staticmethod
    def _options(view: PlayerView, *, holding: int, table: list[int], melded: bool, pending: int | None) -> list[Play]:
        """Return every legal single play of the moment, in order: melds, then lay-offs (R4.7, R7.2, R12.1, R12.2).

        With `pending` (a card taken under ``take_discard: must_use`` and not yet played; at
        the draw, the top discard as if taken) only the plays of that card.
        """
        rules = view.rules
        taken = view.taken if view.taken is not None else pending
        options: list[Play] = [Meld(m) for m in melds_in(holding, rules.ace)]
        if may_lay_off(melded, rules.lay_off is LayOffWhen.AFTER_MELD):
            options += lay_offs_in(holding, table, rules.ace)
        if pending is not None:
            options = [o for o in options if (o.cards if isinstance(o, Meld) else 1 << o.card) >> pending & 1]
        legal = []
        for option in options:
            left = place([option], holding=holding, melds=list(table))
            if leaves_legal_holding(left, n_played=1, rules=rules, taken=taken):
                legal.append(option)
        return legal

    def play(self, view: PlayerView) -> list[Play]:
        holding, table = view.holding, view.table_masks
        melded = view.has_melded[view.seat]
        must_use = view.rules.take_discard is TakeDiscard.MUST_USE
        pending = view.taken if must_use else None
        plays: list[Play] = []
        while True:
            options = self._options(view, holding=holding, table=table, melded=melded, pending=pending)
            if pending is None:
                choice = self._pick(len(options) + 1)
                if choice == len(options):
                    return plays
            else:  # the card taken must be played this turn (R12.2): no stopping before
                choice = self._pick(len(options))
            play = options[choice]
            holding = place([play], holding=holding, melds=table)
            plays.append(play)
            melded = melded or isinstance(play, Meld)
            if pending is not None and not holding >> pending & 1:
                pending = None
            if not holding:
                return plays

    def discard(self, view: PlayerView) -> int:
        cards = [c for c in iter_cards(view.holding) if c != view.taken]
        return cards[self._pick(len(cards))]
