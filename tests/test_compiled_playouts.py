"""montecarlo's playouts, compiled and in Python: the same reward for every candidate on every position.

`rummysim.strategies.rollout.python_rewards` is the readable model of the rest of a hand;
`rummysim.compiled.playouts.rewards` is its compiled twin, which montecarlo uses wherever
the compiled engine loads. These tests hold them to equal numbers on random positions
(any rules, empty stocks that force a rebuild or a stall (R10), short depths that cut a
playout off) and on every decision of real montecarlo games, check that a planted
difference is caught, and that a game of montecarlo is the same with either.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rummysim
from rummysim import compiled
from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.melds import meld_table
from rummysim.rules import PRESETS, Ace, GoingOut, Rules
from rummysim.runner import run_experiment
from rummysim.strategies import montecarlo, rollout
from rummysim.strategies.rollout import DISCARD, DRAW, Decision, Position

FAST = compiled.playout_rewards()
assert FAST is not None, compiled.why_not()


def random_rules(rng: random.Random) -> Rules:
    n = rng.randint(2, 6)
    return Rules(
        n_players=n, ace=rng.choice(list(Ace)), ace_points=rng.choice([1, 7, 11, 15]),
        going_out=rng.choice(list(GoingOut)), rummy_multiplier=rng.choice([1, 2, 3]),
        stall_after_rebuilds=rng.choice([0, 1, 3]),
    )  # fmt: skip


def random_position(rng: random.Random, rules: Rules) -> tuple[list[Position], Decision]:
    """Deal a random position of the middle of a hand: melds on the table, holdings, a pile, a stock."""
    n = rules.n_players
    deck = list(range(52))
    rng.shuffle(deck)
    free = (1 << 52) - 1
    table: list[int] = []
    for meld in rng.sample(meld_table(rules.ace), 40):
        if len(table) < rng.randint(0, 4) and meld & free == meld:
            table.append(meld)
            free &= ~meld
    deck = [c for c in deck if free >> c & 1]
    sizes = [rng.randint(1, max(1, min(11, len(deck) // n - 1))) for _ in range(n)]  # every seat holds a card
    holdings, at = [], 0
    for size in sizes:
        holdings.append(sum(1 << c for c in deck[at : at + size]))
        at += size
    rest = deck[at:]
    n_pile = rng.randint(0, len(rest))
    pile, stock = rest[:n_pile], rest[n_pile:]
    if rng.random() < 0.3:
        pile, stock = pile + stock, []  # the next draw from the stock rebuilds it, or stalls (R10)
    me = rng.randrange(n)
    positions = []
    for _ in range(rng.randint(1, 4)):
        others = [h for s, h in enumerate(holdings) if s != me]
        hidden = [c for h in others for c in range(52) if h >> c & 1] + stock
        rng.shuffle(hidden)
        dealt, k = list(holdings), 0
        for s in range(n):
            if s != me:
                size = holdings[s].bit_count()
                dealt[s] = sum(1 << c for c in hidden[k : k + size])
                k += size
        melded = [rng.random() < 0.5 for _ in range(n)]
        positions.append(Position(dealt, hidden[k:], list(pile), list(table), melded, rng.randint(0, 2),
                                  key=rng.getrandbits(64)))  # fmt: skip
    mine = [c for c in range(52) if holdings[me] >> c & 1]
    if rng.random() < 0.5 or len(mine) < 2:
        options: tuple[int, ...] = (1, 0) if rng.random() < 0.5 else (0, 1)
        kind = DRAW
    else:
        options, kind = tuple(rng.sample(mine, min(len(mine), rng.randint(1, 4)))), DISCARD
    decision = Decision(
        me, kind, options, melded=rng.random() < 0.5, depth=rng.choice([1, 3, 40]),
        hope=rng.choice([0.0, 4.0]), later_hope=rng.choice([0.0, 2.5]),
    )  # fmt: skip
    return positions, decision


def agree(positions: list[Position], decision: Decision, rules: Rules) -> bool:
    slow = rollout.python_rewards([p.copy() for p in positions], decision, rules)
    fast = FAST([p.copy() for p in positions], decision, rules)
    assert slow.shape == fast.shape == (len(decision.options), len(positions))
    return bool(np.array_equal(slow, fast))


def agree_on_a_random_position(seed: int) -> bool:
    rng = random.Random(seed)
    rules = random_rules(rng)
    return agree(*random_position(rng, rules), rules)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32))
def test_compiled_playouts_give_the_python_rewards_on_any_position(seed):
    assert agree_on_a_random_position(seed)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.integers(0, 2**32))
def test_compiled_playouts_give_the_python_rewards_on_any_position_at_length(seed):
    assert agree_on_a_random_position(seed)


def recorded_decisions(lineup: list, rules: Rules, seed: int) -> list[tuple[list[Position], Decision, Rules]]:
    """Play a game and keep every decision montecarlo judged, with its positions."""
    kept = []

    def keep(positions, decision, rules):
        kept.append(([p.copy() for p in positions], decision, rules))
        return rollout.python_rewards(positions, decision, rules)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(montecarlo, "rewards", keep)
        rummysim.play_game(lineup, rules=rules, seed=seed)
    return kept


MC = {"strategy": "montecarlo", "samples": 4, "candidates": 3, "playout_hope": True}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_compiled_playouts_judge_every_decision_of_a_game_as_python_does(preset):
    rules = dataclasses.replace(PRESETS[preset], n_players=3, target_score=40, stall_after_rebuilds=1)
    decisions = recorded_decisions([MC, "greedy", {**MC, "depth": 3, "tries": 3}], rules, seed=11)
    assert len(decisions) > 20
    differing = [d for positions, d, r in decisions if not agree(positions, d, r)]
    assert not differing, f"{len(differing)} of {len(decisions)} decisions judged differently, first {differing[0]}"


def _no_rummy_bonus(monkeypatch):
    score = rollout.score
    monkeypatch.setattr(rollout, "score", lambda position, **kw: score(position, **{**kw, "rummy": False}))


def _unshuffled_rebuild(monkeypatch):
    monkeypatch.setattr(rollout, "permutation", lambda key, n: list(range(n)))


def _discards_the_taken_card(monkeypatch):
    choose = rollout.choose_discard
    monkeypatch.setattr(
        rollout,
        "choose_discard",
        lambda holding, *, taken, **kw: taken if taken is not None else choose(holding, taken=taken, **kw),
    )


PLANTS = {
    "R8.3: going rummy is not multiplied": _no_rummy_bonus,
    "R10.1: the rebuilt stock keeps the pile's order": _unshuffled_rebuild,
    "R4.5: greedy discards the card it took": _discards_the_taken_card,
}


@pytest.mark.parametrize("plant", list(PLANTS))
def test_a_planted_difference_in_the_python_playouts_is_caught(plant, monkeypatch):
    PLANTS[plant](monkeypatch)
    rng = random.Random(7)
    caught = 0
    for _ in range(300):
        rules = random_rules(rng)
        positions, decision = random_position(rng, rules)
        caught += not agree(positions, decision, rules)
    assert caught, f"{plant}: not caught in 300 random positions"


def test_montecarlo_plays_the_same_game_with_compiled_or_python_playouts():
    lineup = [MC, "cautious", {**MC, "samples": 3}]
    rules = Rules(n_players=3, target_score=60)
    with_compiled = rummysim.play_game(lineup, rules=rules, seed=5)
    with rollout.python_only():
        with_python = rummysim.play_game(lineup, rules=rules, seed=5)
    assert with_compiled.hands == with_python.hands
    assert with_compiled.games == with_python.games


def test_montecarlo_judges_with_the_compiled_playouts_where_they_load(monkeypatch):
    calls = []
    python_rewards = rollout.python_rewards
    monkeypatch.setattr(rollout, "python_rewards", lambda *a: calls.append(1) or python_rewards(*a))
    rummysim.play_game([MC, "greedy"], rules=Rules(max_hands=1, target_score=None), seed=2)
    assert not calls
    monkeypatch.setattr(rollout, "_compiled", None)
    rummysim.play_game([MC, "greedy"], rules=Rules(max_hands=1, target_score=None), seed=2)
    assert calls


TINY = {
    "name": "tiny", "question": "q?", "games": 2, "seed": 3, "players": [MC, "greedy"], "rules": {"target_score": 30},
    "conditions": {"mc": {}, "greedy": {"players": ["greedy", "greedy"]}},
}  # fmt: skip


def test_the_manifest_says_montecarlo_judged_with_compiled_playouts_and_python_ones_give_the_same_tables(
    tmp_path, monkeypatch
):
    experiment = parse_experiment(TINY, source="tiny.yaml")
    fast = run_experiment(experiment, out=tmp_path / "fast", n_jobs=1)
    assert fast.manifest["engines"]["mc"] == {
        "engine": "python", "why": "montecarlo(candidates=3, playout_hope=True, samples=4) has no compiled twin "
        "(those are uniform, greedy, rummy_hunter, cautious, expert)", "playouts": "compiled",
    }  # fmt: skip
    assert "playouts" not in fast.manifest["engines"]["greedy"]
    monkeypatch.setenv(compiled.SWITCH, "0")
    slow = run_experiment(experiment, out=tmp_path / "slow", n_jobs=1)
    assert slow.manifest["engines"]["mc"]["playouts"] == "python"
    pd.testing.assert_frame_equal(fast.hands, slow.hands)
    pd.testing.assert_frame_equal(fast.games, slow.games)


def test_validate_says_how_montecarlo_will_judge(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY))
    out = CliRunner().invoke(main, ["validate", str(path)]).output
    assert "mc: 2 games, players [montecarlo, greedy]" in out and "playouts: compiled" in out
