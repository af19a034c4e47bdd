"""How expert on the reference engine asks its compiled search (`rummysim.compiled.expert`).

`rummysim.strategies.expert.Expert` plays on the reference engine by asking `choose` for each
decision and `plan` for its melds: each turns the seat's `PlayerView` and its memory of the
public events into the one-record view `decide` reads (`view_record`), which holds no card
the seat may not see. On the compiled engine the same search reads the same view, made by
`rummysim.compiled.expert.view_of` (tests/test_expert_engines.py holds the two to the same
rows).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from rummysim.compiled.columns import play_chunk_tables, tables_of
from rummysim.compiled.expert import MAX_CANDIDATES, WORK, decide, plays_of
from rummysim.compiled.layout import params_row, settings_array
from rummysim.compiled.state import DRAWN, HAND, MELDS, PILE, REBUILDS, SEEN, STOCK, TAKEN, TURN
from rummysim.dealing import deal
from rummysim.moves import LayOff, Meld, Play
from rummysim.rules import Rules
from rummysim.specs import Spec
from rummysim.strategies.base import PlayerView
from rummysim.strategies.expert import DISCARD, DRAW, RACE_REACH


@functools.cache
def _settings(rules: Rules) -> np.ndarray:
    """The rules as the kernels read them (`settings_array`), made once per rules."""
    return settings_array(rules)


@functools.cache
def _room(n: int, samples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Room for the two hands a search works in, its rewards and its work (one per process, table size and budget)."""
    store = np.zeros(2, HAND)
    store["seats"] = n
    return store, np.zeros((MAX_CANDIDATES, samples), np.float64), np.zeros(1, WORK)


def room_of(n: int, params: Mapping[str, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The room of a search at `n` seats with these parameters: rewards for ``RACE_REACH * samples`` deals."""
    return _room(n, RACE_REACH * int(params["samples"]))


def choose(
    view: PlayerView, kind: int, *, key: int, seen: int, taken: list[int], melded_before: bool,
    params: Mapping[str, float],
) -> int:  # fmt: skip
    """Return a seat's move by `decide`, from its `PlayerView`, its memory of the public events and its parameters."""
    own = params_row(params)
    store, rewards, work = room_of(view.n_players, params)
    record = view_record(view, seen=seen, taken=taken)
    return int(
        decide(
            tables_of(view.rules), _settings(view.rules), record, view.seat, kind, melded_before, np.uint64(key),
            own, store, rewards, work,
        )
    )  # fmt: skip


def plan(view: PlayerView, option: int, *, seen: int, taken: list[int], params: Mapping[str, float]) -> list[Play]:
    """Return plan `option` of a seat's melds and lay-offs (`plays_of`) as moves the engine checks."""
    record = view_record(view, seen=seen, taken=taken)
    work = room_of(view.n_players, params)[2]
    count = plays_of(tables_of(view.rules), _settings(view.rules), record, view.seat, option, params_row(params), work)
    return [Meld(c) if kind == 0 else LayOff(c, meld) for kind, c, meld in record[0]["plays"][:count].tolist()]


def view_record(view: PlayerView, *, seen: int, taken: list[int]) -> np.ndarray:
    """Return a seat's view as `decide` reads it: a one-record `HAND` holding only what the seat may see.

    `seen` is the public cards gone (the discards, melds and lay-offs of the hand) and `taken`
    each seat's cards taken from the discard pile and not played, both from the public events
    (`rummysim.strategies.cautious.Cautious`).
    """
    record = np.zeros(1, HAND)
    v = record[0]
    n = view.n_players
    v["seats"] = n
    v["holdings"][view.seat] = view.holding
    v["sizes"][:n] = view.holding_sizes
    v["has_melded"][:n] = view.has_melded
    for seat, cards in enumerate(taken[:n]):
        v["known"][seat] = cards & ~view.holding if seat != view.seat else cards & view.holding
    v["pile"][: len(view.discard_pile)] = view.discard_pile
    v["table"][: len(view.table)] = view.table_masks
    counts = v["counts"]
    counts[PILE], counts[STOCK], counts[MELDS] = len(view.discard_pile), view.stock_size, len(view.table)
    counts[TURN], counts[REBUILDS], counts[SEEN] = view.turn, view.n_rebuilds, seen
    counts[DRAWN] = -1 if view.drawn is None else view.drawn
    counts[TAKEN] = -1 if view.taken is None else view.taken
    return record


def warm_up() -> None:
    """Compile (or load from the cache) the search, with decisions of a dealt hand and a short compiled game."""
    rules = Rules()
    dealt = deal(rules, dealer=0, key=1)
    view = PlayerView(
        seat=1, n_players=2, dealer=0, rules=rules, hand=0, turn=0, holding=dealt.holdings[1], drawn=None,
        taken=None, table=(), discard_pile=tuple(dealt.discard_pile), stock_size=len(dealt.stock),
        holding_sizes=(10, 10), has_melded=(False, False), scores=(0, 0), n_rebuilds=0, history=(),
    )  # fmt: skip
    params = {"samples": 2, "candidates": 2, "depth": 4, "confidence": 2.0, "patience": 6, "alarm": 3}
    params |= {"caution": 12.0, "blind": 0.0, "hope": 4.0, "their_patience": 3}
    for kind in (DRAW, DISCARD):
        choose(view, kind, key=1, seen=0, taken=[], melded_before=False, params=params)
    plan(view, 0, seen=0, taken=[], params=params)
    players: list[Spec] = [{"strategy": "expert", "samples": 2, "depth": 4}, "greedy"]
    play_chunk_tables("warm-up", Rules(target_score=20), players, seed=0, start=0, stop=1)
