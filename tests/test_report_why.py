"""Issue 42 part 1: a report says why where the reason is known, and a rule whose effect depends on the table size
says so in its own report (block rummy at 5 and 6 players, R12.3); ``reference:`` names what a condition is compared
with, so one file can ask the question at several table sizes."""

from __future__ import annotations

import copy

import pytest
from synthetic import SMALL

from rummysim.analysis import analyze
from rummysim.analysis.compare import Answer, plan
from rummysim.analysis.equivalence import Bounds, Spread
from rummysim.analysis.estimates import Estimate
from rummysim.design import from_manifest
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.report import build_report
from rummysim.report.short import other_sizes
from rummysim.report.verdicts import verdicts
from rummysim.report.why import reasons
from rummysim.runner import run_experiment

BLOCK = {
    "name": "block_sizes",
    "question": "Does block rummy change who wins?",
    "seed": 11,
    "games": 60,
    "players": ["greedy"] * 3,
    "rules": {"target_score": 60},
    "measures": ["first_player_edge_hand", "dealer_edge_hand", "game_length"],
    "conditions": {
        "rebuild": {},
        "block": {"rules": {"stock_out": "block"}},
        "rebuild_5": {"players": ["greedy"] * 5, "reference": "none"},
        "block_5": {"players": ["greedy"] * 5, "rules": {"stock_out": "block"}, "reference": "rebuild_5"},
    },
}
"""Block rummy against rebuilding at 3 and at 5 players, each size compared within itself (R12.3)."""


@pytest.fixture(scope="module")
def block(tmp_path_factory):
    out = tmp_path_factory.mktemp("why")
    results = run_experiment(parse_experiment(BLOCK, source="block.yaml"), out=out, n_jobs=1, quiet=True)
    return results, build_report(results.folder)


def test_reference_names_what_a_condition_is_compared_with_and_none_compares_it_with_nothing():
    experiment = parse_experiment(BLOCK, source="block.yaml")
    assert plan(experiment.conditions) == [("rebuild", "block", True), ("rebuild_5", "block_5", True)]
    default = copy.deepcopy(BLOCK)
    for name in ("rebuild_5", "block_5"):
        del default["conditions"][name]["reference"]
    pairs = plan(parse_experiment(default, source="block.yaml").conditions)
    assert pairs == [("rebuild", "block", True), ("rebuild", "rebuild_5", False), ("rebuild", "block_5", False)]


def test_reference_never_changes_the_results_and_the_manifest_keeps_it():
    with_refs = parse_experiment(BLOCK, source="block.yaml")
    plain = copy.deepcopy(BLOCK)
    for name in ("rebuild_5", "block_5"):
        del plain["conditions"][name]["reference"]
    assert with_refs.fingerprint() == parse_experiment(plain, source="block.yaml").fingerprint()
    again = from_manifest({"experiment": with_refs.to_dict()}, source="manifest.json")
    assert [c.reference for c in again.conditions] == [None, None, "", "rebuild_5"]
    assert plan(again.conditions) == plan(with_refs.conditions)


@pytest.mark.parametrize(
    ("reference", "players", "said"),
    [
        ("block_5", ["greedy"] * 5, "conditions.block_5.reference: block_5: not a condition before it"),
        ("later", ["greedy"] * 5, "conditions.block_5.reference: later: not a condition before it"),
        ("rebuild_5", ["cautious"] + ["greedy"] * 4, "block_5.reference: rebuild_5: seats other strategies"),
        (5, ["greedy"] * 5, "conditions.block_5.reference: expected the name of the condition"),
    ],
)
def test_a_bad_reference_is_one_line_naming_the_file_and_key(reference, players, said):
    data = copy.deepcopy(BLOCK)
    data["conditions"]["block_5"] |= {"reference": reference, "players": players}
    with pytest.raises(ConfigError) as caught:
        parse_experiment(data, source="block.yaml")
    assert str(caught.value).startswith("block.yaml: ") and said in str(caught.value), caught.value
    assert "\n" not in str(caught.value)


def test_a_reference_is_refused_beside_a_grid():
    data = copy.deepcopy(BLOCK) | {"grid": {"ace": ["low", "high_or_low"]}}
    with pytest.raises(ConfigError, match=r"block.yaml: grid: .*reference: is for files without a grid"):
        parse_experiment(data, source="block.yaml")


def test_block_rummys_reason_counts_its_blocked_hands_and_its_stock_said_once_in_full(block):
    results, report = block
    analysis = analyze(results)
    why = reasons(analysis, analysis.comparisons)
    three, five = (why[id(c)] for c in analysis.comparisons)
    blocked = analysis.condition("block").metrics["ended_by_block"]
    assert three.startswith("*Why*: with block rummy a hand ends at the start of the first turn that finds the stock")
    assert f"here {100 * blocked.value:.1f}% [" in three and "from a stock of 30 cards at 3 players" in three
    assert five.startswith("*Why*: as above; here ") and "from a stock of 21 cards at 5 players" in five
    assert three in report.markdown.read_text() and five in report.markdown.read_text()


def _plant(comp, metric, low, high):
    """Make a planned change decided by the interval [low, high]: a shown change when it excludes zero."""
    d = comp.differences[metric]
    comp.bounds[metric] = Bounds(metric, Estimate((low + high) / 2, low, high, d.n), 0.005, Spread(0, 0, 0), 0.0, 0.99)


def test_the_other_table_sizes_are_said_and_the_size_matters_only_when_the_intervals_are_apart(block):
    results, _ = block
    analysis = analyze(results)
    three, five = analysis.comparisons
    metric = "first_seat_advantage_hand"
    five.bounds.update(three.bounds)  # every change at 5 players as at 3: none shown to differ
    _plant(three, metric, 0.002, 0.004)
    _plant(five, metric, 0.003, 0.005)  # overlapping: a change at 5 players, not shown to differ from the one at 3
    assert five.answer(metric) is Answer.UNCLEAR
    text = other_sizes(analysis, verdicts(analysis))
    first = analysis.condition("block_5").metrics[metric].value + 1 / 5
    assert text.startswith("**At other table sizes**: at 5 players (five greedy), ")
    assert f"the first player wins {100 * first:.1f}% of hands" in text
    _plant(five, metric, 0.02, 0.04)  # apart from the 3-player interval: the table size is shown to matter
    assert other_sizes(analysis, verdicts(analysis)).startswith("**The table size matters**: at 5 players")
    for m in list(five.bounds):  # no clear change at 5 players: nothing to say of the other sizes
        _plant(five, m, -0.001, 0.001)
    assert other_sizes(analysis, verdicts(analysis)) == ""


def test_a_reason_is_said_only_where_the_run_bears_it_out(tmp_path):
    """An ace worth 15 makes hands score more (R9.2): said with the measured points; planted away, not said."""
    results = run_experiment(parse_experiment(SMALL, source="small.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    analysis = analyze(results)
    comp = next(c for c in analysis.comparisons if c.reference == "basic")
    said = reasons(analysis, [comp])[id(comp)]
    points = analysis.condition("ace_high").metrics["points_per_hand"]
    assert said.startswith("*Why*: an ace counts 15 points instead of 1 (R9.2), so a hand scores more")
    assert f"here a hand scores {points.value:.1f}" in said
    d = comp.differences["points_per_hand"]
    comp.differences["points_per_hand"] = Estimate(d.value, -abs(d.value) - 1, abs(d.value) + 1, d.n)
    assert id(comp) not in reasons(analysis, [comp])
