"""rummy_hunter: hold melds back to go rummy in one turn when the rules pay for it.

Policy: draw like greedy. While it has not melded this hand, fewer than `patience` of
its own turns have passed and no opponent holds `danger` cards or fewer, it plays
nothing unless it can play out its whole holding this turn (melds and lay-offs, then at
most one discard): that is going rummy, worth `rummy_multiplier` times the points
(R8.3). Otherwise it plays and discards like greedy. It discards like greedy throughout,
which keeps the cards of its hidden melds.

It hunts whatever the multiplier, so it is the instrument for "what is going rummy
worth?": with the bonus it should beat greedy, without it (multiplier 1) the wait buys
nothing and it should lose.
"""

from __future__ import annotations

import numpy as np

from rummysim.arrangement import Arranger
from rummysim.moves import Play
from rummysim.rules import StockOut, TakeDiscard
from rummysim.strategies.base import PlayerView
from rummysim.strategies.greedy import Greedy, plan_plays


def is_hunting(view: PlayerView, *, patience: int, danger: int) -> bool:
    """Return True while waiting to go rummy is worth it (R8.3): see the module's policy.

    It never waits with a card taken under ``take_discard: must_use`` (R12.2: it must play
    it), nor under block rummy once the stock holds fewer cards than there are players (R12.3:
    the hand may end at any turn, and the lowest hand value wins).
    """
    if view.has_melded[view.seat]:
        return False
    if view.taken is not None and view.rules.take_discard is TakeDiscard.MUST_USE:
        return False
    if view.rules.stock_out is StockOut.BLOCK and view.stock_size < view.n_players:
        return False
    own_turns = view.turn // view.n_players
    others = [size for seat, size in enumerate(view.holding_sizes) if seat != view.seat]
    return own_turns < patience and min(others) > danger


def hunting_plays(view: PlayerView, *, fits: int, arr: Arranger, patience: int, danger: int) -> list[Play]:
    """Return greedy's plays, or none while hunting unless they leave at most a card to discard."""
    melded = view.has_melded[view.seat]
    plays, left = plan_plays(
        view.holding, view.table_masks, fits=fits, rules=view.rules, taken=view.taken, arr=arr, melded=melded
    )
    if is_hunting(view, patience=patience, danger=danger) and left.bit_count() > 1:
        return []  # not out this turn: keep the melds hidden
    return plays


class RummyHunter(Greedy):
    """Greedy that hides its melds to go rummy while the bonus is worth the wait."""

    name = "rummy_hunter"
    description = "holds its melds back to go rummy in one turn, then plays like greedy"

    def __init__(self, *, rng: np.random.Generator | None = None, patience: int = 6, danger: int = 2) -> None:
        super().__init__(rng=rng)
        if patience < 0 or danger < 0:
            raise ValueError("patience and danger are whole numbers of at least 0")
        self.patience = patience
        self.danger = danger

    @property
    def params(self) -> dict[str, int]:
        return {"patience": self.patience, "danger": self.danger}

    def play(self, view: PlayerView) -> list[Play]:
        return hunting_plays(
            view, fits=self._fitting(view), arr=self._arrange(view.rules), patience=self.patience, danger=self.danger
        )
