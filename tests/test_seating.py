"""Seating (R3.4): who sits where in each game, `rotate` or `every_order`, on both engines."""

from __future__ import annotations

import itertools
import shutil
from collections import Counter

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.replay import replay_hand
from rummysim.report import build_report
from rummysim.runner import run_experiment
from rummysim.seating import seat_order, seat_table, seated
from tests.test_verify import rewrite

SPEC = {
    "name": "orders",
    "question": "Does the order around the table matter?",
    "seed": 5,
    "games": 12,
    "players": ["greedy", "rummy_hunter", "cautious"],
    "rules": {"target_score": 30},
    "seating": "every_order",
    "conditions": {"python": {"engine": "python"}, "compiled": {"engine": "compiled"}},
}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_R3_4_every_order_seats_each_ordering_once_in_n_factorial_games(n):
    games = range(len(list(itertools.permutations(range(n)))))
    rows = [seat_order(n, g, "every_order") for g in games]
    assert sorted(rows) == sorted(itertools.permutations(range(n)))
    seats = Counter((entry, seat) for row in rows for seat, entry in enumerate(row))
    assert len(seats) == n * n and len(set(seats.values())) == 1  # every strategy in every seat equally
    left = Counter((row[s], row[(s + 1) % n]) for row in rows for s in range(n))
    assert len(left) == n * (n - 1) and len(set(left.values())) == 1  # after every other strategy equally
    assert seat_order(n, len(rows), "every_order") == rows[0]  # then again from the first


def test_R3_4_rotate_turns_the_lineup_by_the_game_and_keeps_its_order_around_the_table():
    for g in range(7):
        assert seat_order(4, g) == tuple((s + g) % 4 for s in range(4))
    assert seated("abc", 1) == ["b", "c", "a"]
    assert seated("abc", 1, "every_order") == ["a", "c", "b"]


def test_R3_4_at_two_players_both_seatings_are_the_same():
    assert (seat_table(2, "rotate") == seat_table(2, "every_order")).all()


def test_a_seating_is_read_from_the_experiment_and_a_condition_may_set_its_own():
    exp = parse_experiment(SPEC | {"conditions": {"a": {}, "b": {"seating": "rotate"}}}, source="o.yaml")
    assert [c.seating for c in exp.conditions] == ["every_order", "rotate"]
    plain = parse_experiment({k: v for k, v in SPEC.items() if k != "seating"}, source="o.yaml")
    assert all(c.seating == "rotate" for c in plain.conditions)
    assert all("seating" not in c.to_dict() for c in plain.conditions)  # manifests stay as they were
    assert exp.conditions[0].to_dict()["seating"] == "every_order"


def test_the_seating_changes_the_fingerprint_since_it_changes_the_games():
    rotate = parse_experiment(SPEC | {"seating": "rotate"}, source="o.yaml")
    assert rotate.fingerprint() != parse_experiment(SPEC, source="o.yaml").fingerprint()
    assert rotate.fingerprint() == parse_experiment({k: v for k, v in SPEC.items() if k != "seating"},
                                                    source="o.yaml").fingerprint()  # fmt: skip


@pytest.mark.parametrize(
    ("where", "named"),
    [({"seating": "clockwise"}, "o.yaml: seating"), ({"conditions": {"a": {"seating": 3}}}, "conditions.a.seating")],
)
def test_a_bad_seating_is_a_one_line_error_naming_the_key_and_the_rule(where, named):
    with pytest.raises(ConfigError) as error:
        parse_experiment(SPEC | where, source="o.yaml")
    text = str(error.value)
    assert named in text and "rotate, every_order" in text and "R3.4" in text and "\n" not in text


def test_validate_names_the_seating_and_warns_when_the_games_leave_the_orders_uneven(tmp_path):
    path = tmp_path / "o.yaml"
    path.write_text(yaml.safe_dump(SPEC | {"games": 10}))
    lines = CliRunner().invoke(main, ["validate", str(path)]).output.splitlines()
    assert lines[1].endswith("seating: every_order (6 orders; 10 games are not a multiple of 6: orders uneven)")
    path.write_text(yaml.safe_dump(SPEC | {"seating": "rotate"}))
    assert "seating" not in CliRunner().invoke(main, ["validate", str(path)]).output


@pytest.fixture(scope="module")
def ordered(tmp_path_factory):
    return run_experiment(parse_experiment(SPEC, source="orders.yaml"), out=tmp_path_factory.mktemp("o"), n_jobs=1)


def test_every_order_seats_the_lineup_in_every_order_on_both_engines_with_the_same_rows(ordered):
    games = ordered.games
    for name in ("python", "compiled"):
        mine = games[games.condition == name].sort_values(["game", "seat"])
        orders = mine.groupby("game").strategy.agg(tuple)
        assert sorted(orders[:6]) == sorted(itertools.permutations(["greedy", "rummy_hunter", "cautious"]))
        assert (mine.groupby(["strategy", "seat"]).size() == 4).all()  # 12 games: each seat twice per 6
    columns = [c for c in games.columns if c != "condition"]
    python, compiled = (games[games.condition == n][columns].reset_index(drop=True) for n in ("python", "compiled"))
    pd.testing.assert_frame_equal(python, compiled)
    hands = ordered.hands
    python, compiled = (hands[hands.condition == n].drop(columns="condition").reset_index(drop=True)
                        for n in ("python", "compiled"))  # fmt: skip
    pd.testing.assert_frame_equal(python, compiled)


def test_a_run_seated_in_every_order_verifies_and_its_hands_replay(ordered):
    result = CliRunner().invoke(main, ["verify", str(ordered.folder), "--replay", "3"])
    assert result.exit_code == 0, result.output
    hands = ordered.hands
    row = hands[(hands.condition == "python") & (hands.game == 3)].iloc[0]
    replayed = replay_hand(ordered.folder, condition="python", game=3, hand=int(row.hand))
    assert not replayed.mismatches
    assert [r.strategy for r in sorted(replayed.records, key=lambda r: r.seat)] == seated(
        ["greedy", "rummy_hunter", "cautious"], 3, "every_order"
    )


def test_verify_catches_a_seat_that_plays_another_strategy_than_its_seating_gives(ordered, tmp_path):
    folder = shutil.copytree(ordered.folder, tmp_path / "orders")
    games = pd.read_parquet(folder / "games.parquet")
    rotate = seated(["greedy", "rummy_hunter", "cautious"], 1)
    first = (games.condition == "python") & (games.game == 1)
    games.loc[first, "strategy"] = [rotate[s] for s in games.loc[first, "seat"]]  # as rotate would have seated it
    rewrite(folder, "games", games, reseal=True)
    result = CliRunner().invoke(main, ["verify", str(folder)])
    assert result.exit_code != 0 and "than its seating gives (R3.4)" in result.output


def test_the_report_says_a_table_was_played_in_every_order(ordered):
    report = build_report(ordered.folder).markdown.read_text()
    assert "greedy, rummy_hunter, cautious (every order around the table)" in report
