"""Answers sized by precision (issue 13): waves until the planned intervals are narrow enough, and what that costs.

`rummysim.precision` decides each wave from the widths of the planned comparisons'
intervals; the runner plays the waves. These tests check the rule on made-up widths
(paired conditions alike, the growth and the cap), whole sized runs (they stop when
every width is met, or at max_games; their tables are those of a run of the same
games; the manifest and the report say how they were sized), the pilot of `validate`,
and, by simulation, that stopping on the width keeps the intervals' coverage.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.precision import GROWTH, SPARE, STEP, Width, next_wave
from rummysim.runner import run_experiment

SPEC = {
    "name": "sized", "question": "Does ace high change the first seat's edge?", "seed": 5, "games": 100,
    "players": ["greedy", "cautious"], "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}},
                   "three": {"players": ["greedy", "cautious", "greedy"]}},
    "precision": {"first_seat_edge": "6 pp"}, "max_games": 2000,
}  # fmt: skip


def sized(**changes):
    return parse_experiment({**SPEC, **changes}, source="sized.yaml")


def width(reference, other, half, target=1.0, measure="first_seat_edge"):
    return Width(reference, other, measure, half, target, 100)


def test_a_wide_comparison_grows_its_conditions_by_the_square_of_its_excess_paired_ones_alike():
    experiment = sized()
    # basic and ace_high share deals (same table): paired; three is another table: unpaired with basic
    grow = next_wave(experiment, [width("basic", "ace_high", 2.0), width("basic", "three", 0.5)])
    expected = math.ceil(100 * 4 * SPARE / STEP) * STEP
    assert grow == {"basic": expected, "ace_high": expected}
    grow = next_wave(experiment, [width("basic", "ace_high", 0.9), width("basic", "three", 1.5)])
    assert grow["three"] == math.ceil(100 * 2.25 * SPARE / STEP) * STEP
    assert grow["basic"] == grow["ace_high"] == grow["three"]  # basic grows, and ace_high with it (paired)


def test_a_wave_grows_at_most_sixteenfold_never_beyond_max_games_and_none_when_all_are_met():
    experiment = sized()
    assert next_wave(experiment, [width("basic", "ace_high", 10.0)])["basic"] == 100 * GROWTH
    assert next_wave(experiment, [width("basic", "ace_high", float("nan"))])["basic"] == 100 * GROWTH
    assert next_wave(sized(max_games=250), [width("basic", "ace_high", 10.0)])["basic"] == 250
    assert next_wave(experiment, [width("basic", "ace_high", 1.0), width("basic", "three", 0.2)]) == {}
    at_cap = sized(games=250, max_games=250)
    assert next_wave(at_cap, [width("basic", "ace_high", 10.0)]) == {}  # still too wide, but capped: done


@pytest.fixture(scope="module")
def sized_run(tmp_path_factory):
    return run_experiment(sized(), out=tmp_path_factory.mktemp("sized"), n_jobs=1)


def test_a_sized_run_plays_waves_until_every_planned_width_is_met(sized_run):
    record = sized_run.manifest["precision"]
    assert record["stopped"] == "every width within its target"
    assert record["waves"][0] == {"basic": 100, "ace_high": 100, "three": 100}
    assert len(record["waves"]) >= 2
    assert all(w["met"] and w["half_width"] <= 6.0 for w in record["widths"])
    played = {c.name: sized_run.experiment.games_of(c) for c in sized_run.experiment.conditions}
    assert played == record["waves"][-1]
    assert played["basic"] == played["ace_high"]  # paired conditions stay paired
    assert sized_run.games.groupby("condition", sort=False).game.nunique().to_dict() == played


def test_a_sized_runs_tables_are_those_of_a_run_of_the_same_games(sized_run, tmp_path):
    record = sized_run.manifest["precision"]
    fixed = sized(precision=None, max_games=None)
    fixed = fixed.with_games(record["waves"][-1])
    plain = run_experiment(fixed, out=tmp_path, n_jobs=2, chunk_games=7)
    pd.testing.assert_frame_equal(sized_run.hands, plain.hands)
    pd.testing.assert_frame_equal(sized_run.games, plain.games)


def test_a_tighter_target_extends_a_finished_run_and_a_looser_one_cuts_it_to_what_a_fresh_run_plays(tmp_path):
    first = run_experiment(sized(), out=tmp_path / "kept", n_jobs=1)
    first_hands, first_games = first.hands, first.games  # read now: the folder is rewritten below
    tighter = run_experiment(sized(precision={"first_seat_edge": "4 pp"}), out=tmp_path / "kept", n_jobs=1)
    fresh = run_experiment(sized(precision={"first_seat_edge": "4 pp"}), out=tmp_path / "fresh", n_jobs=1)
    assert tighter.manifest["precision"]["waves"] == fresh.manifest["precision"]["waves"]
    assert sum(tighter.manifest["precision"]["waves"][-1].values()) > sum(
        first.manifest["precision"]["waves"][-1].values()
    )
    pd.testing.assert_frame_equal(tighter.games, fresh.games)
    looser = run_experiment(sized(), out=tmp_path / "kept", n_jobs=1)
    assert looser.manifest["precision"]["waves"] == first.manifest["precision"]["waves"]
    pd.testing.assert_frame_equal(looser.games, first_games)
    pd.testing.assert_frame_equal(looser.hands, first_hands)
    # the looser target's waves were read from the finished tables as prefixes: nothing was played again
    assert looser.manifest["hands_played_this_run"] == 0
    # and the prefix's analysis, which the report reuses, is the analysis of the tables cut to it
    from rummysim.analysis import analyze
    from rummysim.results import load_results

    again = analyze(load_results(looser.folder))
    for table in ("metrics_table", "comparisons_table", "seats_table", "strategies_table"):
        pd.testing.assert_frame_equal(getattr(looser.analysis, table)(), getattr(again, table)())


def test_a_run_that_reaches_max_games_says_so_in_its_manifest_and_report(tmp_path):
    capped = run_experiment(sized(precision={"first_seat_edge": "0.5 pp"}, max_games=300), out=tmp_path, n_jobs=1)
    record = capped.manifest["precision"]
    assert record["stopped"] == "max_games reached"
    assert record["waves"][-1] == {"basic": 300, "ace_high": 300, "three": 300}
    assert not all(w["met"] for w in record["widths"])
    result = CliRunner().invoke(main, ["report", str(capped.folder), "-q"])
    assert result.exit_code == 0, result.output
    text = (capped.folder / "report.md").read_text()
    assert "### How many games" in text and "Stopped: max_games reached." in text
    assert "NOT within the target ±0.50 pp" in text


def test_validate_estimates_the_games_a_precision_needs_from_a_pilot(tmp_path):
    path = tmp_path / "sized.yaml"
    path.write_text(json.dumps(SPEC))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "60"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[4] == "  precision: a pilot of 60 games a condition" + lines[4].split("condition")[1]
    assert lines[5].startswith("    first_seat_edge, ace_high against basic: ±")
    assert lines[-1].startswith("    needs about ") and "games (basic)" in lines[-1]
    skipped = CliRunner().invoke(main, ["validate", str(path), "--pilot", "0"])
    assert "precision:" not in skipped.output


def _coverage(*, reps: int, target: float, seed: int) -> tuple[float, float]:
    """Simulate sized paired runs of a first-seat-like share (p 0.52 against 0.50, correlated by shared deals)."""
    rng = np.random.default_rng(seed)
    experiment = sized(games=200, max_games=200_000).with_games({"three": 200})
    truth = 0.02
    covered = waves = 0
    for _ in range(reps):
        n = 200
        luck = rng.random(200_000)
        a = (luck < 0.50).astype(float)
        b = np.where(rng.random(200_000) < 0.8, (luck < 0.52), rng.random(200_000) < 0.52).astype(float)
        current = experiment
        while True:
            d = b[:n] - a[:n]
            half = 1.96 * d.std(ddof=1) / math.sqrt(n) * 100
            grow = next_wave(current, [Width("basic", "ace_high", "first_seat_edge", half, target, n)])
            if not grow:
                break
            n = grow["basic"]
            current = current.with_games(grow)
            waves += 1
        low, high = d.mean() - half / 100, d.mean() + half / 100
        covered += low <= truth <= high
    return covered / reps, waves / reps


def test_stopping_on_the_width_keeps_the_intervals_coverage():
    coverage, waves = _coverage(reps=300, target=1.0, seed=1)
    assert 0.92 <= coverage <= 0.98, coverage  # 95% nominal; 300 runs give a standard error of 1.3 points
    assert waves >= 1


@pytest.mark.slow
def test_stopping_on_the_width_keeps_the_intervals_coverage_at_length():
    coverage, _ = _coverage(reps=2000, target=0.5, seed=2)
    assert 0.94 <= coverage <= 0.96, coverage  # 2,000 runs: a standard error of 0.5 points


def test_games_on_the_command_line_plays_exactly_that_many_and_sets_precision_aside(tmp_path):
    quick = run_experiment(sized(), out=tmp_path, n_jobs=1, games=30)
    assert "precision" not in quick.manifest
    assert quick.games.groupby("condition").game.nunique().to_dict() == {"basic": 30, "ace_high": 30, "three": 30}


def test_the_run_commands_report_reuses_the_last_waves_analysis_and_matches_a_fresh_report(tmp_path):
    path = tmp_path / "sized.yaml"
    path.write_text(json.dumps(SPEC))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "sized" / "report.md").read_text()
    assert "### How many games" in written
    again = CliRunner().invoke(main, ["report", str(tmp_path / "sized"), "-q"])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "sized" / "report.md").read_text() == written
