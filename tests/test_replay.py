"""`rummysim replay`: any stored hand replays from its seed alone and matches its rows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rummysim.cards import parse_cards
from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.render import holding_text
from rummysim.replay import HIDDEN, replay_hand
from rummysim.rules import Rules
from rummysim.runner import run_experiment

SPEC = {
    "name": "tiny",
    "question": "Does it replay?",
    "seed": 11,
    "games": 4,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {
        "basic": {},
        "three": {"players": ["greedy", "uniform", "cautious"], "rules": {"ace": "high_or_low"}},
    },
}


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    out = tmp_path_factory.mktemp("traced")
    experiment = parse_experiment(SPEC, source="tiny.yaml")
    return run_experiment(experiment, out=out, n_jobs=1, backend="sequential", trace=True)


@pytest.fixture(scope="module")
def untraced(tmp_path_factory):
    out = tmp_path_factory.mktemp("untraced")
    experiment = parse_experiment({**SPEC, "conditions": {"basic": {}}}, source="tiny.yaml")
    return run_experiment(experiment, out=out, n_jobs=1, backend="sequential")


@pytest.fixture
def runner():
    return CliRunner()


def later_hand(results, condition):
    """Return (game, hand) of a hand after the first of its game: it depends on the hands before it."""
    hands = results.hands[(results.hands.condition == condition) & (results.hands.hand > 0)]
    row = hands.iloc[0]
    return int(row.game), int(row.hand)


def replay_args(results, condition, game, hand, *extra):
    return ["replay", str(results.folder), "--condition", condition, "--game", str(game), "--hand", str(hand), *extra]


def assert_one_line_error(result, message):
    assert result.exit_code == 1, result.output
    assert result.output == f"Error: {message}\n"
    assert "Traceback" not in result.output


# --- replays match the stored rows ------------------------------------------------------------


def test_every_stored_hand_replays_to_its_rows(traced):
    for (condition, game, hand), rows in traced.hands.groupby(["condition", "game", "hand"]):
        replayed = replay_hand(traced.folder, condition=condition, game=game, hand=hand)
        assert replayed.matches, replayed.mismatches
        assert [r.holding_end for r in replayed.records] == list(rows.sort_values("seat").holding_end)
        assert replayed.lines[-1] == "Check: the replay matches the stored rows of hands.parquet and turns.parquet."


def test_a_mid_game_hand_starts_from_the_scores_of_the_hands_before(runner, traced):
    game, hand = later_hand(traced, "basic")
    rows = traced.hands[(traced.hands.condition == "basic") & (traced.hands.game == game)]
    before = rows[rows.hand == hand].sort_values("seat")
    result = runner.invoke(main, replay_args(traced, "basic", game, hand))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"Replay of {traced.folder}: condition basic, game {game}, hand {hand} (numbered from 0), seed 11"
    )
    scores = ", ".join(f"seat {r.seat} ({r.strategy}) {r.score - r.points}" for r in before.itertuples())
    assert f"Scores before the hand: {scores}" in lines
    assert any(r.score - r.points for r in before.itertuples()), "not a hand after a scoring hand"
    assert lines[-1] == "Check: the replay matches the stored rows of hands.parquet and turns.parquet."


def test_the_transcript_shows_every_holding_as_hidden_and_each_turn_of_the_trace(runner, traced):
    game, hand = later_hand(traced, "three")
    result = runner.invoke(main, replay_args(traced, "three", game, hand))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Rules: ace=high_or_low, ace_points=15, target_score=40" in out
    deal = out.split("Deal:\n")[1].split("\n\n")[0].splitlines()
    assert len(deal) == 4 and all(HIDDEN in line for line in deal[:3])
    turns = traced.turns[(traced.turns.condition == "three") & (traced.turns.game == game)]
    turns = turns[turns.hand == hand].sort_values("turn")
    headers = re.findall(r"^Turn (\d+): seat (\d) \((\w+)\) holds \[hidden\] ", out, flags=re.M)
    assert [(int(t), int(s), n) for t, s, n in headers] == [
        (r.turn + 1, r.seat, r.strategy) for r in turns.itertuples()
    ]
    for row in turns.itertuples():
        if row.pile == "stock":
            assert f"seat {row.seat} ({row.strategy}) draws from the stock ({row.drew}) {HIDDEN}" in out
        else:
            assert f"seat {row.seat} ({row.strategy}) takes {row.drew} from the discard pile" in out
        if row.discard:
            assert f"seat {row.seat} ({row.strategy}) discards {row.discard}" in out
    assert "End of the hand after" in out and "scores after the hand: " in out


def test_seat_shows_only_what_that_seat_could_see(runner, traced):
    game, hand = later_hand(traced, "basic")
    full = runner.invoke(main, replay_args(traced, "basic", game, hand)).output
    result = runner.invoke(main, replay_args(traced, "basic", game, hand, "--seat", "1"))
    assert result.exit_code == 0, result.output
    out = result.output
    assert HIDDEN not in out
    assert re.search(r"^Shown as seat 1 \(\w+\) saw it", out, flags=re.M)
    other = re.findall(r"^Turn \d+: seat 0 \(\w+\) holds (.*)$", out, flags=re.M)
    own = re.findall(r"^Turn \d+: seat 1 \(\w+\) holds (.*)$", out, flags=re.M)
    assert other and all(re.fullmatch(r"\d+ cards", held) for held in other)
    assert own and all(parse_cards(held.replace("|", " ")) for held in own)
    assert not re.search(r"seat 0 \(\w+\) draws from the stock \(", out)  # the stock is face down
    assert re.findall(r"seat 1 \(\w+\) draws from the stock \(\w\w\)", out) == re.findall(
        r"seat 1 \(\w+\) draws from the stock \(\w\w\)", full
    )
    public = [line for line in full.splitlines() if re.search(r"discards|melds|lays off|takes|table|\[\d\]", line)]
    assert public == [
        line for line in out.splitlines() if re.search(r"discards|melds|lays off|takes|table|\[\d\]", line)
    ]
    assert out.splitlines()[-1].startswith("Check: the replay matches")


def test_an_untraced_run_is_checked_against_hands_parquet(runner, untraced):
    result = runner.invoke(main, replay_args(untraced, "basic", 0, 0))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "Check: the replay matches the stored rows of hands.parquet."


def test_a_row_that_differs_is_reported_and_exits_1(runner, untraced, tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(untraced.folder, folder)
    hands = pd.read_parquet(folder / "hands.parquet")
    first = (hands.game == 0) & (hands.hand == 0) & (hands.seat == 0)
    stored = int(hands.loc[first, "holding_points"].iloc[0])
    hands.loc[first, "holding_points"] = stored + 1
    hands.to_parquet(folder / "hands.parquet")
    result = runner.invoke(main, ["replay", str(folder), "-c", "basic", "-g", "0", "-H", "0"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[-3].startswith(
        "Check: the replay does NOT match the stored rows of hands.parquet (written by rummysim"
    )
    assert lines[-2] == f"  seat 0 holding_points: replayed {stored}, stored {stored + 1}"
    assert lines[-1] == ("Error: the replay of game 0 hand 0 differs from the stored rows (1 difference, listed above)")


# --- errors: one line naming what is valid ---------------------------------------------------


def test_unknown_condition_names_the_valid_ones(runner, traced):
    result = runner.invoke(main, replay_args(traced, "basci", 0, 0))
    assert_one_line_error(
        result,
        f"--condition 'basci' is not a condition of {traced.folder}; did you mean 'basic'? conditions are basic, three",
    )


def test_game_out_of_range_names_the_valid_games(runner, traced):
    result = runner.invoke(main, replay_args(traced, "basic", 4, 0))
    assert_one_line_error(result, "--game 4: condition basic has games 0 to 3")
    result = runner.invoke(main, replay_args(traced, "basic", -1, 0))
    assert_one_line_error(result, "--game -1: condition basic has games 0 to 3")


def test_hand_out_of_range_names_the_valid_hands(runner, traced):
    n_hands = traced.hands[(traced.hands.condition == "basic") & (traced.hands.game == 0)].hand.nunique()
    result = runner.invoke(main, replay_args(traced, "basic", 0, n_hands))
    span = f"hands 0 to {n_hands - 1}" if n_hands > 1 else "only hand 0"
    assert_one_line_error(result, f"--hand {n_hands}: game 0 of condition basic has {span}")


def test_seat_out_of_range_names_the_seats(runner, traced):
    result = runner.invoke(main, replay_args(traced, "three", 0, 0, "--seat", "3"))
    assert_one_line_error(result, "--seat 3: a table of 3 players has seats 0 to 2")


def test_a_folder_that_is_not_a_run(runner, traced, tmp_path):
    result = runner.invoke(main, ["replay", str(tmp_path), "-c", "basic", "-g", "0", "-H", "0"])
    assert_one_line_error(result, f"{tmp_path}: no manifest.json or run.json; not the folder of a run")
    parent = traced.folder.parent
    result = runner.invoke(main, ["replay", str(parent), "-c", "basic", "-g", "0", "-H", "0"])
    assert_one_line_error(result, f"{parent}: no manifest.json or run.json; the runs in it are {traced.folder}")


def test_a_run_that_did_not_finish_replays_from_its_run_json(runner, traced, tmp_path):
    """A stopped run has no manifest yet: the experiment the runner recorded before play replays its hands."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "run.json").write_text((traced.folder / "run.json").read_text())
    game, hand = later_hand(traced, "three")
    full = runner.invoke(main, replay_args(traced, "three", game, hand))
    bare = runner.invoke(main, ["replay", str(folder), "-c", "three", "-g", str(game), "-H", str(hand)])
    assert bare.exit_code == 0, bare.output
    assert bare.output.splitlines()[1:-1] == full.output.splitlines()[1:-1]
    assert bare.output.splitlines()[-1] == (
        f"Check: none: {folder} is a run that did not finish; this transcript comes from the seed in run.json."
    )


def test_the_runner_records_its_experiment_before_playing(tmp_path, monkeypatch):
    import rummysim.chunks as chunks
    import rummysim.replay as replay
    import rummysim.runner as runner_module

    def interrupted(chunk):
        raise KeyboardInterrupt

    monkeypatch.setattr(chunks, "play_chunk", interrupted)
    experiment = parse_experiment(SPEC, source="tiny.yaml")
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment, out=tmp_path, n_jobs=1, backend="sequential")
    state = json.loads((tmp_path / "tiny" / replay.STARTED).read_text())
    assert replay.STARTED == runner_module.STATE
    assert state["experiment"] == experiment.to_dict()
    assert state["source"] == "tiny.yaml" and not (tmp_path / "tiny" / "manifest.json").exists()


def test_missing_options_are_usage_errors(runner, traced):
    result = runner.invoke(main, ["replay", str(traced.folder), "--condition", "basic"])
    assert result.exit_code == 2
    assert "Missing option '--game'" in result.output


# --- the hook replays use -------------------------------------------------------------------


def test_on_hand_sees_every_hand_in_order_and_changes_nothing():
    players = ["greedy", "uniform", "greedy"]
    rules = Rules(n_players=3, target_score=60)
    seen = []
    watched = play_game(players, rules=rules, seed=5, game=2, on_hand=seen.append)
    plain = play_game(players, rules=rules, seed=5, game=2)
    assert watched == plain
    assert [r.records for r in seen] == [plain.hands[i : i + 3] for i in range(0, len(plain.hands), 3)]


# --- the documented transcripts are real --------------------------------------------------------

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("path", ["README.md", "docs/watch-and-play.md"])
def test_the_documented_replay_is_what_the_command_prints(runner, monkeypatch, path):
    from test_play import assert_shown_in_order, sample

    monkeypatch.chdir(ROOT)
    args, shown = sample(path, "replay")
    result = runner.invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert_shown_in_order(shown, result.output.splitlines())


def test_a_results_folder_with_only_its_manifest_replays_unchecked(runner, tmp_path):
    """Committed results keep manifest.json but not always the tables: the seed alone replays a hand."""
    bots = ROOT / "results" / "bots"
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "manifest.json").write_text((bots / "manifest.json").read_text())
    args = ["--condition", "greedy_vs_cautious", "--game", "3", "--hand", "4"]
    full = runner.invoke(main, ["replay", str(bots), *args])
    bare = runner.invoke(main, ["replay", str(folder), *args])
    assert bare.exit_code == 0, bare.output
    assert bare.output.splitlines()[1:-1] == full.output.splitlines()[1:-1]
    assert bare.output.splitlines()[-1] == (
        f"Check: none: {folder} keeps no hands.parquet; this transcript comes from the manifest's seed."
    )
    late = runner.invoke(
        main, ["replay", str(folder), "--condition", "greedy_vs_cautious", "--game", "3", "--hand", "99"]
    )
    assert late.exit_code == 1
    assert late.output.startswith("Error: --hand 99: game 3 has hands 0 to ")


def test_r12_3_a_blocked_hand_and_a_blocked_tie_replay_and_say_how_the_hand_ended(tmp_path):
    spec = {
        "name": "blocky", "question": "Does block rummy replay?", "seed": 7, "games": 4, "engine": "python",
        "players": ["greedy", "greedy", "greedy"],  # 3 x 15 dealt leave a stock of 6: hands end by a block
        "rules": {"target_score": 60, "cards_dealt": 15, "stock_out": "block"},
    }  # fmt: skip
    results = run_experiment(parse_experiment(spec, source="blocky.yaml"), out=tmp_path, n_jobs=1, trace=True)
    hands = results.hands[results.hands.went_out_by == "block"]
    won, tie = hands[hands.won].iloc[0], hands[hands.stalled].iloc[0]
    replayed = replay_hand(results.folder, condition="default", game=int(won.game), hand=int(won.hand))
    assert replayed.matches and "Rules: cards_dealt=15, target_score=60, stock_out=block" in replayed.lines
    end = list(replayed.lines[replayed.lines.index(f"End of the hand after {won.turns} turns:") :])
    rows = hands[(hands.game == won.game) & (hands.hand == won.hand)]
    assert end[1:5] == [
        f"  blocked: the stock ran out, lowest hand value wins: seat {won.seat} (greedy) scores {won.points} (R12.3)",
        *(f"    seat {r.seat} (greedy) holds {holding_text(parse_cards(r.holding_end))}: {r.holding_points} points"
          for r in rows.itertuples()),
    ]  # fmt: skip
    replayed = replay_hand(results.folder, condition="default", game=int(tie.game), hand=int(tie.hand))
    assert replayed.matches
    assert (
        "  blocked: the stock ran out, lowest hand value wins: a tie for the lowest: stalled, nobody scores (R12.3)"
        in (replayed.lines)
    )
