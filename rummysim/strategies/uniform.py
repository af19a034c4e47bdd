"""uniform: a uniformly random legal choice at every decision; the fuzzer and the baseline.

Policy: draw from a pile chosen at random among those allowed (R4.6). Then, again and
again, pick at random among "stop" and every legal meld and lay-off of the moment,
leaving out only those that would leave a holding the rules forbid (R4.7, R7.2), until
"stop" comes up. Discard a random card of the holding other than one just taken from
the discard pile (R4.5).

Its choices come from a counter-based `rummysim.seeding.Stream` keyed by one number of
its generator, so the compiled engine's uniform makes the same ones.
"""

from __future__ import annotations

import numpy as np

from rummysim.cards import iter_cards
from rummysim.moves import Meld, Pile, Play
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
        return (Pile.STOCK, Pile.DISCARD)[self._pick(2)]

    def play(self, view: PlayerView) -> list[Play]:
        holding, table = view.holding, view.table_masks
        plays: list[Play] = []
        while True:
            options: list[Play] = [Meld(m) for m in melds_in(holding, view.rules.ace)]
            options += lay_offs_in(holding, table, view.rules.ace)
            options = [
                o
                for o in options
                if leaves_legal_holding(
                    place([o], holding=holding, melds=list(table)), n_played=1, rules=view.rules, taken=view.taken
                )
            ]
            choice = self._pick(len(options) + 1)
            if choice == len(options):
                return plays
            holding = place([options[choice]], holding=holding, melds=table)
            plays.append(options[choice])
            if not holding:
                return plays

    def discard(self, view: PlayerView) -> int:
        cards = [c for c in iter_cards(view.holding) if c != view.taken]
        return cards[self._pick(len(cards))]
