"""expert on the compiled engine against expert on the reference engine: the same rows on the same seed.

On the reference engine `rummysim.strategies.expert.Expert` builds its view from the
`PlayerView` and its memory of the public events (`rummysim.compiled.expert_calls`); on the
compiled engine `rummysim.compiled.expert.expert_turn` copies it from the hand's state
(`view_of`). Both then ask the same search, so any difference between the two views (a card
the compiled seat could see and the reference one could not, a decision counted twice, a
stale lay-off) changes a move, and the tables differ. The plants below prove the comparison
can fail.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rummysim.compiled import expert_search
from rummysim.compiled.columns import lineup_arrays, search_room
from rummysim.design import Condition
from rummysim.engine_choice import choose_engine
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.rules import Rules
from rummysim.strategies.expert import RACE_REACH
from tests.test_compiled import differences

SEARCH = expert_search()
SMALL = {"strategy": "expert", "samples": 4, "depth": 12}
EXPERTS = [
    SMALL,
    {"strategy": "expert", "samples": 3, "candidates": 2, "depth": 6, "confidence": 0.0},
    {"strategy": "expert", "samples": 5, "depth": 20, "patience": 2, "alarm": 6, "their_patience": 6, "blind": 0.0},
    {"strategy": "expert", "samples": 9, "depth": 12, "drop": 0.5},
]
"""Small searches, and a race: after eight deals a candidate trailing by half a standard error meets no more."""
HOUSE_RULES = [
    dict(lay_off="after_meld", take_discard="must_use", stock_out="block"),
    dict(lay_off="any", take_discard="must_use", stock_out="rebuild", going_out="discard"),
    dict(lay_off="after_meld", take_discard="free", stock_out="block", ace="high_or_low", rummy_multiplier=3),
]


def _condition(n: int, lineup: list, **rules: object) -> Condition:
    players = tuple(p if isinstance(p, dict) else {"strategy": p} for p in lineup)
    return Condition(f"x{n}", Rules(n_players=n, **rules), players)  # type: ignore[arg-type]


CASES = [
    _condition(2, [SMALL, "greedy"]),
    _condition(2, [EXPERTS[3], "cautious"], target_score=80),
    _condition(3, [SMALL, "cautious", EXPERTS[1]], rummy_multiplier=2),
    _condition(4, [SMALL] * 4, **HOUSE_RULES[0]),
    _condition(5, [EXPERTS[2], "rummy_hunter", "uniform", SMALL, "greedy"], **HOUSE_RULES[1]),
    _condition(6, [SMALL, "cautious"] * 3, **HOUSE_RULES[2]),
]


@pytest.mark.parametrize("condition", CASES, ids=[c.name for c in CASES])
def test_R4_to_R12_expert_plays_the_same_rows_on_either_engine(condition):
    assert differences(condition, seed=5, games=3) is None


def _forgets_taken_cards(monkeypatch):
    from rummysim.compiled import expert_calls

    original = expert_calls.view_record

    def planted(view, *, seen, taken):
        record = original(view, seen=seen, taken=taken)
        record[0]["known"][:] = 0
        return record

    monkeypatch.setattr(expert_calls, "view_record", planted)


def _skips_a_decision(monkeypatch):
    from rummysim.strategies import expert

    original = expert.derive
    monkeypatch.setattr(expert, "derive", lambda key, d: original(key, d + 1))


def _sees_no_discard_pile_top(monkeypatch):
    from rummysim.strategies import expert

    monkeypatch.setattr(expert.Expert, "draw", lambda self, view: expert.Pile.STOCK)


PLANTS = {
    "the reference's expert forgets the cards others took from the pile": _forgets_taken_cards,
    "the reference's expert searches decision d with decision d + 1's key": _skips_a_decision,
    "the reference's expert never takes the discard (R4.1)": _sees_no_discard_pile_top,
}


@pytest.mark.parametrize("plant", list(PLANTS))
def test_a_planted_difference_in_expert_is_caught(plant, monkeypatch):
    PLANTS[plant](monkeypatch)
    found = next((d for d in (differences(c, seed=5, games=3) for c in CASES) if d is not None), None)
    assert found is not None, f"{plant}: not caught"


@st.composite
def conditions(draw):
    """Any rule settings and house rules at 2 to 6 players, with experts beside the compiled bots."""
    n = draw(st.integers(2, 6))
    settings_ = {
        "cards_dealt": draw(st.sampled_from([None, 3, 7, 10])),
        "ace": draw(st.sampled_from(["low", "high_or_low"])),
        "going_out": draw(st.sampled_from(["any", "discard"])),
        "rummy_multiplier": draw(st.sampled_from([1, 2, 4])),
        "lay_off": draw(st.sampled_from(["any", "after_meld"])),
        "take_discard": draw(st.sampled_from(["free", "must_use"])),
        "stock_out": draw(st.sampled_from(["rebuild", "block"])),
        "stall_after_turns": draw(st.sampled_from([7, 60, 1000])),
        "max_hands": 2,
        "target_score": None,
    }
    try:
        rules = Rules(n_players=n, **settings_)
    except ConfigError:
        assume(False)
    bots = [*EXPERTS, "greedy", "uniform", "cautious", "rummy_hunter"]
    lineup = draw(st.lists(st.sampled_from(bots), min_size=n, max_size=n))
    assume(any(isinstance(p, dict) for p in lineup))
    players = tuple(p if isinstance(p, dict) else {"strategy": p} for p in lineup)
    return Condition("fuzz", rules, players), draw(st.integers(0, 10**6))


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(conditions())
def test_expert_plays_the_same_rows_on_either_engine_under_any_rules(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=1) is None


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(conditions())
def test_expert_plays_the_same_rows_on_either_engine_under_any_rules_at_length(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=2) is None


def test_auto_plays_expert_on_the_compiled_engine():
    experiment = parse_experiment(
        {"name": "x", "question": "q?", "seed": 1, "games": 2, "players": [SMALL, "greedy"]}, source="x.yaml"
    )
    assert choose_engine(experiment, experiment.conditions[0]).engine == "compiled"


def test_a_lineup_without_expert_plays_without_the_search():
    """The game loop compiles without expert's search unless a lineup seats one (`search_room` None)."""
    codes, params = lineup_arrays([{"strategy": "greedy"}, {"strategy": "cautious"}])
    assert search_room(2, codes, params) is None
    codes, params = lineup_arrays([SMALL, {"strategy": "expert", "samples": 9}, {"strategy": "greedy"}])
    room, rewards, work = search_room(3, codes, params)
    assert len(room) == 3 and rewards.shape[1] == RACE_REACH * 9 and len(work) == 1
