"""One hand of rummy, R3 to R10: the private, mutable state and `play_hand`.

The engine deals (R3), asks each seat in turn to draw, play and discard (R4), checks
every answer with the pure rules of `rummysim.moves`, rebuilds the stock (R10.1),
stalls endless hands (R10.2) and scores the winner (R8). Bots see only frozen
`PlayerView` snapshots built here; the state itself is given to no bot (`rummysim.ending`
reads it to score the hand).

What a bot is handed cannot change the game: each seat's views carry that seat's own
copy of the rules (the engine plays from another, which no bot is given), every other
part of a view is an int, a tuple or a frozen record, and every answer is read into plain
values (`rummysim.bot_errors.read_plays`), within the bot's time limit, before it is checked.
A bot's exception, even SystemExit or its own KeyboardInterrupt, fails its hand
(`rummysim.bot_errors.is_bots`): only the user's Ctrl-C passes through.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from rummysim.bot_errors import BotErrors, Plays, Refused, in_time, is_bots, read_discard, read_draw, read_plays
from rummysim.cards import BITS as _BITS
from rummysim.cards import N_CARDS
from rummysim.core import blocked, keeps_taken, left_of, may_rebuild, out_of_turns, went_rummy
from rummysim.dealing import Deal, deal
from rummysim.ending import HandResult as HandResult  # defined there, importable from here as before
from rummysim.ending import finish, so_far
from rummysim.errors import BotError, ConfigError
from rummysim.moves import (
    Discarded,
    Drew,
    Event,
    HandStarted,
    Melded,
    Pile,
    Rejected,
    StockRebuilt,
    WentOutBy,
    check_discard,
    check_draw,
    shown,
)
from rummysim.records import TurnRecord
from rummysim.rules import MAX_PLAYERS, Rules, StockOut, TakeDiscard
from rummysim.seeding import derive, hand_key, permutation
from rummysim.strategies import make_lineup
from rummysim.strategies.base import PlayerView, Strategy, observes
from rummysim.table import Table, checked_plays, taken_unused
from rummysim.timing import record_interrupts
from rummysim.trace import check_cards, turn_record

_new = tuple.__new__
"""Build a named tuple from a tuple of its fields, in order: a Python call fewer than ``Cls(...)``."""

_STOCK, _DISCARD = Pile.STOCK, Pile.DISCARD  # a member read through its enum class costs a lookup each time

# The events of a draw and of a discard take few values: each is made once, here, and shared by every hand.
# A named tuple is immutable and equal to one made anew, and a turn then builds none.
_SEATS = range(MAX_PLAYERS)
_DREW_STOCK = tuple(_new(Drew, (seat, _STOCK, None)) for seat in _SEATS)
_DREW_DISCARD = tuple(tuple(_new(Drew, (seat, _DISCARD, card)) for card in range(N_CARDS)) for seat in _SEATS)
_DISCARDED = tuple(tuple(_new(Discarded, (seat, card)) for card in range(N_CARDS)) for seat in _SEATS)


class _Stalled(Exception):
    """The hand can not go on (R10.2)."""


class _Blocked(Exception):
    """The stock is empty at the start of a turn under block rummy: the hand ends (R12.3)."""


class _Hand:
    """The private, mutable state of one hand."""

    # slots: the turn reads and writes these attributes some hundred times a turn, and a slot is the fastest
    # attribute (an instance dict of more than 30 keys no longer shares its keys, and reads slow down)
    __slots__ = (
        "audit", "dealer", "discard_pile", "discards", "drawn", "draws", "errors", "game", "hand", "has_melded",
        "history", "holdings", "key", "n", "n_rebuilds", "names", "observers", "plays", "reads", "rules", "scores",
        "seat_rules", "sizes", "start", "stock", "strategies", "table", "taken", "trace", "turn", "watched",
    )  # fmt: skip

    def __init__(
        self, strategies: Sequence[Strategy], *, rules: Rules, names: Sequence[str], start: Deal, dealer: int,
        scores: tuple[int, ...], key: int, seed: int, game: int, hand: int, trace: bool, audit: bool,
        time_limit: float | None,
    ) -> None:  # fmt: skip
        self.strategies = strategies
        self.rules = rules
        # each seat's views show its own copy of the rules (`Rules.__copy__`); the game reads only self.rules
        self.seat_rules = [rules.__copy__() for _ in strategies]
        self.names = names
        self.n = rules.n_players
        self.dealer = dealer
        self.scores = scores
        self.key = key
        self.game, self.hand = game, hand
        self.start = start
        self.holdings = list(start.holdings)
        self.sizes = [h.bit_count() for h in self.holdings]
        self.discard_pile = tuple(start.discard_pile)  # a tuple, shared by the views until it changes
        self.stock = list(reversed(start.stock))  # top at the end, for pop()
        self.table: Table = start.table
        # a tuple, shared by the views, made anew in the rare turn that changes it
        self.has_melded = (
            tuple(any(m.melded_by == seat for m in start.table) for seat in range(self.n))
            if start.table
            else (False,) * self.n
        )
        self.history: list[Event] = []
        self.errors = BotErrors(names, rules, seed, game, hand, time_limit)
        # each decision's bound methods by seat, looked up once per hand rather than once per question;
        # with a time limit, each is timed with the reading of its answer (`rummysim.bot_errors.in_time`)
        self.draws: list[Callable[[PlayerView], Any]] = [s.draw for s in strategies]
        self.plays: list[Callable[[PlayerView], Any]] = [s.play for s in strategies]
        self.discards: list[Callable[[PlayerView], Any]] = [s.discard for s in strategies]
        self.observers: list[tuple[int, Callable[[Any], Any]]] = [
            (seat, s.observe) for seat, s in enumerate(strategies) if observes(s)
        ]
        self.reads = time_limit is None
        """Whether the engine reads the answers (`rummysim.bot_errors.read_plays`): a timed decision reads its own."""
        if time_limit is not None:
            self.time(time_limit)
        self.watched = bool(self.observers) or audit  # whether an event needs more than logging
        self.turn = 0
        self.n_rebuilds = 0
        self.drawn: int | None = None
        self.taken: int | None = None
        self.trace: list[TurnRecord] | None = [] if trace else None
        self.audit = audit

    def time(self, limit: float) -> None:
        """Time every decision and observation, with the reading of its answer (`rummysim.bot_errors.in_time`)."""
        for decision, asked in (("draw", self.draws), ("play", self.plays), ("discard", self.discards)):
            asked[:] = [in_time(decide, decision, limit, self.errors, seat) for seat, decide in enumerate(asked)]
        self.observers = [(seat, in_time(observe, "observe", limit, self.errors, seat))
                          for seat, observe in self.observers]  # fmt: skip

    # -- views and events --------------------------------------------------------
    def view(self, seat: int) -> PlayerView:
        """Return what a seat may see now: a new view after every event, the turn reusing one until then."""
        # Built by position, in PlayerView's field order, each value on its line with its field's
        # name, and with tuple.__new__ rather than PlayerView(...), whose generated __new__ is
        # one more Python call: a view is built two or three times a turn (keywords cost 11% of
        # the engine's hands/s, measured). tests/test_views.py checks every field of a view by name.
        return _new(PlayerView, (
            seat,  # seat
            self.n,  # n_players
            self.dealer,  # dealer
            self.seat_rules[seat],  # rules
            self.hand,  # hand
            self.turn,  # turn
            self.holdings[seat],  # holding
            self.drawn,  # drawn
            self.taken,  # taken
            self.table,  # table
            self.discard_pile,  # discard_pile
            len(self.stock),  # stock_size
            tuple(self.sizes),  # holding_sizes
            self.has_melded,  # has_melded
            self.scores,  # scores
            self.n_rebuilds,  # n_rebuilds
            tuple(self.history),  # history
        ))  # fmt: skip

    def emit(self, event: Event) -> None:
        """Log a public event; the views built so far are out of date."""
        self.history.append(event)
        if self.watched:
            self.watch(event)

    def watch(self, event: Event) -> None:
        """Audit the cards (R1.2) and show the event to the seats that observe."""
        if self.audit:
            check_cards(self.holdings, self.sizes, self.stock, self.discard_pile, self.table)
        for seat, observe in self.observers:
            try:
                observe(event)
            except BaseException as exc:
                if not is_bots(exc):
                    raise
                raise self.errors.crash(seat, "observe", exc) from exc

    # -- the turns ----------------------------------------------------------------------
    def play_out(self, seat: int) -> tuple[int | None, WentOutBy | None, bool]:
        """Play turns from `seat` on until one goes out (R7); raise `_Stalled` if the hand stalls (R10.2)
        and `_Blocked` if an empty stock ends it (R12.3).

        Return the winner, how it went out and whether it went rummy (R8.3). A turn asks the
        seat to draw (R4.1), play (R4.2) and discard (R4.3), and checks each answer before it
        is applied (`rummysim.moves`, `rummysim.table`, `rummysim.core`).
        """
        history = self.history
        next_seat = [left_of(seat, self.n) for seat in range(self.n)]  # each seat's left, found once a hand
        stall_after_turns = self.rules.stall_after_turns
        block = self.rules.stock_out is StockOut.BLOCK
        must_use = self.rules.take_discard is TakeDiscard.MUST_USE
        while True:
            if out_of_turns(self.turn, stall_after_turns):
                raise _Stalled
            if block and blocked(len(self.stock), block):
                raise _Blocked
            melded_before = self.has_melded[seat]
            self.drawn = self.taken = None
            start_event = len(history)
            self.draw(seat)
            seen, seen_at = self.view(seat), len(history)
            went_out_by = self.play(seat, seen, must_use)
            if went_out_by is None:  # the discard is asked with the play's view again, unless the seat played
                went_out_by = self.discard(seat, seen if len(history) == seen_at else self.view(seat))
            if self.trace is not None:
                self.trace.append(turn_record(
                    history[start_event:], game=self.game, hand=self.hand, turn=self.turn, seat=seat,
                    strategy=self.names[seat], drawn=self.drawn, holding=self.holdings[seat],
                ))  # fmt: skip
            self.turn += 1
            if went_out_by is not None:
                return seat, went_out_by, went_rummy(melded_before)
            seat = next_seat[seat]

    def draw(self, seat: int) -> None:
        """Ask the seat which pile to draw from, check it and draw (R4.1, R4.6, R4.8, R10)."""
        try:
            answer: Any = self.draws[seat](self.view(seat))
            if answer is not _STOCK and answer is not _DISCARD and self.reads:
                answer = read_draw(answer)
        except BaseException as exc:
            if not is_bots(exc):
                raise
            raise self.errors.crash(seat, "draw", exc) from exc
        if answer is _STOCK or (answer is _DISCARD and self.discard_pile):
            pile = answer  # the common, legal answers, checked inline
        else:
            try:
                pile = check_draw(answer, discard_pile_size=len(self.discard_pile))
            except Rejected as rejected:
                raise self.errors.illegal(seat, f"draw {shown(answer)}", rejected) from None
        if pile is _DISCARD:
            card = self.discard_pile[-1]
            self.discard_pile = self.discard_pile[:-1]
            self.taken = card
            drew = _DREW_DISCARD[seat][card]  # Drew(seat, pile, card): the card is shown
        else:
            if not self.stock:
                self.rebuild()
            card = self.stock.pop()
            drew = _DREW_STOCK[seat]  # Drew(seat, pile, None)
        self.drawn = card
        self.holdings[seat] |= _BITS[card]
        self.sizes[seat] += 1
        self.history.append(drew)  # self.emit(drew), written out
        if self.watched:
            self.watch(drew)

    def play(self, seat: int, seen: PlayerView, must_use: bool) -> WentOutBy | None:
        """Ask the seat, shown `seen`, for its melds and lay-offs, check and make them (R4.2, R4.4, R4.7, R5, R6,
        R7.2, R12.1, R12.2); return how it went out, if it did."""
        try:
            answer: Any = self.plays[seat](seen)
            if answer is not None and not (type(answer) in (list, tuple) and not answer) and self.reads:
                answer = read_plays(answer)
        except BaseException as exc:
            if not is_bots(exc):
                raise
            raise self.errors.crash(seat, "play", exc) from exc
        went_out_by = None
        if answer:  # plays read (`Plays`) or refused as read (`Refused`): none is None or empty
            if type(answer) is Refused:
                raise self.errors.illegal(seat, answer.move, answer.rejected)
            went_out_by = self.apply(seat, answer)
        if self.taken is not None and keeps_taken(self.holdings[seat], self.taken, must_use):
            raise self.errors.illegal(seat, f"play {shown(answer)}", taken_unused(self.taken))
        return went_out_by

    def discard(self, seat: int, seen: PlayerView) -> WentOutBy | None:
        """Ask the seat, shown `seen`, for its discard, check it and make it (R4.3, R4.5, R7.1); return DISCARD if it
        went out."""
        try:
            answer: Any = self.discards[seat](seen)
            if type(answer) is not int and self.reads:
                answer = read_discard(answer)
        except BaseException as exc:
            if not is_bots(exc):
                raise
            raise self.errors.crash(seat, "discard", exc) from exc
        holding = self.holdings[seat]
        if type(answer) is int and 0 <= answer < 52 and holding & _BITS[answer] and answer != self.taken:
            card = answer  # the common, legal answer, checked inline
        else:
            try:
                card = check_discard(answer, holding=holding, taken=self.taken)
            except Rejected as rejected:
                raise self.errors.illegal(seat, f"discard {shown(answer)}", rejected) from None
        self.holdings[seat] = left = holding ^ _BITS[card]
        self.sizes[seat] -= 1
        self.discard_pile += (card,)
        discarded = _DISCARDED[seat][card]  # Discarded(seat, card)
        self.history.append(discarded)  # self.emit(discarded), written out
        if self.watched:
            self.watch(discarded)
        return None if left else WentOutBy.DISCARD

    def rebuild(self) -> None:
        """Shuffle the discard pile but its top card into a new stock, or stall (R10.1, R10.2)."""
        if not may_rebuild(len(self.discard_pile), self.n_rebuilds, self.rules.stall_after_rebuilds):
            raise _Stalled
        cards = self.discard_pile[:-1]
        order = permutation(derive(self.key, 1 + self.n_rebuilds), len(cards))
        self.stock = [cards[i] for i in order]
        self.discard_pile = self.discard_pile[-1:]
        self.n_rebuilds += 1
        self.emit(StockRebuilt(len(cards)))

    def apply(self, seat: int, plays: Plays) -> WentOutBy | None:
        """Check and make a seat's plays, read already (R4.2, R4.4, R4.7, R5, R6, R7.2); return how it went out,
        if it did."""
        try:
            holding, table, events = checked_plays(plays, seat, self.holdings[seat], self.table, self.rules, self.taken)
        except Rejected as rejected:
            raise self.errors.illegal(seat, "; ".join(map(str, plays)), rejected) from None
        self.holdings[seat], self.table = holding, table
        self.sizes[seat] = holding.bit_count()
        if not self.has_melded[seat]:
            self.has_melded = (*self.has_melded[:seat], True, *self.has_melded[seat + 1 :])
        if self.watched:
            for event in events:
                self.emit(event)
        else:  # what emit does, for all the events at once
            self.history.extend(events)
        if holding:
            return None
        return WentOutBy.MELD if isinstance(events[-1], Melded) else WentOutBy.LAY_OFF


def play_hand(
    players: Sequence[Strategy | str | Mapping[str, Any]],
    *,
    rules: Rules,
    dealer: int = 0,
    scores: Sequence[int] | None = None,
    key: int | None = None,
    seed: int = 0,
    game: int = 0,
    hand: int = 0,
    start: Deal | None = None,
    names: Sequence[str] | None = None,
    trace: bool = False,
    audit: bool = False,
    time_limit: float | None = None,
) -> HandResult:
    """Play one hand to its end (R3-R10) and score it (R8).

    `players` are strategies or specs (``"greedy"``, ``{"strategy": "uniform"}``); a
    spec is built with the stream of (`seed`, `game`, seat).

    The deal and every stock rebuild come from the stream `key`, by default the stream of
    (`seed`, `game`, `hand`) (`rummysim.seeding.hand_key`), which error messages name so
    that any failure replays. `start` stacks the deal instead. `names` label the
    strategies in records and errors. `trace` keeps a `TurnRecord` per turn; `audit`
    checks after every event that each of the 52 cards is in exactly one place.
    `time_limit` (seconds) stops a bot whose decision takes longer, with a `StrategyError`.
    """
    record_interrupts()  # so that a bot's own KeyboardInterrupt is not taken for Ctrl-C (`rummysim.timing`)
    n = rules.n_players
    if len(players) != n:
        raise ConfigError(f"players: {len(players)} given for rules with n_players={n} (R1.1)")
    if not 0 <= dealer < n:
        raise ConfigError(f"dealer: seat {dealer} is not a seat of {n} players (R3.1)")
    if key is None:
        key = hand_key(seed, game, hand)
    if start is None:
        start = deal(rules, dealer=dealer, key=key)
    elif len(start.holdings) != n:
        raise ConfigError(f"deal: {len(start.holdings)} holdings for {n} players (R3.2)")
    strategies, labels = _lineup(players, names=names, seed=seed, game=game)
    score_tuple = tuple(scores) if scores is not None else (0,) * n
    state = _Hand(
        strategies, rules=rules, names=labels, start=start, dealer=dealer, scores=score_tuple, key=key,
        seed=seed, game=game, hand=hand, trace=trace, audit=audit, time_limit=time_limit,
    )  # fmt: skip
    try:
        state.emit(_new(HandStarted, (hand, dealer, start.discard_pile[-1] if start.discard_pile else -1)))
        winner, went_out_by, went_rummy = state.play_out((dealer + 1) % n)
    except _Stalled:
        winner, went_out_by, went_rummy = None, None, False
    except _Blocked:
        winner, went_out_by, went_rummy = None, WentOutBy.BLOCK, False
    except BotError as error:
        if trace:  # a replay shows the hand up to the failure
            error.so_far = so_far(state)
        raise
    return finish(state, winner=winner, went_out_by=went_out_by, went_rummy=went_rummy)


def speaker() -> str | None:
    """Return the seat and bot whose decision runs on this thread, as its prints are marked; None if none does."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code in _ASKING:
            hand, seat = frame.f_locals.get("self"), frame.f_locals.get("seat")
            if isinstance(hand, _Hand) and type(seat) is int:
                return f"seat {seat} ({hand.names[seat]})"
        frame = frame.f_back  # type: ignore[assignment]
    return None


_ASKING = {_Hand.draw.__code__, _Hand.play.__code__, _Hand.discard.__code__, _Hand.watch.__code__}
"""Where the engine asks a bot: a frame of one of these is the bot's caller."""


def _lineup(
    players: Sequence[Strategy | str | Mapping[str, Any]], *, names: Sequence[str] | None, seed: int, game: int
) -> tuple[Sequence[Strategy], Sequence[str]]:
    """Return the strategies by seat, built from specs with the stream of (`seed`, `game`, seat), and their labels."""
    if names is not None and not any(isinstance(p, (str, Mapping)) for p in players):
        # bots built and labelled already, as play_game passes them: what make_lineup would return
        return cast("Sequence[Strategy]", players), names
    strategies, labels = make_lineup(players, seed=seed, game=game)
    return strategies, labels if names is None else list(names)
