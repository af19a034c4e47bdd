"""Fast playouts for searching bots: a hand played on to its end by the greedy policy.

A playout works on plain masks and lists, with no views and no checks beyond what the
greedy policy itself respects (R4.5, R4.7, R7.2), so a search can afford many of them.
It is a model of the rest of the hand, not the engine: bots use it on a determinized
copy of what they know, never on the real game.

`rewards` judges a `Decision`'s candidates on many determinized positions at once. It
has two implementations that give the same numbers: the Python one here, and a
compiled twin (`rummysim.compiled.playouts`) that `rummysim.compiled` registers with
`use_compiled` and that is used whenever the compiled engine loads. A playout draws its
random numbers (the stock rebuilds, R10.1) from its position's counter-based stream
`Position.key`, so both implementations shuffle alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from rummysim.arrangement import Arranger, arranger
from rummysim.cards import FULL_DECK, points
from rummysim.core import block_points, block_winner, blocked, may_rebuild, out_points
from rummysim.moves import Meld
from rummysim.rules import Rules, StockOut
from rummysim.seeding import derive, permutation
from rummysim.strategies.cautious import hopeful_discard
from rummysim.strategies.greedy import choose_discard, plan_plays, takes_discard
from rummysim.strategies.tactics import fitting_cards


@dataclass
class Position:
    """A determinized position: every holding, the stock (top last) and the rest."""

    holdings: list[int]
    stock: list[int]
    discard_pile: list[int]
    table: list[int]
    has_melded: list[bool]
    n_rebuilds: int = 0
    key: int = 0
    """The key of the position's stream: stock rebuild r shuffles with sub-key 1 + r (as the engine's)."""

    def copy(self) -> Position:
        return Position(
            list(self.holdings), list(self.stock), list(self.discard_pile), list(self.table),
            list(self.has_melded), self.n_rebuilds, self.key,
        )  # fmt: skip


def score(position: Position, *, winner: int, me: int, rummy: bool, rules: Rules) -> float:
    """Return my reward when `winner` goes out: +points if I win, -points if another does (R8)."""
    won = out_points([points(h, ace_value=rules.ace_value) for h in position.holdings], rummy, rules.rummy_multiplier)
    return float(won if winner == me else -won)


def block_score(position: Position, *, me: int, rules: Rules) -> float:
    """Return my reward when the hand is blocked: the lowest hand value wins the differences (R12.3); 0 for a tie."""
    values = [points(h, ace_value=rules.ace_value) for h in position.holdings]
    winner = block_winner(values)
    if winner < 0:
        return 0.0
    won = block_points(values, winner)
    return float(won if winner == me else -won)


def _cut_off(position: Position, me: int, rules: Rules) -> float:
    """Return the reward of a playout stopped early: how far ahead I am in points held."""
    mine = points(position.holdings[me], ace_value=rules.ace_value)
    others = [points(h, ace_value=rules.ace_value) for s, h in enumerate(position.holdings) if s != me]
    return (min(others) - mine) / 2


def finish_turn(
    position: Position,
    seat: int,
    taken: int | None,
    *,
    rules: Rules,
    arr: Arranger,
    melded_before: bool,
    hope: float = 0.0,
) -> bool | None:
    """Play a drawn seat's melds, lay-offs and discard with the greedy policy.

    With `hope` > 0 the discard keeps cards that may still meld (`hopeful_discard`).
    Return None if the seat is still in, else whether it went rummy (it went out).
    """
    holding = position.holdings[seat]
    fits = fitting_cards(position.table, arr.ace)
    plays, left = plan_plays(
        holding, position.table, fits=fits, rules=rules, taken=taken, arr=arr, melded=melded_before
    )
    if plays:
        for play in plays:
            if isinstance(play, Meld):
                position.table.append(play.cards)
            else:
                position.table[play.meld] |= 1 << play.card
        position.has_melded[seat] = True
        holding = left
    if holding:
        if hope:
            unseen = FULL_DECK & ~holding & ~sum(position.table) & ~sum(1 << c for c in position.discard_pile)
            card = hopeful_discard(holding, taken=taken, unseen=unseen, hope=hope, rules=rules, arr=arr)
        else:
            card = choose_discard(holding, taken=taken, rules=rules, arr=arr)
        holding ^= 1 << card
        position.discard_pile.append(card)
    position.holdings[seat] = holding
    return None if holding else not melded_before


def draw(position: Position, seat: int, *, take: bool, rules: Rules) -> int | None:
    """Draw for a seat (the discard if `take`); return the card, or None if the hand stalls (R10)."""
    if take and position.discard_pile:
        card = position.discard_pile.pop()
    else:
        if not position.stock:
            if rules.stock_out is StockOut.BLOCK or not may_rebuild(
                len(position.discard_pile), position.n_rebuilds, rules.stall_after_rebuilds
            ):
                return None
            rest = position.discard_pile[:-1]
            order = permutation(derive(position.key, 1 + position.n_rebuilds), len(rest))
            position.stock = [rest[i] for i in order]
            position.discard_pile = position.discard_pile[-1:]
            position.n_rebuilds += 1
        card = position.stock.pop()
    position.holdings[seat] |= 1 << card
    return card


def playout(
    position: Position,
    seat: int,
    *,
    me: int,
    rules: Rules,
    arr: Arranger,
    depth: int,
    hope: float = 0.0,
) -> float:
    """Play the hand on from `seat`'s draw with the greedy policy for every seat; return my reward.

    With `hope` > 0 my own discards keep cards that may still meld (see `finish_turn`).
    """
    n = len(position.holdings)
    block = rules.stock_out is StockOut.BLOCK
    for _ in range(depth):
        if block and blocked(len(position.stock), block):
            return block_score(position, me=me, rules=rules)
        top = position.discard_pile[-1] if position.discard_pile else None
        fits = fitting_cards(position.table, arr.ace)
        take = top is not None and takes_discard(
            position.holdings[seat], top, fits=fits, arr=arr, rules=rules, melded=position.has_melded[seat],
            table=position.table,
        )  # fmt: skip
        card = draw(position, seat, take=take, rules=rules)
        if card is None:
            return 0.0
        melded_before = position.has_melded[seat]
        rummy = finish_turn(
            position, seat, card if take else None, rules=rules, arr=arr, melded_before=melded_before,
            hope=hope if seat == me else 0.0,
        )  # fmt: skip
        if rummy is not None:
            return score(position, winner=seat, me=me, rummy=rummy, rules=rules)
        seat = (seat + 1) % n
    return _cut_off(position, me, rules)


DRAW, DISCARD = 0, 1
"""`Decision.kind`: judging the draw (options 1, take the discard, and 0, draw from the stock) or the discard."""


@dataclass(frozen=True)
class Decision:
    """A decision of seat `me` and its candidates, to judge by playouts (`rewards`).

    For the draw, each candidate is drawn, then the rest of the turn is played like
    greedy with `hope` (`finish_turn`); for the discard, the card is discarded. Then the
    hand is played on from the next seat for at most `depth` turns, my own later turns
    discarding with `later_hope`.
    """

    me: int
    kind: int
    options: tuple[int, ...]
    melded: bool
    """Whether `me` had melded before this turn (going out now would not be rummy, R8.3)."""
    depth: int
    hope: float = 0.0
    later_hope: float = 0.0


Rewards = Callable[[Sequence[Position], Decision, Rules], np.ndarray]
"""Judges a decision on positions: my reward per (candidate, position), an array of that shape."""


def _reward(position: Position, decision: Decision, option: int, *, rules: Rules, arr: Arranger) -> float:
    me = decision.me
    if decision.kind == DRAW:
        take = bool(option) and bool(position.discard_pile)  # with no discard pile, taking draws from the stock
        card = draw(position, me, take=take, rules=rules)
        if card is None:
            return 0.0
        rummy = finish_turn(position, me, card if take else None, rules=rules, arr=arr,
                            melded_before=decision.melded, hope=decision.hope)  # fmt: skip
    else:
        position.holdings[me] ^= 1 << option
        position.discard_pile.append(option)
        rummy = None if position.holdings[me] else not decision.melded  # out by discard (R7.1)
    if rummy is not None:
        return score(position, winner=me, me=me, rummy=rummy, rules=rules)
    nxt = (me + 1) % len(position.holdings)
    return playout(position, nxt, me=me, rules=rules, arr=arr, depth=decision.depth, hope=decision.later_hope)


def python_rewards(positions: Sequence[Position], decision: Decision, rules: Rules) -> np.ndarray:
    """`Rewards` played in Python: each candidate on a copy of each position."""
    arr = arranger(rules)
    out = np.zeros((len(decision.options), len(positions)))
    for s, base in enumerate(positions):
        for c, option in enumerate(decision.options):
            out[c, s] = _reward(base.copy(), decision, option, rules=rules, arr=arr)
    return out


_compiled: Callable[[], Rewards | None] | None = None


def use_compiled(loader: Callable[[], Rewards | None]) -> None:
    """Register the compiled twin of `python_rewards`: `loader` returns it, or None where it cannot load."""
    global _compiled
    _compiled = loader


@contextlib.contextmanager
def python_only() -> Iterator[None]:
    """Judge with the Python playouts inside the block (`rummysim bench --bots` times both)."""
    global _compiled
    saved, _compiled = _compiled, None
    try:
        yield
    finally:
        _compiled = saved


def rewards(positions: Sequence[Position], decision: Decision, rules: Rules) -> np.ndarray:
    """Return my reward per (candidate, position): compiled when it loads, else in Python (the same numbers)."""
    judge = _compiled() if _compiled is not None else None
    return (judge or python_rewards)(positions, decision, rules)
