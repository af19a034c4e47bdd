"""The report is total: every valid experiment, however small or odd, ends with report.md and report.html.

Hypothesis writes small experiments (1 to 5 games, 2 to 6 players mixed in one file,
conditions that play alike, grids, rules under which some events never happen) and each
one must run, write its report and exit 0. A handful run in the default suite; many more
under ``-m slow``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummysim.analysis import analyze
from rummysim.analysis.compare import Verdict
from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.report import build_report
from rummysim.runner import run_experiment

BOTS = ("greedy", "uniform", "rummy_hunter", "cautious")
lineups = st.lists(st.sampled_from(BOTS), min_size=2, max_size=6)
rule_changes = st.fixed_dictionaries(
    {},
    optional={
        "ace": st.sampled_from(["low", "high_or_low"]),
        "going_out": st.sampled_from(["any", "discard"]),
        "rummy_multiplier": st.integers(1, 3),
        "ace_points": st.sampled_from([0, 1, 15]),
        "stall_after_turns": st.sampled_from([3, 12, 1000]),
        "stall_after_rebuilds": st.integers(0, 2),
    },
)


@st.composite
def experiments(draw: st.DrawFn) -> dict[str, Any]:
    """Draw a small valid experiment as the mapping an experiment file holds."""
    spec: dict[str, Any] = {
        "name": "odd",
        "question": "Does anything change?",
        "seed": draw(st.integers(0, 10_000)),
        "games": draw(st.integers(1, 5)),
        "players": draw(lineups),
        "rules": {
            "max_hands": draw(st.integers(1, 3)),
            "target_score": draw(st.sampled_from([None, 20, 150])),
            "stall_after_hands": draw(st.sampled_from([1, 50])),
        },
    }
    conditions = {}
    for index in range(draw(st.integers(0, 4))):
        body: dict[str, Any] = {}
        if draw(st.booleans()):
            body["rules"] = draw(rule_changes)
        if draw(st.booleans()):
            body["players"] = draw(lineups)
        if draw(st.booleans()):
            body["games"] = draw(st.integers(1, 5))
        conditions[f"c{index}"] = body
    if conditions:
        spec["conditions"] = conditions
    taken = {key for body in conditions.values() for key in body.get("rules", {})}
    free = [k for k in ("ace", "going_out", "rummy_multiplier") if k not in taken]
    if free and draw(st.booleans()):
        key = draw(st.sampled_from(free))
        values = {"ace": ["low", "high_or_low"], "going_out": ["any", "discard"], "rummy_multiplier": [1, 2]}[key]
        spec["grid"] = {key: draw(st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True))}
    return spec


def play_and_report(spec: dict[str, Any]) -> None:
    experiment = parse_experiment(spec, source="odd.yaml")
    out = Path(tempfile.mkdtemp(prefix="rummysim-total-"))
    try:
        results = run_experiment(experiment, out=out, n_jobs=1, backend="sequential", quiet=True)
        analysis = analyze(results)
        for comparison in analysis.comparisons:
            for metric in comparison.differences:
                assert isinstance(comparison.verdict(metric), Verdict)
        report = build_report(results.folder, analysis=analysis)
        text = report.markdown.read_text()
        assert text.startswith("# Does anything change?\n\n")
        opening = text.split("## What else changes" if analysis.comparisons else "## The evidence")[0]
        verdicts = [line for line in opening.splitlines() if line.startswith("- **")]
        assert len(verdicts) == sum(len(c.tests) for c in analysis.comparisons if c.tests) - sum(
            "seat_distribution_game" in c.tests for c in analysis.comparisons
        )
        assert "nan" not in text.split("## Tables")[0]
        assert report.html.read_text().startswith("<!DOCTYPE html>")
    finally:
        shutil.rmtree(out)


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(experiments())
def test_every_small_experiment_writes_its_report(spec):
    play_and_report(spec)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experiments())
def test_every_small_experiment_writes_its_report_many(spec):
    play_and_report(spec)


SEVEN = {
    "name": "seven",
    "question": "Do the variants change anything?",
    "seed": 7,
    "games": 30,
    "players": ["greedy", "greedy", "greedy"],
    "rules": {"max_hands": 3},
    "conditions": {
        "basic": {},
        "ace_high": {"rules": {"ace": "high_or_low"}},
        "discard": {"rules": {"going_out": "discard"}},
        "no_bonus": {"rules": {"rummy_multiplier": 1}},
        "two": {"players": ["greedy", "greedy"]},
        "six_ace": {"players": ["greedy"] * 6, "rules": {"ace": "high_or_low"}},
        "six_discard": {"players": ["greedy"] * 6, "rules": {"going_out": "discard"}},
    },
}


def test_conditions_that_play_alike_are_reported_as_exactly_zero(tmp_path):
    """The seven conditions of issue 10: `run` used to end in a KeyError; identical outcomes are a result."""
    path = tmp_path / "seven.yaml"
    path.write_text(yaml.safe_dump(SEVEN, sort_keys=False))
    outcome = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "-q"])
    assert outcome.exit_code == 0, outcome.output
    text = (tmp_path / "out" / "seven" / "report.md").read_text()
    assert "no game changed: the difference is exactly 0 in each of 30 paired games" in text
    assert (tmp_path / "out" / "seven" / "report.html").exists()
    comparisons = (tmp_path / "out" / "seven" / "summary_comparisons.csv").read_text()
    assert f",{Verdict.EXACTLY_ZERO}" in comparisons
    assert f",{Verdict.NO_EVENTS}" in comparisons
