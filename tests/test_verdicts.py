"""Issue 20: the verdicts come first, in the rule's own words, one of four answers from the interval and the margin."""

from __future__ import annotations

import re

import numpy as np
import pytest
from synthetic import SMALL

from rummysim.analysis.compare import Answer, Comparison, holm
from rummysim.analysis.compare import Test as PlannedTest
from rummysim.analysis.equivalence import Bounds, Spread
from rummysim.analysis.estimates import Estimate
from rummysim.experiment import parse_experiment
from rummysim.measures import MEASURES
from rummysim.report import build_report
from rummysim.report.verdicts import lineup_words, rule_words, sized, verdicts
from rummysim.rules import Rules
from rummysim.runner import run_experiment

METRIC = "hands_per_game"  # the game_length measure: margin 1 hand


def planned(low: float, high: float, p: float, *, margin: float = 1.0) -> Comparison:
    """Return a comparison whose one planned difference has interval [low, high] and test p-value p."""
    comp = Comparison("a", "b", paired=True, games=1000, planned=frozenset({METRIC}))
    comp.differences[METRIC] = Estimate((low + high) / 2, low, high, 1000)
    comp.tests[METRIC] = PlannedTest(METRIC, "z", p)
    holm([comp])
    comp.bounds[METRIC] = Bounds(METRIC, comp.differences[METRIC], margin, Spread(0.1, 0.1, 0.0), 0.3)
    return comp


@pytest.mark.parametrize(
    ("low", "high", "p", "answer"),
    [
        (-7.7, -7.0, 1e-9, Answer.YES),  # a real change, the whole interval beyond the margin
        (1.0, 1.4, 1e-9, Answer.YES),  # at the margin counts as "at least the margin"
        (-1.5, -0.5, 1e-4, Answer.UNCLEAR),  # real, the interval straddles the margin: its size is unclear
        (0.1, 0.4, 1e-4, Answer.SMALL),  # real, the whole interval inside ±1
        (-0.3, 0.2, 0.6, Answer.NO),  # nothing shown, the whole interval inside ±1
        (-0.5, 2.4, 0.2, Answer.CANT_TELL),  # nothing shown, 2.4 still possible
        (0.2, 0.6, 0.2, Answer.SMALL),  # read from the interval alone: the exact test's p only supports it
    ],
)
def test_r_answers_are_read_from_the_simultaneous_interval_and_the_margin_alone(low, high, p, answer):
    assert planned(low, high, p).answer(METRIC) is answer


def test_no_events_and_no_interval_have_answers_of_their_own():
    comp = planned(-0.3, 0.2, 0.6)
    comp.no_events.add(METRIC)
    assert comp.answer(METRIC) is Answer.NO
    comp = planned(-0.3, 0.2, 0.6)
    comp.bounds[METRIC] = Bounds(METRIC, Estimate(0.1, float("nan"), float("nan"), 1), 1.0, Spread(0, 0, 0), 0.3)
    assert comp.answer(METRIC) is Answer.CANT_TELL


def test_sizes_round_up_when_they_bound_and_speak_the_unit():
    assert sized(MEASURES["first_player_edge_hand"], 0.2601, up=True) == "0.27 percentage points"
    assert sized(MEASURES["first_player_edge_hand"], 0.26) == "0.26 percentage points"
    assert sized(MEASURES["game_length"], 7.26) == "7.3 hands"
    assert sized(MEASURES["points_per_hand"], 12.4, up=True) == "13 points"
    assert sized(MEASURES["order"], 0.0311) == "0.031"


def test_settings_are_named_as_a_player_says_them_never_by_their_keys():
    base = {"ace": "low", "ace_points": 1, "going_out": "any", "rummy_multiplier": 2, "n_players": 3}
    assert rule_words({**base, "ace": "high_or_low", "ace_points": 15}, base=base) == ["aces high or low"]
    assert rule_words({**base, "ace_points": 11}, base=base) == ["aces worth 11 points"]
    assert rule_words({**base, "going_out": "discard"}, base=base) == ["going out only by a discard"]
    assert rule_words({**base, "rummy_multiplier": 1}, base=base) == ["no bonus for going rummy"]
    assert rule_words({**base, "n_players": 5}, base=base) == ["5 players"]


@pytest.mark.parametrize(
    ("house", "on", "off"),
    [
        ({"lay_off": "after_meld"}, "laying off only after your first meld", "laying off at any time"),
        ({"take_discard": "must_use"}, "taking the discard only to play it", "taking the discard freely"),
        ({"stock_out": "block"}, "block rummy (the hand ends when the stock runs out)",
         "the stock rebuilt from the discards"),
    ],
)  # fmt: skip
def test_r12_house_rules_are_named_as_a_player_says_them_and_so_are_their_defaults(house, on, off):
    """A house rule that is off is left out of the settings (`Rules.to_dict`), and still said when it differs."""
    basic, varied = Rules(n_players=3).to_dict(), Rules(n_players=3, **house).to_dict()
    assert rule_words(varied, base=basic) == [on]
    assert rule_words(basic, base=varied) == [off]


SPEC = {**SMALL, "games": 60, "measures": ["first_player_edge_hand", "game_length", "skill"]}
SENTENCE = re.compile(
    r"^- \*\*(Yes|Yes, but small|No|Can't tell)\*\*: with aces high or low instead of aces low only, "
)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    results = run_experiment(parse_experiment(SPEC, source="small.yaml"), out=out, n_jobs=1, quiet=True)
    return results, build_report(results.folder)


def test_the_report_opens_with_one_verdict_per_planned_comparison_before_any_statistics(report):
    _, built = report
    text = built.markdown.read_text()
    head = text.split("## What else changes")[0]
    lines = [line for line in head.splitlines() if line.startswith("- **")]
    # two comparisons x (first player's edge, game length) + skill for the cautious pairing only
    assert len(lines) == 5 and all(SENTENCE.match(line) for line in lines), lines
    assert "**Aces high or low vs aces low only (three greedy)**" in head
    assert "**Aces high or low vs aces low only (cautious against two greedy)**" in head
    for word in ("p =", "Holm", "McNemar", "ace_high", "inconclusive"):
        assert word not in head, word
    order = [
        text.index(h) for h in ("## What else changes", "## The evidence", "## Charts", "## Tables", "## Glossary")
    ]
    assert order == sorted(order)


def test_a_verdict_never_contradicts_its_evidence(report):
    """Each sentence's answer is the comparison's own, and its numbers are the interval the tables show."""
    results, _ = report
    from rummysim.analysis import analyze

    analysis = analyze(results)
    for verdict in verdicts(analysis):
        comp, metric = verdict.comparison, verdict.measure.metric
        assert verdict.answer is comp.answer(metric)
        d, b = comp.differences[metric], comp.bounds[metric]
        assert verdict.level == b.level == 1 - 0.05 / len(verdicts(analysis)) > 0.95  # simultaneous over the run
        shown = b.interval.low * verdict.measure.scale if not b.relative else 100 * np.expm1(b.interval.low)
        assert np.isclose(verdict.change.low, shown)  # the interval printed is the one that decided
        if not b.relative:
            assert (
                verdict.change.low < d.low * verdict.measure.scale
                and verdict.change.high > d.high * verdict.measure.scale
            )  # widened
        said = verdict.sentence
        low, high = (float(x) for x in re.findall(r"change [^\[]*\[([-+0-9.]+)%?, ([-+0-9.]+)\]", said)[-1])
        assert (low <= 0 <= high) is (verdict.answer in (Answer.NO, Answer.CANT_TELL))  # R: no "No" beside a change
        if verdict.answer in (Answer.NO, Answer.CANT_TELL):
            assert "rises" not in said and "falls" not in said and "sooner" not in said and "longer" not in said
        if verdict.answer is Answer.CANT_TELL:
            assert "is still possible" in said
        if verdict.answer is Answer.NO:
            assert "by less than" in said


def test_lineups_read_as_players_say_them():
    experiment = parse_experiment(SPEC, source="small.yaml")
    assert lineup_words(experiment.condition("basic")) == "three greedy"
    assert lineup_words(experiment.condition("skill")) == "cautious against two greedy"


@pytest.mark.parametrize(("low", "high", "worth"), [(0.017, 0.063, True), (0.017, 0.045, False), (-0.07, -0.01, True)])
def test_a_skill_change_is_small_only_when_its_whole_interval_lies_inside_the_margin(low, high, worth):
    """Issue 20: +0.040 [+0.017, +0.063] against a margin of 0.050 may reach 0.063: it is worth reporting."""
    from rummysim.analysis.skill import worth_reporting

    comp = Comparison("a", "b", paired=True, games=1000, planned=frozenset({"order"}))
    comp.skill_metric = "order"
    comp.differences["order"] = Estimate((low + high) / 2, low, high, 1000)
    comp.tests["order"] = PlannedTest("order", "exact McNemar", 1e-6)
    holm([comp])
    assert worth_reporting(comp, {"order": 0.05}) is worth


def test_a_finished_run_asked_new_measures_answers_them_without_playing(tmp_path):
    """A question's measures change no row: running again with new `measures:` rewrites the record, plays nothing."""
    first = {**SPEC, "games": 12, "measures": ["game_length"]}
    results = run_experiment(parse_experiment(first, source="small.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    hands = (results.folder / "hands.parquet").read_bytes()
    again = {**first, "measures": ["hand_length", "skill"], "margin": {"hand_length": "2 turns"}}
    results = run_experiment(parse_experiment(again, source="small.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    assert (results.folder / "hands.parquet").read_bytes() == hands
    assert results.experiment.measures == ("hand_length", "skill")
    assert results.experiment.margin["hand_length"] == 2.0
    text = build_report(results.folder).markdown.read_text().split("## What else changes")[0]
    assert "the length of a hand" in text or "hands end" in text or "hands last" in text
    assert "games end" not in text and "the length of a game" not in text


def test_numbers_keep_their_point_inside_their_interval_and_never_show_noise():
    """Issue 20: "Order 0.0000 [-0.000959, -8.3e-17]" and "0.000 [0.000, 0.000] excludes zero" are gone."""
    from rummysim.report.changes import signed
    from rummysim.report.wording import num

    noise = num(Estimate(0.0, -0.000959, -8.3e-17, 100))
    assert noise == "0.00000 [-0.00096, 0.00000]"  # the point at its interval's end, not outside it
    rare = signed(Estimate(0.00012, 0.00005, 0.0002, 100), scale=100.0)
    assert rare == "+0.012 [+0.005, +0.020]"  # an interval that excludes zero shows that it does
    low, high = (float(x) for x in num(Estimate(0.00012, 0.00005, 0.0002, 100)).split("[")[1].rstrip("]").split(","))
    assert low > 0 and high > low
