"""The package imports, plays a game and its CLI answers."""

from click.testing import CliRunner

import rummysim
from rummysim.cli import main


def test_play_game_ends_with_one_winner_at_target_score_r11_1():
    result = rummysim.play_game(["greedy", "greedy"], seed=7)
    assert max(result.scores) >= 150
    assert result.winner == max(range(2), key=lambda s: result.scores[s])


def test_cli_version_and_help():
    runner = CliRunner()
    assert rummysim.__version__ in runner.invoke(main, ["--version"]).output
    assert "Simulate Rummy" in runner.invoke(main, ["--help"]).output
