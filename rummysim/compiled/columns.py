"""The Python side of the compiled engine: a condition's inputs as arrays, its rows as Arrow tables.

`play_chunk_tables` is what the runner calls: it turns the rules and the lineup into
arrays (`rules_array`, `lineup_arrays`), plays the games in compiled code
(`rummysim.compiled.game.play_games`) and builds the same Arrow tables the reference
engine's records make (`rummysim.results.to_arrow`), column by column, with no Python
object per hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import pyarrow as pa
from numba import njit

from rummysim.cards import CODES
from rummysim.compiled.bits import popcount
from rummysim.compiled.expert import MAX_CANDIDATES, WORK
from rummysim.compiled.game import play_games
from rummysim.compiled.layout import (
    EXPERT,
    GAME_COLUMNS,
    HAND_COLUMNS,
    POLICIES,
    SAMPLES,
    UNIFORM,
    WENT_OUT_BY,
    params_row,
    settings_array,
)
from rummysim.compiled.lookups import lookups_of
from rummysim.compiled.state import HAND, new_hand
from rummysim.results import SCHEMAS
from rummysim.rules import Ace, Rules
from rummysim.seating import DEFAULT_SEATING, seat_table
from rummysim.seeding import game_hands_keys, game_keys, strategy_rng, stream_key
from rummysim.specs import Spec, strategy_label
from rummysim.strategies import make_strategy
from rummysim.strategies.expert import RACE_REACH


@cache
def tables_of(rules: Rules) -> np.ndarray:
    """Return the lookup tables of the rules' ace setting and value, a one-record array (cached per rules)."""
    return lookups_of(rules)


def lineup_arrays(players: Sequence[Spec]) -> tuple[np.ndarray, np.ndarray]:
    """Return the policy code and the parameters of each entry of a lineup (each checked by building its bot)."""
    codes, params = [], []
    for spec in players:
        bot = make_strategy(spec, rng=np.random.default_rng(0))
        codes.append(EXPERT if bot.name == "expert" else POLICIES.index(bot.name))
        params.append(params_row(bot.params))
    return np.array(codes, np.int64), np.array(params, np.float64)


def stream_keys(
    players: Sequence[Spec], codes: np.ndarray, seats: np.ndarray, *, seed: int, start: int, stop: int
) -> np.ndarray:
    """Return each game's and seat's `Stream` key, from the seat's bot generator (uniform's and expert's seats only).

    `seats` is the condition's seating table (`rummysim.seating.seat_table`).
    """
    n = len(players)
    keys = np.zeros((max(stop - start, 0), n), np.uint64)
    drawing = (codes == UNIFORM) | (codes == EXPERT)
    if not drawing.any():
        return keys
    for game in range(start, stop):
        for seat in range(n):
            if drawing[seats[game % len(seats), seat]]:
                keys[game - start, seat] = stream_key(strategy_rng(seed, game, seat))
    return keys


def search_room(n: int, codes: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Return the room of the lineup's experts' searches (three hands, the rewards, the work), or None if none searches.

    With None, `play_games` compiles without the search (`rummysim.compiled.expert`), so a run
    that seats no expert never compiles it.
    """
    if not (codes == EXPERT).any():
        return None
    room = np.zeros(3, HAND)
    room["seats"] = n
    samples = RACE_REACH * int(params[codes == EXPERT, SAMPLES].max())
    return room, np.zeros((MAX_CANDIDATES, samples), np.float64), np.zeros(1, WORK)


_CODE_BYTES = np.frombuffer("".join(CODES).encode(), np.uint8)


@njit(cache=True)
def _codes_text(masks: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return Arrow string buffers (offsets, bytes) of each mask's card codes, space-separated (`to_text`)."""
    offsets = np.zeros(masks.size + 1, np.int32)
    for i in range(masks.size):
        k = popcount(masks[i])
        offsets[i + 1] = offsets[i] + (3 * k - 1 if k else 0)
    data = np.empty(offsets[-1], np.uint8)
    for i in range(masks.size):
        at = offsets[i]
        for card in range(52):
            if masks[i] >> card & 1:
                if at > offsets[i]:
                    data[at] = 32
                    at += 1
                data[at], data[at + 1] = codes[2 * card], codes[2 * card + 1]
                at += 2
    return offsets, data


def _text(masks: np.ndarray) -> pa.Array:
    offsets, data = _codes_text(np.ascontiguousarray(masks), _CODE_BYTES)
    return pa.StringArray.from_buffers(masks.size, pa.py_buffer(offsets), pa.py_buffer(data))


def to_tables(condition: str, labels: Sequence[str], hands: np.ndarray, games: np.ndarray) -> dict[str, pa.Table]:
    """Return the hands and games tables of the kernels' rows, equal to `rummysim.results.to_arrow`'s."""
    words = {"strategy": pa.array(labels, pa.string()), "went_out_by": pa.array(WENT_OUT_BY, pa.string())}
    tables = {}
    for kind, rows, columns in (("hands", hands, HAND_COLUMNS), ("games", games, GAME_COLUMNS)):
        schema = SCHEMAS[kind]
        arrays = [pa.repeat(pa.scalar(condition, pa.string()), rows.shape[0])]
        by_column = np.ascontiguousarray(rows.T)  # one copy, then each column is contiguous
        for i, name in enumerate(columns):
            column, field = by_column[i], schema.field(name)
            if name in words:  # codes into their words, in Arrow
                arrays.append(words[name].take(pa.array(column)))
            elif name == "holding_end":
                arrays.append(_text(column))
            else:
                arrays.append(pa.array(column.astype(bool) if field.type == pa.bool_() else column, field.type))
        tables[kind] = pa.Table.from_arrays(arrays, schema=schema)
    return tables


def play_chunk_tables(
    condition: str, rules: Rules, players: Sequence[Spec], *, seed: int, start: int, stop: int, audit: bool = False,
    deals: np.ndarray | None = None, seating: str = DEFAULT_SEATING,
) -> tuple[dict[str, pa.Table], int]:  # fmt: skip
    """Play games ``start`` to ``stop`` of a condition compiled; return its tables and its number of hands.

    Game g seats `players` by `seating` (`rummysim.seating`, R3.4), as the reference engine does.
    `audit` checks after every turn that each card is in exactly one place (R1.2). `deals`, if
    given, holds for each game the game whose deals and first dealer it plays (duplicate deals,
    `rummysim.variance_factors`); by default each game plays its own.
    """
    codes, params = lineup_arrays(players)
    search = search_room(rules.n_players, codes, params)
    seats = seat_table(rules.n_players, seating)
    keys = stream_keys(players, codes, seats, seed=seed, start=start, stop=stop)
    hands_keys, dealer_keys = game_hands_keys(seed, start, stop), game_keys(seed, start, stop)
    if deals is not None:
        hands_keys = np.array([game_hands_keys(seed, d, d + 1)[0] for d in deals], np.uint64)
        dealer_keys = np.array([game_keys(seed, d, d + 1)[0] for d in deals], np.uint64)
    hands, games = play_games(
        tables_of(rules),
        settings_array(rules),
        codes,
        params,
        seats,
        hands_keys,
        dealer_keys,
        start,
        stop,
        keys,
        audit,
        new_hand(rules.n_players),
        search,
    )
    labels = [strategy_label(p) for p in players]
    return to_tables(condition, labels, hands, games), hands.shape[0] // rules.n_players


def warm_up() -> None:
    """Compile (or load from the cache) every kernel, with one short game of each policy."""
    players = [{"strategy": name} for name in POLICIES]
    for ace in Ace:
        play_chunk_tables("warm-up", Rules(n_players=4, ace=ace, target_score=20), players, seed=0, start=0, stop=1)
