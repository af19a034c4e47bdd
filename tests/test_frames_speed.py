"""The per-game sums in numpy are the plain pandas sums, frame for frame, on the tables the engine plays.

The oracle is `hand_sums` as it was written first (pandas groupings, a sort in
`_lead_stats`), kept here as it was; `frames.hand_sums` now sums whole games in numpy
and must give the same columns, dtypes, index and values, whatever the rules, the
number of players and the order of the rows, so that no report number changes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from synthetic import synthetic_tables

from rummysim.analysis import frames
from rummysim.analysis.frames import ENDINGS, _leaders, game_outcomes, hand_digest, hand_sums, join_games
from rummysim.analysis.reading import _frame, read_frames
from rummysim.chunks import Chunk, play_chunk
from rummysim.design import Condition
from rummysim.experiment import parse_experiment
from rummysim.rules import PRESETS
from rummysim.runner import run_experiment


def oracle_leaders(scores: np.ndarray) -> np.ndarray:
    top = scores.max(axis=1, keepdims=True)
    sole = (scores == top).sum(axis=1) == 1
    return np.where(sole, scores.argmax(axis=1), -1)


def oracle_lead_stats(hands: pd.DataFrame, n: int) -> pd.DataFrame:
    ordered = hands.sort_values(["game", "hand", "seat"], kind="stable")
    scores = ordered["score"].to_numpy().reshape(-1, n)
    games = ordered["game"].to_numpy()[::n]
    hand = ordered["hand"].to_numpy()[::n]
    leader = pd.Series(oracle_leaders(scores), dtype="float").replace(-1, np.nan)
    held = leader.groupby(games).ffill()
    previous = held.groupby(games).shift()
    changes = (held.notna() & previous.notna() & (held != previous)).groupby(games).sum()
    n_hands = pd.Series(hand).groupby(games).transform("max").to_numpy() + 1
    half = hand == (n_hands + 1) // 2 - 1
    halfway = pd.DataFrame(scores[half], index=games[half], columns=[f"half_{s}" for s in range(n)])
    return pd.DataFrame({"lead_changes": changes, "halfway_top": halfway.max(axis=1)}).join(halfway)


def oracle_hand_sums(hands: pd.DataFrame, *, n_players: int) -> pd.DataFrame:
    n = n_players
    by_game = hands.groupby("game")
    frame = pd.DataFrame({"hands": by_game["hand"].nunique()})
    first = hands[hands["hand"] == 0]
    starts = first.drop_duplicates(["game", "seat"]).set_index(["game", "seat"])["position"].unstack()
    for s in range(n):
        frame[f"start_{s}"] = starts[s].reindex(frame.index) if s in starts else np.nan
    won = hands[hands["won"]]
    frame["decided_hands"] = won.groupby("game").size().reindex(frame.index, fill_value=0)
    per_position = won.groupby(["game", "position"]).size().unstack(fill_value=0)
    for p in range(n):
        won_from = per_position[p] if p in per_position.columns else pd.Series(0, index=per_position.index)
        frame[f"hands_won_{p}"] = won_from.reindex(frame.index, fill_value=0)
    frame["points"] = won.groupby("game")["points"].sum().reindex(frame.index, fill_value=0)
    rummy = won[won["went_rummy"]]
    frame["rummies"] = rummy.groupby("game").size().reindex(frame.index, fill_value=0)
    frame["rummy_points"] = rummy.groupby("game")["points"].sum().reindex(frame.index, fill_value=0)
    hand_rows = hands[hands["seat"] == 0]
    frame["turns"] = hand_rows.groupby("game")["turns"].sum()
    codes = pd.Categorical(hand_rows["went_out_by"], categories=list(ENDINGS[:-1])).codes
    stalled = hand_rows["stalled"].to_numpy() & (codes != ENDINGS.index("block"))
    ending = np.where(stalled | (codes < 0), len(ENDINGS) - 1, codes)
    games, game_of = np.unique(hand_rows["game"].to_numpy(), return_inverse=True)
    k = len(ENDINGS)
    counts = np.bincount(game_of * k + ending, minlength=len(games) * k).reshape(-1, k)
    for code, end in enumerate(ENDINGS):
        frame[f"end_{end}"] = pd.Series(counts[:, code], index=games).reindex(frame.index, fill_value=0)
    lead = oracle_lead_stats(hands, n)
    frame["lead_changes"] = lead["lead_changes"].reindex(frame.index, fill_value=0)
    return frame.join(lead.drop(columns="lead_changes"))


VARIANTS = {
    "basic": dict(target_score=60),
    "ace_high": dict(ace="high_or_low", target_score=60),
    "block": dict(stock_out="block", target_score=40),
    "block_after_meld": dict(stock_out="block", lay_off="after_meld", take_discard="must_use", target_score=40),
    "stalls": dict(stall_after_rebuilds=0, stall_after_turns=12, stall_after_hands=2, target_score=40),
    "one_hand": dict(target_score=None, max_hands=1),
    "tiny_target": dict(target_score=5),
    "discard_only": dict(going_out="discard", rummy_multiplier=3, target_score=50),
}
LINEUP = ("greedy", "cautious", "uniform", "rummy_hunter", "greedy", "uniform")


def played(variant: str, n: int, *, games: int = 12, start: int = 3) -> pd.DataFrame:
    """Return the hands table the engine plays for a variant with n players (games start..start+games-1)."""
    rules = PRESETS["basic"].replace(n_players=n, **VARIANTS[variant])
    condition = Condition(f"{variant}-{n}", rules, tuple({"strategy": s} for s in LINEUP[:n]))
    _, tables, _ = play_chunk(Chunk(0, condition, 2026 + n, start, start + games, False))
    return tables["hands"].to_pandas()


GRID = [(variant, n) for variant in VARIANTS for n in range(2, 7)]


@pytest.fixture(scope="module")
def tables() -> dict[tuple[str, int], pd.DataFrame]:
    return {key: played(*key) for key in GRID}


def as_read(hands: pd.DataFrame) -> pd.DataFrame:
    """Return the hands as `reading` hands them to `hand_sums`: condition and went_out_by as codes."""
    batch = pa.RecordBatch.from_pandas(hands, preserve_index=False)
    return _frame(batch, [str(hands["condition"].iloc[0])])


def numpy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the pandas way fail, so that a comparison proves the numpy way."""

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("the numpy sums were not used")

    monkeypatch.setattr(frames, "_hand_sums_in_pandas", refused)


@pytest.mark.parametrize(("variant", "n"), GRID, ids=[f"{v}-{n}" for v, n in GRID])
def test_hand_sums_equals_the_plain_pandas_version_on_the_engines_tables(tables, variant, n, monkeypatch):
    hands = tables[variant, n]
    expected = oracle_hand_sums(hands, n_players=n)
    numpy_only(monkeypatch)
    pd.testing.assert_frame_equal(hand_sums(hands, n_players=n), expected, check_exact=True)
    pd.testing.assert_frame_equal(hand_sums(as_read(hands), n_players=n), expected, check_exact=True)
    rng = np.random.default_rng(n)
    shuffled = hands.iloc[rng.permutation(len(hands))]  # the sort's way
    pd.testing.assert_frame_equal(
        hand_sums(shuffled, n_players=n), oracle_hand_sums(shuffled, n_players=n), check_exact=True
    )
    by_seat = hands.sort_values(["seat", "game", "hand"])
    pd.testing.assert_frame_equal(hand_sums(by_seat, n_players=n), expected, check_exact=True)


def test_the_leaders_are_the_argmax_of_a_sole_top_score():
    rng = np.random.default_rng(1)
    for n in range(2, 7):
        scores = rng.integers(-3, 4, size=(5000, n))  # many ties
        leaders = _leaders(scores)
        np.testing.assert_array_equal(leaders, oracle_leaders(scores))
        assert leaders.dtype == oracle_leaders(scores).dtype and (leaders == -1).any()


def test_the_grid_has_the_endings_it_is_meant_to_check(tables):
    hands = pd.concat(tables.values())
    assert set(hands["went_out_by"].dropna()) == {"discard", "meld", "lay_off", "block"}
    assert hands["stalled"].any() and (hands["stalled"] & hands["went_out_by"].isna()).any()
    per_game = hands.groupby(["condition", "game"])["hand"].max()
    assert (per_game == 0).any() and (per_game >= 3).any()


def test_hand_sums_equals_the_plain_pandas_version_on_synthetic_tables(monkeypatch):
    rng = np.random.default_rng(5)
    for n, hands_a_game in [(2, 1), (4, 7), (6, 3)]:
        hands, _ = synthetic_tables(rng, games=30, n=n, hands=hands_a_game)
        expected = oracle_hand_sums(hands, n_players=n)
        with monkeypatch.context() as patched:
            numpy_only(patched)
            pd.testing.assert_frame_equal(hand_sums(hands, n_players=n), expected, check_exact=True)


def changed(hands: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables the runner never writes: no winners, no endings, broken or partial games, other dtypes."""
    middle = hands[(hands["game"] != hands["game"].iloc[0]) | (hands["hand"] != 1)]
    return {
        "no winner": hands.assign(won=False),
        "no ending": hands.assign(went_out_by=None),
        "all rummies": hands.assign(went_rummy=hands["won"]),
        "a hand missing": middle,
        "a seat row missing": hands.iloc[1:],
        "a game's rows twice": pd.concat([hands, hands[hands["game"] == hands["game"].iloc[0]]]),
        "int32 scores": hands.astype({"score": "int32", "points": "int32"}),
        "one game": hands[hands["game"] == hands["game"].iloc[-1]],
    }


@pytest.mark.parametrize("variant", ["basic", "block", "stalls", "one_hand"])
def test_hand_sums_equals_the_plain_pandas_version_on_tables_the_runner_never_writes(tables, variant):
    for n in (2, 5):
        for name, hands in changed(tables[variant, n]).items():
            try:
                expected = oracle_hand_sums(hands, n_players=n)
            except ValueError as error:  # no n rows to every hand: the sums were never defined
                with pytest.raises(type(error)):
                    hand_sums(hands, n_players=n)
                continue
            pd.testing.assert_frame_equal(hand_sums(hands, n_players=n), expected, check_exact=True, obj=name)


SPEC = {
    "name": "speed",
    "question": "Are the batched sums the plain ones?",
    "seed": 3,
    "games": 30,
    "players": ["greedy", "greedy", "greedy"],
    "rules": {"target_score": 50},
    "conditions": {
        "basic": {},
        "block": {"rules": {"stock_out": "block"}},
        "two": {"players": ["greedy", "cautious"]},
        "five": {"players": ["greedy", "cautious", "uniform", "greedy", "rummy_hunter"]},
    },
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("speed")
    return run_experiment(parse_experiment(SPEC, source="speed.yaml"), out=out, n_jobs=1, quiet=True)


@pytest.mark.parametrize("batch_rows", [1 << 19, 41, 7])
def test_read_frames_equals_the_plain_pandas_frames(results, batch_rows):
    """7 rows a batch: fewer than a hand of the five players', so games go on over many batches."""
    read = read_frames(results, batch_rows=batch_rows)
    for condition in results.experiment.conditions:
        n = condition.rules.n_players
        hands = results.hands[results.hands["condition"] == condition.name]
        games = results.games[results.games["condition"] == condition.name]
        expected = join_games(game_outcomes(games), oracle_hand_sums(hands, n_players=n), n_players=n)
        found = read.games[condition.name]
        pd.testing.assert_frame_equal(found.drop(columns="digest"), expected, check_exact=True)
        # each game's digest of its hand rows, read in batches, is the whole table's (the atlas's "never binds")
        assert (found["digest"] == hand_digest(hands).reindex(found.index)).all()
