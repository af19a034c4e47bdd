"""Skill claims (issue 13, item 5): which strategy is measured, a strength free of table size, and the wording."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from synthetic import synthetic_tables

from rummysim.analysis.compare import Comparison, Verdict, compare, holm, rule_out
from rummysim.analysis.compare import Test as PlannedTest
from rummysim.analysis.estimates import Estimate, wilson
from rummysim.analysis.frames import game_frame
from rummysim.analysis.metrics import summarize_condition
from rummysim.analysis.skill import measured, strength, strength_difference, strengths_against
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.report.skill import direction, skill_claim, strength_text

MARGINS = {"first_seat_edge": 1.0, "order": 0.02, "strength": 0.05}


def luce(theta: float, *, seats: int = 1, n: int) -> float:
    """Return the chance that a strategy of strength θ holding `seats` of n seats wins (Luce's choice model)."""
    return seats * theta / (seats * theta + n - seats)


def condition(rng, *, n, theta, games, name, players=None):
    players = players or ["strong"] + ["weak"] * (n - 1)
    hands, game_rows = synthetic_tables(
        rng, games=games, n=n, hands=1, players=players, strong_wins=luce(theta, n=n), condition=name
    )
    frame = game_frame(hands, game_rows, n_players=n)
    lineup = {p: players.count(p) for p in dict.fromkeys(players)}
    return summarize_condition(frame, name=name, n_players=n, lineup=lineup), frame


def summary_of(lineup: dict[str, int], shares: dict[str, float], n: int):
    """Return a condition summary whose strategies win the given shares (only the fields `measured` reads)."""
    rng = np.random.default_rng(0)
    players = [p for p, k in lineup.items() for _ in range(k)]
    summary, _ = condition(rng, n=n, theta=1.0, games=30, name="c", players=players)
    for s in summary.strategies:
        object.__setattr__(s, "per_seat", Estimate(shares[s.strategy], 0, 1, 30))
    return summary


def test_the_measured_strategy_is_the_highest_on_the_ladder_not_the_one_with_fewest_seats():
    # going_rummy's old lineup: uniform held fewest seats and was measured; the ladder measures greedy
    assert measured(summary_of({"greedy": 2, "uniform": 1}, {"greedy": 0.5, "uniform": 0.0}, 3), ()) == "greedy"
    # two cautious seats against one greedy: cautious, though it holds more seats
    assert measured(summary_of({"cautious": 2, "greedy": 1}, {"cautious": 0.4, "greedy": 0.2}, 3), ()) == "cautious"
    # a strategy off the ladder (a plug-in bot) is the one under test
    assert measured(summary_of({"mybot": 1, "montecarlo": 1}, {"mybot": 0.1, "montecarlo": 0.9}, 2), ()) == "mybot"


def test_the_file_names_the_measured_strategy_in_order_of_preference():
    summary = summary_of({"rummy_hunter": 1, "greedy": 2}, {"rummy_hunter": 0.3, "greedy": 0.35}, 3)
    assert measured(summary, ("cautious", "rummy_hunter")) == "rummy_hunter"
    assert measured(summary, ("cautious",)) is None  # named, but not seated: skill is not measured here


def test_luce_strength_is_the_same_at_every_table_size_for_a_bot_that_keeps_its_strength():
    """A bot of Order 0.55 at 2 players keeps θ = 3.44; its Order falls to about 0.29 at 6 (issue 13)."""
    theta = 0.775 / 0.225
    for n in (2, 3, 4, 6):
        w = luce(theta, n=n)
        assert strength(Estimate(w, w, w, 1), seats=1, n=n).value == pytest.approx(theta)
    order_6 = (luce(theta, n=6) - 1 / 6) / (1 - 1 / 6)
    assert order_6 == pytest.approx(0.29, abs=0.005)


def test_across_table_sizes_strength_is_compared_and_a_constant_strength_shows_no_change():
    rng = np.random.default_rng(11)
    a = condition(rng, n=2, theta=3.0, games=3000, name="p2")
    b = condition(rng, n=4, theta=3.0, games=3000, name="p4")
    comp = compare(a, b, paired=False)
    holm([comp])
    assert (comp.focal, comp.skill_metric) == ("strong", "strength")
    assert comp.differences["strength"].spans_zero
    assert comp.tests["strength"].method == "Miettinen-Nurminen score test of the odds ratio"
    assert comp.tests["strength"].p > 0.01
    assert "order" not in comp.differences  # Order falls with table size on its own: not compared here
    order_a, order_b = (next(s.order for s in c[0].strategies if s.strategy == "strong") for c in (a, b))
    assert order_b.high < order_a.low  # ... as it does here, with no change in strength


def test_a_planted_change_of_strength_across_table_sizes_holds_and_its_interval_covers_it():
    rng = np.random.default_rng(12)
    a = condition(rng, n=2, theta=3.0, games=3000, name="p2")
    b = condition(rng, n=3, theta=1.5, games=3000, name="p3")
    comp = compare(a, b, paired=False)
    holm([comp])
    d = comp.differences["strength"]
    assert d.low <= math.log(0.5) <= d.high
    assert comp.verdict("strength") is Verdict.HOLDS


def test_a_strategy_with_two_of_four_seats_winning_every_game_has_order_1_and_its_fair_share_is_k_over_n():
    """Issue 20: per seat, 50% of games and Order 0.333 hid that greedy won every game."""
    rng = np.random.default_rng(21)
    players = ["greedy", "greedy", "uniform", "cautious"]
    hands, game_rows = synthetic_tables(rng, games=200, n=4, hands=1, players=players, strong_wins=1.0)
    frame = game_frame(hands, game_rows, n_players=4)
    summary = summarize_condition(frame, name="c", n_players=4, lineup={"greedy": 2, "uniform": 1, "cautious": 1})
    greedy = next(s for s in summary.strategies if s.strategy == "greedy")
    assert greedy.share.value == 1.0 and greedy.fair_share == 0.5
    assert greedy.order.value == 1.0 and greedy.order.high == 1.0 and greedy.order.low > 0.95
    uniform = next(s for s in summary.strategies if s.strategy == "uniform")
    assert uniform.order.value == pytest.approx(-1 / 3)  # (0 - 1/4) / (1 - 1/4): it won none
    # its seats winning their fair share, half the games, is Order 0 (one greedy seat wins a quarter of the
    # games, the other three seats share the rest: 1/4 + 3/4 * 1/3 = 1/2)
    fair = summarize_condition(
        game_frame(*synthetic_tables(rng, games=2000, n=4, hands=1, players=players, strong_wins=0.25), n_players=4),
        name="c", n_players=4, lineup={"greedy": 2, "uniform": 1, "cautious": 1},
    )  # fmt: skip
    assert next(s for s in fair.strategies if s.strategy == "greedy").order.spans_zero


def test_order_of_a_strategy_with_one_seat_is_unchanged():
    rng = np.random.default_rng(22)
    summary, _ = condition(rng, n=3, theta=3.0, games=1500, name="a")
    strong = next(s for s in summary.strategies if s.strategy == "strong")
    w = strong.share.value
    assert strong.order.value == pytest.approx((w - 1 / 3) / (1 - 1 / 3))
    assert strong.order.low == pytest.approx((strong.share.low - 1 / 3) / (2 / 3))


def test_strength_at_a_share_of_1_or_0_is_a_one_sided_bound_never_inf():
    won_all = strength(wilson(2000, 2000), seats=1, n=2)
    assert math.isnan(won_all.value) and math.isnan(won_all.high) and 500 < won_all.low < 2000
    won_none = strength(wilson(0, 2000), seats=1, n=2)
    assert math.isnan(won_none.value) and math.isnan(won_none.low) and 0 < won_none.high < 0.002
    assert won_none.high == pytest.approx(1 / won_all.low)  # the same bound, seen from the other side
    # going_rummy: greedy with 2 of 3 seats won all 20,000 games (once "inf [2603.18, 4503599627370495.50]")
    both_seats = strength(wilson(20000, 20000), seats=2, n=3)
    assert math.isnan(both_seats.value) and math.isfinite(both_seats.low) and math.isnan(both_seats.high)
    assert strength_text(both_seats).startswith("not estimable (it won every game): at least ")
    assert strength_text(won_none).startswith("not estimable (it won no game): at most 0.00")
    # a share near 1 is estimable, and worded with three significant digits, not as 1110.61
    assert strength_text(strength(wilson(19982, 20000), seats=2, n=3)) == "555 [351, 878]"


def test_strength_in_a_mixed_lineup_is_against_each_opponent_not_pooled():
    """Luce's choice model: P(a wins | a or b wins) = θ_a / (θ_a + θ_b), whatever the other seats."""
    rng = np.random.default_rng(23)
    theta = {"a": 4.0, "b": 2.0, "c": 1.0, "d": 0.5}
    lineup = list(theta)
    probs = np.array(list(theta.values())) / sum(theta.values())
    hands, games = synthetic_tables(rng, games=4000, n=4, hands=1, players=lineup, condition="m")
    winners = np.repeat(np.array(lineup)[rng.choice(4, size=4000, p=probs)], 4)
    games["won"] = games["strategy"].to_numpy() == winners  # the winner drawn by strategy (Luce's choice model)
    frame = game_frame(hands, games, n_players=4)
    summary = summarize_condition(frame, name="m", n_players=4, lineup=dict.fromkeys(lineup, 1))
    against = strengths_against(summary, "a")
    assert set(against) == {"b", "c", "d"}
    for other, e in against.items():
        assert e.low <= theta["a"] / theta[other] <= e.high, (other, e)
    assert against["d"].low > against["b"].high  # pooled, one number would hide that a beats d far more than b
    # with two strategies it is `strength` itself
    two, _ = condition(rng, n=2, theta=3.0, games=800, name="p")
    strong = next(s for s in two.strategies if s.strategy == "strong")
    assert strengths_against(two, "strong")["weak"] == strength(strong.share, seats=1, n=2)


def made_comparison(value: float, *, metric: str = "order", p_holm: float = 0.001) -> Comparison:
    comp = Comparison(reference="a", other="b", paired=True, games=1000, focal="strong", skill_metric=metric)
    comp.differences[metric] = Estimate(value, value / 2, value * 1.5, 1000)
    comp.tests[metric] = PlannedTest(metric, "exact McNemar", p_holm / 2, p_holm=p_holm)
    return comp


def test_rewards_skill_more_only_when_it_holds_is_large_enough_and_the_player_is_the_better_one():
    rng = np.random.default_rng(13)
    strong = condition(rng, n=3, theta=3.0, games=2000, name="a")[0]
    stronger = condition(rng, n=3, theta=4.0, games=2000, name="b")[0]
    weak = condition(rng, n=3, theta=0.3, games=2000, name="b")[0]
    weaker = condition(rng, n=3, theta=0.2, games=2000, name="a")[0]
    big = made_comparison(0.05)
    assert direction(big, strong, stronger, MARGINS) == "more"
    assert "so `b` rewards skill more than `a`" in skill_claim(big, strong, stronger, MARGINS)
    # the weaker player winning more means skill is rewarded less
    assert direction(big, weaker, weak, MARGINS) == "less"
    # better in one condition, worse in the other: no claim about skill
    assert direction(big, strong, weak, MARGINS) is None
    assert "no claim about skill" in skill_claim(big, strong, weak, MARGINS)
    # holds after Holm, but smaller than the smallest effect worth reporting (going_rummy's 10 wins to 0)
    small = made_comparison(0.001)
    assert small.verdict("order").is_claim and direction(small, strong, stronger, MARGINS) is None
    assert "by less than the smallest effect worth reporting (0.020 of Order)" in skill_claim(
        small, strong, stronger, MARGINS
    )
    # does not hold after Holm
    unsure = made_comparison(0.05, p_holm=0.2)
    assert direction(unsure, strong, stronger, MARGINS) is None
    assert skill_claim(unsure, strong, stronger, MARGINS).startswith("neither condition is shown")


def test_rule_out_states_the_strength_margin():
    rng = np.random.default_rng(14)
    comp = compare(condition(rng, n=2, theta=2.0, games=800, name="a"), condition(rng, n=3, theta=2.0, games=800,
                   name="b"), paired=False)  # fmt: skip
    holm([comp])
    rule_out([comp], margins=MARGINS)
    bounds = comp.bounds["strength"]
    assert bounds.margin == 0.05 and not bounds.equivalent and bounds.detectable > 0


BASE = {"name": "x", "question": "q", "seed": 1, "games": 2, "players": ["cautious", "greedy"]}


@pytest.mark.parametrize(
    ("skill", "message"),
    [
        ({"strategy": "cautios"}, "x.yaml: skill.strategy: 'cautios' is seated by no lineup; did you mean 'cautious'?"),
        ({"strategy": "montecarlo"}, "x.yaml: skill.strategy: 'montecarlo' is seated by no lineup; lineups seat "
         "cautious, greedy"),
        ({"strategy": 3}, "x.yaml: skill.strategy: expected a strategy or a list of strategies, such as "
         "[cautious, rummy_hunter], got 3"),
        ({"strategies": "cautious"}, "x.yaml: skill.strategies: unknown key; did you mean 'strategy'?"),
        ("cautious", "x.yaml: skill: expected a mapping such as {strategy: cautious}, got 'cautious'"),
    ],
)  # fmt: skip
def test_a_bad_skill_key_is_a_one_line_error_naming_file_and_key(skill, message):
    with pytest.raises(ConfigError) as error:
        parse_experiment({**BASE, "skill": skill}, source="x.yaml")
    assert str(error.value) == message


def test_the_skill_key_is_kept_in_the_manifest_and_changes_no_results():
    named = parse_experiment({**BASE, "skill": {"strategy": ["cautious", "greedy"]}}, source="x.yaml")
    assert named.skill == ("cautious", "greedy")
    assert named.to_dict()["skill"] == {"strategy": ["cautious", "greedy"]}
    assert named.fingerprint() == parse_experiment(BASE, source="x.yaml").fingerprint()


def strength_coverage(rng, *, reps: int, games: int) -> tuple[int, int]:
    """Return (intervals covering 0, score tests rejecting at 5%) for a constant strength at 2 and 4 players."""
    covered = rejected = 0
    theta = 3.0
    for i in range(reps):
        a = (rng.random(games) < luce(theta, n=2)).astype(float)
        b = (rng.random(games) < luce(theta, n=4)).astype(float)
        e = strength_difference(a, b, seats=(1, 1), n=(2, 4), paired=False, seed=i)
        covered += e.low <= 0.0 <= e.high
        from statsmodels.stats.proportion import test_proportions_2indep

        p = test_proportions_2indep(int(b.sum()), games, int(a.sum()), games, compare="odds-ratio", method="score",
                                    value=(1 / 3) / 1).pvalue  # fmt: skip
        rejected += p < 0.05
    return covered, rejected


@pytest.mark.slow
def test_strength_intervals_cover_a_constant_strength_and_its_test_keeps_its_level():
    """docs/metrics.md gives these figures: 400 replications of 600 games at 2 and at 4 players, θ = 3."""
    reps = 400
    covered, rejected = strength_coverage(np.random.default_rng(15), reps=reps, games=600)
    assert stats.binomtest(covered, reps, 0.95).pvalue > 0.001, covered / reps
    assert stats.binomtest(rejected, reps, 0.05).pvalue > 0.001, rejected / reps
