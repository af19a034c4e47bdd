"""The analysis recovers a planted truth, and its 95% intervals cover it about 95% of the time."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from synthetic import synthetic_tables

from rummysim.analysis.compare import Comparison, Verdict, compare, holm, plan, rule_out
from rummysim.analysis.compare import Test as PlannedTest
from rummysim.analysis.estimates import Estimate, independent_difference, ratio_estimate, wilson
from rummysim.analysis.frames import ENDINGS, endings, game_frame
from rummysim.analysis.metrics import summarize_condition
from rummysim.analysis.paths import trajectories
from rummysim.design import Condition
from rummysim.results import SCHEMAS
from rummysim.rules import Rules


def summarize(hands, games, *, n=3, lineup=None, name="c", seed=0):
    frame = game_frame(hands, games, n_players=n)
    lineup = lineup or {"greedy": n}
    return summarize_condition(frame, name=name, n_players=n, lineup=lineup, seed=seed), frame


def covers(e: Estimate, truth: float) -> bool:
    return e.low <= truth <= e.high


def test_wilson_matches_statsmodels_and_the_textbook_value():
    e = wilson(50, 100)
    assert (round(e.low, 4), round(e.high, 4)) == (0.4038, 0.5962)
    assert np.isnan(wilson(0, 0).value)


def test_planted_seat_bias_is_recovered_at_hand_and_game_level():
    rng = np.random.default_rng(1)
    hands, games = synthetic_tables(rng, games=3000, hand_probs=[0.40, 0.33, 0.27], game_probs=[0.41, 0.30, 0.29])
    summary, _ = summarize(hands, games)
    hand_edge = summary.metrics["first_seat_advantage_hand"]
    game_edge = summary.metrics["first_seat_advantage_game"]
    assert covers(hand_edge, 0.40 - 1 / 3) and hand_edge.low > 0
    assert covers(game_edge, 0.41 - 1 / 3) and game_edge.low > 0
    assert summary.metrics["balance_hand"].value == pytest.approx(1 - (0.40 - 0.27), abs=0.02)
    assert np.isnan(summary.metrics["balance_hand"].low)  # a point value: hands of a game are not independent
    assert covers(summary.metrics["balance_game"], 1 - (0.41 - 0.29))
    assert summary.uniform_hand.p < 1e-6 and summary.uniform_game.p < 1e-6
    assert summary.uniform_hand.w == pytest.approx(np.sqrt(summary.uniform_hand.chi2 / summary.uniform_hand.n))


def test_fair_seats_show_no_bias():
    rng = np.random.default_rng(2)
    hands, games = synthetic_tables(rng, games=2000)
    summary, _ = summarize(hands, games)
    assert summary.metrics["first_seat_advantage_game"].spans_zero
    assert summary.metrics["first_seat_advantage_hand"].spans_zero
    assert summary.uniform_game.p > 0.001
    assert covers(summary.metrics["balance_game"], 1.0)


def test_planted_skill_gap_is_recovered_as_order():
    rng = np.random.default_rng(3)
    hands, games = synthetic_tables(rng, games=3000, players=["strong", "weak", "weak"], strong_wins=0.6)
    summary, _ = summarize(hands, games, lineup={"strong": 1, "weak": 2})
    strong = summary.stronger
    assert strong is not None and strong.strategy == "strong"
    assert covers(strong.order, (0.6 - 1 / 3) / (1 - 1 / 3))
    weak = next(s for s in summary.strategies if s.strategy == "weak")
    assert covers(weak.per_seat, 0.2) and weak.seats == 2


@pytest.mark.slow
def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    """Over repeated draws, the seat edge, Order and points-per-hand intervals cover the planted truth."""
    rng = np.random.default_rng(4)
    hits_edge = hits_order = hits_points = 0
    draws = 120
    lineup = {"strong": 1, "weak": 2}
    for i in range(draws):
        tables = synthetic_tables(rng, games=150, hands=3, game_probs=[0.45, 0.30, 0.25])
        summary, _ = summarize(*tables, seed=i)
        hits_edge += covers(summary.metrics["first_seat_advantage_game"], 0.45 - 1 / 3)
        hits_points += covers(summary.metrics["points_per_hand"], 20.0)  # points ~ U{1..39}: mean 20
        tables = synthetic_tables(rng, games=150, hands=1, players=["strong", "weak", "weak"], strong_wins=0.5)
        skill, _ = summarize(*tables, lineup=lineup, seed=i)
        order = next(s.order for s in skill.strategies if s.strategy == "strong")
        hits_order += covers(order, (0.5 - 1 / 3) * 1.5)
    for hits in (hits_edge, hits_points, hits_order):
        assert 0.88 <= hits / draws <= 0.995, hits / draws


def test_bootstrap_interval_covers_a_known_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(5)
    hits = 0
    for i in range(150):
        x = rng.exponential(2.0, size=120)
        e = ratio_estimate(x, np.ones_like(x), seed=i, resamples=999)
        hits += covers(e, 2.0)
    assert 0.88 <= hits / 150 <= 0.99


def test_independent_difference_recovers_a_planted_gap():
    rng = np.random.default_rng(6)
    a = (rng.random(4000) < 0.40).astype(float)
    b = (rng.random(3000) < 0.46).astype(float)
    e = independent_difference((a, np.ones_like(a)), (b, np.ones_like(b)), seed=1)
    assert covers(e, 0.06) and e.low > 0


def paired_conditions(rng, *, games, strong_a, strong_b):
    """Two conditions on the same games (same first dealers), with the strong bot winning at given rates."""
    dealers = rng.integers(3, size=games)
    players = ["strong", "weak", "weak"]
    a = synthetic_tables(rng, games=games, players=players, strong_wins=strong_a, condition="a", first_dealers=dealers)
    b = synthetic_tables(rng, games=games, players=players, strong_wins=strong_b, condition="b", first_dealers=dealers)
    lineup = {"strong": 1, "weak": 2}
    return summarize(*a, lineup=lineup, name="a"), summarize(*b, lineup=lineup, name="b")


def test_paired_comparison_finds_a_planted_change_in_order_with_mcnemar():
    rng = np.random.default_rng(7)
    a, b = paired_conditions(rng, games=4000, strong_a=0.50, strong_b=0.58)
    comp = compare(a, b, paired=True)
    holm([comp])
    truth = (0.58 - 0.50) * 1.5
    assert covers(comp.differences["order"], truth)
    assert comp.tests["order"].method == "exact McNemar" and comp.tests["order"].p < 1e-4
    assert comp.verdict("order") == "holds with every planned change at once"
    assert comp.tests["seat_distribution_game"].method == "Stuart-Maxwell"


def test_no_planted_change_is_inconclusive_not_equal():
    rng = np.random.default_rng(8)
    a, b = paired_conditions(rng, games=1500, strong_a=0.5, strong_b=0.5)
    comp = compare(a, b, paired=True)
    holm([comp])
    assert comp.differences["first_seat_advantage_game"].spans_zero
    assert comp.verdict("first_seat_advantage_game") == "inconclusive"
    assert comp.verdict("order") in ("inconclusive", "inconclusive after Holm's correction")


def test_holm_adjusts_every_planned_test_together():
    rng = np.random.default_rng(9)
    comps = [compare(*paired_conditions(rng, games=400, strong_a=0.5, strong_b=0.5), paired=True) for _ in range(3)]
    holm(comps)
    tests = [t for c in comps for t in c.tests.values()]
    assert len(tests) == 9
    assert all(t.p_holm >= t.p for t in tests)
    smallest = min(tests, key=lambda t: t.p)
    assert smallest.p_holm == pytest.approx(min(1.0, smallest.p * len(tests)))


def test_lead_changes_and_comeback_on_a_hand_made_game():
    """Scores after each hand: A leads, B leads, tie (B keeps it), A leads: two changes; B led at half-time."""
    scores = [(10, 0), (10, 20), (30, 30), (60, 30)]
    hands = pd.DataFrame(
        [("c", 0, h, s, "greedy", h % 2, (s - h % 2 - 1) % 2, False, 0, sc[s], "discard", False, 1, False, 9, 0, "", 0)
         for h, sc in enumerate(scores) for s in range(2)],
        columns=SCHEMAS["hands"].names,
    )  # fmt: skip
    games = pd.DataFrame(
        [("c", 0, s, "greedy", scores[-1][s], s == 0, False, 4, 0, 0, 0, False) for s in range(2)],
        columns=SCHEMAS["games"].names,
    )  # fmt: skip
    frame = game_frame(hands, games, n_players=2)
    assert frame.loc[0, "lead_changes"] == 2
    assert bool(frame.loc[0, "comeback"])  # after hand 2 of 4 (halfway), seat 0 trailed 10 to 20
    assert frame.loc[0, "winner_start"] == 1  # seat 0 plays second in hand 0 when seat 0 deals
    path = trajectories(hands, frame)
    assert list(path["winner"]) == [10, 10, 30, 60] and list(path["others"]) == [0, 20, 30, 30]


def test_r12_3_blocked_hands_end_by_a_block_a_tie_included_and_only_block_rummy_has_them():
    """Four hands of two seats: a discard, a block won, a blocked tie (stalled), a stall (R10.2)."""
    ends = [("discard", False), ("block", False), ("block", True), (None, True)]
    hands = pd.DataFrame(
        [("c", 0, h, s, "greedy", h % 2, (s - h % 2 - 1) % 2, s == 0 and not stalled, 5 * (s == 0 and not stalled),
          0, end, False, 1, stalled, 9, 0, "", 0)
         for h, (end, stalled) in enumerate(ends) for s in range(2)],
        columns=SCHEMAS["hands"].names,
    )  # fmt: skip
    games = pd.DataFrame(
        [("c", 0, s, "greedy", 10 * (s == 0), s == 0, False, 4, 2 * (s == 0), 2, 0, False) for s in range(2)],
        columns=SCHEMAS["games"].names,
    )  # fmt: skip
    frame = game_frame(hands, games, n_players=2)
    assert {e: int(frame.loc[0, f"end_{e}"]) for e in ENDINGS} == {
        "discard": 1, "meld": 0, "lay_off": 0, "block": 2, "stalled": 1
    }  # fmt: skip
    assert frame.loc[0, "decided_hands"] == 2
    summary, _ = summarize(hands, games, n=2, lineup={"greedy": 2})
    assert summary.metrics["ended_by_block"].value == 0.5
    assert endings([Rules(stock_out="block"), Rules()]) == ENDINGS
    assert "block" not in endings([Rules(), Rules(lay_off="after_meld", take_discard="must_use")])


def condition(name, players, **rules):
    return Condition(
        name=name, rules=Rules(n_players=len(players), **rules), players=tuple({"strategy": p} for p in players)
    )


def test_plan_pairs_conditions_that_share_deals_whatever_the_lineups_order():
    """Deals come from (seed, game, hand) alone (R3): the same table means the same deals, game by game."""
    conditions = [
        condition("basic", ["greedy"] * 3), condition("ace_high", ["greedy"] * 3, ace="high_or_low"),
        condition("skill", ["cautious", "greedy", "greedy"]), condition("skill_high", ["cautious", "greedy", "greedy"]),
        condition("skill_moved", ["greedy", "cautious", "greedy"]), condition("p4", ["greedy"] * 4),
        condition("skill_6", ["cautious", "greedy", "greedy"], cards_dealt=6),
    ]  # fmt: skip
    assert plan(conditions) == [
        ("basic", "ace_high", True), ("skill", "skill_high", True), ("skill", "skill_moved", True),
        ("basic", "p4", False), ("skill", "skill_6", False),
    ]  # fmt: skip


def test_unpaired_tests_are_the_miettinen_nurminen_score_test_they_are_named():
    """statsmodels' default for a difference is Agresti-Caffo; the test named must be the test run."""
    from statsmodels.stats.proportion import test_proportions_2indep

    rng = np.random.default_rng(11)
    a = summarize(*synthetic_tables(rng, games=300, hands=1, game_probs=[0.5, 0.3, 0.2]), name="a")
    b = summarize(*synthetic_tables(rng, games=240, n=4, hands=1), n=4, name="b")
    comp = compare(a, b, paired=False)
    test = comp.tests["first_seat_advantage_game"]
    assert test.method == "Miettinen-Nurminen score test"
    wins_a = int((a[1]["winner_start"] == 0).sum())
    wins_b = int((b[1]["winner_start"] == 0).sum())
    score = test_proportions_2indep(wins_b, 240, wins_a, 300, value=1 / 4 - 1 / 3, method="score", correction=True)
    caffo = test_proportions_2indep(wins_b, 240, wins_a, 300, value=1 / 4 - 1 / 3, method="agresti-caffo")
    assert test.p == pytest.approx(score.pvalue) and test.p != pytest.approx(caffo.pvalue)


def test_only_a_difference_whose_planned_test_holds_after_holm_is_a_claim():
    comp = Comparison(reference="a", other="b", paired=False, games=100)
    comp.differences["points_per_hand"] = Estimate(1.0, 0.5, 1.5, 100)
    comp.differences["order"] = Estimate(0.1, 0.05, 0.15, 100)
    comp.tests["order"] = PlannedTest("order", "exact McNemar", 0.01, p_holm=0.04)
    assert comp.verdict("points_per_hand") is Verdict.UNCORRECTED and not comp.verdict("points_per_hand").is_claim
    assert comp.verdict("order") is Verdict.HOLDS and comp.verdict("order").is_claim
    comp.tests["order"].p_holm = 0.06
    assert comp.verdict("order") is Verdict.NOT_AFTER_HOLM and not comp.verdict("order").is_claim


def test_a_planted_zero_change_is_ruled_out_beyond_the_margin_and_pairing_shows_its_gain():
    """Identical paired conditions: the difference is within any sensible margin, and pairing removes all variance.

    Within the margin, the words give the interval's farther end (how small a change is ruled
    out), not only the margin; outside it, the change still possible (issue 13 item 2).
    """
    from rummysim.report.wording import rules_out

    rng = np.random.default_rng(12)
    a, b = paired_conditions(rng, games=2000, strong_a=0.5, strong_b=0.5)
    comp = compare(a, b, paired=True)
    holm([comp])
    rule_out([comp], margins={"first_seat_edge": 5.0, "order": 0.2})
    edge = comp.bounds["first_seat_advantage_game"]
    assert edge.margin == pytest.approx(0.05) and edge.equivalent and 0 < edge.detectable < 0.05
    largest = math.ceil(max(abs(edge.interval.low), abs(edge.interval.high)) * 10000) / 100  # rounded up, never down
    said = rules_out(comp, "first_seat_advantage_game")
    assert said is not None and said.startswith("rules out a change of more than ")
    assert f"{largest:.2f} pp either way, within the margin of 5.0 pp;" in said
    rule_out([comp], margins={"first_seat_edge": 0.1, "order": 0.001})
    assert not comp.bounds["first_seat_advantage_game"].equivalent and not comp.bounds["order"].equivalent
    still = f"a change of up to {largest:.2f} pp is still possible, beyond the margin of 0.10 pp"
    assert still in (rules_out(comp, "first_seat_advantage_game") or "")
    # the same winners in both conditions: the paired difference has no variance at all
    same = compare(a, (b[0], a[1]), paired=True)
    assert same.variance_ratios["first_seat_advantage_game"] == 0.0
    assert 0.5 < comp.variance_ratios["order"] < 1.5  # independent draws: pairing buys nothing


def test_a_change_that_holds_inside_the_margin_says_both_what_it_rules_out_and_the_margin():
    from rummysim.report.wording import rules_out

    a, b = paired_conditions(np.random.default_rng(3), games=4000, strong_a=0.5, strong_b=0.58)
    comp = compare(a, b, paired=True)
    holm([comp])
    rule_out([comp], margins={"first_seat_edge": 1.0, "order": 0.5})
    order = comp.bounds["order"].interval  # the simultaneous interval: the one that decided, and the one printed
    assert comp.verdict("order").is_claim and comp.bounds["order"].equivalent and order.low > 0
    assert order.low < comp.differences["order"].low and order.high > comp.differences["order"].high
    said = rules_out(comp, "order") or ""
    assert said.startswith(
        f"rules out changes outside [+{order.low:.3f}, +{order.high:.3f}], within the margin of 0.50;"
    )


def test_rule_out_gives_exact_mcnemar_tests_their_step_and_the_others_none():
    from rummysim.analysis.equivalence import detectable

    a, b = paired_conditions(np.random.default_rng(8), games=500, strong_a=0.5, strong_b=0.55)
    for paired in (True, False):
        comp = compare(a, b, paired=paired)
        holm([comp])
        rule_out([comp], margins={"first_seat_edge": 1.0, "order": 0.02})
        tests = len(comp.bounds)  # the planned changes, not the tests (the winning seat's distribution is none)
        for metric in ("first_seat_advantage_game", "order"):
            spread, exact = comp.spreads[metric], comp.tests[metric].method == "exact McNemar"
            assert exact is paired  # paired yes/no outcomes: McNemar; apart: the score test
            assert (spread.step > 0) is paired
            assert comp.bounds[metric].detectable == detectable(spread, tests=tests, exact=exact)
            assert comp.bounds[metric].detectable > detectable(spread, tests=tests) or not paired


def test_the_smallest_detectable_change_grows_with_the_number_of_planned_tests():
    from rummysim.analysis.equivalence import Spread, detectable

    same = Spread(0.01, 0.01, 0.0)
    assert detectable(same, tests=1) == pytest.approx((1.959964 + 0.841621) * 0.01, rel=1e-5)
    assert detectable(same, tests=6) > detectable(same, tests=1)


def test_the_detectable_change_of_an_exact_mcnemar_test_uses_its_null_scale_and_one_games_step():
    """Connor's formula with a continuity correction: z(1 - a/2m) sqrt(psi / N) + z(0.8) sd(d) / sqrt(N) + 1 / N."""
    from scipy import stats

    from rummysim.analysis.equivalence import detectable, spread

    # 1,000 paired games: 150 change from lost to won, 50 from won to lost (psi = 0.2, mean change 0.1)
    a = np.r_[np.zeros(150), np.ones(50), np.zeros(400), np.ones(400)]
    b = np.r_[np.ones(150), np.zeros(50), np.zeros(400), np.ones(400)]
    s = spread(a, b, paired=True)
    assert s.null_se == pytest.approx(np.sqrt(0.2 / 1000)) and s.step == pytest.approx(1 / 1000)
    assert s.se == pytest.approx(np.sqrt((0.2 - 0.1**2) * 1000 / 999 / 1000))
    z = stats.norm.ppf(1 - 0.05 / 6) * s.null_se + stats.norm.ppf(0.8) * s.se
    assert detectable(s, tests=3, exact=True) == pytest.approx(z + 1 / 1000)
    assert detectable(s, tests=3) == pytest.approx(z)
    apart = spread(a, b, paired=False)
    assert apart.null_se == apart.se and apart.step == 0.0
