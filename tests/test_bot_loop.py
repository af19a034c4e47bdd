"""A bot writer's loop (issue 20): a bot breaks a rule or raises in a run, the run says where and how to replay it,
the replay works on the stopped run, --debug keeps the traceback, and a plug-in is named by its file, not its path.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.errors import IllegalMoveError, StrategyError
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.strategies import REGISTRY

BOTS = '''
from rummysim import Pile, Strategy
from rummysim.strategies.greedy import Greedy


class Grabby(Greedy):
    """Plays greedy, but with aces high or low takes every discard and throws it back: breaks R4.5."""

    name = "grabby"

    def draw(self, view):
        if view.rules.ace == "high_or_low" and view.discard_pile:
            return Pile.DISCARD
        return super().draw(view)

    def play(self, view):
        return [] if view.rules.ace == "high_or_low" else super().play(view)

    def discard(self, view):
        if view.taken is not None and view.rules.ace == "high_or_low":
            return view.taken
        return super().discard(view)


class Crashy(Greedy):
    """Plays greedy, and raises in the second hand of a game."""

    name = "crashy"

    def discard(self, view):
        if view.hand == 1:
            return look_up(view)
        return super().discard(view)


def look_up(view):
    return {}["missing"]
'''


def write_run(tmp_path: Path, bot: str, **changes: object) -> Path:
    (tmp_path / "bots").mkdir(exist_ok=True)
    (tmp_path / "bots" / "plugbots.py").write_text(BOTS)
    data = {
        "name": "loop", "question": "Does it break?", "seed": 5, "games": 6,
        "players": [f"bots/plugbots.py:{bot}", "greedy"], "rules": {"target_score": 60},
        "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}}, **changes,
    }  # fmt: skip
    path = tmp_path / "loop.yaml"
    path.write_text(json.dumps(data))
    return path


def first_failure(path: Path, condition: str) -> IllegalMoveError | StrategyError:
    """Play a condition's games in process, in order, until a bot fails; return its error (the independent check)."""
    experiment = parse_experiment(json.loads(path.read_text()), source=str(path))
    spec = experiment.condition(condition)
    for game in range(experiment.games_of(spec)):
        try:
            play_game(spec.lineup(game), rules=spec.rules, seed=experiment.seed, game=game)
        except (IllegalMoveError, StrategyError) as error:
            return error
    raise AssertionError("no bot failed")


def replay_command(output: str) -> list[str]:
    """Return the arguments of the replay command an error line gives."""
    command = re.search(r"replay the hand: (rummysim replay [^(\n]*?)(?: \(--debug|\n|$)", output)
    assert command, output
    return shlex.split(command.group(1))[1:]


# --- an illegal move ----------------------------------------------------------------------------------


def test_an_illegal_move_names_the_condition_and_a_replay_that_works_on_the_stopped_run(tmp_path):
    path = write_run(tmp_path, "Grabby")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    expected = first_failure(path, "ace_high")  # basic plays clean: only ace_high can be named
    assert expected.rule == "R4.5" and expected.what.startswith(f"seat {expected.seat} (plugbots.py:Grabby): discard ")
    replay = f"rummysim replay {out}/loop --condition ace_high --game {expected.game} --hand {expected.hand}"
    assert result.exit_code == 1
    assert result.output == f"Error: condition ace_high, {expected.what}; replay the hand: {replay}\n"
    assert not (out / "loop" / "manifest.json").exists() and (out / "loop" / "run.json").exists()

    replayed = CliRunner().invoke(main, replay_command(result.output))
    assert replayed.exit_code == 1
    lines = replayed.stdout.splitlines()
    assert lines[0].startswith(f"Replay of {out}/loop: condition ace_high, game {expected.game}, hand {expected.hand}")
    taken = f"  seat {expected.seat} (plugbots.py:Grabby) takes "
    assert lines[-3].startswith(taken) and lines[-3].endswith(" from the discard pile")
    assert lines[-1] == f"Stopped: {expected.what}"
    assert replayed.stderr == f"Error: {expected}\n"


def test_a_bot_that_raises_offers_its_traceback_and_debug_prints_it_in_the_run_and_the_replay(tmp_path):
    path = write_run(tmp_path, "Crashy")
    out = tmp_path / "out"
    args = ["run", str(path), "--out", str(out), "--jobs", "2", "--quiet"]  # from a worker process, whole
    result = CliRunner().invoke(main, args)
    expected = first_failure(path, "basic")
    assert expected.what == f"seat {expected.seat} (plugbots.py:Crashy) raised KeyError in discard: \"'missing'\""
    assert result.exit_code == 1
    assert result.output.startswith("Error: condition ")  # either condition: the bot fails in both, in a worker
    assert result.output.endswith(" (--debug shows the bot's traceback)\n")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output

    debugged = CliRunner().invoke(main, [*args, "--debug", "--jobs", "1"])
    assert debugged.exit_code == 1
    trace, error = debugged.stderr.rsplit("\n", 2)[:2]
    assert trace.startswith("Traceback (most recent call last):")
    assert 'plugbots.py", line' in trace and "in look_up" in trace and trace.endswith("KeyError: 'missing'")
    assert error == f"Error: condition basic, {expected.what}; replay the hand: " + shlex.join(
        [
            "rummysim",
            "replay",
            f"{out}/loop",
            "--condition",
            "basic",
            "--game",
            str(expected.game),
            "--hand",
            str(expected.hand),
        ]
    )

    replayed = CliRunner().invoke(main, [*replay_command(debugged.stderr), "--debug"])
    assert replayed.exit_code == 1
    assert replayed.stdout.splitlines()[-1] == f"Stopped: {expected.what}"
    assert "in look_up" in replayed.stderr and replayed.stderr.endswith(f"Error: {expected}\n")


def test_a_bot_named_module_colon_class_is_named_so_and_its_failure_replays(tmp_path, monkeypatch):
    (tmp_path / "loopbots.py").write_text(BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    path = write_run(tmp_path, "Grabby", players=["loopbots:Grabby", "greedy"])
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "-j", "1", "-q"])
    assert result.exit_code == 1
    assert re.match(
        r"Error: condition ace_high, seat \d \(loopbots:Grabby\): discard \w+: taken from the discard", result.output
    )
    replayed = CliRunner().invoke(main, replay_command(result.output))
    assert replayed.exit_code == 1 and replayed.stdout.splitlines()[-1].startswith("Stopped: seat ")


def test_a_sealed_bots_traceback_comes_back_from_its_process(tmp_path):
    write_run(tmp_path, "Crashy")
    with pytest.raises(StrategyError) as error:
        play_game([f"{tmp_path}/bots/plugbots.py:Crashy", "greedy"], seed=5, isolate=True)
    assert error.value.detail is not None and "in look_up" in error.value.detail
    assert error.value.detail.rstrip().endswith("KeyError: 'missing'")


def test_conditions_alike_in_rules_and_lineup_play_the_same_games_so_either_replays_the_failure(tmp_path):
    """A bot's error names the first condition of its rules and lineup: the others play the very same games."""
    path = write_run(tmp_path, "Grabby", conditions={"one": {"rules": {"ace": "high_or_low"}},
                                                     "two": {"rules": {"ace": "high_or_low"}}})  # fmt: skip
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "-q"])
    assert result.exit_code == 1 and result.output.startswith("Error: condition one, ")
    for condition in ("one", "two"):
        args = replay_command(result.output)
        args[args.index("--condition") + 1] = condition
        replayed = CliRunner().invoke(main, args)
        assert replayed.exit_code == 1 and replayed.stdout.splitlines()[-1].startswith("Stopped: seat ")


# --- plug-ins by name -------------------------------------------------------------------------------


def test_a_plug_in_is_named_by_its_file_in_the_tables_validate_and_the_report(tmp_path):
    path = write_run(tmp_path, "Grabby", conditions={"basic": {}}, games=2)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    games = pd.read_parquet(out / "loop" / "games.parquet")
    assert set(games.strategy) == {"plugbots.py:Grabby", "greedy"}
    report = (out / "loop" / "report.md").read_text()
    assert "plugbots.py:Grabby, greedy" in report and str(tmp_path) not in report
    validated = CliRunner().invoke(main, ["validate", str(path), "--pilot", "0"])
    assert "players [plugbots.py:Grabby, greedy]" in validated.output and str(tmp_path / "bots") not in validated.output


def test_two_plug_ins_that_would_share_a_name_are_refused_before_the_run(tmp_path):
    for folder in ("v1", "v2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "plugbots.py").write_text(BOTS)
    data = {"name": "twins", "question": "q?", "seed": 1, "games": 2,
            "players": ["v1/plugbots.py:Grabby", "v2/plugbots.py:Grabby"]}  # fmt: skip
    path = tmp_path / "twins.yaml"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: players: {tmp_path}/v1/plugbots.py:Grabby and {tmp_path}/v2/plugbots.py:Grabby would both "
        "be plugbots.py:Grabby in the tables; rename one\n"
    )
    assert not (tmp_path / "out" / "twins").exists()


# --- the docs' bot ------------------------------------------------------------------------------------


def test_the_docs_bot_takes_discards_and_keeps_r4_5_r4_7_and_r7_2_through_a_run(tmp_path):
    """The bot of docs/strategies.md, saved as a file, plays runs of both ways of going out without an illegal move."""
    block = re.search(r"```python\n(.*?)```", (Path(__file__).parent.parent / "docs" / "strategies.md").read_text(),
                      flags=re.S)  # fmt: skip
    assert block
    (tmp_path / "hoarder.py").write_text(block.group(1))
    data = {"name": "docs_bot", "question": "Does it play?", "seed": 3, "games": 30, "engine": "python",
            "players": ["hoarder.py:Hoarder", "greedy"], "rules": {"target_score": 100},
            "conditions": {"any": {}, "discard": {"rules": {"going_out": "discard"}}}}  # fmt: skip
    path = tmp_path / "docs_bot.yaml"
    path.write_text(json.dumps(data))
    out = tmp_path / "out"
    try:
        result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-j", "1", "-q", "--trace",
                                           "--no-report"])  # fmt: skip
    finally:
        REGISTRY.pop("hoarder", None)
    assert result.exit_code == 0, result.output
    assert result.output == f"{out}/docs_bot\n"  # nothing printed as the file is loaded
    turns = pd.read_parquet(out / "docs_bot" / "turns.parquet")
    mine = turns[turns.strategy == "hoarder.py:Hoarder"]
    assert (mine.pile == "discard").sum() > 0 and set(mine.condition) == {"any", "discard"}
