"""Synthetic result tables with a planted truth, to validate the analysis against.

The tables have the schema of a real run (`rummysim.results.SCHEMAS`), but who wins is
drawn from known probabilities: by turn position (a planted seat bias) or by strategy
(a planted skill gap). Scores follow the hands, so lead changes are real too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rummysim.results import SCHEMAS


def synthetic_tables(
    rng: np.random.Generator,
    *,
    games: int,
    n: int = 3,
    hands: int = 6,
    hand_probs: list[float] | None = None,
    game_probs: list[float] | None = None,
    players: list[str] | None = None,
    strong_wins: float | None = None,
    condition: str = "c",
    first_dealers: np.ndarray | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (hands, games) for one condition.

    `hand_probs[p]`: chance that the seat at position p in a hand wins it. `game_probs[p]`:
    chance that the seat starting at position p wins the game. `strong_wins`: chance that
    the one seat playing ``players[0]`` wins the game (the others share the rest).
    """
    hand_probs = hand_probs or [1.0 / n] * n
    game_probs = game_probs or [1.0 / n] * n
    players = players or ["greedy"] * n
    hand_rows, game_rows = [], []
    for g in range(games):
        first = int(first_dealers[g]) if first_dealers is not None else int(rng.integers(n))
        strategy = [players[(s + g) % n] for s in range(n)]
        score = [0] * n
        won_hands = [0] * n
        for h in range(hands):
            dealer = (first + h) % n
            winner = (dealer + 1 + int(rng.choice(n, p=hand_probs))) % n
            points = int(rng.integers(1, 40))
            score[winner] += points
            won_hands[winner] += 1
            for s in range(n):
                gain = points if s == winner else 0
                position = (s - dealer - 1) % n
                row = (g, h, s, strategy[s], dealer, position, s == winner, gain, score[s], "discard", False, 1, False)
                hand_rows.append((condition, *row, 20, 0, "", 0))
        if strong_wins is not None:
            strong = strategy.index(players[0])
            others = [s for s in range(n) if s != strong]
            winner = strong if rng.random() < strong_wins else others[int(rng.integers(len(others)))]
        else:
            winner = (first + 1 + int(rng.choice(n, p=game_probs))) % n
        for s in range(n):
            game_rows.append((condition, g, s, strategy[s], score[s], s == winner, False, hands, won_hands[s], 0,
                              first, False))  # fmt: skip
    return pd.DataFrame(hand_rows, columns=SCHEMAS["hands"].names), pd.DataFrame(
        game_rows, columns=SCHEMAS["games"].names
    )


SMALL = {
    "name": "small",
    "question": "Does ace high change who wins?",
    "seed": 5,
    "games": 40,
    "players": ["greedy", "greedy", "greedy"],
    "rules": {"target_score": 60},
    "conditions": {
        "basic": {},
        "ace_high": {"rules": {"ace": "high_or_low"}},
        "skill": {"players": ["cautious", "greedy", "greedy"]},
        "skill_high": {"players": ["cautious", "greedy", "greedy"], "rules": {"ace": "high_or_low"}},
    },
}
"""A small real experiment (greedy tables and one cautious pairing, with and without ace high) the report tests play."""
