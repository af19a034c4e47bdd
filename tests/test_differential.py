"""Both engines, row for row, where a planted bug hides: the stock's edges and rules drawn from `Rules.FIELDS`.

The default grid of tests/test_compiled.py plays the R3.2 deals, whose stock never runs
dry before the discard pile holds many cards; a compiled engine stalling when the pile
holds fewer than three cards passed it (issue 21). Here:

- the edges (tests/edges.py): cards dealt so the first stock holds 0, 1 or 3 cards, rebuild
  and turn limits of 0 and 1, block rummy, each with every compiled bot seated;
- fuzzing whose rules are drawn from `rummysim.rules.FIELDS` with the tables `CHOICES` and
  `NUMBERS`: a setting added to `Rules` is fuzzed with no edit here
  (`test_the_fuzzing_draws_every_setting_of_rules_fields` shows it).

tests/test_plants.py plants bugs in the core, the compiled loop and a compiled bot and shows
these tests catch each.
"""

from __future__ import annotations

import enum
from collections import defaultdict

import pytest
from edges import EDGES, GAMES, LIMITS, SEEDS, edge_conditions
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_compiled import FUZZ_BOTS, differences, tables

from rummysim import compiled
from rummysim.design import Condition
from rummysim.errors import ConfigError
from rummysim.rules import CHOICES, DEFAULTS, FIELDS, NUMBERS, Rules

# -- the stock's edges ------------------------------------------------------------------------------


@pytest.mark.parametrize("condition", EDGES, ids=lambda c: c.name)
def test_the_engines_play_the_same_rows_at_the_stocks_edges(condition):
    for seed in SEEDS:
        assert differences(condition, seed=seed, games=GAMES) is None


def test_the_edges_reach_the_edges():
    """On the reference engine the edge grid stalls with no rebuild, rebuilds once, stalls on turns and blocks."""
    seen = defaultdict(set)
    for limit in LIMITS:
        for condition in edge_conditions([limit]):
            hands = tables(condition, engine="python", seed=7, games=4)["hands"]
            how = [h if isinstance(h, str) else None for h in hands.went_out_by]
            seen[limit] |= set(zip(how, hands.stalled, hands.n_rebuilds, strict=True))
    assert (None, True, 0) in seen["rebuilds0"]  # an empty stock and no rebuild allowed (R10.2)
    assert (None, True, 1) in seen["rebuilds1"]  # rebuilt once, then stalled (R10.1, R10.2)
    assert {(None, True, 0)} == seen["turns1"]  # one turn in all (R10.2)
    assert ("block", False, 0) in seen["block"]  # blocked (R12.3)
    assert ("block", False, 0) in seen["house"]
    assert any(how not in (None, "block") for how, _, _ in seen["block"])  # and out before the block


# -- fuzzing from Rules.FIELDS ----------------------------------------------------------------------
SPAN = 12
"""A whole-number setting is drawn from its smallest value to this much above it, at times far above, or its default."""
WIDE = 300
CAPS = {"target_score": 60, "max_hands": 3, "stall_after_hands": 3, "cards_dealt": 25}
"""The largest value drawn for the settings that make games long (and cards_dealt, to fit the deck often)."""
BOTS = [*compiled.TWINS, *(bot for bot in FUZZ_BOTS if isinstance(bot, dict))]
"""Every compiled twin by name, and some with other parameters."""


def setting(name: str, *, choices=CHOICES, numbers=NUMBERS) -> st.SearchStrategy:
    """Return the values of one rule setting: any of its words (`CHOICES`) or whole numbers in its range (`NUMBERS`)."""
    if name in choices:
        return st.sampled_from(list(choices[name][0]))
    if name not in numbers:
        raise KeyError(f"{name}: a rule setting in neither CHOICES nor NUMBERS; the fuzzing cannot draw it")
    low, high, nullable, _ = numbers[name]
    top = min(high if high is not None else low + WIDE, CAPS.get(name, low + WIDE))
    values = st.one_of(st.integers(low, min(top, low + SPAN)), st.integers(low, top))
    if isinstance(DEFAULTS.get(name), int):
        values = st.one_of(st.just(min(DEFAULTS[name], top)), values)
    return st.one_of(st.none(), values) if nullable else values


def settings_of(fields=FIELDS, **tables) -> st.SearchStrategy:
    """Return dicts with a value for every setting of `fields`."""
    return st.fixed_dictionaries({name: setting(name, **tables) for name in fields})


@st.composite
def rules(draw) -> Rules:
    """Any valid `Rules`: every field drawn, the rare invalid set (too many cards dealt, no end) skipped."""
    values = draw(settings_of())
    try:
        return Rules(**values)
    except ConfigError:
        assume(False)
        raise


@st.composite
def fuzzed(draw) -> tuple[Condition, int]:
    """A condition of drawn rules with a lineup of compiled twins, and a seed."""
    drawn = draw(rules())
    lineup = draw(st.lists(st.sampled_from(BOTS), min_size=drawn.n_players, max_size=drawn.n_players))
    players = tuple({"strategy": bot} if isinstance(bot, str) else dict(bot) for bot in lineup)
    return Condition("fields", drawn, players), draw(st.integers(0, 10**6))


FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@settings(max_examples=100, derandomize=True, **FUZZ)
@given(fuzzed())
def test_the_engines_agree_on_rules_drawn_from_every_field(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=2) is None


@pytest.mark.slow
@settings(max_examples=2000, **FUZZ)
@given(fuzzed())
def test_the_engines_agree_on_rules_drawn_from_every_field_at_length(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=3) is None


def test_the_fuzzing_draws_every_setting_of_rules_fields():
    """Every field of `Rules.FIELDS` takes at least two values over the drawn rules: none is left at its default."""
    seen = defaultdict(set)

    @settings(max_examples=300, database=None, derandomize=True, **FUZZ)
    @given(rules())
    def collect(drawn):
        for name in FIELDS:
            seen[name].add(getattr(drawn, name))

    collect()
    assert [name for name in FIELDS if len(seen[name]) < 2] == []


def test_a_new_setting_is_drawn_with_no_edit_to_the_fuzzing():
    """A setting added to the tables (here one of words and one number) is drawn like the others."""

    class Trumps(enum.Enum):
        NONE = "none"
        SPADES = "spades"

    choices = {**CHOICES, "trumps": (Trumps, "R99.1")}
    numbers = {**NUMBERS, "jokers": (0, 2, True, "R99.2")}
    seen = defaultdict(set)

    @settings(max_examples=100, database=None, derandomize=True)
    @given(settings_of((*FIELDS, "trumps", "jokers"), choices=choices, numbers=numbers))
    def collect(values):
        for name, value in values.items():
            seen[name].add(value)

    collect()
    assert seen["trumps"] == set(Trumps)
    assert seen["jokers"] == {None, 0, 1, 2}
    with pytest.raises(KeyError, match="unlisted: a rule setting in neither"):
        setting("unlisted")
