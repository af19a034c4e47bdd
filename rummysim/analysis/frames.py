"""Per-game summaries of one condition: the rows every metric is computed from.

A seat's place in the turn order is what fairness is about, not its index: the seat
left of the dealer plays first (R3.4) and the deal passes left after every hand. So a
hand's seats are named by ``position`` (0 plays first in that hand), and a game's seats
by their position in the game's first hand (``start``: 0 plays first in the game).

`game_frame` returns one row per game with its winner, the winner's start position and
strategy, and per-game sums over its hands (hands, decided hands, hands won from each
position, points, turns, endings (`ENDINGS`), rummies), so that every mean over hands is a ratio of
two per-game sums and games can be resampled whole. It is built in two halves that meet
by game: `game_outcomes` from the games table, `hand_sums` from the hands of whole games;
`rummysim.analysis.reading` computes `hand_sums` batch by batch while reading, so the
hands table is never held whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rummysim.rules import Rules, StockOut
from rummysim.specs import strategy_label

ENDINGS = ("discard", "meld", "lay_off", "block", "stalled")
"""How a hand ends: the winner's last card left by a discard, meld or lay-off (R7); the stock ran out under
block rummy (R12.3; a tie for the lowest hand value too, though it is stalled); or no one went out (R10.2)."""


def endings(rules: Iterable[Rules]) -> tuple[str, ...]:
    """Return the `ENDINGS` that hands played under these rules can have: a block only with ``stock_out: block``.

    >>> endings([Rules()])
    ('discard', 'meld', 'lay_off', 'stalled')
    """
    blocks = any(r.stock_out is StockOut.BLOCK for r in rules)
    return tuple(e for e in ENDINGS if e != "block" or blocks)


def _leaders(scores: np.ndarray) -> np.ndarray:
    """Return the seat with the strictly highest score in each row, or -1 on a shared lead.

    Column by column (a row's few seats): numpy's reductions along short rows are slow.
    """
    columns = list(scores.T)
    top = columns[0].copy()
    for column in columns[1:]:
        np.maximum(top, column, out=top)
    count = np.zeros(len(top), dtype=np.int64)
    seat = np.zeros(len(top), dtype=np.int64)
    for s, column in enumerate(columns):
        at_top = column == top
        count += at_top
        seat += s * at_top
    return np.where(count == 1, seat, -1)


def _lead_stats(hands: pd.DataFrame, n: int) -> pd.DataFrame:
    """Return per game: lead changes, and each seat's score at the game's halfway hand (``half_<seat>``).

    A lead change is a hand after which a different seat holds the sole lead than the
    last seat that held it; a shared lead keeps the last sole leader.
    """
    ordered = hands.sort_values(["game", "hand", "seat"], kind="stable")
    scores = ordered["score"].to_numpy().reshape(-1, n)
    games = ordered["game"].to_numpy()[::n]
    hand = ordered["hand"].to_numpy()[::n]
    leader = pd.Series(_leaders(scores), dtype="float").replace(-1, np.nan)
    held = leader.groupby(games).ffill()
    previous = held.groupby(games).shift()
    changes = (held.notna() & previous.notna() & (held != previous)).groupby(games).sum()
    n_hands = pd.Series(hand).groupby(games).transform("max").to_numpy() + 1
    half = hand == (n_hands + 1) // 2 - 1
    halfway = pd.DataFrame(scores[half], index=games[half], columns=[f"half_{s}" for s in range(n)])
    return pd.DataFrame({"lead_changes": changes, "halfway_top": halfway.max(axis=1)}).join(halfway)


def game_outcomes(games: pd.DataFrame) -> pd.DataFrame:
    """Return one row per game of one condition from its games table: tied, stalled, the sole winner and strategy.

    Games in order of their number; ``winner_seat`` is -1 and ``winner_strategy`` ``"nan"`` where
    no seat won alone. In numpy, by game runs (the rows sorted by game first if they are not).
    """
    game = games["game"].to_numpy()
    order = None if len(game) < 2 or (game[1:] >= game[:-1]).all() else np.argsort(game, kind="stable")

    def column(name: str) -> np.ndarray:
        values = games[name].to_numpy()
        return values if order is None else values[order]

    game = column("game")
    starts = _starts(game) if len(game) else np.zeros(0, dtype=np.int64)
    of_row = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(game)]))
    seat = np.full(len(starts), -1, dtype=np.int64)
    strategy = np.full(len(starts), "nan", dtype=object)
    won = np.flatnonzero(column("won").astype(bool))
    seat[of_row[won]] = column("seat")[won]
    strategy[of_row[won]] = column("strategy")[won].astype(str)

    def any_of(name: str) -> np.ndarray:
        flags = column(name).astype(bool)
        return np.logical_or.reduceat(flags, starts) if len(starts) else flags

    return pd.DataFrame(
        {"tied": any_of("tied"), "stalled": any_of("stalled"), "winner_seat": seat, "winner_strategy": strategy},
        index=pd.Index(game[starts], name="game"),
    )


def hand_sums(hands: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return one row per game of the hands' own sums (see the module doc); the hands hold whole games.

    Beside the sums: each seat's position in the game's first hand (``start_<seat>``) and
    its score at the halfway hand (``half_<seat>``), which `join_games` turns into the
    winner's start position and whether the winner came from behind.

    Tables as rummysim writes them (every hand of a game 0, 1, ..., with a row for each
    seat 0 to n - 1, in any row order) are summed in numpy by game (`_whole_games`); any
    other table by the plain pandas groupings (`_hand_sums_in_pandas`), which give the
    same frame on the tables of the first kind (tests/test_frames_speed.py).
    """
    columns = _whole_games(hands, n_players)
    if columns is None:
        return _hand_sums_in_pandas(hands, n_players=n_players)
    return _sums_of_whole_games(columns, _ending_codes(hands, columns["row"][::n_players]), n_players)


_INTEGERS = ("game", "hand", "seat", "position", "points", "score", "turns")
_FLAGS = ("won", "went_rummy", "stalled")


def _whole_games(hands: pd.DataFrame, n: int) -> dict[str, np.ndarray] | None:
    """Return the columns the sums use in (game, hand, seat) order, and ``row`` (each one's row in `hands`).

    None unless every game is whole: hands 0, 1, ... each with one row for each seat 0 to
    n - 1, in int64 and bool columns. Rows already in order (as the runner writes them)
    are not sorted.
    """
    if not len(hands) or len(hands) % n or any(c not in hands for c in _INTEGERS + _FLAGS):
        return None
    columns = {c: hands[c].to_numpy() for c in _INTEGERS + _FLAGS}
    if any(columns[c].dtype != np.int64 for c in _INTEGERS) or any(columns[c].dtype != np.bool_ for c in _FLAGS):
        return None
    columns["row"] = np.arange(len(hands))
    if not _in_whole_games(columns, n):
        order = np.lexsort((columns["seat"], columns["hand"], columns["game"]))
        columns = {c: v[order] for c, v in columns.items()}
        if not _in_whole_games(columns, n):
            return None
    return columns


def _in_whole_games(columns: dict[str, np.ndarray], n: int) -> bool:
    """Return whether the rows are whole games in (game, hand, seat) order (see `_whole_games`)."""
    seats = columns["seat"].reshape(-1, n)
    if not (seats == np.arange(n)).all():
        return False
    game, hand = columns["game"].reshape(-1, n), columns["hand"].reshape(-1, n)
    if not ((game == game[:, :1]).all() and (hand == hand[:, :1]).all()):
        return False
    game, hand = game[:, 0], hand[:, 0]
    if (game[1:] < game[:-1]).any():
        return False
    starts = _starts(game)
    return bool((hand == np.arange(len(hand)) - np.repeat(starts, np.diff(np.r_[starts, len(hand)]))).all())


def _starts(game: np.ndarray) -> np.ndarray:
    """Return where each game's run of rows begins."""
    return np.flatnonzero(np.r_[True, game[1:] != game[:-1]])


def _ending_codes(hands: pd.DataFrame, rows: np.ndarray) -> np.ndarray:
    """Return the code in ``ENDINGS[:-1]`` of ``went_out_by`` at these rows (-1 for none or another)."""
    went_out_by = hands["went_out_by"]
    if isinstance(went_out_by.dtype, pd.CategoricalDtype) and list(went_out_by.cat.categories) == list(ENDINGS[:-1]):
        return went_out_by.cat.codes.to_numpy()[rows]
    return pd.Categorical(went_out_by.to_numpy()[rows], categories=list(ENDINGS[:-1])).codes


def _sums_of_whole_games(columns: dict[str, np.ndarray], codes: np.ndarray, n: int) -> pd.DataFrame:
    """Return `hand_sums` of whole games in order (`_whole_games`); `codes`: each hand's `_ending_codes`."""
    game = columns["game"][::n]
    starts = _starts(game)
    n_hands = np.diff(np.r_[starts, len(game)])
    n_games = len(starts)
    game_of = np.repeat(np.arange(n_games), n_hands)  # each hand's game, 0 to n_games - 1
    sums: dict[str, np.ndarray] = {"hands": n_hands}
    first = columns["position"].reshape(-1, n)[starts]
    sums.update({f"start_{s}": first[:, s] for s in range(n)})
    won = np.flatnonzero(columns["won"])
    won_game, position, points = game_of[won // n], columns["position"][won], columns["points"][won]
    sums["decided_hands"] = np.bincount(won_game, minlength=n_games)
    mine = (position >= 0) & (position < n)
    by_position = np.bincount(won_game[mine] * n + position[mine], minlength=n_games * n).reshape(-1, n)
    sums.update({f"hands_won_{p}": by_position[:, p] for p in range(n)})
    sums["points"] = _sums_by(won_game, points, n_games)
    rummy = columns["went_rummy"][won]
    sums["rummies"] = np.bincount(won_game[rummy], minlength=n_games)
    sums["rummy_points"] = _sums_by(won_game[rummy], points[rummy], n_games)
    sums["turns"] = np.add.reduceat(columns["turns"][::n], starts)
    stalled = columns["stalled"][::n] & (codes != ENDINGS.index("block"))  # a blocked tie ends by a block
    ending = np.where(stalled | (codes < 0), len(ENDINGS) - 1, codes)
    k = len(ENDINGS)
    counts = np.bincount(game_of * k + ending, minlength=n_games * k).reshape(-1, k)
    sums.update({f"end_{end}": counts[:, code] for code, end in enumerate(ENDINGS)})
    scores = columns["score"].reshape(-1, n)
    leader = _leaders(scores)
    sole = leader >= 0
    leader, leading_game = leader[sole], game_of[sole]
    change = (leader[1:] != leader[:-1]) & (leading_game[1:] == leading_game[:-1])
    sums["lead_changes"] = np.bincount(leading_game[1:][change], minlength=n_games)
    halves = scores[starts + (n_hands + 1) // 2 - 1]
    sums["halfway_top"] = halves.max(axis=1)
    sums.update({f"half_{s}": halves[:, s] for s in range(n)})
    return pd.DataFrame(sums, index=pd.Index(game[starts], name="game"))


def _sums_by(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Return the int64 sums of `values` by `group` (0 to size - 1, in order)."""
    bounds = np.searchsorted(group, np.arange(size + 1))
    total = np.r_[0, np.cumsum(values)]
    return total[bounds[1:]] - total[bounds[:-1]]


def _hand_sums_in_pandas(hands: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return `hand_sums` by pandas groupings: any table with the columns, whole games or not."""
    n = n_players
    by_game = hands.groupby("game")
    frame = pd.DataFrame({"hands": by_game["hand"].nunique()})
    first = hands[hands["hand"] == 0]
    starts = first.drop_duplicates(["game", "seat"]).set_index(["game", "seat"])["position"].unstack()
    for s in range(n):
        frame[f"start_{s}"] = starts[s].reindex(frame.index) if s in starts else np.nan
    won = hands[hands["won"]]
    frame["decided_hands"] = won.groupby("game").size().reindex(frame.index, fill_value=0)
    per_position = won.groupby(["game", "position"]).size().unstack(fill_value=0)
    for p in range(n):
        won_from = per_position[p] if p in per_position.columns else pd.Series(0, index=per_position.index)
        frame[f"hands_won_{p}"] = won_from.reindex(frame.index, fill_value=0)
    frame["points"] = won.groupby("game")["points"].sum().reindex(frame.index, fill_value=0)
    rummy = won[won["went_rummy"]]
    frame["rummies"] = rummy.groupby("game").size().reindex(frame.index, fill_value=0)
    frame["rummy_points"] = rummy.groupby("game")["points"].sum().reindex(frame.index, fill_value=0)
    hand_rows = hands[hands["seat"] == 0]
    frame["turns"] = hand_rows.groupby("game")["turns"].sum()
    codes = pd.Categorical(hand_rows["went_out_by"], categories=list(ENDINGS[:-1])).codes
    stalled = hand_rows["stalled"].to_numpy() & (codes != ENDINGS.index("block"))  # a blocked tie ends by a block
    ending = np.where(stalled | (codes < 0), len(ENDINGS) - 1, codes)
    games, game_of = np.unique(hand_rows["game"].to_numpy(), return_inverse=True)
    k = len(ENDINGS)
    counts = np.bincount(game_of * k + ending, minlength=len(games) * k).reshape(-1, k)
    for code, end in enumerate(ENDINGS):
        frame[f"end_{end}"] = pd.Series(counts[:, code], index=games).reindex(frame.index, fill_value=0)
    lead = _lead_stats(hands, n)
    frame["lead_changes"] = lead["lead_changes"].reindex(frame.index, fill_value=0)
    return frame.join(lead.drop(columns="lead_changes"))


_DIGEST_COLUMNS = ("hand", "seat", "position", "won", "points", "score", "went_out_by", "went_rummy", "stalled",
                   "turns")  # fmt: skip
"""The hand columns a game's `hand_digest` covers: every column of a hand row the analysis reads but its names."""


def hand_digest(hands: pd.DataFrame) -> pd.Series:
    """Return one 64-bit digest per game of its hand rows: equal digests, equal rows (up to a hash collision).

    Each row's `_DIGEST_COLUMNS` are mixed into one 64-bit hash (splitmix64's finaliser over a
    running combination) and a game's digest is the wrapping sum of its rows' hashes, so the
    rows' order does not matter. Two cells whose games have equal digests played the same
    hands, row for row: the atlas's test that a rule never binds (`rummysim.analysis.atlas`).
    """
    state = np.zeros(len(hands), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k, name in enumerate(_DIGEST_COLUMNS):
            if name == "went_out_by":  # as read (codes) or as written (text): the same codes
                values = _ending_codes(hands, np.arange(len(hands))).astype(np.int64)
            else:
                values = hands[name].to_numpy().astype(np.int64)
            state = _mix(state ^ (values.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15 * (k + 1) % 2**64)))
        game = hands["game"].to_numpy()
        order = np.argsort(game, kind="stable")
        starts = _starts(game[order]) if len(game) else np.zeros(0, dtype=np.int64)
        sums = np.add.reduceat(state[order], starts) if len(starts) else state[:0]
    return pd.Series(sums.view(np.int64), index=pd.Index(game[order][starts], name="game"), name="digest")


def _mix(x: np.ndarray) -> np.ndarray:
    """Return splitmix64's finaliser of each 64-bit word (a bijection that spreads every bit)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def join_games(outcomes: pd.DataFrame, sums: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return the per-game frame of one condition: its `game_outcomes` joined to its `hand_sums`."""
    n = n_players
    sums = sums.reindex(outcomes.index)
    columns: dict[str, Any] = {name: outcomes[name].to_numpy() for name in outcomes.columns}
    seats = columns["winner_seat"]
    decided = seats >= 0
    chosen = np.clip(seats, 0, n - 1)[:, None]
    starts = np.take_along_axis(sums[[f"start_{s}" for s in range(n)]].to_numpy(), chosen, axis=1)[:, 0]
    columns["winner_start"] = np.where(decided & ~np.isnan(starts), starts, -1).astype(int)
    columns["decided"] = decided
    counts = [c for c in sums.columns if not c.startswith(("start_", "half_")) and c != "halfway_top"]
    for column in counts:
        columns[column] = sums[column].fillna(0).to_numpy().astype(int)
    halves = np.take_along_axis(sums[[f"half_{s}" for s in range(n)]].to_numpy(dtype=float), chosen, axis=1)[:, 0]
    seat_at_half = np.where(decided, halves, np.nan)
    columns["comeback"] = decided & (seat_at_half < sums["halfway_top"].to_numpy(dtype=float))
    return pd.DataFrame(columns, index=outcomes.index)  # built at once: column by column is slow in pandas


def game_frame(hands: pd.DataFrame, games: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return one row per game of one condition, indexed by game, from its tables in memory (see the module doc).

    With each game's ``digest`` of its hand rows (`hand_digest`), as `rummysim.analysis.reading` reads it.
    """
    frame = join_games(game_outcomes(games), hand_sums(hands, n_players=n_players), n_players=n_players)
    frame["digest"] = hand_digest(hands).reindex(frame.index).fillna(0).astype(np.int64)
    return frame


def strategy_counts(players: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """Return how many seats each strategy (by its table label) holds in a lineup."""
    counts: dict[str, int] = {}
    for spec in players:
        label = strategy_label(spec)
        counts[label] = counts.get(label, 0) + 1
    return counts
