"""A small atlas for tests: two rules of the grid at 2 and 3 players, greedy and a cautious arm, a few games."""

from __future__ import annotations

SPEC = {
    "name": "mini_atlas", "question": "What do two rules change at 2 and 3 players?", "seed": 5, "games": 6,
    "players": ["greedy", "greedy"], "rules": {"target_score": 40},
    "measures": ["first_player_edge_hand", "dealer_edge_hand", "game_length", "skill"],
    "conditions": {"p2": {}, "p2_skill": {"players": ["cautious", "greedy"]},
                   "p3": {"players": ["greedy", "greedy", "greedy"]}},
    "grid": {"going_out": ["any", "discard"], "stock_out": ["rebuild", "block"]},
}  # fmt: skip
