"""expert's search in plain Python: the slow, plainly written twin of `rummysim.compiled.expert` and `expert_playout`.

It answers each decision as the compiled search does, from the same view, the same key and
the same parameters, so the two must agree move for move (tests/test_expert_twin.py plays
whole games with either and plants differences to prove the check can fail). It shares no
code with the compiled search but the rules core (`rummysim.core`): the deals are made with
`rummysim.seeding.permutation` (`rummysim.strategies.expert_twin_deals`), the playouts ask
the Python bots (greedy's draw, rummy_hunter's melds, cautious' discards, the twins of the
compiled policies) on views
built from the position, and the rewards are scored with the core's functions (R8, R12.3).

`choose` and `plan` have the signatures of `rummysim.compiled.expert_calls`' own: an
`Expert` plays with the twin once its ``_module`` is this module. It is some thousand
times slower; it is an oracle, not a player.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping

from rummysim.cards import card_points, iter_cards, points
from rummysim.core import block_points, block_winner, blocked, keeps_taken, may_rebuild, out_points
from rummysim.moves import LayOff, Meld, Pile, Play, WentOutBy
from rummysim.rules import Rules, StockOut, TakeDiscard
from rummysim.seeding import derive, permutation
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import Cautious
from rummysim.strategies.expert import DISCARD, DRAW, PLAY, RACE_FROM, RACE_REACH
from rummysim.strategies.expert_twin_deals import Position, dealt_dangers, determinize, position_of
from rummysim.strategies.greedy import Greedy, plan_plays
from rummysim.strategies.rummy_hunter import RummyHunter
from rummysim.strategies.tactics import discardable
from rummysim.table import TableMeld

MAX_CANDIDATES = 16
"""The most discards a decision weighs (`rummysim.compiled.expert.MAX_CANDIDATES`)."""
STALLED, BLOCKED = "stalled", "blocked"


class Seat:
    """A seat's policy in the playouts (``SHREWD``): greedy's draw, rummy_hunter's melds, cautious' discards."""

    def __init__(self, params: Mapping[str, float]) -> None:
        self.hunter = RummyHunter(patience=int(params["patience"]), danger=int(params["danger"]))
        self.cautious = Cautious(caution=params["caution"], blind=params["blind"], hope=params["hope"])

    def draw(self, position: Position, seat: int) -> bool:
        return self.hunter.draw(position.view(seat)) is Pile.DISCARD

    def plays(self, position: Position, seat: int) -> list[Play]:
        return self.hunter.play(position.view(seat))

    def ranked(self, position: Position, seat: int, dangers: dict[int, float] | None = None) -> list[int]:
        """Cautious' ranking of the deadwood; with `dangers`, a card that lays off on no meld has that danger."""
        cautious = self.cautious
        cautious.seen, cautious.taken = position.seen, list(position.known)
        view = position.view(seat)
        if dangers is None:
            return cautious.ranked_discards(view) or [Greedy.discard(cautious, view)]
        dead = cautious._arrange(view.rules).deadwood_cards(view.holding) & discardable(view.holding, view.taken)
        unseen, fits = cautious.unseen(view), cautious._fitting(view)

        def score(card: int) -> float:
            if fits >> card & 1:
                return cautious.keep_score(card, view, unseen)
            hope = cautious.hope * cautious.potential(card, view, unseen)
            return card_points(card, ace_value=view.rules.ace_value) - hope - cautious.caution * dangers[card]

        return sorted(iter_cards(dead), key=lambda c: (score(c), c), reverse=True) or [Greedy.discard(cautious, view)]


def playout_seats(rules: Rules, me: int, own: Mapping[str, float]) -> list[Seat]:
    """Each seat's policy in `me`'s playouts (`rummysim.compiled.expert.playout_params`)."""
    bonus = rules.rummy_multiplier > 1
    others = {"patience": own["their_patience"] if bonus else 0, "danger": own["alarm"], "caution": 12.0,
              "blind": 0.0, "hope": 4.0}  # fmt: skip
    mine = {**others, "patience": own["patience"] if bonus else 0}
    mine |= {"caution": own["caution"], "blind": own["blind"], "hope": own["hope"]}
    return [Seat(mine if seat == me else others) for seat in range(rules.n_players)]


# -- a turn, step by step (rummysim.compiled.turn) -------------------------------------------------
def drawn(p: Position, seat: int, take: bool, key: int) -> bool:
    """Draw for a seat (R4.1, R10.1); False if the hand stalls (R10.2, R12.3)."""
    p.taken = None
    if take and p.pile:
        card = p.taken = p.pile.pop()
        p.known[seat] |= 1 << card
    else:
        if not p.stock and (p.rules.stock_out is StockOut.BLOCK or not rebuilt(p, key)):
            return False
        card = p.stock.pop()
    p.holdings[seat] |= 1 << card
    p.sizes[seat] += 1
    p.drawn = card
    return True


def rebuilt(p: Position, key: int) -> bool:
    """Shuffle the discard pile but its top card into a new stock; False if the hand stalls (R10.1, R10.2)."""
    if not may_rebuild(len(p.pile), p.rebuilds, p.rules.stall_after_rebuilds):
        return False
    cards = p.pile[:-1]
    p.stock = [cards[i] for i in permutation(derive(key, 1 + p.rebuilds), len(cards))]
    p.pile = p.pile[-1:]
    p.rebuilds += 1
    return True


def played(p: Position, seat: int, plays: list[Play]) -> WentOutBy | None:
    """Make a seat's plays (R5, R6); return how it went out, if it did."""
    table = list(p.table)
    for play in plays:
        if isinstance(play, Meld):
            cards = play.cards
            table.append(TableMeld(cards, seat))
        else:
            cards = 1 << play.card
            table[play.meld] = table[play.meld]._replace(cards=table[play.meld].cards | cards)
        p.holdings[seat] ^= cards
        p.seen |= cards
        p.known[seat] &= ~cards
    if p.taken is not None and keeps_taken(p.holdings[seat], p.taken, p.rules.take_discard is TakeDiscard.MUST_USE):
        raise AssertionError("a playout kept the card it took (R12.2)")
    if plays:
        p.table = tuple(table)
        p.has_melded[seat] = True
        p.sizes[seat] = p.holdings[seat].bit_count()
        if not p.holdings[seat]:
            return WentOutBy.MELD if isinstance(plays[-1], Meld) else WentOutBy.LAY_OFF
    return None


def discarded(p: Position, seat: int, card: int) -> WentOutBy | None:
    """Make a seat's discard (R4.3); return DISCARD if it went out so (R7.1)."""
    p.holdings[seat] ^= 1 << card
    p.sizes[seat] -= 1
    p.pile.append(card)
    p.seen |= 1 << card
    p.known[seat] &= ~(1 << card)
    return None if p.holdings[seat] else WentOutBy.DISCARD


def turn(p: Position, seat: int, policy: Seat, key: int) -> WentOutBy | str | None:
    """Play a seat's whole turn with its policy (R4); return how it went out, `STALLED`, `BLOCKED` or None."""
    if blocked(len(p.stock), p.rules.stock_out is StockOut.BLOCK):
        return BLOCKED
    p.drawn = p.taken = None
    if not drawn(p, seat, policy.draw(p, seat), key):
        return STALLED
    out = played(p, seat, policy.plays(p, seat))
    return out or discarded(p, seat, policy.ranked(p, seat)[0])


# -- the rewards ---------------------------------------------------------------------------------
def reward(p: Position, me: int, winner: int, how: WentOutBy, rummy: bool) -> float:
    """My reward when the hand ends: the points I win, or less the points another seat wins (R8, R12.3)."""
    values = [points(h, ace_value=p.rules.ace_value) for h in p.holdings]
    if how is WentOutBy.BLOCK:
        winner = block_winner(values)
        gained = block_points(values, winner) if winner >= 0 else 0
    else:
        gained = out_points(values, rummy, p.rules.rummy_multiplier)
    if winner < 0:
        return 0.0
    return float(gained if winner == me else -gained)


def cut_off(p: Position, me: int) -> float:
    """The reward of a playout stopped at its depth: half the points between me and the least other holding."""
    values = [points(h, ace_value=p.rules.ace_value) for h in p.holdings]
    least = min(v for s, v in enumerate(values) if s != me)
    return (least - values[me]) / 2


def play_on(p: Position, seat: int, me: int, seats: list[Seat], depth: int, key: int) -> float:
    """Play the hand on from `seat`'s turn, at most `depth` turns; return my reward."""
    n = p.rules.n_players
    for _ in range(depth):
        if p.turn >= p.rules.stall_after_turns:
            return 0.0
        before = p.has_melded[seat]
        out = turn(p, seat, seats[seat], key)
        if out == STALLED:
            return 0.0
        if out == BLOCKED:
            return reward(p, me, -1, WentOutBy.BLOCK, False)
        p.turn += 1
        if isinstance(out, WentOutBy):
            return reward(p, me, seat, out, not before)
        seat = (seat + 1) % n
    return cut_off(p, me)


def end_turn(
    p: Position, me: int, out: WentOutBy | None, before: bool, seats: list[Seat], depth: int, key: int
) -> float:
    if out is not None:
        return reward(p, me, me, out, not before)
    p.turn += 1
    return play_on(p, (me + 1) % p.rules.n_players, me, seats, depth, key)


def alternative(p: Position, me: int, seats: list[Seat]) -> list[Play]:
    """The other plan than the default's: greedy's plays when the default hides its melds, else none."""
    if seats[me].plays(p, me):
        return []
    return Greedy.play(seats[me].hunter, p.view(me))


def attempt(
    p: Position, kind: int, option: int, me: int, before: bool, seats: list[Seat], depth: int, key: int
) -> float:
    """Play candidate `option` of the decision on a dealt position, then the hand on; return my reward."""
    if kind == DRAW:
        p.drawn = p.taken = None
        if not drawn(p, me, option == 1, key):
            return 0.0
        kind, option = PLAY, 0
    if kind == PLAY:
        out = played(p, me, seats[me].plays(p, me) if option == 0 else alternative(p, me, seats))
        if out is not None:
            return end_turn(p, me, out, before, seats, depth, key)
        option = seats[me].ranked(p, me)[0]
    return end_turn(p, me, discarded(p, me, option), before, seats, depth, key)


def options(
    p: Position, kind: int, me: int, seats: list[Seat], limit: int, dangers: dict[int, float] | None = None
) -> list[int]:
    """The decision's candidates, the default first (the discards ranked with `dangers` if given)."""
    if kind == DRAW:
        if seats[me].draw(p, me):
            return [1, 0]
        return [0, 1] if takes_legal(p, me) else [0]
    if kind == PLAY:
        if not seats[me].plays(p, me):
            return [0, 1] if Greedy.play(seats[me].hunter, p.view(me)) else [0]
        must_play_taken = p.rules.take_discard is TakeDiscard.MUST_USE and p.taken is not None
        return [0] if must_play_taken else [0, 1]
    return seats[me].ranked(p, me, dangers)[:limit]


def takes_legal(p: Position, me: int) -> bool:
    """Whether taking the top discard is a move the seat could finish legally (R4.6; R12.2 must play it)."""
    if not p.pile:
        return False
    if p.rules.take_discard is TakeDiscard.FREE:
        return True
    top = p.pile[-1]
    view = p.view(me)
    hunter = RummyHunter()
    fits = hunter._fitting(view)
    _, left = plan_plays(
        p.holdings[me] | 1 << top, view.table_masks, fits=fits, rules=p.rules, taken=top,
        arr=hunter._arrange(p.rules), melded=p.has_melded[me],
    )  # fmt: skip
    return not left >> top & 1


def gain(rewards: list[list[float]], c: int) -> tuple[float, float]:
    """Candidate `c`'s mean paired gain over the default on the deals it met, and its standard error."""
    n = len(rewards[c])
    total = 0.0
    for s in range(n):
        total += rewards[c][s] - rewards[0][s]
    mean = total / n
    spread = 0.0
    for s in range(n):
        d = rewards[c][s] - rewards[0][s] - mean
        spread += d * d
    return mean, math.sqrt(spread / (n - 1) / n)


def trails(rewards: list[list[float]], c: int, drop: float) -> bool:
    """Whether candidate `c` trails the default by more than `drop` standard errors: it meets no more deals."""
    mean, error = gain(rewards, c)
    return mean < -drop * error


def better(rewards: list[list[float]], confidence: float) -> int:
    """The candidate to play: 0 (the default) unless another's mean paired gain exceeds `confidence` standard errors."""
    best, best_gain = 0, 0.0
    for c in range(1, len(rewards)):
        if len(rewards[c]) < 2:
            continue
        mean, error = gain(rewards, c)
        if mean > best_gain and mean > confidence * error:
            best, best_gain = c, mean
    return best


def searched(
    view: PlayerView, kind: int, *, key: int, seen: int, taken: list[int], melded_before: bool,
    params: Mapping[str, float],
) -> tuple[list[int], list[list[float]]]:  # fmt: skip
    """Return a decision's candidates and each one's rewards on the deals it met (none searched if there is one).

    A race: every candidate meets the first `RACE_FROM` deals; after each deal from then on,
    a candidate trailing the default by more than ``drop`` standard errors meets no more,
    and the deals go on while the budget (``samples`` deals of every candidate) lasts, at
    most ``RACE_REACH * samples`` deals, and more than the default is left.
    """
    me = view.seat
    p = position_of(view, seen=seen, taken=taken)
    seats = playout_seats(view.rules, me, params)
    keep, deals = int(params["their_keep"]), int(params["danger_deals"])
    reads = kind == DISCARD and deals > 0 and p.has_melded[(me + 1) % len(p.holdings)]
    dangers = dealt_dangers(p, me, key, keep, deals) if reads else None
    candidates = options(p, kind, me, seats, min(int(params["candidates"]), MAX_CANDIDATES), dangers)
    if len(candidates) == 1:
        return candidates, []
    samples, depth, drop = int(params["samples"]), int(params["depth"]), float(params["drop"])
    budget, reach = samples * len(candidates), samples * RACE_REACH
    rewards: list[list[float]] = [[] for _ in candidates]
    racing, spent, s = list(range(len(candidates))), 0, 0
    while s < reach and spent + len(racing) <= budget and len(racing) > 1:
        sample_key = derive(key, s)
        dealt = determinize(p, me, sample_key, keep)
        for c in racing:
            reward = attempt(copy.deepcopy(dealt), kind, candidates[c], me, melded_before, seats, depth, sample_key)
            rewards[c].append(reward)
            spent += 1
        s += 1
        if drop > 0 and s >= RACE_FROM:
            racing = [c for c in racing if c == 0 or not trails(rewards, c, drop)]
    return candidates, rewards


def choose(
    view: PlayerView, kind: int, *, key: int, seen: int, taken: list[int], melded_before: bool,
    params: Mapping[str, float],
) -> int:  # fmt: skip
    """Return a seat's move as `rummysim.compiled.expert_calls.choose` does, in plain Python."""
    candidates, rewards = searched(
        view, kind, key=key, seen=seen, taken=taken, melded_before=melded_before, params=params
    )
    return candidates[better(rewards, float(params["confidence"]))] if rewards else candidates[0]


def plan(view: PlayerView, option: int, *, seen: int, taken: list[int], params: Mapping[str, float]) -> list[Play]:
    """Return plan `option` of a seat's melds and lay-offs, as `rummysim.compiled.expert_calls.plan` does."""
    p = position_of(view, seen=seen, taken=taken)
    seats = playout_seats(view.rules, view.seat, params)
    plays = seats[view.seat].plays(p, view.seat) if option == 0 else alternative(p, view.seat, seats)
    return [Meld(play.cards) if isinstance(play, Meld) else LayOff(play.card, play.meld) for play in plays]
