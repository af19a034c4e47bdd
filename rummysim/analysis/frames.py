"""Per-game summaries of one condition: the rows every metric is computed from.

A seat's place in the turn order is what fairness is about, not its index: the seat
left of the dealer plays first (R3.4) and the deal passes left after every hand. So a
hand's seats are named by ``position`` (0 plays first in that hand), and a game's seats
by their position in the game's first hand (``start``: 0 plays first in the game).

`game_frame` returns one row per game with its winner, the winner's start position and
strategy, and per-game sums over its hands (hands, decided hands, hands won from each
position, points, turns, endings, rummies), so that every mean over hands is a ratio of
two per-game sums and games can be resampled whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rummysim.specs import strategy_label

ENDINGS = ("discard", "meld", "lay_off", "stalled")
"""How a hand ends: the winner's last card left by a discard, meld or lay-off (R7), or no one went out (R10.2)."""


def _leaders(scores: np.ndarray) -> np.ndarray:
    """Return the seat with the strictly highest score in each row, or -1 on a shared lead."""
    top = scores.max(axis=1, keepdims=True)
    sole = (scores == top).sum(axis=1) == 1
    return np.where(sole, scores.argmax(axis=1), -1)


def _lead_stats(hands: pd.DataFrame, n: int) -> pd.DataFrame:
    """Return per game: lead changes, and the sole leader's seat at the game's halfway hand.

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
    halfway = pd.DataFrame(scores[half], index=games[half])
    return pd.DataFrame({"lead_changes": changes, "halfway_top": halfway.max(axis=1)}).join(halfway)


def game_frame(hands: pd.DataFrame, games: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    """Return one row per game of one condition, indexed by game (see the module doc)."""
    n = n_players
    first = hands[hands["hand"] == 0].set_index(["game", "seat"])["position"]
    g = games.set_index(["game", "seat"])
    sole = g[g["won"]].reset_index().set_index("game")
    frame = pd.DataFrame(index=pd.Index(sorted(games["game"].unique()), name="game"))
    frame["tied"] = g["tied"].groupby(level="game").any()
    frame["stalled"] = g["stalled"].groupby(level="game").any()
    frame["winner_seat"] = sole["seat"].reindex(frame.index).fillna(-1).astype(int)
    frame["winner_strategy"] = sole["strategy"].reindex(frame.index)
    starts = first.reindex(pd.MultiIndex.from_arrays([frame.index, frame["winner_seat"]]))
    frame["winner_start"] = starts.fillna(-1).astype(int).to_numpy()
    frame["decided"] = frame["winner_seat"] >= 0

    by_game = hands.groupby("game")
    won = hands[hands["won"]]
    frame["hands"] = by_game["hand"].nunique()
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
    ending = hand_rows["went_out_by"].fillna("stalled").where(~hand_rows["stalled"], "stalled")
    counts = pd.crosstab(hand_rows["game"], ending)
    for end in ENDINGS:
        frame[f"end_{end}"] = counts[end].reindex(frame.index, fill_value=0) if end in counts else 0

    lead = _lead_stats(hands, n)
    frame["lead_changes"] = lead["lead_changes"].reindex(frame.index, fill_value=0)
    seat_at_half = np.full(len(frame), np.nan)
    seats = frame["winner_seat"].to_numpy()
    halfway = lead.reindex(frame.index)
    for s in range(n):
        mask = seats == s
        seat_at_half[mask] = halfway[s].to_numpy()[mask]
    frame["comeback"] = frame["decided"] & (seat_at_half < halfway["halfway_top"].to_numpy())
    return frame


def strategy_counts(players: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """Return how many seats each strategy (by its table label) holds in a lineup."""
    counts: dict[str, int] = {}
    for spec in players:
        label = strategy_label(spec)
        counts[label] = counts.get(label, 0) + 1
    return counts


def trajectories(hands: pd.DataFrame, frame: pd.DataFrame, *, max_hands: int = 60) -> pd.DataFrame:
    """Return the mean score after each hand of the game's eventual winner and of the others.

    Only decided games count; a game that has ended keeps its final score in later hands,
    so every hand's mean is over the same games.
    """
    winners = frame.loc[frame["decided"], "winner_seat"]
    if winners.empty:  # no decided game: nothing to follow
        return pd.DataFrame({"hand": pd.Series(dtype=int), "winner": pd.Series(dtype=float),
                             "others": pd.Series(dtype=float)})  # fmt: skip
    rows = hands[hands["game"].isin(winners.index) & (hands["hand"] < max_hands)]
    is_winner = rows["seat"].to_numpy() == winners.reindex(rows["game"]).to_numpy()
    scores = rows.assign(role=np.where(is_winner, "winner", "others"))
    table = scores.pivot_table(index=["game", "seat", "role"], columns="hand", values="score", aggfunc="first")
    table = table.ffill(axis=1)
    means = table.groupby(level="role").mean().T.reindex(columns=["winner", "others"])
    means.index.name = "hand"
    means.columns.name = None
    return means.reset_index()
