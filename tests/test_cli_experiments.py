"""`rummysim validate` and `rummysim run`: exit codes, one-line errors, and nothing written on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.experiment import load_experiment

EXPERIMENTS = sorted((Path(__file__).resolve().parent.parent / "experiments").glob("*.yaml"))

TINY = """\
name: tiny
question: Does the tiny run work?
seed: 1
games: 4
players: [greedy, greedy]
rules: {target_score: 30}
"""

HEAD = "name: bad\nquestion: Is it bad?\nseed: 1\ngames: 4\n"
"""The first four lines of a bad file: players, rules or conditions follow."""

BAD_FILES = [
    # (file text, message after the file's path)
    pytest.param(
        HEAD + "players: [greedy, greedy]\nrulez: {}\n", ": rulez: unknown key; did you mean 'rules'?", id="rulez"
    ),
    pytest.param(
        HEAD + "players: [greedy, greedy]\nconditions:\n  x:\n    rules: {ace_point: 3}\n",
        ": conditions.x.rules.ace_point: unknown key; did you mean 'ace_points'?",
        id="condition-rule-key",
    ),
    pytest.param(
        HEAD + "players: [greedy, greedy, greedy, greedy, greedy, greedy, greedy]\n",
        ": players: 7 players given, rummy takes 2 to 6 (R1.1)",
        id="7-players",
    ),
    pytest.param(
        HEAD + "players: [greedy, greedy]\nconditions:\n  ace_high:\n    rules: {ace: hi}\n",
        ": conditions.ace_high.rules.ace: 'hi' is not one of low, high_or_low (R5.3, R9.1)",
        id="ace-hi",
    ),
    pytest.param(
        HEAD + "players: [greedy, greedy]\nrules: {cards_dealt: 13}\n"
        "conditions:\n  two: {}\n  four: {players: [greedy, greedy, greedy, greedy]}\n",
        ": rules.cards_dealt: 4 players x 13 cards need 52 cards and a card for the discard pile, "
        "more than the 52-card deck holds (R1.2, R3.2, R3.3) (in condition 'four', 4 players)",
        id="cards_dealt-fails-in-4-player-condition",
    ),
    pytest.param(
        HEAD.replace("name: bad", "name: ../evil") + "players: [greedy, greedy]\n",
        ": name: '../evil' must be 1 to 100 letters, digits, '-' and '_' (it names the results folder)",
        id="name-escapes-results",
    ),
    pytest.param(
        "name: bad\nquestion: q?\nseed: 1: 2\n", ":3: YAML syntax error: mapping values are not allowed here", id="yaml"
    ),
    pytest.param(
        HEAD + "players: [greedy, greedy]\ngames: 5\n",
        ":6: YAML syntax error: key 'games' is given twice",
        id="key-twice",
    ),
    pytest.param("", ": the file is empty; an experiment needs name, question, seed, games, players", id="empty"),
    pytest.param("- a\n", ": the file: expected a mapping of keys to values, got ['a']", id="list"),
]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_one_line_error(result, message: str) -> None:
    """Assert a clean failure: exit status 1, the single line ``Error: MESSAGE``, no traceback."""
    assert result.exit_code == 1, result.output
    assert result.output == f"Error: {message}\n"
    assert result.stdout == ""
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


def assert_nothing_written(out: Path) -> None:
    assert not out.exists() or not any(out.iterdir()), sorted(p.name for p in out.rglob("*"))


def run_args(path: Path | str, out: Path, *extra: str) -> list[str]:
    return ["run", str(path), "--out", str(out), "--jobs", "1", "--quiet", "--no-report", *extra]


# --- validate ---------------------------------------------------------------------------------


def test_experiments_folder_holds_experiments():
    assert EXPERIMENTS, "no experiments/*.yaml found"


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.name for p in EXPERIMENTS])
def test_validate_every_shipped_experiment_prints_its_conditions(runner, path):
    experiment = load_experiment(path)
    result = runner.invoke(main, ["validate", str(path), "--pilot", "0"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{path}: valid: {experiment.name}: {experiment.question}"
    assert len(lines) == 1 + len(experiment.conditions)
    for line, condition in zip(lines[1:], experiment.conditions, strict=True):
        players = ", ".join(p["strategy"] for p in condition.players)
        assert line.startswith(
            f"  {condition.name}: {experiment.games_of(condition)} games, players [{players}], rules: "
        )


def test_validate_prints_each_condition_with_the_rules_it_changes(runner, tmp_path):
    path = write(
        tmp_path,
        TINY + "conditions:\n  plain: {}\n  ace_high:\n    players: [greedy, uniform, greedy]\n"
        "    rules: {ace: high_or_low}\ngrid:\n  going_out: [any, discard]\n",
    )
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{path}: valid: tiny: Does the tiny run work?\n"
        "  plain|going_out=any: 4 games, players [greedy, greedy], rules: target_score=30, engine: compiled\n"
        "  plain|going_out=discard: 4 games, players [greedy, greedy], rules: going_out=discard, target_score=30, "
        "engine: compiled, compared with plain|going_out=any (paired)\n"
        "  ace_high|going_out=any: 4 games, players [greedy, uniform, greedy], "
        "rules: ace=high_or_low, ace_points=15, target_score=30, engine: compiled\n"
        "  ace_high|going_out=discard: 4 games, players [greedy, uniform, greedy], "
        "rules: ace=high_or_low, ace_points=15, going_out=discard, target_score=30, engine: compiled, "
        "compared with ace_high|going_out=any (paired)\n"
    )


def test_validate_says_what_each_condition_is_compared_with_as_its_reference_names(runner, tmp_path):
    path = write(
        tmp_path,
        TINY + "conditions:\n  a: {}\n  b: {rules: {ace: high_or_low}}\n  c:\n    players: [greedy, greedy, greedy]\n"
        "    reference: none\n  d:\n    players: [greedy, greedy, greedy]\n    rules: {ace: high_or_low}\n"
        "    reference: c\n",
    )
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    said = [line.rpartition("engine: compiled")[2] for line in result.output.splitlines()[1:]]
    assert said == ["", ", compared with a (paired)", "", ", compared with c (paired)"]


def test_validate_basic_rules_say_basic(runner, tmp_path):
    path = write(tmp_path, TINY.replace("rules: {target_score: 30}\n", ""))
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == [
        "  default: 4 games, players [greedy, greedy], rules: basic, engine: compiled"
    ]


def test_validate_says_which_engine_plays_each_condition_and_why_not_compiled(runner, tmp_path, monkeypatch):
    import rummysim.compiled

    def no_compiling():
        raise AssertionError("validate must not compile the kernels")

    monkeypatch.setattr(rummysim.compiled, "load", no_compiling)
    path = write(tmp_path, TINY + "conditions:\n  plain: {}\n  searched:\n    players: [montecarlo, greedy]\n"
                 "  checked:\n    engine: python\n")  # fmt: skip
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert [line.split(", engine: ")[1] for line in result.output.splitlines()[1:]] == [
        "compiled",
        "python (montecarlo has no compiled twin (those are uniform, greedy, rummy_hunter, cautious, expert)), "
        "playouts: compiled",
        "python (engine: python), compared with plain (paired)",
    ]


# --- bad files: one line, exit 1, nothing written -------------------------------------------------


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_validate_bad_file_is_a_one_line_error(runner, tmp_path, text, message):
    path = write(tmp_path, text)
    result = runner.invoke(main, ["validate", str(path)])
    assert_one_line_error(result, f"{path}{message}")


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_run_bad_file_is_a_one_line_error_and_writes_nothing(runner, tmp_path, text, message):
    path = write(tmp_path, text)
    out = tmp_path / "results"
    result = runner.invoke(main, run_args(path, out))
    assert_one_line_error(result, f"{path}{message}")
    assert_nothing_written(out)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_missing_file_is_a_one_line_error(runner, tmp_path, command):
    path = tmp_path / "nowhere.yaml"
    out = tmp_path / "results"
    args = ["validate", str(path)] if command == "validate" else run_args(path, out)
    result = runner.invoke(main, args)
    assert_one_line_error(result, f"{path}: no such experiment file")
    assert_nothing_written(out)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_directory_as_file_is_a_one_line_error(runner, tmp_path, command):
    folder = tmp_path / "experiments"
    folder.mkdir()
    out = tmp_path / "results"
    args = ["validate", str(folder)] if command == "validate" else run_args(folder, out)
    result = runner.invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"Error: {folder}: "), result.output
    assert "Traceback" not in result.output
    assert_nothing_written(out)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--games", "0"], "command line: --games: 0 is below the smallest valid value, 1"),
        (["--seed", "-1"], "command line: --seed: -1 is below the smallest valid value, 0"),
        (["--chunk-games", "0"], "--chunk-games: 0 is below the smallest valid value, 1"),
        (["--jobs", "0"], "--jobs: 0 workers; give a number of workers from 1 to 1024, or -1 for every core"),
    ],
)
def test_run_bad_option_is_a_one_line_error_and_writes_nothing(runner, tmp_path, extra, message):
    path = write(tmp_path, TINY)
    out = tmp_path / "results"
    result = runner.invoke(main, run_args(path, out, *extra))
    assert_one_line_error(result, message)
    assert_nothing_written(out)


# --- run ----------------------------------------------------------------------------------------


def test_run_writes_the_tables_and_the_manifest(runner, tmp_path):
    path = write(tmp_path, TINY)
    out = tmp_path / "results"
    result = runner.invoke(main, run_args(path, out))
    assert result.exit_code == 0, result.output
    folder = out / "tiny"
    assert result.stdout == f"{folder}\n"
    for name in ("hands.parquet", "games.parquet", "manifest.json"):
        assert (folder / name).is_file(), name
    assert not (folder / "turns.parquet").exists()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["overrides"] == {}
    assert manifest["source"] == str(path)
    assert manifest["experiment"] == load_experiment(path).to_dict()
    assert manifest["fingerprint"] == load_experiment(path).fingerprint()
    games = pd.read_parquet(folder / "games.parquet")
    assert sorted(games["game"].unique()) == [0, 1, 2, 3]
    assert set(games["condition"]) == {"default"}
    assert manifest["tables"]["games"]["rows"] == len(games)
    hands = pd.read_parquet(folder / "hands.parquet")
    assert len(hands) == manifest["tables"]["hands"]["rows"] > 0
    assert games.loc[games["won"], "score"].ge(30).all()  # R11.1 with target_score 30


def test_run_records_games_and_seed_overrides(runner, tmp_path):
    path = write(tmp_path, TINY)
    out = tmp_path / "results"
    result = runner.invoke(main, run_args(path, out, "--games", "2", "--seed", "5"))
    assert result.exit_code == 0, result.output
    folder = out / "tiny"
    assert result.stdout == f"{folder}\n"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["overrides"] == {"games": 2, "seed": 5}
    assert (manifest["experiment"]["games"], manifest["experiment"]["seed"]) == (2, 5)
    assert manifest["seeds"]["seed"] == 5
    assert manifest["fingerprint"] == load_experiment(path).with_overrides(games=2, seed=5).fingerprint()
    assert sorted(pd.read_parquet(folder / "games.parquet")["game"].unique()) == [0, 1]


# --- help ---------------------------------------------------------------------------------------


def test_main_has_help(runner):
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    assert result.output.startswith("Usage: ")
    for name in main.commands:
        assert name in result.output


@pytest.mark.parametrize("name", sorted(main.commands))
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_command_has_help(runner, name, flag):
    result = runner.invoke(main, [name, flag])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: main {name} ")
    assert main.commands[name].help.splitlines()[0] in result.output
    assert "Example" in result.output


def test_validate_refuses_an_engine_that_cannot_play_in_one_line(runner, tmp_path):
    text = TINY.replace("players: [greedy, greedy]", "players: [greedy, montecarlo]") + "engine: compiled\n"
    path = write(tmp_path, text)
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: engine (condition default): compiled cannot play it: montecarlo has no compiled twin "
        "(those are uniform, greedy, rummy_hunter, cautious, expert); use engine: auto or python\n"
    )
