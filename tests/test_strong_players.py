"""Checks with strong players (``strong: true``): their own games, their own test family, a note beside each verdict."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
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


def test_validate_s_pilot_leaves_the_checks_out_and_says_the_games_they_name(tmp_path):
    data = spec({"basic_x": {"players": ["expert", "expert"], "games": 1600, "strong": True}}, precision=True)
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["validate", str(path), "--pilot", "40"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1] == "    checks with strong players, not sized: 1,600 games (basic_x)"
    assert "(basic_x)" not in lines[-2] and lines[-2].startswith("    needs about ")


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
