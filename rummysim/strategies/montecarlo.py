"""montecarlo: determinized Monte Carlo search over the draw and the discard.

Policy: for each decision it deals the cards it has not seen at random, consistently
with its view (cards an opponent took from the discard pile and has not played stay in
that opponent's holding; every holding keeps its size; the rest is the stock), `samples`
times. For each candidate (take the discard or draw from the stock; discard one of its
`candidates` best deadwood cards by cautious' score) it plays every sample on to the end
of the hand (at most `depth` turns): the rest of its own turn, when judging a draw, with
greedy melds and cautious' hopeful discard, and every later turn of every seat with the
greedy policy. Its default is cautious' choice; it plays another candidate only when
that one's mean reward (the points it would win, less the points another seat would
win), judged on the same deals (common random numbers), is better by more than
`confidence` standard errors (`playout_hope` gives its own later playout turns cautious'
hopeful discard too). Melds and lay-offs are played like greedy. All randomness
comes from the stream the engine gives it.
"""

from __future__ import annotations

import numpy as np

from rummysim.cards import FULL_DECK, iter_cards
from rummysim.moves import Pile
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import Cautious
from rummysim.strategies.greedy import takes_discard
from rummysim.strategies.rollout import Position, draw, finish_turn, playout, score


class MonteCarlo(Cautious):
    """Determinized Monte Carlo search with greedy playouts."""

    name = "montecarlo"
    description = "determinized Monte Carlo search over draws and discards, greedy playouts"

    def __init__(
        self,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 24,
        candidates: int = 4,
        depth: int = 40,
        confidence: float = 2.0,
        playout_hope: bool = False,
    ) -> None:
        super().__init__(rng=rng)
        if samples < 2 or candidates < 1 or depth < 1 or confidence < 0:
            raise ValueError("samples >= 2, candidates >= 1, depth >= 1 and confidence >= 0 are needed")
        self.samples = samples
        self.candidates = candidates
        self.depth = depth
        self.confidence = confidence
        self.playout_hope = playout_hope

    @property
    def params(self) -> dict[str, float]:
        return {
            "samples": self.samples, "candidates": self.candidates, "depth": self.depth, "confidence": self.confidence,
            "playout_hope": self.playout_hope,
        }  # fmt: skip

    def _known(self, seat: int) -> int:
        return self.taken[seat] if seat < len(self.taken) else 0

    def determinize(self, view: PlayerView) -> Position:
        """Deal the unseen cards at random, consistently with the view."""
        table = 0
        for meld in view.table:
            table |= meld.cards
        pile = sum(1 << c for c in view.discard_pile)
        holdings = [0] * view.n_players
        holdings[view.seat] = view.holding
        hidden = FULL_DECK & ~view.holding & ~table & ~pile
        for seat in range(view.n_players):
            if seat != view.seat:
                known = self._known(seat) & hidden
                holdings[seat] = known
                hidden &= ~known
        unseen = list(iter_cards(hidden))
        order = [unseen[i] for i in self.rng.permutation(len(unseen)).tolist()]
        for seat in range(view.n_players):
            if seat != view.seat:
                need = view.holding_sizes[seat] - holdings[seat].bit_count()
                for card in order[:need]:
                    holdings[seat] |= 1 << card
                order = order[need:]
        return Position(holdings, order, list(view.discard_pile), view.table_masks, list(view.has_melded),
                        view.n_rebuilds)  # fmt: skip

    def _better(self, rewards: list[list[float]]) -> int:
        """Return the candidate to play: 0 (the default) unless another beats it clearly.

        Candidates are compared on the same deals, so the per-deal differences are paired;
        another candidate wins only if its mean gain over candidate 0 exceeds `confidence`
        standard errors.
        """
        base = np.array(rewards[0])
        best, best_gain = 0, 0.0
        for i in range(1, len(rewards)):
            diff = np.array(rewards[i]) - base
            gain = float(diff.mean())
            spread = float(diff.std(ddof=1)) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
            if gain > best_gain and gain > self.confidence * spread:
                best, best_gain = i, gain
        return best

    def _after_my_turn(self, position: Position, view: PlayerView) -> float:
        return playout(
            position, view.next_seat(), me=view.seat, rules=view.rules, arr=self._arrange(view.rules), rng=self.rng,
            depth=self.depth, hope=self.hope if self.playout_hope else 0.0,
        )  # fmt: skip

    def draw(self, view: PlayerView) -> Pile:
        top = view.top_discard
        if top is None:
            return Pile.STOCK
        rules, arr = view.rules, self._arrange(view.rules)
        default = takes_discard(view.holding, top, fits=self._fitting(view), arr=arr)
        choices = (default, not default)
        rewards: list[list[float]] = [[], []]
        for _ in range(self.samples):
            base = self.determinize(view)
            for i, take in enumerate(choices):
                position = base.copy()
                card = draw(position, view.seat, take=take, rules=rules, rng=self.rng)
                if card is None:
                    rewards[i].append(0.0)
                    continue
                melded = view.has_melded[view.seat]
                rummy = finish_turn(position, view.seat, card if take else None, rules=rules, arr=arr,
                                    melded_before=melded, hope=self.hope)  # fmt: skip
                if rummy is not None:
                    rewards[i].append(score(position, view.seat, view.seat, rummy, rules))
                else:
                    rewards[i].append(self._after_my_turn(position, view))
        return Pile.DISCARD if choices[self._better(rewards)] else Pile.STOCK

    def discard(self, view: PlayerView) -> int:
        options = self.ranked_discards(view)[: self.candidates]
        if len(options) <= 1:
            return options[0] if options else super().discard(view)
        rewards: list[list[float]] = [[] for _ in options]
        for _ in range(self.samples):
            base = self.determinize(view)
            for i, card in enumerate(options):
                position = base.copy()
                position.holdings[view.seat] ^= 1 << card
                position.discard_pile.append(card)
                if not position.holdings[view.seat]:
                    return card  # out by discard
                rewards[i].append(self._after_my_turn(position, view))
        return options[self._better(rewards)]
