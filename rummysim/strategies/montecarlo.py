"""montecarlo: determinized Monte Carlo search over the draw and the discard.

Policy: for each decision it deals the cards it has not seen at random, consistently
with its view (cards an opponent took from the discard pile and has not played stay in
that opponent's holding; every holding keeps its size; the rest is the stock), `samples`
times. It reads the table too: it deals each opponent's hidden cards up to `tries` times
and keeps the deal that best fits a greedy-like player's past moves, one that holds no
meld once it has played and no two cards that would have melded with a card it
discarded or left on the discard pile. For each candidate (take the discard or draw from
the stock; discard one of its `candidates` best deadwood cards by cautious' score) it
plays every sample on to the end of the hand (at most `depth` turns): the rest of its
own turn, when judging a draw, with greedy melds and cautious' hopeful discard, and
every later turn of every seat with the greedy policy. Its default is cautious' choice;
it plays another candidate only when that one's mean reward (the points it would win,
less the points another seat would win), judged on the same deals (common random
numbers), is better by more than `confidence` standard errors (`playout_hope` gives its
own later playout turns cautious' hopeful discard too). Melds and lay-offs are played
like greedy, except that while the rules pay a going-rummy bonus (R8.3) it hides its
melds like rummy_hunter: until it has melded, for its first `patience` turns of the hand
and while every opponent holds more than `alarm` cards, it plays nothing unless it can
play out its whole holding this turn (`patience` 0 never hides). All randomness comes
from the stream the engine gives it: each deal it determinizes gets its own stream
key, from which its playouts rebuild the stock (R10.1), the same for every candidate.
The playouts (`rummysim.strategies.rollout.rewards`) run compiled wherever the compiled
engine loads, and in Python otherwise, with the same numbers and so the same moves.
"""

from __future__ import annotations

import numpy as np

from rummysim.arrangement import Arranger
from rummysim.cards import FULL_DECK, iter_cards, points
from rummysim.moves import Discarded, Drew, Event, HandStarted, Pile, Play, StockRebuilt
from rummysim.rules import Ace, TakeDiscard
from rummysim.seeding import stream_key
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import Cautious, melds_with
from rummysim.strategies.greedy import plays_taken, takes_discard
from rummysim.strategies.rollout import DISCARD, DRAW, Decision, Position, rewards
from rummysim.strategies.rummy_hunter import hunting_plays


class MonteCarlo(Cautious):
    """Determinized Monte Carlo search with greedy playouts; hides its melds to go rummy."""

    name = "montecarlo"
    description = "determinized Monte Carlo search over draws and discards, greedy playouts; hides melds to go rummy"
    searches = True

    def __init__(
        self,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 24,
        candidates: int = 4,
        depth: int = 40,
        confidence: float = 2.0,
        playout_hope: bool = False,
        tries: int = 1,
        patience: int = 6,
        alarm: int = 3,
    ) -> None:
        super().__init__(rng=rng)
        if samples < 2 or candidates < 1 or depth < 1 or confidence < 0 or tries < 1 or patience < 0 or alarm < 0:
            raise ValueError(
                "samples >= 2, candidates >= 1, depth >= 1, tries >= 1 and confidence, patience, alarm >= 0 are needed"
            )
        self.samples = samples
        self.candidates = candidates
        self.depth = depth
        self.confidence = confidence
        self.playout_hope = playout_hope
        self.tries = tries
        self.patience = patience
        self.alarm = alarm
        self.pile: list[int] = []
        """The discard pile as the events left it, top last."""
        self.passed: list[int] = []
        """Per seat, the cards it discarded or left on top of the discard pile this hand."""
        self.has_turned: list[bool] = []
        """Per seat, whether it has finished a turn this hand (a greedy-like seat then holds no meld)."""

    @property
    def params(self) -> dict[str, float]:
        return {
            "samples": self.samples, "candidates": self.candidates, "depth": self.depth, "confidence": self.confidence,
            "playout_hope": self.playout_hope, "tries": self.tries, "patience": self.patience, "alarm": self.alarm,
        }  # fmt: skip

    def play(self, view: PlayerView) -> list[Play]:
        if self.patience and view.rules.rummy_multiplier > 1:
            return hunting_plays(
                view, fits=self._fitting(view), arr=self._arrange(view.rules), patience=self.patience,
                danger=self.alarm,
            )  # fmt: skip
        return super().play(view)

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, HandStarted):
            self.pile, self.passed, self.has_turned = [event.upcard] if event.upcard >= 0 else [], [], []
        elif isinstance(event, Drew):
            self._grow(event.seat)
            if event.pile is Pile.DISCARD and self.pile:
                self.pile.pop()
            elif self.pile:
                self.passed[event.seat] |= 1 << self.pile[-1]  # it left this card for the stock
        elif isinstance(event, Discarded):
            self._grow(event.seat)
            self.pile.append(event.card)
            self.passed[event.seat] |= 1 << event.card
            self.has_turned[event.seat] = True
        elif isinstance(event, StockRebuilt):
            self.pile = self.pile[-1:]

    def _grow(self, seat: int) -> None:
        while len(self.passed) <= seat:
            self.passed.append(0)
            self.has_turned.append(False)

    def _known(self, seat: int) -> int:
        return self.taken[seat] if seat < len(self.taken) else 0

    def determinize(self, view: PlayerView) -> Position:
        """Deal the unseen cards at random, consistently with the view.

        With `tries` > 1 each other seat's hidden cards are dealt up to `tries` times and
        the deal that best fits how a greedy-like seat has played is kept (`misfits`).
        """
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
        arr = self._arrange(view.rules)
        for seat in range(view.n_players):
            if seat == view.seat:
                continue
            need = view.holding_sizes[seat] - holdings[seat].bit_count()
            pairs = self._pairs(seat, view.rules.ace) if self.tries > 1 else ()
            best, best_misfits = 0, -1
            for _ in range(self.tries):
                picks = self.rng.choice(len(unseen), size=need, replace=False).tolist() if need > 0 else []
                holding = holdings[seat] | sum(1 << unseen[i] for i in picks)
                if not pairs and not self._turned(seat):
                    best = holding
                    break
                misfits = self.misfits(holding, seat, pairs=pairs, arr=arr, ace_value=view.rules.ace_value)
                if best_misfits < 0 or misfits < best_misfits:
                    best, best_misfits = holding, misfits
                    if not misfits:
                        break
            holdings[seat] = best
            unseen = [c for c in unseen if not best >> c & 1]
        stock = [unseen[i] for i in self.rng.permutation(len(unseen)).tolist()]
        return Position(holdings, stock, list(view.discard_pile), view.table_masks, list(view.has_melded),
                        view.n_rebuilds, key=stream_key(self.rng))  # fmt: skip

    def _turned(self, seat: int) -> bool:
        return seat < len(self.has_turned) and self.has_turned[seat]

    def _pairs(self, seat: int, ace: Ace) -> tuple[int, ...]:
        """Return every two cards that make a three-card meld with a card `seat` passed on."""
        passed = self.passed[seat] if seat < len(self.passed) else 0
        return tuple(
            others
            for card in iter_cards(passed)
            for meld in melds_with(ace)[card]
            if (others := meld & ~(1 << card)).bit_count() == 2
        )

    def misfits(self, holding: int, seat: int, *, pairs: tuple[int, ...], arr: Arranger, ace_value: int) -> int:
        """Return how many signs say a greedy-like `seat` would not hold this after its play.

        Such a seat melds at once, so after its turn it holds no meld (one sign); and it
        neither discards nor leaves on the pile a card that melds with two it holds (a
        sign for each such pair: `pairs`). Cards drawn since may break the second, so
        the signs are counted, not required.
        """
        count = sum(1 for pair in pairs if holding & pair == pair)
        if self._turned(seat) and arr.deadwood(holding) < points(holding, ace_value=ace_value):
            count += 1
        return count

    def _better(self, rewards: np.ndarray) -> int:
        """Return the candidate to play: 0 (the default) unless another beats it clearly.

        Candidates are compared on the same deals, so the per-deal differences are paired;
        another candidate wins only if its mean gain over candidate 0 exceeds `confidence`
        standard errors.
        """
        base = rewards[0]
        best, best_gain = 0, 0.0
        for i in range(1, len(rewards)):
            diff = rewards[i] - base
            gain = float(diff.mean())
            spread = float(diff.std(ddof=1)) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
            if gain > best_gain and gain > self.confidence * spread:
                best, best_gain = i, gain
        return best

    def _judge(self, view: PlayerView, kind: int, options: tuple[int, ...]) -> int:
        """Return the index of the option to play, judged by playouts on `samples` determinized deals."""
        positions = [self.determinize(view) for _ in range(self.samples)]
        decision = Decision(
            view.seat, kind, options, melded=view.has_melded[view.seat], depth=self.depth, hope=self.hope,
            later_hope=self.hope if self.playout_hope else 0.0,
        )  # fmt: skip
        return self._better(rewards(positions, decision, view.rules))

    def draw(self, view: PlayerView) -> Pile:
        top = view.top_discard
        if top is None:
            return Pile.STOCK
        rules, melded = view.rules, view.has_melded[view.seat]
        fits, arr = self._fitting(view), self._arrange(rules)
        default = takes_discard(view.holding, top, fits=fits, arr=arr, rules=rules, melded=melded, table=self._masks)
        if (
            rules.take_discard is TakeDiscard.MUST_USE
            and not default
            and not plays_taken(view.holding, top, fits=fits, arr=arr, rules=rules, melded=melded, table=self._masks)
        ):
            return Pile.STOCK  # it could not play the card it took (R12.2)
        choices = (default, not default)
        best = self._judge(view, DRAW, tuple(int(take) for take in choices))
        return Pile.DISCARD if choices[best] else Pile.STOCK

    def discard(self, view: PlayerView) -> int:
        options = self.ranked_discards(view)[: self.candidates]
        if len(options) <= 1:
            return options[0] if options else super().discard(view)
        return options[self._judge(view, DISCARD, tuple(options))]
