"""The ladder leads with what was measured (issue 42, part 4).

A forecast that lies outside its pairing's measured interval, where the fit test rejects one scale
or cannot be run (no residual degrees of freedom), is dropped and flagged in words, never printed
as a number; one inside is kept; the section's first figure is a measured share. Ladders are built
from finishing orders written out by hand (a misfit planted on purpose) or drawn from the model.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import rummysim.report.ladder as ladder_report
from rummysim.analysis import Analysis
from rummysim.analysis.estimates import Estimate
from rummysim.analysis.frames import game_outcomes
from rummysim.analysis.ladder import FitTest, Ladder, Pairing, Ranking, ladder
from rummysim.experiment import parse_experiment
from rummysim.report.ladder import head_to_head, ladder_lines, ladder_notes, lead, pairing_lines

PERCENT = re.compile(r"\d+\.\d+%")


def plackett_luce(rng: np.random.Generator, lineup: list[str], games: int, beta: dict[str, float]) -> list[Ranking]:
    """Return `games` finishing orders of a lineup drawn from Plackett-Luce (Gumbel-max: sorted β + Gumbel noise)."""
    b = np.array([beta[s] for s in lineup])
    ranked = np.argsort(-(b + rng.gumbel(size=(games, len(lineup)))), axis=1)
    return [tuple((lineup[i],) for i in row) for row in ranked]


def analysis_of(tables: dict[str, tuple[list[str], list[Ranking]]]) -> tuple[Analysis, pd.DataFrame]:
    """Return an analysis and games table of conditions given as (lineup, finishing orders), seats rotated."""
    conditions = {name: {"players": lineup} for name, (lineup, _) in tables.items()}
    data = {"name": "lead", "question": "How strong?", "seed": 3, "games": 100, "players": ["greedy", "greedy"]}
    experiment = parse_experiment({**data, "conditions": conditions}, source="x.yaml")
    rows = []
    for name, (lineup, orders) in tables.items():
        for g, order in enumerate(orders):
            seats = [lineup[(seat + g) % len(lineup)] for seat in range(len(lineup))]
            free = list(range(len(seats)))
            for place, (label,) in enumerate(order):
                seat = next(s for s in free if seats[s] == label)
                free.remove(seat)
                rows.append({"condition": name, "game": g, "seat": seat, "strategy": label, "score": 200 - 50 * place,
                             "won": place == 0, "tied": False, "stalled": False})  # fmt: skip
    games = pd.DataFrame(rows).sort_values(["condition", "game", "seat"], ignore_index=True)
    frames = {
        str(name): game_outcomes(table).assign(decided=lambda f: f["winner_seat"] >= 0)
        for name, table in games.groupby("condition")
    }
    return Analysis(experiment, [], [], frames, {}), games


def zero_df_misfit() -> tuple[Analysis, Ladder]:
    """Return acehigh's shape, each strategy against two greedy at 3 players (0 residual df), with cautious's
    table planted off the model: it wins 60% of its games and finishes last in all the others."""
    cautious = [(("cautious",), ("greedy",), ("greedy",))] * 1800 + [(("greedy",), ("greedy",), ("cautious",))] * 1200
    expert = plackett_luce(np.random.default_rng(7), ["expert", "greedy", "greedy"], 1600, {"expert": 2.0, "greedy": 0})
    tables = {"basic_skill": (["cautious", "greedy", "greedy"], cautious),
              "basic_expert_vs_greedy": (["expert", "greedy", "greedy"], expert)}  # fmt: skip
    analysis, games = analysis_of(tables)
    found = ladder(analysis, games=games, resamples=100)
    assert found is not None
    return analysis, found


def rejected_misfit() -> tuple[Analysis, Ladder]:
    """Return three two-player pairings that one scale cannot fit (the fit test rejects): expert crushes greedy."""
    rng = np.random.default_rng(8)

    def pair(a: str, b: str, wins: int, games: int) -> list[Ranking]:
        order = [((a,), (b,))] * wins + [((b,), (a,))] * (games - wins)
        return [order[i] for i in rng.permutation(games)]

    tables = {"greedy_vs_expert": (["greedy", "expert"], pair("expert", "greedy", 396, 400)),
              "cautious_vs_expert": (["cautious", "expert"], pair("expert", "cautious", 240, 400)),
              "greedy_vs_cautious": (["greedy", "cautious"], pair("cautious", "greedy", 280, 400))}  # fmt: skip
    analysis, games = analysis_of(tables)
    found = ladder(analysis, games=games, resamples=100)
    assert found is not None
    return analysis, found


def section(analysis: Analysis, found: Ladder) -> str:
    """Return everything the report says of the ladder: its lines, its notes and each pairing."""
    return "\n".join([*ladder_lines(analysis, found), ladder_notes(analysis, found), *pairing_lines(analysis, found)])


def outside(found: Ladder) -> list[Pairing]:
    """Return the pairings whose forecast lies outside the measured interval, found from the numbers alone."""
    return [p for p in found.pairings if math.isfinite(p.predicted) and not p.share.low <= p.predicted <= p.share.high]


def quoted(text: str, forecasts: list[float]) -> list[str]:
    """Return the forecasts printed as a number a player could quote (as the report writes a share)."""
    return [f"{100 * x:.1f}%" for x in forecasts if f"{100 * x:.1f}%" in text]


def test_at_zero_df_a_forecast_outside_its_measured_interval_is_dropped_and_flagged_and_one_inside_kept():
    analysis, found = zero_df_misfit()
    assert found.df == 0 and found.fit_test is FitTest.UNTESTED  # acehigh's case: the test is skipped
    (cautious,) = [p for p in found.pairings if p.strategy == "cautious"]
    (expert,) = [p for p in found.pairings if p.strategy == "expert"]
    assert cautious.share.value == pytest.approx(0.6) and cautious.predicted < cautious.share.low  # the plant
    assert expert.share.low <= expert.predicted <= expert.share.high
    assert found.dropped == (cautious,) and not found.forecast_holds(cautious) and found.forecast_holds(expert)
    text = section(analysis, found)
    # dropped: neither its forecast nor cautious's two-player chance derived from the same fit is printed
    assert quoted(text, [cautious.predicted, found.win_probability("cautious").value]) == []
    flag = (
        "- The one-scale fit does not hold for `cautious` against `greedy` (3 players, cautious against two greedy, "
        f"`basic_skill`): measured {100 * cautious.share.value:.1f}% [{100 * cautious.share.low:.1f}, "
        f"{100 * cautious.share.high:.1f}], the fit says less; read the measured share."
    )
    assert flag in text.splitlines()
    assert "| `basic_skill` | 3 | `cautious` finishes ahead of `greedy` | 3,000 | 60.0% [" in text
    assert "| dropped: the fit says less |" in text
    # kept: inside its interval, the forecast is shown, and the chance it rests on
    assert f"| {100 * expert.predicted:.1f}% |" in text
    assert quoted(text, [found.win_probability("expert").value])
    # the test's silence is said before any forecast
    untested = text.index("**Whether one scale fits cannot be tested here**")
    assert untested < text.index(f"{100 * expert.predicted:.1f}%")
    assert untested < text.index(f"{100 * found.win_probability('expert').value:.1f}%")


def test_when_the_fit_test_rejects_it_is_said_first_and_the_lead_quotes_the_measured_share():
    analysis, found = rejected_misfit()
    assert found.fit_test is FitTest.REJECTED and found.fit_p < 0.05
    dropped = outside(found)
    assert dropped and set(found.dropped) == set(dropped)
    text = section(analysis, found)
    assert quoted(text, [p.predicted for p in dropped]) == []
    (crush,) = [p for p in found.pairings if p.condition == "greedy_vs_expert"]
    assert crush in dropped  # the fit puts expert against greedy below the 99.0% measured
    first = lead(analysis, found)
    assert first.startswith(
        "`expert` tops the ladder: measured, it beats `greedy` in about 99 of 100 two-player games ("
    )
    assert f"({100 * crush.share.value:.1f}% [" in first and " of 400)" in first
    rejected = text.index("**One scale does not fit these pairings**")
    assert rejected < text.index("| | strategy |")  # before the ratings, the first forecasts
    for p in found.pairings:
        if found.forecast_holds(p):
            assert rejected < text.index(f"| {100 * p.predicted:.1f}% |")


def test_the_sections_first_figure_is_a_measured_share():
    for analysis, found in (zero_df_misfit(), rejected_misfit()):
        lines = ladder_lines(analysis, found)
        first = PERCENT.search("\n".join(lines))
        assert first is not None
        measured = {f"{100 * p.share.value:.1f}%" for p in head_to_head(found)}
        assert first.group() in measured and first.start() < len(lines[0])  # in the lead, a measured share
        forecasts = {f"{100 * p.predicted:.1f}%" for p in found.pairings} - measured
        assert not forecasts & set(PERCENT.findall(lines[0]))  # the lead quotes no forecast


def test_the_rule_reads_the_fit_test_and_the_interval_and_other_rules_are_never_covered_by_the_test():
    _, found = zero_df_misfit()
    share = Estimate(0.6, 0.58, 0.62, 3000)
    off = Pairing("basic_skill", "cautious", "greedy", share, 0.55, fitted=True, seats=3)
    on = replace(off, predicted=0.61)
    holds = replace(found, pairings=(off, on), deviance=3.0, df=4)  # p = 0.56: one scale fits
    rejects = replace(holds, deviance=40.0)
    assert holds.fit_test is FitTest.HOLDS and rejects.fit_test is FitTest.REJECTED
    assert replace(holds, df=0).fit_test is FitTest.UNTESTED
    assert holds.forecast_holds(off) and holds.forecast_holds(on)  # the test covers a fitted pairing
    assert not rejects.forecast_holds(off) and rejects.forecast_holds(on)
    assert not replace(holds, df=0).forecast_holds(off)
    other_rules = replace(off, fitted=False)
    assert not holds.forecast_holds(other_rules) and holds.forecast_holds(replace(on, fitted=False))
    assert not holds.forecast_holds(replace(on, predicted=float("nan")))  # no forecast (a bound): nothing to show
    assert rejects.dropped == (off,)


def test_a_planted_bug_printing_every_forecast_regardless_fails_these_checks(monkeypatch):
    analysis, found = zero_df_misfit()
    dropped = outside(found)
    assert quoted(section(analysis, found), [p.predicted for p in dropped]) == []
    monkeypatch.setattr(Ladder, "forecast_holds", lambda self, p: math.isfinite(p.predicted))
    assert quoted(section(analysis, found), [p.predicted for p in dropped])  # the old report: caught


def test_a_planted_bug_leading_with_the_forecast_fails_the_first_figure_check(monkeypatch):
    analysis, found = rejected_misfit()
    measured = {f"{100 * p.share.value:.1f}%" for p in head_to_head(found)}
    assert PERCENT.findall(lead(analysis, found))[0] in measured
    forecast = lambda p, s: Estimate(p.predicted, p.predicted - 0.01, p.predicted + 0.01, p.share.n)  # noqa: E731
    monkeypatch.setattr(ladder_report, "_as_seen_by", forecast)
    assert PERCENT.findall(lead(analysis, found))[0] not in measured  # caught


def test_the_chart_draws_no_forecast_axis_where_a_forecast_chance_is_dropped(tmp_path):
    _, misfit = zero_df_misfit()
    assert not misfit.chance_holds("cautious")
    ladder_report.draw_ladder(misfit, tmp_path / "misfit")
    assert "forecast chance to beat" not in (tmp_path / "misfit.svg").read_text()
    rated = replace(misfit, pairings=tuple(p for p in misfit.pairings if p not in misfit.dropped))
    assert all(rated.chance_holds(s) for s in ("cautious", "expert"))
    ladder_report.draw_ladder(rated, tmp_path / "fits")
    assert "forecast chance to beat greedy in a two-player game, %" in (tmp_path / "fits.svg").read_text()
