"""expert's deals in plain Python: the twin of `rummysim.compiled.expert_playout.determinize` (the same names).

A seat's view becomes a `Position` whose other holdings hold only the cards they are
known to (`position_of`); `determinize` deals the rest at random from a key with
`rummysim.seeding.permutation`, and with ``keep`` deals each other seat's hidden cards as
a player building melds keeps them (`kept`). Part of the twin, `rummysim.strategies.expert_twin`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from rummysim.cards import FULL_DECK, card_points
from rummysim.rules import Rules
from rummysim.seeding import derive, permutation
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import melds_with, potential
from rummysim.strategies.expert import DANGER_KEY, KEEP_HOPE, RESTACK
from rummysim.table import TableMeld


@dataclass
class Position:
    """A hand's state as a search sees it: every holding dealt, the stock in order (its top last)."""

    rules: Rules
    holdings: list[int]
    sizes: list[int]
    has_melded: list[bool]
    pile: list[int]
    stock: list[int]
    table: tuple[TableMeld, ...]
    known: list[int]
    """Per seat, the cards it took from the discard pile and still holds (public)."""
    seen: int
    """The public cards gone: the upcard, the discards, the melds and lay-offs."""
    turn: int
    rebuilds: int
    drawn: int | None = None
    taken: int | None = None

    def view(self, seat: int) -> PlayerView:
        """Return the view of `seat` the Python bots decide on."""
        n = self.rules.n_players
        return PlayerView(
            seat=seat, n_players=n, dealer=(seat - 1) % n, rules=self.rules, hand=0, turn=self.turn,
            holding=self.holdings[seat], drawn=self.drawn, taken=self.taken, table=self.table,
            discard_pile=tuple(self.pile), stock_size=len(self.stock), holding_sizes=tuple(self.sizes),
            has_melded=tuple(self.has_melded), scores=(0,) * n, n_rebuilds=self.rebuilds, history=(),
        )  # fmt: skip


def position_of(view: PlayerView, *, seen: int, taken: list[int]) -> Position:
    """Return a seat's view as a position whose other holdings hold only the cards they are known to."""
    n = view.n_players
    known = [0] * n
    for seat, cards in enumerate(taken[:n]):
        known[seat] = cards & view.holding if seat == view.seat else cards & ~view.holding
    holdings = [known[s] if s != view.seat else view.holding for s in range(n)]
    return Position(
        view.rules, holdings, list(view.holding_sizes), list(view.has_melded), list(view.discard_pile),
        [-1] * view.stock_size,  # cards unknown: `determinize` deals them
        tuple(TableMeld(m, -1) for m in view.table_masks), known, seen, view.turn, view.n_rebuilds, view.drawn,
        view.taken,
    )  # fmt: skip


def kept(deck: list[int], at: int, k: int, extra: int, fixed: int, pool: int, rules: Rules) -> int:
    """Keep `k` of the ``k + extra`` cards at ``deck[at:]`` as a player building melds would; return them with `fixed`.

    While more than `k` are dealt, the card of most points less `KEEP_HOPE` times its
    potential (with the cards held, `fixed` included, and those of `pool` not held; the
    later card on a tie) changes places with the last card dealt and is dropped.
    """
    n = k + extra
    while n > k:
        holding = fixed | sum(1 << card for card in deck[at : at + n])
        scores = [
            card_points(card, ace_value=rules.ace_value)
            - KEEP_HOPE * potential(card, holding, pool & ~holding, rules.ace)
            for card in deck[at : at + n]
        ]
        worst = at + max(range(n), key=lambda i: (scores[i], i))
        n -= 1
        deck[worst], deck[at + n] = deck[at + n], deck[worst]
    return fixed | sum(1 << card for card in deck[at : at + k])


def determinize(view: Position, me: int, key: int, keep: int = 0) -> Position:
    """Deal the cards `me` has not seen at random from `key`: each other holding keeps its size and its known cards.

    With `keep` above 0 each other seat is dealt up to `keep` more cards than it hides (no
    more than ``turn // seats``) and keeps them as `kept` does; once a card is dropped the
    rest is shuffled again with ``derive(key, RESTACK)`` to make the stock.
    """
    hidden = FULL_DECK & ~view.holdings[me]
    for card in view.pile:
        hidden &= ~(1 << card)
    for meld in view.table:
        hidden &= ~meld.cards
    for cards in view.known:
        hidden &= ~cards
    pool = hidden | view.holdings[me]
    deck = [card for card in range(52) if hidden >> card & 1]
    deck = [deck[i] for i in permutation(key, len(deck))]
    dealt = copy.deepcopy(view)
    n_seats, at, dropped = len(dealt.holdings), 0, 0
    for seat in range(n_seats):
        if seat != me:
            k = view.sizes[seat] - view.known[seat].bit_count()
            extra = min(keep, view.turn // n_seats, len(deck) - at - k) if k > 0 else 0
            dealt.holdings[seat] = kept(deck, at, k, extra, view.known[seat], pool, view.rules)
            at += k
            dropped += extra
    if len(deck) - at != len(view.stock):
        raise AssertionError("a view's card counts do not add up to 52 (R1.2)")
    rest = deck[at:]
    dealt.stock = [rest[i] for i in permutation(derive(key, RESTACK), len(rest))] if dropped else rest
    return dealt


def dealt_dangers(p: Position, me: int, key: int, keep: int, deals: int) -> dict[int, float]:
    """Each card `me` holds: the share of `deals` deals (`determinize` with `keep`) where the next seat could meld it.

    Deal d is dealt from ``derive(key, DANGER_KEY, d)``; a card counts where two of the next
    seat's cards make a three-card meld with it.
    """
    nxt = (me + 1) % len(p.holdings)
    mine = [card for card in range(52) if p.holdings[me] >> card & 1]
    counts = dict.fromkeys(mine, 0)
    for d in range(deals):
        theirs = determinize(p, me, derive(key, DANGER_KEY, d), keep).holdings[nxt]
        for card in mine:
            pairs = (meld & ~(1 << card) for meld in melds_with(p.rules.ace)[card])
            if any(others.bit_count() == 2 and others & theirs == others for others in pairs):
                counts[card] += 1
    return {card: count / deals for card, count in counts.items()}
