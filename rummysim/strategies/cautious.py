"""cautious: greedy melds, a memory of every public card, and discards that keep hope and feed nobody.

Policy: draw, meld and lay off like greedy. It remembers every public card of the hand
from the events it observes (the discards, who took which discard, the melds and the
lay-offs), so it knows which cards are still unseen. Among its deadwood it discards the
card with the highest score of

    points - hope x (unseen cards that would complete a three-card meld with its holding)
           - caution x (expected melds the card would give the next player)

where the danger is 1 for a card that lays off on the table, 1 for a card that completes
a meld with two cards the next player took from the discard pile, and otherwise the
chance that the next player holds the rest of a meld (weighted by `blind`, 0 by default:
guessing at unseen cards cost more than it saved in testing). So it keeps cards that may
still meld, throws away dead ones, and does not hand the next player what it has shown
it wants.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from rummysim.arrangement import Arranger
from rummysim.cards import FULL_DECK, card_points, iter_cards
from rummysim.melds import meld_table
from rummysim.moves import Discarded, Drew, Event, HandStarted, LaidOff, Melded, Pile
from rummysim.rules import Ace, Rules
from rummysim.strategies.base import PlayerView
from rummysim.strategies.greedy import Greedy, choose_discard
from rummysim.strategies.tactics import discardable
from rummysim.table import cards_played


@cache
def melds_with(ace: Ace) -> tuple[tuple[int, ...], ...]:
    """Return, for each card, the legal melds that contain it."""
    table = meld_table(ace)
    return tuple(tuple(m for m in table if m >> card & 1) for card in range(52))


def potential(card: int, holding: int, unseen: int, ace: Ace) -> int:
    """Return how many three-card melds `card` could make with one holding card and one unseen card."""
    count = 0
    for meld in melds_with(ace)[card]:
        others = meld & ~(1 << card)
        if others.bit_count() == 2 and others & holding and others & unseen:
            count += 1
    return count


def hopeful_discard(holding: int, *, taken: int | None, unseen: int, hope: float, rules: Rules, arr: Arranger) -> int:
    """Return the deadwood card of most points less `hope` x its `potential` (cautious without danger)."""
    dead = arr.deadwood_cards(holding) & discardable(holding, taken)
    if not dead:
        return choose_discard(holding, taken=taken, rules=rules, arr=arr)
    ace_value = rules.ace_value
    return max(
        iter_cards(dead),
        key=lambda c: (card_points(c, ace_value=ace_value) - hope * potential(c, holding, unseen, rules.ace), c),
    )


class Cautious(Greedy):
    """Greedy with a card memory and discards that feed nobody."""

    name = "cautious"
    description = "greedy play, but remembers every public card and discards what helps nobody"

    def __init__(
        self, *, rng: np.random.Generator | None = None, caution: float = 12.0, blind: float = 0.0, hope: float = 4.0
    ) -> None:
        super().__init__(rng=rng)
        if caution < 0 or blind < 0 or hope < 0:
            raise ValueError("caution, blind and hope are numbers of at least 0")
        self.caution = caution
        self.blind = blind
        self.hope = hope
        self.seen = 0
        """Cards that went public this hand and left the game (discards, melds, lay-offs)."""
        self.taken: list[int] = []
        """Per seat, the cards it took from the discard pile and has not played."""

    @property
    def params(self) -> dict[str, float]:
        return {"caution": self.caution, "blind": self.blind, "hope": self.hope}

    def observe(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self.seen, self.taken = 1 << event.upcard if event.upcard >= 0 else 0, []
        elif isinstance(event, Drew) and event.pile is Pile.DISCARD and event.card is not None:
            while len(self.taken) <= event.seat:
                self.taken.append(0)
            self.taken[event.seat] |= 1 << event.card
        elif isinstance(event, Discarded):
            self.seen |= 1 << event.card
            if event.seat < len(self.taken):
                self.taken[event.seat] &= ~(1 << event.card)
        elif isinstance(event, (Melded, LaidOff)):
            played = cards_played(event)
            self.seen |= played
            if event.seat < len(self.taken):
                self.taken[event.seat] &= ~played

    def danger(self, card: int, view: PlayerView) -> float:
        """Return the expected number of melds `card` would give the next player (1 if it lays off)."""
        if self._fitting(view) >> card & 1:
            return 1.0  # anyone can take it and lay it off
        nxt = view.next_seat()
        known = self.taken[nxt] if nxt < len(self.taken) else 0
        unseen = self.unseen(view)
        n_unseen = unseen.bit_count()
        n_hidden = view.holding_sizes[nxt] - known.bit_count()  # its cards that nobody has seen
        if n_unseen < 2:
            return 0.0
        one = n_hidden / n_unseen  # chance that it holds a given unseen card
        two = one * (n_hidden - 1) / (n_unseen - 1)
        expected = 0.0
        for meld in melds_with(view.rules.ace)[card]:
            others = meld & ~(1 << card)
            if others.bit_count() != 2 or others & ~(unseen | known):
                continue  # a longer meld, or one whose cards are already out of reach
            from_known = (others & known).bit_count()
            expected += 1.0 if from_known == 2 else one if from_known == 1 else two * self.blind
        return min(expected, 1.0)

    def potential(self, card: int, view: PlayerView, unseen: int) -> int:
        """Return how many unseen cards would complete a three-card meld of `card` with the holding."""
        return potential(card, view.holding, unseen, view.rules.ace)

    def keep_score(self, card: int, view: PlayerView, unseen: int) -> float:
        """Return how much discarding `card` is worth: its points less its hope and its danger."""
        value = card_points(card, ace_value=view.rules.ace_value)
        return value - self.hope * self.potential(card, view, unseen) - self.caution * self.danger(card, view)

    def unseen(self, view: PlayerView) -> int:
        """Return the cards this seat has never seen: in no holding it knows of, not on the table or piles."""
        unseen = FULL_DECK & ~view.holding & ~self.seen & ~sum(1 << c for c in view.discard_pile)
        for known in self.taken:
            unseen &= ~known
        return unseen

    def ranked_discards(self, view: PlayerView) -> list[int]:
        """Return the deadwood cards it may discard, best discard first by `keep_score` (empty if none)."""
        dead = self._arrange(view.rules).deadwood_cards(view.holding) & discardable(view.holding, view.taken)
        unseen = self.unseen(view)
        return sorted(iter_cards(dead), key=lambda c: (self.keep_score(c, view, unseen), c), reverse=True)

    def discard(self, view: PlayerView) -> int:
        ranked = self.ranked_discards(view)
        return ranked[0] if ranked else super().discard(view)
