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
    """Return the seat with the strictly highest score in each row, or -1 on a shared lead."""
    top = scores.max(axis=1, keepdims=True)
    sole = (scores == top).sum(axis=1) == 1
    return np.where(sole, scores.argmax(axis=1), -1)


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
    """Return one row per game of one condition from its games table: tied, stalled, the sole winner and strategy."""
    g = games.set_index(["game", "seat"])
    sole = g[g["won"]].reset_index().set_index("game")
    frame = pd.DataFrame(index=pd.Index(sorted(games["game"].unique()), name="game"))
    frame["tied"] = g["tied"].groupby(level="game").any()
    frame["stalled"] = g["stalled"].groupby(level="game").any()
    frame["winner_seat"] = sole["seat"].reindex(frame.index).fillna(-1).astype(int)
    frame["winner_strategy"] = sole["strategy"].reindex(frame.index).astype("str")
    return frame


def hand_sums(hands: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return one row per game of the hands' own sums (see the module doc); the hands hold whole games.

    Beside the sums: each seat's position in the game's first hand (``start_<seat>``) and
    its score at the halfway hand (``half_<seat>``), which `join_games` turns into the
    winner's start position and whether the winner came from behind.
    """
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


def join_games(outcomes: pd.DataFrame, sums: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return the per-game frame of one condition: its `game_outcomes` joined to its `hand_sums`."""
    n = n_players
    frame = outcomes.copy()
    sums = sums.reindex(frame.index)
    seats = frame["winner_seat"].to_numpy()
    decided = seats >= 0
    chosen = np.clip(seats, 0, n - 1)[:, None]
    starts = np.take_along_axis(sums[[f"start_{s}" for s in range(n)]].to_numpy(), chosen, axis=1)[:, 0]
    frame["winner_start"] = np.where(decided & ~np.isnan(starts), starts, -1).astype(int)
    frame["decided"] = decided
    counts = [c for c in sums.columns if not c.startswith(("start_", "half_")) and c != "halfway_top"]
    for column in counts:
        frame[column] = sums[column].fillna(0).astype(int)
    halves = np.take_along_axis(sums[[f"half_{s}" for s in range(n)]].to_numpy(dtype=float), chosen, axis=1)[:, 0]
    seat_at_half = np.where(decided, halves, np.nan)
    frame["comeback"] = decided & (seat_at_half < sums["halfway_top"].to_numpy(dtype=float))
    return frame


def game_frame(hands: pd.DataFrame, games: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return one row per game of one condition, indexed by game, from its tables in memory (see the module doc)."""
    return join_games(game_outcomes(games), hand_sums(hands, n_players=n_players), n_players=n_players)


def strategy_counts(players: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """Return how many seats each strategy (by its table label) holds in a lineup."""
    counts: dict[str, int] = {}
    for spec in players:
        label = strategy_label(spec)
        counts[label] = counts.get(label, 0) + 1
    return counts
