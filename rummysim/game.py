"""One game: hands until a score reaches the target or a number of hands is played (R11).

`play_game` deals the first hand from a dealer drawn at random (R3.1), passes the deal
to the left after every hand (R3.4), keeps the scores (R8.1) and decides the game:
the first to reach `target_score` wins (R11.1); after `max_hands` hands the most points
win and a shared top score is a tie (R11.2). A game whose hands keep stalling also ends,
unfinished, after `stall_after_hands` stalled hands in a row (R10.2).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rummysim.core import game_over, left_of
from rummysim.engine import HandResult, play_hand
from rummysim.errors import ConfigError
from rummysim.records import GameRecord, HandRecord, TurnRecord
from rummysim.rules import Rules
from rummysim.seeding import first_dealer as draw_first_dealer
from rummysim.specs import Spec
from rummysim.strategies import Strategy, make_lineup
from rummysim.strategies.sealed import SealedPool


class GameResult(NamedTuple):
    """What `play_game` returns: every hand's records, the game's records and any trace."""

    hands: tuple[HandRecord, ...]
    games: tuple[GameRecord, ...]
    turns: tuple[TurnRecord, ...] = ()

    @property
    def scores(self) -> tuple[int, ...]:
        """Return each seat's final score."""
        return tuple(g.score for g in self.games)

    @property
    def winner(self) -> int | None:
        """Return the seat that won alone, or None for a tie or an unfinished game."""
        return next((g.seat for g in self.games if g.won), None)


def play_game(
    players: Sequence[Strategy | Spec],
    *,
    rules: Rules | None = None,
    seed: int = 0,
    game: int = 0,
    names: Sequence[str] | None = None,
    trace: bool = False,
    audit: bool = False,
    time_limit: float | None = None,
    on_hand: Callable[[HandResult], None] | None = None,
    isolate: bool | SealedPool = False,
) -> GameResult:
    """Play one game to its end (R11) and return its records.

    `players` are strategies or specs (``"greedy"``, ``{"strategy": "uniform"}``); a spec
    is built with the stream of (`seed`, `game`, seat). Every deal and shuffle comes from
    (`seed`, `game`, hand) (see `rummysim.seeding`). `rules` defaults to basic rummy
    for the number of players. `trace`, `audit` and `time_limit` are passed to `play_hand`.
    `on_hand` is called with each hand's `HandResult` as the hand ends (`rummysim.replay`
    watches a game through it); it never changes a result. `isolate` runs every plug-in
    bot sealed in its own process (`rummysim.strategies.sealed`), in the processes of
    the `SealedPool` given or of one opened for this game; it never changes a result.
    """
    if rules is None:
        rules = Rules(n_players=len(players))
    elif len(players) != rules.n_players:
        raise ConfigError(f"players: {len(players)} given for rules with n_players={rules.n_players} (R1.1)")
    with contextlib.ExitStack() as stack:
        pool = isolate if isinstance(isolate, SealedPool) else None
        if isolate is True:
            pool = stack.enter_context(SealedPool(time_limit=time_limit))
        bots, labels = make_lineup(players, seed=seed, game=game, pool=pool)
        return _play(bots, labels if names is None else list(names), rules=rules, seed=seed, game=game, trace=trace,
                     audit=audit, time_limit=time_limit, on_hand=on_hand)  # fmt: skip


def _play(bots: list[Strategy], labels: list[str], *, rules: Rules, seed: int, game: int, trace: bool, audit: bool,
          time_limit: float | None, on_hand: Callable[[HandResult], None] | None) -> GameResult:  # fmt: skip
    """Play the hands of one game with its bots built (R3.1, R3.4, R11)."""
    n = rules.n_players
    first_dealer = draw_first_dealer(seed, game, n)
    dealer, scores = first_dealer, [0] * n
    hands: list[HandRecord] = []
    turns: list[TurnRecord] = []
    hand = stalled_in_a_row = n_stalled = 0
    target_score = -1 if rules.target_score is None else rules.target_score  # core.UNSET for "none"
    max_hands = -1 if rules.max_hands is None else rules.max_hands
    while True:
        result = play_hand(
            bots, rules=rules, dealer=dealer, scores=scores, seed=seed, game=game, hand=hand,
            names=labels, trace=trace, audit=audit, time_limit=time_limit,
        )  # fmt: skip
        if on_hand is not None:
            on_hand(result)
        hands.extend(result.records)
        turns.extend(result.turns)
        hand += 1
        if result.winner is not None:
            scores[result.winner] += result.points
        n_stalled += result.stalled
        stalled_in_a_row = stalled_in_a_row + 1 if result.stalled else 0
        dealer = left_of(dealer, n)
        if game_over(max(scores), hand, stalled_in_a_row, target_score, max_hands, rules.stall_after_hands):
            break
    finished = stalled_in_a_row < rules.stall_after_hands
    top = max(scores)
    leaders = [seat for seat in range(n) if scores[seat] == top] if finished else []
    games = tuple(
        GameRecord(
            game=game, seat=seat, strategy=labels[seat], score=scores[seat], won=leaders == [seat],
            tied=len(leaders) > 1 and seat in leaders, n_hands=hand,
            hands_won=sum(r.won for r in hands if r.seat == seat), n_stalled=n_stalled, first_dealer=first_dealer,
            stalled=not finished,
        )
        for seat in range(n)
    )  # fmt: skip
    return GameResult(hands=tuple(hands), games=games, turns=tuple(turns))
