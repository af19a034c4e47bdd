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
        seat_of = winner_seat.reindex(hands["game"].to_numpy()).fillna(-1).to_numpy(dtype=np.int64)
        rows = hands[seat_of >= 0]
        if rows.empty:
            return
        seat_of = seat_of[seat_of >= 0]
        game, hand, score = rows["game"].to_numpy(), rows["hand"].to_numpy(), rows["score"].to_numpy()
        self.games += int(pd.unique(game).size)
        last = pd.Series(hand).groupby(game).transform("max").to_numpy()
        early = hand < self.max_hands
        self.hands = max(self.hands, int(hand[early].max()) + 1)
        winner = early & (rows["seat"].to_numpy() == seat_of)
        other = early & ~winner
        self.winner += self._by_hand(hand, score, winner)
        self.others += self._by_hand(hand, score, other)
        self.ended_winner += self._by_hand(hand, score, winner & (hand == last))
        self.ended_others += self._by_hand(hand, score, other & (hand == last))

    def _by_hand(self, hand: np.ndarray, score: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Return the sum of the masked scores by hand (exact: float sums of integers below 2**53)."""
        return np.bincount(hand[mask], weights=score[mask], minlength=self.max_hands).astype(np.int64)

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


def trajectories(hands: pd.DataFrame, frame: pd.DataFrame, *, max_hands: int = MAX_HANDS) -> pd.DataFrame:
    """Return the score trajectories of one condition from its hands table in memory and its `game_frame`."""
    n_players = int(hands["seat"].max()) + 1 if len(hands) else 2
    paths = ScorePaths(n_players=n_players, max_hands=max_hands)
    paths.add(hands, frame["winner_seat"])
    return paths.means()
