"""Score trajectories: the mean score after each hand of a game's eventual winner and of the other seats.

Only decided games count, and a game that has ended keeps its final score in later
hands, so every hand's mean is over the same games. The means are ratios of running
sums (`ScorePaths`), which take the hands of whole games batch by batch.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MAX_HANDS = 60
"""Trajectories are followed for this many hands (a chart's width); longer games keep their final score."""


class ScorePaths:
    """Running sums of the winners' and the other seats' scores after each hand, over decided games.

    Per hand h: the scores of games that played hand h, and, apart, each game's final
    score by its last hand, which `means` carries into the hands after it.
    """

    def __init__(self, *, n_players: int, max_hands: int = MAX_HANDS) -> None:
        self.n_players = n_players
        self.max_hands = max_hands
        self.winner = np.zeros(max_hands, dtype=np.int64)
        self.others = np.zeros(max_hands, dtype=np.int64)
        self.ended_winner = np.zeros(max_hands, dtype=np.int64)
        self.ended_others = np.zeros(max_hands, dtype=np.int64)
        self.games = 0
        self.hands = 0

    def add(self, hands: pd.DataFrame, winner_seat: pd.Series) -> None:
        """Add the hands of whole games; `winner_seat` gives each game's sole winner (-1 if none), by game."""
        seat_of = _winner_of(winner_seat, hands["game"].to_numpy())
        decided = seat_of >= 0
        if not decided.any():
            return
        seat_of = seat_of[decided]
        game, hand = hands["game"].to_numpy()[decided], hands["hand"].to_numpy()[decided]
        seat, score = hands["seat"].to_numpy()[decided], hands["score"].to_numpy()[decided]
        if len(game) < 2 or (game[1:] >= game[:-1]).all():  # in game order, as rummysim writes them
            starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
            self.games += len(starts)
            last = np.repeat(np.maximum.reduceat(hand, starts), np.diff(np.r_[starts, len(hand)]))
        else:
            self.games += int(pd.unique(game).size)
            last = pd.Series(hand).groupby(game).transform("max").to_numpy()
        early = hand < self.max_hands
        self.hands = max(self.hands, int(hand[early].max()) + 1)
        other = (seat != seat_of).astype(np.int64)
        self.winner, self.others = self._by_hand(hand, other, score, early, (self.winner, self.others))
        ended = early & (hand == last)
        self.ended_winner, self.ended_others = self._by_hand(
            hand, other, score, ended, (self.ended_winner, self.ended_others)
        )

    def _by_hand(
        self, hand: np.ndarray, other: np.ndarray, score: np.ndarray, mask: np.ndarray,
        totals: tuple[np.ndarray, np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Return `totals` (the winner's, the others') plus the masked scores summed by hand, in one pass.

        Exact: float sums of integers below 2**53.
        """
        sums = np.bincount(2 * hand[mask] + other[mask], weights=score[mask], minlength=2 * self.max_hands)
        sums = sums.astype(np.int64).reshape(-1, 2)
        return totals[0] + sums[:, 0], totals[1] + sums[:, 1]

    def means(self) -> pd.DataFrame:
        """Return one row per hand: the mean score of the eventual winner and of the other seats after it."""
        if self.games == 0:  # no decided game: nothing to follow
            return pd.DataFrame({"hand": pd.Series(dtype=int), "winner": pd.Series(dtype=float),
                                 "others": pd.Series(dtype=float)})  # fmt: skip
        h = self.hands
        carried_winner = np.concatenate([[0], np.cumsum(self.ended_winner)[: h - 1]])
        carried_others = np.concatenate([[0], np.cumsum(self.ended_others)[: h - 1]])
        winner = (self.winner[:h] + carried_winner) / self.games
        others = (self.others[:h] + carried_others) / (self.games * (self.n_players - 1))
        return pd.DataFrame({"hand": np.arange(h), "winner": winner, "others": others})


def _winner_of(winner_seat: pd.Series, games: np.ndarray) -> np.ndarray:
    """Return the winner's seat (-1: none) of each game in `games`, from `winner_seat` by game number.

    Game numbers are small whole numbers, so a table indexed by them looks them up at once;
    any other index goes through pandas' `reindex`.
    """
    index = winner_seat.index.to_numpy()
    if len(index) and index.dtype.kind in "iu" and index.min() >= 0 and index.max() < 4 * len(index) + 1024:
        table = np.full(int(index.max()) + 2, -1, dtype=np.int64)  # the last entry: games not in the index
        table[index] = winner_seat.fillna(-1).to_numpy(dtype=np.int64)
        return table[np.where((games >= 0) & (games < len(table) - 1), games, len(table) - 1)]
    return winner_seat.reindex(games).fillna(-1).to_numpy(dtype=np.int64)


def trajectories(hands: pd.DataFrame, frame: pd.DataFrame, *, max_hands: int = MAX_HANDS) -> pd.DataFrame:
    """Return the score trajectories of one condition from its hands table in memory and its `game_frame`."""
    n_players = int(hands["seat"].max()) + 1 if len(hands) else 2
    paths = ScorePaths(n_players=n_players, max_hands=max_hands)
    paths.add(hands, frame["winner_seat"])
    return paths.means()
