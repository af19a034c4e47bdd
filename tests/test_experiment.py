"""Experiment files: parsing, resolved defaults, grids, fingerprints and one-line errors.

Every bad input must fail with one line that starts with the file, names the key path and
the value, cites the rule where there is one and, for an unknown key, suggests the nearest
valid key (STYLE.md, Errors).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from rummysim.errors import ConfigError, RummysimError
from rummysim.experiment import Condition, Experiment, load_experiment, parse_experiment
from rummysim.measures import MEASURES
from rummysim.rules import FIELDS, HOUSE_RULES, Ace, GoingOut
from rummysim.strategies import REGISTRY

EXPERIMENTS = sorted((Path(__file__).resolve().parent.parent / "experiments").glob("*.yaml"))

BASE: dict[str, Any] = {
    "name": "tiny",
    "question": "Does it parse?",
    "seed": 7,
    "games": 10,
    "players": ["greedy", "greedy"],
}
"""The smallest valid experiment: the required keys only."""

STRATEGIES = ", ".join(sorted(REGISTRY)) + ", or a path such as my_bots.py:MyBot"

EXAMPLE = """\
# Does letting the ace stand high change who wins? (R9)
name: acehigh
question: Does playing aces high or low (R9) change who wins?
description: >
  Three greedy players play the same deals under basic rules and
  with the ace high or low.
seed: 2026
games: 200
players: [greedy, greedy, {strategy: uniform}]
rules:
  target_score: 100
conditions:
  basic: {}
  ace_high:
    description: Q-K-A is a sequence, aces score 15
    rules: {ace: high_or_low}   # ace_points follows: 15
"""


def write(tmp_path: Path, content: dict[str, Any] | str, name: str = "exp.yaml") -> Path:
    """Write an experiment file: a mapping is dumped as YAML, a string written as it is."""
    path = tmp_path / name
    text = content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, content: dict[str, Any] | str, name: str = "exp.yaml") -> Experiment:
    return load_experiment(write(tmp_path, content, name))


def error_of(path: Path) -> str:
    """Return the message `load_experiment` raises for a file, checking it is one line."""
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    message = str(info.value)
    assert isinstance(info.value, RummysimError)
    assert "\n" not in message, message
    return message


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in BASE.items() if k != key}


def conditions(**bodies: Any) -> dict[str, Any]:
    return {**BASE, "conditions": bodies}


# --- valid files ------------------------------------------------------------------------------


def test_example_file_parses_into_a_frozen_experiment(tmp_path):
    path = write(tmp_path, EXAMPLE)
    experiment = load_experiment(path)
    assert experiment.name == "acehigh"
    assert experiment.question == "Does playing aces high or low (R9) change who wins?"
    assert experiment.description == (
        "Three greedy players play the same deals under basic rules and with the ace high or low."
    )
    assert experiment.seed == 2026
    assert experiment.games == 200
    assert experiment.source == str(path)
    assert [c.name for c in experiment.conditions] == ["basic", "ace_high"]
    basic, ace_high = experiment.conditions
    assert basic.players == ({"strategy": "greedy"}, {"strategy": "greedy"}, {"strategy": "uniform"})
    assert ace_high.players == basic.players
    assert basic.description == ""
    assert ace_high.description == "Q-K-A is a sequence, aces score 15"
    assert basic.rules.n_players == 3
    assert basic.rules.target_score == ace_high.rules.target_score == 100
    assert basic.rules.ace is Ace.LOW
    assert basic.rules.ace_value == 1
    assert ace_high.rules.ace is Ace.HIGH_OR_LOW
    assert ace_high.rules.ace_value == 15  # R9.2: follows the ace
    assert experiment.condition("ace_high") is ace_high
    with pytest.raises(dataclasses.FrozenInstanceError):
        experiment.games = 1  # type: ignore[misc]


def test_parse_experiment_takes_a_mapping_and_names_its_source():
    experiment = parse_experiment(yaml.safe_load(EXAMPLE), source="from/memory.yaml")
    assert experiment.source == "from/memory.yaml"
    assert experiment.names == "basic, ace_high"
    with pytest.raises(ConfigError) as info:
        parse_experiment({**BASE, "rulez": {}}, source="from/memory.yaml")
    assert str(info.value) == "from/memory.yaml: rulez: unknown key; did you mean 'rules'?"
    with pytest.raises(ConfigError) as info:
        parse_experiment({**BASE, "games": 0})
    assert str(info.value) == "<experiment>: games: 0 is below the smallest valid value, 1"


def test_players_as_names_and_as_strategy_mappings_are_the_same_lineup(tmp_path):
    by_name = load(tmp_path, {**BASE, "players": ["greedy", "uniform"]}, "a.yaml")
    by_mapping = load(tmp_path, {**BASE, "players": [{"strategy": "greedy"}, {"strategy": "uniform"}]}, "b.yaml")
    assert by_name.conditions[0].players == ({"strategy": "greedy"}, {"strategy": "uniform"})
    assert by_mapping.conditions == by_name.conditions
    assert by_mapping.fingerprint() == by_name.fingerprint()


def test_no_conditions_is_one_condition_named_default(tmp_path):
    experiment = load(tmp_path, {**BASE, "rules": {"going_out": "discard"}})
    [condition] = experiment.conditions
    assert condition.name == "default"
    assert condition.rules.going_out is GoingOut.DISCARD
    assert condition.players == ({"strategy": "greedy"}, {"strategy": "greedy"})
    assert load(tmp_path, {**BASE, "conditions": {}}, "empty.yaml").names == "default"


def test_conditions_override_rules_and_players(tmp_path):
    experiment = load(
        tmp_path,
        {
            **BASE,
            "rules": {"target_score": 100, "rummy_multiplier": 1},
            "conditions": {
                "base": {},
                "bonus": {"rules": {"rummy_multiplier": 3}},
                "mixed": {"players": ["uniform", {"strategy": "greedy"}, "uniform"], "rules": {"max_hands": 5}},
            },
        },
    )
    base, bonus, mixed = experiment.conditions
    assert (base.rules.rummy_multiplier, base.rules.target_score) == (1, 100)
    assert (bonus.rules.rummy_multiplier, bonus.rules.target_score) == (3, 100)
    assert bonus.players == base.players == ({"strategy": "greedy"}, {"strategy": "greedy"})
    assert mixed.players == ({"strategy": "uniform"}, {"strategy": "greedy"}, {"strategy": "uniform"})
    assert (mixed.rules.n_players, mixed.rules.max_hands, mixed.rules.rummy_multiplier) == (3, 5, 1)


def test_r3_2_cards_dealt_follows_each_conditions_player_count(tmp_path):
    bodies = {f"p{n}": {"players": ["greedy"] * n} for n in range(2, 7)}
    experiment = load(tmp_path, conditions(**bodies))
    dealt = {c.name: (c.rules.n_players, c.rules.n_dealt) for c in experiment.conditions}
    assert dealt == {"p2": (2, 10), "p3": (3, 7), "p4": (4, 7), "p5": (5, 6), "p6": (6, 6)}
    resolved = {c["name"]: c["rules"]["cards_dealt"] for c in experiment.to_dict()["conditions"]}
    assert resolved == {"p2": 10, "p3": 7, "p4": 7, "p5": 6, "p6": 6}


def test_cards_dealt_set_in_base_rules_applies_to_every_condition_that_fits(tmp_path):
    data = {
        **BASE,
        "rules": {"cards_dealt": 13},
        "conditions": {"two": {}, "three": {"players": ["greedy"] * 3}},
    }
    experiment = load(tmp_path, data)
    assert [c.rules.n_dealt for c in experiment.conditions] == [13, 13]


def test_grid_makes_a_condition_for_every_combination(tmp_path):
    experiment = load(tmp_path, {**BASE, "grid": {"ace": ["low", "high_or_low"], "going_out": ["any", "discard"]}})
    assert [c.name for c in experiment.conditions] == [
        "ace=low,going_out=any",
        "ace=low,going_out=discard",
        "ace=high_or_low,going_out=any",
        "ace=high_or_low,going_out=discard",
    ]
    settings = [(c.rules.ace.value, c.rules.going_out.value) for c in experiment.conditions]
    assert settings == [("low", "any"), ("low", "discard"), ("high_or_low", "any"), ("high_or_low", "discard")]
    assert experiment.condition("ace=high_or_low,going_out=discard").rules.ace_value == 15


def test_grid_crosses_every_condition_with_every_grid_point(tmp_path):
    data = {
        **BASE,
        "rules": {"target_score": 50},
        "conditions": {"two": {}, "three": {"players": ["greedy", "uniform", "greedy"]}},
        "grid": {"rummy_multiplier": [1, 2, 3]},
    }
    experiment = load(tmp_path, data)
    assert [c.name for c in experiment.conditions] == [
        "two|rummy_multiplier=1",
        "two|rummy_multiplier=2",
        "two|rummy_multiplier=3",
        "three|rummy_multiplier=1",
        "three|rummy_multiplier=2",
        "three|rummy_multiplier=3",
    ]
    for condition in experiment.conditions:
        arm, point = condition.name.split("|")
        assert condition.rules.n_players == (2 if arm == "two" else 3)
        assert condition.rules.n_dealt == (10 if arm == "two" else 7)
        assert condition.rules.rummy_multiplier == int(point.split("=")[1])
        assert condition.rules.target_score == 50


def test_to_dict_resolves_every_rule_default(tmp_path):
    experiment = load(tmp_path, EXAMPLE)
    data = experiment.to_dict()
    assert json.loads(json.dumps(data)) == data  # plain values only
    assert set(data) == {
        "name",
        "question",
        "description",
        "seed",
        "games",
        "time_limit",
        "isolate",
        "engine",
        "margin",
        "precision",
        "max_games",
        "skill",
        "measures",
        "grid",
        "conditions",
    }
    assert data["time_limit"] is None
    assert (data["name"], data["seed"], data["games"]) == ("acehigh", 2026, 200)
    basic, ace_high = data["conditions"]
    assert set(basic) == {"name", "description", "games", "isolate", "engine", "rules", "players"}
    assert basic["games"] is None
    assert set(basic["rules"]) == set(FIELDS) - set(HOUSE_RULES)  # house rules (R12) listed only when on
    assert basic["rules"] == {
        "n_players": 3,
        "cards_dealt": 7,
        "ace": "low",
        "ace_points": 1,
        "going_out": "any",
        "rummy_multiplier": 2,
        "target_score": 100,
        "max_hands": None,
        "stall_after_rebuilds": 3,
        "stall_after_turns": 1000,
        "stall_after_hands": 50,
    }
    assert ace_high["rules"] == {**basic["rules"], "ace": "high_or_low", "ace_points": 15}
    assert basic["players"] == [{"strategy": "greedy"}, {"strategy": "greedy"}, {"strategy": "uniform"}]
    assert ace_high["description"] == "Q-K-A is a sequence, aces score 15"


# --- fingerprint and overrides ------------------------------------------------------------------


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param({"seed": 8}, id="seed"),
        pytest.param({"rules": {"ace": "high_or_low"}}, id="base-rule"),
        pytest.param({"rules": {"cards_dealt": 9}}, id="cards-dealt"),
        pytest.param({"players": ["greedy", "uniform"]}, id="strategy"),
        pytest.param({"players": ["greedy", "greedy", "greedy"]}, id="player-count"),
        pytest.param({"conditions": {"default": {"rules": {"going_out": "discard"}}}}, id="condition-rule"),
        pytest.param({"conditions": {"default": {}, "more": {}}}, id="extra-condition"),
        pytest.param({"grid": {"rummy_multiplier": [1, 2]}}, id="grid"),
    ],
)
def test_fingerprint_changes_with_anything_that_changes_results(tmp_path, changed):
    before = load(tmp_path, BASE, "before.yaml").fingerprint()
    after = load(tmp_path, {**BASE, **changed}, "after.yaml").fingerprint()
    assert after != before


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param({"games": 11}, id="games"),
        pytest.param({"conditions": {"default": {"games": 30}}}, id="condition-games"),
        pytest.param({"precision": {"order": 0.01}, "max_games": 500}, id="precision"),
        pytest.param({"margin": {"order": 0.05}}, id="margin"),
    ],
)
def test_fingerprint_leaves_out_how_many_games_since_game_g_is_the_same_game_however_many(tmp_path, changed):
    before = load(tmp_path, BASE, "before.yaml").fingerprint()
    assert load(tmp_path, {**BASE, **changed}, "after.yaml").fingerprint() == before


def test_fingerprint_is_stable_across_spelling_order_comments_defaults_and_path(tmp_path):
    plain = load(tmp_path, {**BASE, "rules": {"target_score": 150}}, "plain.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    respelled = load(
        elsewhere,
        (
            "# the same experiment, written differently\n"
            "players:\n"
            "  - strategy: greedy\n"
            "  - greedy\n"
            "games: 10\n"
            "seed: 7\n"
            "question: Does it parse?\n"
            "name: tiny\n"
            "rules:\n"
            "  ace: low            # the default, spelt out\n"
            "  cards_dealt: 10     # R3.2 for two players\n"
            "  ace_points: 1\n"
            "conditions:\n"
            "  default: {}\n"
        ),
        "elsewhere.yaml",
    )
    assert respelled.source != plain.source
    assert respelled.fingerprint() == plain.fingerprint()
    assert load(tmp_path, BASE, "base.yaml").fingerprint() == plain.fingerprint()
    assert load(tmp_path, BASE, "base.yaml").fingerprint() == load(tmp_path, BASE, "base.yaml").fingerprint()


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param({"question": "Does it parse, really?"}, id="question"),
        pytest.param({"description": "A typo fixed in the description."}, id="description"),
        pytest.param({"conditions": {"default": {"description": "Explained."}}}, id="condition-description"),
    ],
)
def test_fingerprint_ignores_text_that_cannot_change_results(tmp_path, changed):
    """Fixing a typo in the question must not make `run` refuse to resume ("a different experiment")."""
    before = load(tmp_path, BASE, "before.yaml").fingerprint()
    after = load(tmp_path, {**BASE, **changed}, "after.yaml").fingerprint()
    assert after == before


def test_with_overrides_replaces_games_and_seed(tmp_path):
    experiment = load(tmp_path, EXAMPLE)
    assert experiment.with_overrides() == experiment
    changed = experiment.with_overrides(games=3, seed=5)
    assert (changed.games, changed.seed) == (3, 5)
    assert (experiment.games, experiment.seed) == (200, 2026)
    assert changed.conditions == experiment.conditions
    assert (changed.name, changed.question, changed.source) == (experiment.name, experiment.question, experiment.source)
    assert changed.to_dict() == {**experiment.to_dict(), "games": 3, "seed": 5}
    assert changed.fingerprint() != experiment.fingerprint()
    assert experiment.with_overrides(games=200, seed=2026).fingerprint() == experiment.fingerprint()
    assert experiment.with_overrides(seed=0).seed == 0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"games": 0}, "command line: --games: 0 is below the smallest valid value, 1"),
        ({"games": True}, "command line: --games: True is not a whole number"),
        ({"seed": -1}, "command line: --seed: -1 is below the smallest valid value, 0"),
        ({"seed": "5"}, "command line: --seed: '5' is not a whole number or 'secret'"),
    ],
)
def test_with_overrides_rejects_bad_values(overrides, message):
    experiment = parse_experiment(BASE)
    with pytest.raises(ConfigError) as info:
        experiment.with_overrides(**overrides)
    assert str(info.value) == message


def test_unknown_condition_name_lists_the_conditions(tmp_path):
    experiment = load(tmp_path, EXAMPLE)
    with pytest.raises(ConfigError) as info:
        experiment.condition("ace_hi")
    assert str(info.value) == "condition 'ace_hi' is not in experiment 'acehigh'; conditions are basic, ace_high"


# --- the shipped experiments ------------------------------------------------------------------


def test_experiments_folder_holds_experiments():
    assert EXPERIMENTS, "no experiments/*.yaml found"


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.name for p in EXPERIMENTS])
def test_every_shipped_experiment_validates(path):
    experiment = load_experiment(path)
    assert isinstance(experiment, Experiment)
    assert experiment.question
    assert experiment.games >= 1
    assert experiment.conditions
    assert len({c.name for c in experiment.conditions}) == len(experiment.conditions)
    for condition in experiment.conditions:
        assert isinstance(condition, Condition)
        assert condition.rules.n_players == len(condition.players)
        assert set(condition.to_dict()["rules"]) | set(HOUSE_RULES) == set(FIELDS)
    assert load_experiment(path).fingerprint() == experiment.fingerprint()


# --- bad input: exact one-line messages ---------------------------------------------------------

MISSING = "missing; an experiment needs name, question, seed, games, players"
RULE_KEYS = ", ".join(f for f in FIELDS if f != "n_players")  # the lineup sets the player count
TOP_KEYS = (
    "name, question, description, seed, games, players, rules, conditions, grid, time_limit, isolate, engine, "
    "margin, precision, max_games, skill, measures, sandbox, seating"
)
FOLDER = "must be 1 to 100 letters, digits, '-' and '_' (it names the results folder)"
DEFAULT = "(in condition 'default', 2 players)"
NEVER_ENDS = (
    "target_score, max_hands: both are null, so the game could never end; "
    "set a target score, a number of hands or both (R11)"
)
DECK_4x13 = (
    "cards_dealt: 4 players x 13 cards need 52 cards and a card for the discard pile, "
    "more than the 52-card deck holds (R1.2, R3.2, R3.3)"
)

BAD = [
    # unknown keys, at every level, with the nearest valid key
    pytest.param({**BASE, "rulez": {}}, "rulez: unknown key; did you mean 'rules'?", id="top-rulez"),
    pytest.param({**BASE, "seeds": 1}, "seeds: unknown key; did you mean 'seed'?", id="top-seeds"),
    pytest.param({**BASE, "colour": "red"}, f"colour: unknown key; valid keys are {TOP_KEYS}", id="top-no-match"),
    pytest.param(
        {**BASE, "rules": {"ace_point": 15}},
        "rules.ace_point: unknown key; did you mean 'ace_points'?",
        id="rules-ace_point",
    ),
    pytest.param(
        {**BASE, "rules": {"n_players": 3}},
        f"rules.n_players: unknown key; valid keys are {RULE_KEYS}",
        id="rules-n_players",
    ),
    pytest.param(
        conditions(x={"rules": {"ace_point": 15}}),
        "conditions.x.rules.ace_point: unknown key; did you mean 'ace_points'?",
        id="condition-rules-ace_point",
    ),
    pytest.param(
        conditions(x={"rule": {"ace": "low"}}),
        "conditions.x.rule: unknown key; did you mean 'rules'?",
        id="condition-body-rule",
    ),
    pytest.param(
        conditions(x={"player": ["greedy", "greedy"]}),
        "conditions.x.player: unknown key; did you mean 'players'?",
        id="condition-body-player",
    ),
    pytest.param(
        conditions(x={"seed": 3}),
        "conditions.x.seed: unknown key; valid keys are rules, players, games, description, isolate, engine, strong, "
        "seating, reference",
        id="condition-body-seed",
    ),
    pytest.param({**BASE, "grid": {"acee": ["low"]}}, "grid.acee: unknown key; did you mean 'ace'?", id="grid-key"),
    # missing required keys
    *[pytest.param(without(key), f"{key}: {MISSING}", id=f"missing-{key}") for key in BASE],
    # the lineup (R1.1) and its strategies
    pytest.param(
        {**BASE, "players": ["greedy"] * 7}, "players: 7 players given, rummy takes 2 to 6 (R1.1)", id="7-players"
    ),
    pytest.param(
        conditions(big={"players": ["greedy"] * 7}),
        "conditions.big.players: 7 players given, rummy takes 2 to 6 (R1.1)",
        id="condition-7-players",
    ),
    pytest.param(
        {**BASE, "players": "greedy"},
        "players: expected a list of strategies, such as [greedy, greedy], got 'greedy'",
        id="players-not-a-list",
    ),
    pytest.param(
        {**BASE, "players": ["greedy", "greedyy"]},
        f"players[1]: strategy 'greedyy' is unknown (did you mean 'greedy'?); strategies are {STRATEGIES}",
        id="unknown-strategy",
    ),
    pytest.param(
        {**BASE, "players": [{"strategy": "unifrom"}, "greedy"]},
        f"players[0]: strategy 'unifrom' is unknown (did you mean 'uniform'?); strategies are {STRATEGIES}",
        id="unknown-strategy-mapping",
    ),
    pytest.param(
        conditions(x={"players": ["greedy", "unifrom"]}),
        "conditions.x.players[1]: strategy 'unifrom' is unknown (did you mean 'uniform'?); "
        f"strategies are {STRATEGIES}",
        id="condition-unknown-strategy",
    ),
    pytest.param(
        {**BASE, "players": ["greedy", {"name": "uniform"}]},
        "players[1]: player {'name': 'uniform'} has no 'strategy' key naming the bot",
        id="player-without-strategy",
    ),
    pytest.param(
        {**BASE, "players": ["greedy", 3]},
        "players[1]: player 3 is neither a strategy name nor a mapping with a 'strategy' key",
        id="player-a-number",
    ),
    # rule values, in base rules and in a condition
    pytest.param(
        {**BASE, "rules": {"ace": "hi"}},
        "rules.ace: 'hi' is not one of low, high_or_low (R5.3, R9.1)",
        id="ace-hi",
    ),
    pytest.param(
        conditions(basic={}, ace_high={"rules": {"ace": "hi"}}),
        "conditions.ace_high.rules.ace: 'hi' is not one of low, high_or_low (R5.3, R9.1)",
        id="condition-ace-hi",
    ),
    pytest.param(
        {**BASE, "rules": {"going_out": 3}},
        "rules.going_out: 3 is not one of any, discard (R7)",
        id="going_out-3",
    ),
    pytest.param(
        {**BASE, "rules": {"rummy_multiplier": 0}},
        "rules.rummy_multiplier: 0 is below the smallest valid value, 1 (R8.3)",
        id="rummy_multiplier-0",
    ),
    pytest.param(
        {**BASE, "rules": {"target_score": -5}},
        "rules.target_score: -5 is below the smallest valid value, 1 (R11.1)",
        id="target_score-negative",
    ),
    pytest.param(
        {**BASE, "rules": {"target_score": True}},
        "rules.target_score: True is not a whole number or null (R11.1)",
        id="target_score-bool",
    ),
    pytest.param(
        conditions(x={"rules": {"rummy_multiplier": True}}),
        "conditions.x.rules.rummy_multiplier: True is not a whole number (R8.3)",
        id="condition-rummy_multiplier-bool",
    ),
    pytest.param(
        {**BASE, "rules": {"max_hands": 2.5}},
        "rules.max_hands: 2.5 is not a whole number or null (R11.2)",
        id="max_hands-float",
    ),
    pytest.param(
        {**BASE, "rules": {"ace_points": -1}},
        "rules.ace_points: -1 is below the smallest valid value, 0 (R8.2, R9.2)",
        id="ace_points-negative",
    ),
    pytest.param(
        {
            **BASE,
            "rules": {"cards_dealt": 13},
            "conditions": {"two": {}, "three": {"players": ["greedy"] * 3}, "four": {"players": ["greedy"] * 4}},
        },
        f"rules.{DECK_4x13} (in condition 'four', 4 players)",
        id="cards_dealt-base-fails-only-with-4-players",
    ),
    pytest.param(
        conditions(two={}, four={"players": ["greedy"] * 4, "rules": {"cards_dealt": 13}}),
        f"conditions.four.rules.{DECK_4x13}",
        id="cards_dealt-in-condition",
    ),
    pytest.param(
        {**BASE, "rules": {"target_score": None, "max_hands": None}},
        f"rules.{NEVER_ENDS} {DEFAULT}",
        id="never-ends",
    ),
    pytest.param(
        {**BASE, "rules": {"max_hands": None}, "conditions": {"x": {"rules": {"target_score": None}}}},
        f"conditions.x.rules.{NEVER_ENDS}",
        id="condition-never-ends",
    ),
    # names that would write outside the results folder
    pytest.param({**BASE, "name": "../evil"}, f"name: '../evil' {FOLDER}", id="name-dotdot"),
    pytest.param({**BASE, "name": "a/b"}, f"name: 'a/b' {FOLDER}", id="name-slash"),
    pytest.param({**BASE, "name": ""}, f"name: '' {FOLDER}", id="name-empty"),
    pytest.param({**BASE, "name": None}, f"name: None {FOLDER}", id="name-null"),
    pytest.param(
        conditions(**{"a/b": {}}),
        "conditions.a/b: a condition name is 1 to 100 letters, digits, '-' and '_'",
        id="condition-name-slash",
    ),
    # seed, games, question
    pytest.param({**BASE, "seed": -1}, "seed: -1 is below the smallest valid value, 0", id="seed-negative"),
    pytest.param({**BASE, "seed": "abc"}, "seed: 'abc' is not a whole number or 'secret'", id="seed-text"),
    pytest.param({**BASE, "seed": 1.5}, "seed: 1.5 is not a whole number", id="seed-float"),
    pytest.param({**BASE, "seed": True}, "seed: True is not a whole number", id="seed-bool"),
    pytest.param({**BASE, "games": 0}, "games: 0 is below the smallest valid value, 1", id="games-0"),
    pytest.param({**BASE, "games": "many"}, "games: 'many' is not a whole number", id="games-text"),
    pytest.param(
        {**BASE, "question": " "},
        "question: expected the question the experiment answers, got ' '",
        id="question-blank",
    ),
    # shapes
    pytest.param(
        {**BASE, "rules": ["ace"]}, "rules: expected a mapping of keys to values, got ['ace']", id="rules-list"
    ),
    pytest.param(
        {**BASE, "conditions": ["a", "b"]},
        "conditions: expected a mapping of keys to values, got ['a', 'b']",
        id="conditions-list",
    ),
    pytest.param(
        conditions(x=3), "conditions.x: expected a mapping of keys to values, got 3", id="condition-not-a-mapping"
    ),
    # grid
    pytest.param(
        {**BASE, "grid": {"ace": "high_or_low"}},
        "grid.ace: expected a non-empty list of values, got 'high_or_low'",
        id="grid-not-a-list",
    ),
    pytest.param(
        {**BASE, "grid": {"ace": []}}, "grid.ace: expected a non-empty list of values, got []", id="grid-empty-list"
    ),
    pytest.param(
        {**BASE, "grid": ["ace"]}, "grid: expected a mapping of keys to values, got ['ace']", id="grid-not-a-mapping"
    ),
    # margin (issue 13): per measure, in its own unit
    pytest.param(
        {**BASE, "margin": 1},
        "margin: expected a mapping of measure to margin, such as {first_seat_edge: 1 pp, order: 0.02}, got 1",
        id="margin-not-a-mapping",
    ),
    pytest.param(
        {**BASE, "margin": {"ordr": 0.02}}, "margin.ordr: unknown measure; did you mean 'order'?", id="margin-typo"
    ),
    pytest.param(
        {**BASE, "margin": {"first_seat_edge": "1 percent"}},
        "margin.first_seat_edge: '1 percent' is not a change in percentage points, such as 1 pp",
        id="margin-unit",
    ),
    pytest.param(
        {**BASE, "margin": {"first_seat_edge": "0 pp"}},
        "margin.first_seat_edge: '0 pp' is not above 0 and at most 100 pp",
        id="margin-zero",
    ),
    pytest.param(
        {**BASE, "margin": {"order": "0.02 pp"}},
        "margin.order: '0.02 pp' is not a number, such as 0.02",
        id="margin-order-in-pp",
    ),
    pytest.param(
        {**BASE, "margin": {"order": 3}}, "margin.order: 3 is not above 0 and at most 2", id="margin-order-big"
    ),
    # precision (issue 13): half-widths per measure, with a cap
    pytest.param(
        {**BASE, "precision": {"order": 0.01}},
        "precision: needs max_games, the most games a condition may play",
        id="precision-no-cap",
    ),
    pytest.param(
        {**BASE, "max_games": 100},
        "max_games: caps the games that precision: asks for; give precision: too",
        id="cap-no-precision",
    ),
    pytest.param(
        {**BASE, "precision": {"first_seat_edge": "0.25 pp"}, "max_games": 5},
        "max_games: 5 is below the 10 games condition default plays first",
        id="cap-below-games",
    ),
    pytest.param(
        {**BASE, "precision": {"first_seat": "0.25 pp"}, "max_games": 50},
        "precision.first_seat: unknown measure; did you mean 'first_seat_edge'?",
        id="precision-typo",
    ),
    pytest.param(
        {**BASE, "precision": {}, "max_games": 50},
        "precision: expected a mapping of measure to the half-width of its 95% intervals, such as "
        "{first_seat_edge: 0.25 pp, order: 0.01}, got {}",
        id="precision-empty",
    ),
    pytest.param(
        {**BASE, "precision": {"order": -0.01}, "max_games": 50},
        "precision.order: -0.01 is not above 0 and at most 2",
        id="precision-negative",
    ),
    # whole files
    pytest.param("", "the file is empty; an experiment needs name, question, seed, games, players", id="empty-file"),
    pytest.param(
        "# only a comment\n",
        "the file is empty; an experiment needs name, question, seed, games, players",
        id="comment-only",
    ),
    pytest.param("- a\n- b\n", "the file: expected a mapping of keys to values, got ['a', 'b']", id="only-a-list"),
    pytest.param("hello\n", "the file: expected a mapping of keys to values, got 'hello'", id="only-a-scalar"),
]


@pytest.mark.parametrize(("content", "message"), BAD)
def test_bad_input_is_one_line_naming_file_key_and_value(tmp_path, content, message):
    path = write(tmp_path, content)
    assert error_of(path) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "name: t\nquestion: q?\nseed: 1: 2\ngames: 10\n",
            ":3: YAML syntax error: mapping values are not allowed here",
            id="mapping-in-a-value",
        ),
        pytest.param(
            "name: t\nquestion: q?\n\tseed: 1\n",
            ":3: YAML syntax error: found character '\\t' that cannot start any token",
            id="tab",
        ),
        pytest.param(
            "name: t\nquestion: q?\nseed: 1\ngames: 10\nplayers: [greedy, greedy]\nseed: 2\n",
            ":6: YAML syntax error: key 'seed' is given twice",
            id="key-twice",
        ),
        pytest.param(
            "name: t\nquestion: q?\nseed: 1\ngames: 10\nplayers: [greedy, greedy]\nrules:\n  ace: low\n  ace: low\n",
            ":8: YAML syntax error: key 'ace' is given twice",
            id="nested-key-twice",
        ),
    ],
)
def test_yaml_errors_report_the_line(tmp_path, text, message):
    path = write(tmp_path, text)
    assert error_of(path) == f"{path}{message}"


def test_margin_is_per_measure_in_its_own_unit_with_defaults_and_changes_no_results(tmp_path):
    plain = load(tmp_path, BASE, "plain.yaml")
    defaults = {name: m.margin for name, m in MEASURES.items()}
    assert plain.margin == defaults
    given = load(tmp_path, {**BASE, "margin": {"first_seat_edge": "0.25 pp", "order": 0.01}}, "given.yaml")
    assert given.margin == defaults | {"first_seat_edge": 0.25, "order": 0.01}
    hands = load(tmp_path, {**BASE, "margin": {"game_length": "0.5 hands", "hand_length": 2}}, "hands.yaml")
    assert (hands.margin["game_length"], hands.margin["hand_length"]) == (0.5, 2.0)
    assert load(tmp_path, {**BASE, "margin": {"first_seat_edge": 0.25}}, "bare.yaml").margin["first_seat_edge"] == 0.25
    assert given.fingerprint() == plain.fingerprint()  # a margin reads the results; it never changes them


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.yaml"
    assert error_of(path) == f"{path}: no such experiment file"


def test_directory_given_as_the_file(tmp_path):
    assert error_of(tmp_path) == f"{tmp_path}: is a directory, not an experiment file"


def test_unknown_strategy_parameter(tmp_path):
    path = write(tmp_path, {**BASE, "players": ["greedy", {"strategy": "uniform", "depth": 3}]})
    message = error_of(path)
    assert message == f"{path}: players[1]: strategy 'uniform' has no parameter 'depth'; it takes no parameters"


def test_base_rules_valid_for_every_player_count_used_is_accepted(tmp_path):
    """The cards_dealt failure above is the 4-player condition's alone: without it the file is valid (R3.2)."""
    data = {**BASE, "rules": {"cards_dealt": 13}, "conditions": {"two": {}, "three": {"players": ["greedy"] * 3}}}
    assert load(tmp_path, data).names == "two, three"


# --- bad input: messages that must carry these parts --------------------------------------------


@pytest.mark.parametrize(
    ("content", "start", "parts"),
    [
        pytest.param({**BASE, "players": ["greedy"]}, "players: 1 player", ["2 to 6", "(R1.1)"], id="1-player-R1.1"),
        pytest.param(
            conditions(solo={"players": ["greedy"]}),
            "conditions.solo.players: 1 player",
            ["2 to 6", "(R1.1)"],
            id="condition-1-player-R1.1",
        ),
        pytest.param({**BASE, "players": []}, "players: ", ["0 players", "2 to 6", "(R1.1)"], id="0-players-R1.1"),
        pytest.param(
            {**BASE, "grid": {"ace": ["low", "hi"]}},
            "grid.ace: 'hi'",
            ["low, high_or_low", "(R5.3, R9.1)"],
            id="grid-bad-value",
        ),
        pytest.param(
            {**BASE, "conditions": {"x": {}}, "grid": {"going_out": ["any", "last"]}},
            "grid.going_out: 'last'",
            ["any, discard", "(R7)"],
            id="grid-bad-value-with-conditions",
        ),
        pytest.param(
            {**BASE, "grid": {"cards_dealt": [10, 30]}},
            "grid.cards_dealt: ",
            ["30 cards", "(R1.2, R3.2, R3.3)"],
            id="grid-cards_dealt-too-many",
        ),
        pytest.param(
            {**BASE, "rules": {"ace": "hi"}, "grid": {"ace": ["low", "high_or_low"]}},
            "rules.ace: 'hi'",
            ["low, high_or_low", "(R5.3, R9.1)"],
            id="base-rule-overridden-by-every-grid-point",
        ),
        pytest.param(
            {
                **conditions(a={"rules": {"target_score": 50}}, b={"rules": {"target_score": 90}}),
                "rules": {"target_score": -5},
            },
            "rules.target_score: -5",
            ["(R11.1)"],
            id="base-rule-overridden-by-every-condition",
        ),
        pytest.param({**BASE, "description": ["a", "b"]}, "description: ", ["['a', 'b']"], id="description-list"),
        pytest.param(
            conditions(x={"description": {"a": 1}}), "conditions.x.description: ", ["{'a': 1}"], id="cond-description"
        ),
    ],
)
def test_bad_input_message_has_its_essential_parts(tmp_path, content, start, parts):
    path = write(tmp_path, content)
    message = error_of(path)
    assert message.startswith(f"{path}: {start}"), message
    for part in parts:
        assert part in message, message


def test_a_condition_may_play_its_own_number_of_games(tmp_path):
    spec = {**BASE, "conditions": {"short": {"games": 3}, "long": {}}}
    experiment = parse_experiment(spec, source="x.yaml")
    short, long = experiment.conditions
    assert (experiment.games_of(short), experiment.games_of(long)) == (3, BASE["games"])
    overridden = experiment.with_overrides(games=7)  # --games sets every condition
    assert [overridden.games_of(c) for c in overridden.conditions] == [7, 7]
    with pytest.raises(ConfigError, match=r"^x.yaml: conditions.short.games: 0 is below the smallest valid value, 1$"):
        parse_experiment({**BASE, "conditions": {"short": {"games": 0}}}, source="x.yaml")
