"""Rule settings: defaults, presets and validation (R1.1, R3.2, R5.3, R7, R8, R9, R10.2, R11)."""

from __future__ import annotations

import dataclasses

import pytest

from rummysim.errors import ConfigError, RummysimError
from rummysim.rules import FIELDS, PRESETS, Ace, GoingOut, LayOffWhen, Rules, StockOut, TakeDiscard, default_dealt

ALL_FIELDS = (
    "n_players",
    "cards_dealt",
    "ace",
    "ace_points",
    "going_out",
    "rummy_multiplier",
    "target_score",
    "max_hands",
    "stall_after_rebuilds",
    "stall_after_turns",
    "stall_after_hands",
    "lay_off",
    "take_discard",
    "stock_out",
)


# --- defaults -------------------------------------------------------------------------------


def test_defaults_are_basic_rummy():
    rules = Rules()
    assert rules.n_players == 2
    assert rules.cards_dealt is None
    assert rules.n_dealt == 10
    assert rules.ace is Ace.LOW
    assert rules.ace_points is None
    assert rules.ace_value == 1
    assert rules.going_out is GoingOut.ANY
    assert rules.rummy_multiplier == 2
    assert rules.target_score == 150
    assert rules.max_hands is None
    assert rules.stall_after_rebuilds == 3
    assert rules.stall_after_turns == 1000
    assert rules.stall_after_hands == 50
    assert rules.lay_off is LayOffWhen.ANY  # R6.1; R12.1 is a house rule, off by default
    assert rules.take_discard is TakeDiscard.FREE  # R4.1; R12.2 off
    assert rules.stock_out is StockOut.REBUILD  # R10.1; R12.3 off


def test_fields_lists_every_setting():
    assert FIELDS == ALL_FIELDS


@pytest.mark.parametrize(("n_players", "dealt"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_r3_2_cards_dealt_follow_player_count(n_players, dealt):
    assert default_dealt(n_players) == dealt
    rules = Rules(n_players=n_players)
    assert rules.cards_dealt is None
    assert rules.n_dealt == dealt


@pytest.mark.parametrize("n_players", [2, 3, 4, 5, 6])
def test_r3_2_explicit_cards_dealt_wins(n_players):
    assert Rules(n_players=n_players, cards_dealt=3).n_dealt == 3
    assert Rules(n_players=n_players, cards_dealt=1).n_dealt == 1


def test_r8_2_ace_value_defaults_to_1_with_ace_low():
    assert Rules().ace_value == 1
    assert Rules(ace="low").ace_value == 1
    assert Rules(ace=Ace.LOW).ace_value == 1


def test_r9_2_ace_value_defaults_to_15_with_ace_high_or_low():
    assert Rules(ace="high_or_low").ace_value == 15
    assert Rules(ace=Ace.HIGH_OR_LOW).ace_value == 15


@pytest.mark.parametrize("ace", ["low", "high_or_low"])
@pytest.mark.parametrize("ace_points", [0, 1, 11, 15, 20])
def test_r9_2_explicit_ace_points_wins(ace, ace_points):
    rules = Rules(ace=ace, ace_points=ace_points)
    assert rules.ace_value == ace_points
    assert rules.ace_points == ace_points


def test_enum_strings_are_converted():
    rules = Rules(ace="high_or_low", going_out="discard")
    assert rules.ace is Ace.HIGH_OR_LOW
    assert rules.going_out is GoingOut.DISCARD
    assert rules == Rules(ace=Ace.HIGH_OR_LOW, going_out=GoingOut.DISCARD)
    assert hash(rules) == hash(Rules(ace=Ace.HIGH_OR_LOW, going_out=GoingOut.DISCARD))
    assert str(Ace.HIGH_OR_LOW) == "high_or_low"
    assert str(GoingOut.DISCARD) == "discard"
    assert [a.value for a in Ace] == ["low", "high_or_low"]
    assert [g.value for g in GoingOut] == ["any", "discard"]


def test_largest_deals_that_fit_the_deck_are_accepted():
    # n_players x cards_dealt + 1 card for the discard pile <= 52 (R1.2, R3.3)
    assert Rules(n_players=2, cards_dealt=25).n_dealt == 25
    assert Rules(n_players=3, cards_dealt=17).n_dealt == 17
    assert Rules(n_players=4, cards_dealt=12).n_dealt == 12
    assert Rules(n_players=5, cards_dealt=10).n_dealt == 10
    assert Rules(n_players=6, cards_dealt=8).n_dealt == 8


def test_boundary_values_are_accepted():
    rules = Rules(
        ace_points=0,
        rummy_multiplier=1,
        target_score=1,
        max_hands=1,
        stall_after_rebuilds=0,
        stall_after_turns=1,
        stall_after_hands=1,
    )
    assert rules.ace_value == 0
    assert rules.max_hands == 1
    assert Rules(target_score=None, max_hands=10).target_score is None


# --- presets --------------------------------------------------------------------------------


def test_presets_are_the_variant_table():
    assert list(PRESETS) == ["basic", "ace_high", "discard_to_go_out", "no_rummy_bonus"]
    assert Rules.preset("basic") == Rules()
    ace_high = Rules.preset("ace_high")
    assert ace_high.ace is Ace.HIGH_OR_LOW
    assert ace_high.ace_value == 15
    assert ace_high == Rules(ace="high_or_low")
    discard = Rules.preset("discard_to_go_out")
    assert discard.going_out is GoingOut.DISCARD
    assert discard == Rules(going_out="discard")
    no_bonus = Rules.preset("no_rummy_bonus")
    assert no_bonus.rummy_multiplier == 1
    assert no_bonus == Rules(rummy_multiplier=1)
    # each preset changes exactly one setting from basic rummy
    basic = Rules().to_dict(resolved=False)
    for name, expected_change in [
        ("ace_high", {"ace"}),
        ("discard_to_go_out", {"going_out"}),
        ("no_rummy_bonus", {"rummy_multiplier"}),
    ]:
        data = Rules.preset(name).to_dict(resolved=False)
        assert {k for k in data if data[k] != basic[k]} == expected_change


def test_preset_with_overrides():
    rules = Rules.preset("ace_high", n_players=4, ace_points=11)
    assert rules.ace is Ace.HIGH_OR_LOW
    assert rules.n_players == 4
    assert rules.n_dealt == 7
    assert rules.ace_value == 11
    assert Rules.preset("ace_high") == Rules(ace="high_or_low")  # the preset itself is unchanged


def test_preset_overrides_are_validated():
    with pytest.raises(ConfigError, match=r"n_players.*R1\.1"):
        Rules.preset("basic", n_players=9)
    with pytest.raises(ConfigError, match="not a rule setting"):
        Rules.preset("basic", players=3)


def test_unknown_preset_lists_valid_names():
    with pytest.raises(ConfigError) as info:
        Rules.preset("gin")
    message = str(info.value)
    assert "'gin'" in message
    for name in ("basic", "ace_high", "discard_to_go_out", "no_rummy_bonus"):
        assert name in message


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "rule"),
    [
        ({"n_players": 7}, "n_players", "R1.1"),
        ({"n_players": 1}, "n_players", "R1.1"),
        ({"n_players": 0}, "n_players", "R1.1"),
        ({"n_players": -3}, "n_players", "R1.1"),
        ({"n_players": 100}, "n_players", "R1.1"),
        ({"n_players": True}, "n_players", "R1.1"),
        ({"n_players": 2.0}, "n_players", "R1.1"),
        ({"n_players": "2"}, "n_players", "R1.1"),
        ({"n_players": None}, "n_players", "R1.1"),
        ({"cards_dealt": 0}, "cards_dealt", "R3.2"),
        ({"cards_dealt": -1}, "cards_dealt", "R3.2"),
        ({"cards_dealt": True}, "cards_dealt", "R3.2"),
        ({"cards_dealt": "7"}, "cards_dealt", "R3.2"),
        ({"cards_dealt": 7.5}, "cards_dealt", "R3.2"),
        ({"n_players": 4, "cards_dealt": 13}, "cards_dealt", "R3.2"),
        ({"n_players": 2, "cards_dealt": 26}, "cards_dealt", "R3.2"),
        ({"n_players": 3, "cards_dealt": 18}, "cards_dealt", "R3.2"),
        ({"n_players": 6, "cards_dealt": 9}, "cards_dealt", "R3.2"),
        ({"n_players": 5, "cards_dealt": 11}, "cards_dealt", "R3.2"),
        ({"ace": "high"}, "ace", "R9.1"),
        ({"ace": "LOW"}, "ace", "R5.3"),
        ({"ace": "sideways"}, "ace", "R9.1"),
        ({"ace": None}, "ace", "R5.3"),
        ({"ace": 1}, "ace", "R9.1"),
        ({"going_out": "meld"}, "going_out", "R7"),
        ({"going_out": ""}, "going_out", "R7"),
        ({"going_out": "Discard"}, "going_out", "R7"),
        ({"ace_points": -1}, "ace_points", "R8.2"),
        ({"ace_points": True}, "ace_points", "R9.2"),
        ({"ace_points": 1.5}, "ace_points", "R9.2"),
        ({"ace_points": "15"}, "ace_points", "R9.2"),
        ({"rummy_multiplier": 0}, "rummy_multiplier", "R8.3"),
        ({"rummy_multiplier": -2}, "rummy_multiplier", "R8.3"),
        ({"rummy_multiplier": False}, "rummy_multiplier", "R8.3"),
        ({"rummy_multiplier": None}, "rummy_multiplier", "R8.3"),
        ({"rummy_multiplier": 2.0}, "rummy_multiplier", "R8.3"),
        ({"target_score": 0}, "target_score", "R11.1"),
        ({"target_score": -150}, "target_score", "R11.1"),
        ({"target_score": True}, "target_score", "R11.1"),
        ({"target_score": "150"}, "target_score", "R11.1"),
        ({"max_hands": 0}, "max_hands", "R11.2"),
        ({"max_hands": True}, "max_hands", "R11.2"),
        ({"max_hands": 3.0}, "max_hands", "R11.2"),
        ({"target_score": None, "max_hands": None}, "target_score", "R11"),
        ({"stall_after_rebuilds": -1}, "stall_after_rebuilds", "R10.2"),
        ({"stall_after_rebuilds": True}, "stall_after_rebuilds", "R10.2"),
        ({"stall_after_rebuilds": None}, "stall_after_rebuilds", "R10.2"),
        ({"stall_after_turns": 0}, "stall_after_turns", "R10.2"),
        ({"stall_after_turns": True}, "stall_after_turns", "R10.2"),
        ({"stall_after_hands": 0}, "stall_after_hands", "R10.2"),
        ({"stall_after_hands": False}, "stall_after_hands", "R11"),
    ],
)
def test_invalid_setting_raises_config_error_naming_field_and_rule(changes, field, rule):
    with pytest.raises(ConfigError) as info:
        Rules(**changes)
    message = str(info.value)
    assert message.startswith(field), message
    assert f"{rule}" in message, message
    assert "\n" not in message
    # the same check runs on replace() and on presets
    with pytest.raises(ConfigError, match=field):
        Rules().replace(**changes)
    with pytest.raises(ConfigError, match=field):
        Rules.preset("ace_high", **changes)


def test_r1_1_seven_players_message():
    with pytest.raises(ConfigError, match=r"^n_players: 7 players given, rummy takes 2 to 6 \(R1\.1\)$"):
        Rules(n_players=7)


def test_r1_1_one_player_message():
    with pytest.raises(ConfigError, match=r"^n_players: 1 is below the smallest valid value, 2 \(R1\.1\)$"):
        Rules(n_players=1)


def test_bool_is_not_an_int():
    with pytest.raises(ConfigError, match=r"^n_players: True is not a whole number \(R1\.1\)$"):
        Rules(n_players=True)
    with pytest.raises(ConfigError, match=r"^ace_points: False is not a whole number or null \(R8\.2, R9\.2\)$"):
        Rules(ace_points=False)


def test_r3_2_deal_too_big_for_the_deck_message():
    with pytest.raises(ConfigError) as info:
        Rules(n_players=4, cards_dealt=13)
    message = str(info.value)
    assert message.startswith("cards_dealt: 4 players x 13 cards need 52 cards")
    assert "discard pile" in message
    assert "R3.2" in message
    assert "R1.2" in message


def test_r3_2_default_deal_fits_for_every_player_count():
    for n_players in range(2, 7):
        rules = Rules(n_players=n_players)
        assert n_players * rules.n_dealt + 1 <= 52


def test_bad_enum_string_lists_valid_values():
    with pytest.raises(ConfigError, match=r"^ace: 'high' is not one of low, high_or_low \(R5\.3, R9\.1\)$"):
        Rules(ace="high")
    with pytest.raises(ConfigError, match=r"^going_out: 'meld' is not one of any, discard \(R7\)$"):
        Rules(going_out="meld")


def test_r11_game_must_be_able_to_end():
    with pytest.raises(ConfigError) as info:
        Rules(target_score=None, max_hands=None)
    message = str(info.value)
    assert "target_score" in message
    assert "max_hands" in message
    assert "R11" in message
    assert Rules(target_score=None, max_hands=5).max_hands == 5
    assert Rules(target_score=100, max_hands=5).target_score == 100


def test_config_error_is_a_rummysim_error_and_value_error():
    with pytest.raises(RummysimError):
        Rules(n_players=7)
    with pytest.raises(ValueError):
        Rules(n_players=7)


# --- frozen, replace, to_dict ---------------------------------------------------------------


@pytest.mark.parametrize("field", ALL_FIELDS)
def test_rules_are_frozen(field):
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(rules, field, getattr(rules, field))
    assert rules == Rules()


def test_rules_are_keyword_only():
    with pytest.raises(TypeError):
        Rules(3)  # type: ignore[misc]


def test_rules_hashable_and_equal_by_value():
    assert Rules() == Rules()
    assert hash(Rules(n_players=3)) == hash(Rules(n_players=3))
    assert Rules(n_players=3) != Rules(n_players=4)
    assert len({Rules(), Rules.preset("basic"), Rules(ace="high_or_low")}) == 2


def test_replace_returns_validated_copy():
    rules = Rules()
    four = rules.replace(n_players=4)
    assert four.n_players == 4
    assert four.n_dealt == 7
    assert rules.n_players == 2
    assert rules.n_dealt == 10
    high = rules.replace(ace="high_or_low")
    assert high.ace is Ace.HIGH_OR_LOW
    assert high.ace_value == 15
    assert rules.replace() == rules


def test_replace_revalidates_combinations():
    ok = Rules(n_players=2, cards_dealt=13)
    with pytest.raises(ConfigError, match=r"cards_dealt.*R3\.2"):
        ok.replace(n_players=4)
    with pytest.raises(ConfigError, match="R11"):
        Rules(max_hands=None).replace(target_score=None)
    with pytest.raises(ConfigError, match=r"n_players.*R1\.1"):
        ok.replace(n_players=7)


def test_replace_rejects_unknown_fields_suggesting_the_nearest():
    with pytest.raises(ConfigError) as info:
        Rules().replace(players=3)
    assert str(info.value) == "players: not a rule setting; did you mean 'n_players'?"
    with pytest.raises(ConfigError) as info:
        Rules().replace(zzz=3)
    message = str(info.value)
    assert message.startswith("zzz: not a rule setting; settings are ")
    for field in ALL_FIELDS:
        assert field in message
    with pytest.raises(ConfigError, match="n_dealt: not a rule setting"):
        Rules().replace(n_dealt=3)
    with pytest.raises(ConfigError, match="ace_value: not a rule setting"):
        Rules().replace(ace_value=3)


def test_to_dict_resolved():
    data = Rules().to_dict()
    assert data == Rules().to_dict(resolved=True)
    assert data == {
        "n_players": 2,
        "cards_dealt": 10,
        "ace": "low",
        "ace_points": 1,
        "going_out": "any",
        "rummy_multiplier": 2,
        "target_score": 150,
        "max_hands": None,
        "stall_after_rebuilds": 3,
        "stall_after_turns": 1000,
        "stall_after_hands": 50,
    }
    assert list(data) == [f for f in ALL_FIELDS if f not in ("lay_off", "take_discard", "stock_out")]
    assert type(data["ace"]) is str
    assert type(data["going_out"]) is str
    high = Rules(n_players=5, ace="high_or_low", going_out="discard").to_dict()
    assert high["cards_dealt"] == 6
    assert high["ace_points"] == 15
    assert high["ace"] == "high_or_low"
    assert high["going_out"] == "discard"


def test_to_dict_unresolved_keeps_none_defaults():
    data = Rules(n_players=3).to_dict(resolved=False)
    assert data["cards_dealt"] is None
    assert data["ace_points"] is None
    assert data["n_players"] == 3
    assert type(data["ace"]) is str
    assert data["ace"] == "low"
    assert data["going_out"] == "any"
    explicit = Rules(cards_dealt=5, ace_points=9).to_dict(resolved=False)
    assert explicit["cards_dealt"] == 5
    assert explicit["ace_points"] == 9


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("resolved", [True, False])
def test_to_dict_round_trips(name, resolved):
    rules = Rules.preset(name, n_players=3)
    data = rules.to_dict(resolved=resolved)
    again = Rules(**data)
    assert again.to_dict(resolved=True) == rules.to_dict(resolved=True)
    if not resolved:
        assert again == rules


def test_to_dict_lists_a_house_rule_only_when_it_is_on_R12():
    assert not set(Rules().to_dict()) & {"lay_off", "take_discard", "stock_out"}
    house = Rules(lay_off="after_meld", take_discard="must_use", stock_out="block")
    data = house.to_dict()
    assert (data["lay_off"], data["take_discard"], data["stock_out"]) == ("after_meld", "must_use", "block")
    assert Rules(**house.to_dict(resolved=False)) == house
    assert house.changes() == {"lay_off": "after_meld", "take_discard": "must_use", "stock_out": "block"}


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [("lay_off", "never", "R12.1"), ("take_discard", "sometimes", "R12.2"), ("stock_out", "reshuffle", "R12.3")],
)
def test_a_house_rule_takes_only_its_words(name, value, rule):
    with pytest.raises(ConfigError, match=rf"^{name}: '{value}' is not one of .*{rule}"):
        Rules(**{name: value})


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"ace": "sideways"}, "ace"),
        ({"stock_out": "reshuffle"}, "stock_out"),
        ({"n_players": 9}, "n_players"),
        ({"rummy_multiplier": 0}, "rummy_multiplier"),
        ({"target_score": None, "max_hands": None}, "target_score"),
        ({"n_players": 4, "cards_dealt": 13}, "cards_dealt"),
    ],
)
def test_a_settings_error_carries_its_key(settings, key):
    with pytest.raises(ConfigError) as info:
        Rules(**settings)
    assert info.value.key == key
    assert str(info.value).startswith(key)
