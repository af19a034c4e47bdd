"""Checks with strong players (``strong: true``): their own games, their own test family, a note beside each verdict."""

from __future__ import annotations

import dataclasses
import json
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim import pilot as pilot_module
from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.pilot import _duration, check_pilot_games, pilot
from rummysim.report import build_report
from rummysim.runner import run_experiment

MEASURES = ["first_player_edge_hand", "game_length"]


def spec(strong: dict | None = None, *, precision: bool = False) -> dict:
    data = {
        "name": "t", "question": "Does it?", "games": 300, "seed": 11, "players": ["greedy", "greedy"],
        "rules": {"target_score": 50}, "measures": MEASURES,
        "conditions": {"basic": {}, "high": {"rules": {"ace": "high_or_low"}}, **(strong or {})},
    }  # fmt: skip
    if precision:
        data |= {
            "precision": {"first_seat_edge": "0.5 pp"},
            "max_games": 600,
            "measures": [*MEASURES, "first_seat_edge"],
        }
    return data


CHECK = {
    "basic_check": {"players": ["greedy", "greedy"], "games": 300, "strong": True},
    "high_check": {"players": ["greedy", "greedy"], "games": 300, "strong": True, "rules": {"ace": "high_or_low"}},
}
"""A check whose lineup is the question's own, on as many games: the same deals, so the same numbers."""


def test_a_check_with_strong_players_must_name_its_games():
    data = spec({"basic_check": {"players": ["expert", "expert"], "strong": True}})
    with pytest.raises(
        ConfigError, match=r"conditions\.basic_check\.strong: a check with strong players plays the games"
    ):
        parse_experiment(data, source="t.yaml")


def test_strong_must_be_true_or_false():
    data = spec({"basic_check": {"players": ["expert", "expert"], "strong": "yes", "games": 10}})
    with pytest.raises(ConfigError, match=r"conditions\.basic_check\.strong"):
        parse_experiment(data, source="t.yaml")


def test_checks_never_change_the_question_s_verdicts_nor_its_tests(tmp_path):
    run_experiment(parse_experiment(spec(), source="t.yaml"), out=tmp_path / "alone", n_jobs=1)
    run_experiment(parse_experiment(spec(CHECK), source="t.yaml"), out=tmp_path / "both", n_jobs=1, strong=True)
    assert build_report(tmp_path / "alone" / "t").verdicts == build_report(tmp_path / "both" / "t").verdicts
    alone, both = (pd.read_csv(tmp_path / run / "t" / "summary_comparisons.csv") for run in ("alone", "both"))
    main = both[both["other"] == "high"].reset_index(drop=True)
    assert len(main) and main["p_holm"].notna().any()
    pd.testing.assert_frame_equal(alone, main, check_dtype=False)


def test_a_check_playing_the_question_s_own_games_reads_the_same_wherever_its_answer_is_not_can_t_tell(tmp_path):
    run_experiment(parse_experiment(spec(CHECK), source="t.yaml"), out=tmp_path, n_jobs=1, strong=True)
    text = build_report(tmp_path / "t").markdown.read_text()
    answer = text.split("![The answer")[0]
    bullets = [line for line in answer.splitlines() if line.startswith("- **")]
    assert len(bullets) == len(MEASURES)
    for line in bullets:
        note = line.split(" With strong players (300 games): ", 1)[1]
        if line.startswith("- **Can't tell**"):
            assert re.fullmatch(r"two greedy, can't tell at ±[\d.]+( pp| hands)?\.", note), note
        else:
            assert re.fullmatch(r"two greedy, the same \(change [^)]*\)\.", note), note
    assert "## With strong players" in text


def test_checks_are_not_sized_by_precision(tmp_path):
    experiment = parse_experiment(spec(CHECK, precision=True), source="t.yaml")
    result = run_experiment(experiment, out=tmp_path, n_jobs=2, strong=True)
    played = result.games.groupby("condition")["game"].nunique().to_dict()
    assert played["basic_check"] == played["high_check"] == 300
    assert played["basic"] == played["high"] > 300  # the question's own grew to its precision


GREEDY_CHECK = {"basic_x": {"players": ["greedy", "greedy"], "games": 1600, "strong": True}}
"""A check with strong players whose lineup is cheap: the pilot's handling of checks, not expert, is tested."""


def test_validate_s_pilot_times_the_checks_and_says_they_are_played_only_with_strong(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(spec(GREEDY_CHECK, precision=True)))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "40"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    checks with strong players"))
    assert "(basic_x)" not in lines[start - 1] and lines[start - 1].startswith("    needs about ")
    assert all(len(line) <= 110 for line in lines[start:])
    assert all(line.startswith("      ") for line in lines[start + 1 :])  # wrapped under it
    said = " ".join(line.strip() for line in lines[start:])
    number = r"[\d.]+(e-\d+)? (s|min)"
    assert re.fullmatch(
        rf"checks with strong players \(played only with --strong\): 1,600 games \(basic_x\); about {number} of "
        rf"play on one core( \({number} on all \d+ cores\))? at the pilot's pace \(4 games, {number}\)",
        said,
    ), said


def test_the_pilot_plays_a_tenth_of_its_games_of_each_check_and_scales_their_time_to_the_check_s_games():
    data = spec(
        GREEDY_CHECK | {"short_x": {"players": ["greedy", "greedy"], "games": 3, "strong": True}}, precision=True
    )
    experiment = parse_experiment(data, source="t.yaml")
    found = pilot(experiment, games=60)
    assert {name: (pace.games, pace.played) for name, pace in found.checks.items()} == {
        "basic_x": (1600, 6),  # a tenth of 60
        "short_x": (3, 3),  # never more than the check names
    }
    assert all(pace.seconds > 0 for pace in found.checks.values())
    pace = found.checks["basic_x"]
    assert pace.seconds_needed == pytest.approx(pace.seconds * 1600 / 6)
    said = " ".join(line.strip() for line in found.lines(experiment)[-3:])
    assert "1,600 games (basic_x), 3 games (short_x)" in said and "at the pilot's pace (3 to 6 games each, " in said
    one_core = pace.seconds_needed + found.checks["short_x"].seconds_needed
    assert f"about {_duration(one_core)} of play on one core" in said


def test_the_checks_leave_the_sized_estimate_as_it_is_and_a_file_without_checks_says_nothing_of_them():
    alone, both = (parse_experiment(spec(checks, precision=True), source="t.yaml") for checks in ({}, CHECK))
    without, with_checks = pilot(alone, games=40), pilot(both, games=40)
    assert without.checks == {} and set(with_checks.checks) == {"basic_check", "high_check"}
    assert (with_checks.games, with_checks.needs) == (without.games, without.needs)
    # the same lines, but for the seconds of play (this machine's pace), and then the checks' own
    sized = dataclasses.replace(without, seconds=1.0).lines(alone)
    assert not any("strong" in line for line in sized)
    lines = dataclasses.replace(with_checks, seconds=1.0).lines(both)
    assert lines[: len(sized)] == sized
    assert lines[len(sized)].startswith("    checks with strong players (played only with --strong): 300 games each ")


def test_validate_with_pilot_0_plays_nothing_not_even_the_checks(tmp_path, monkeypatch):
    import rummysim.runner

    monkeypatch.setattr(rummysim.runner, "run_experiment", lambda *a, **k: pytest.fail("played a game"))
    monkeypatch.setattr(pilot_module, "run_experiment", lambda *a, **k: pytest.fail("played a game"))
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(spec(GREEDY_CHECK, precision=True)))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "0"])
    assert result.exit_code == 0, result.output
    assert "precision:" not in result.output and "checks with strong players" not in result.output
    assert check_pilot_games(0, 1600) == 0


def test_a_file_of_checks_alone_is_timed_and_sized_by_nothing(tmp_path):
    data = spec(precision=True) | {"conditions": CHECK}
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "40"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first = lines.index("  precision: sizes no condition here: every one is a check with strong players")
    said = " ".join(line.strip() for line in lines[first + 1 :])
    assert said.startswith(
        "checks with strong players (every run plays them): 300 games each (basic_check, high_check)"
    )
    assert "at the pilot's pace (4 games each, " in said


def test_the_checks_are_played_only_with_strong_and_then_into_the_same_folder(tmp_path):
    """Issue 44: the main command answers the question; --strong adds the checks, extending the folder."""
    path = tmp_path / "t.yaml"
    data = spec(CHECK) | {"games": 40}
    path.write_text(json.dumps(data))

    def run(*flags: str) -> dict[str, int]:
        result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "-j", "1", "-q", *flags])
        assert result.exit_code == 0, result.output
        return pd.read_parquet(tmp_path / "t" / "games.parquet").condition.value_counts().to_dict()

    assert run() == {"basic": 80, "high": 80}  # 40 games of two seats; the checks at 0 games
    text = (tmp_path / "t" / "report.md").read_text()
    assert f"Strong players: not checked in this run. `rummysim run {path} --strong` plays the file's checks" in text
    assert "## With strong players" not in text
    assert run("--strong") == {"basic": 80, "high": 80, "basic_check": 600, "high_check": 600}
    assert "## With strong players" in (tmp_path / "t" / "report.md").read_text()
    assert run() == {"basic": 80, "high": 80, "basic_check": 600, "high_check": 600}  # kept, never cut away
    experiment = parse_experiment(data, source="t.yaml")
    quick = experiment.with_overrides(strong=False)
    assert [quick.games_of(c) for c in quick.conditions] == [40, 40, 0, 0]
    assert quick.fingerprint() == experiment.fingerprint()


def test_a_file_of_checks_alone_plays_them_without_strong():
    experiment = parse_experiment(spec() | {"conditions": CHECK}, source="t.yaml")
    assert experiment.with_overrides(strong=False) == experiment


def test_a_check_left_out_compiles_nothing_of_its_own(tmp_path, monkeypatch):
    """Issue 44, part 2: a run without --strong never compiles expert's search for the checks it leaves out."""
    import rummysim.compiled as compiled

    asked = []
    monkeypatch.setattr(compiled, "expert_search", lambda: asked.append("expert") or pytest.fail("compiled expert"))
    data = spec({"basic_x": {"players": ["expert", "expert"], "games": 1600, "strong": True}}) | {"games": 20}
    run_experiment(parse_experiment(data, source="t.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    assert asked == []
