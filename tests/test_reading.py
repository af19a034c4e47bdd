"""The analysis reads the hands in batches and resamples games in bulk, with the numbers of the in-memory path.

The oracle is the analysis as it was: every table in pandas (`game_frame` on whole tables,
the pivot-table trajectories below) and scipy's bootstrap drawn per metric.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

from rummysim.analysis import analyze
from rummysim.analysis import estimates as est
from rummysim.analysis.frames import game_frame, game_outcomes
from rummysim.analysis.metrics import RATIOS, per_game_columns, seed_for
from rummysim.analysis.paths import trajectories
from rummysim.analysis.reading import read_frames
from rummysim.checksums import file_digest
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.results import load_results
from rummysim.runner import run_experiment

SPEC = {
    "name": "batched",
    "question": "Does ace high change who wins?",
    "seed": 11,
    "games": 40,
    "players": ["greedy", "greedy", "greedy"],
    "rules": {"target_score": 60},
    "conditions": {
        "basic": {},
        "ace_high": {"rules": {"ace": "high_or_low"}},
        "four": {"players": ["greedy"] * 4},
        "skill": {"players": ["cautious", "greedy", "greedy"]},
        "skill_high": {"players": ["cautious", "greedy", "greedy"], "rules": {"ace": "high_or_low"}},
    },
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    return run_experiment(parse_experiment(SPEC, source="batched.yaml"), out=out, n_jobs=1, quiet=True)


def pivot_trajectories(hands: pd.DataFrame, frame: pd.DataFrame, *, max_hands: int = 60) -> pd.DataFrame:
    """The trajectories as the in-memory analysis computed them: a pivot of every decided game's scores."""
    winners = frame.loc[frame["decided"], "winner_seat"]
    rows = hands[hands["game"].isin(winners.index) & (hands["hand"] < max_hands)]
    is_winner = rows["seat"].to_numpy() == winners.reindex(rows["game"]).to_numpy()
    scores = rows.assign(role=np.where(is_winner, "winner", "others"))
    table = scores.pivot_table(index=["game", "seat", "role"], columns="hand", values="score", aggfunc="first")
    means = table.ffill(axis=1).groupby(level="role").mean().T.reindex(columns=["winner", "others"])
    means.index.name = "hand"
    means.columns.name = None
    return means.reset_index()


@pytest.mark.parametrize("batch_rows", [1 << 19, 37])
def test_batched_reading_gives_the_in_memory_frames_and_trajectories(results, batch_rows):
    """37 rows a batch: most games are split between batches, every batch is summed and joined."""
    read = read_frames(results, batch_rows=batch_rows)
    assert list(read.games) == [c.name for c in results.experiment.conditions]
    for condition in results.experiment.conditions:
        hands = results.hands[results.hands["condition"] == condition.name]
        games = results.games[results.games["condition"] == condition.name]
        frame = game_frame(hands, games, n_players=condition.rules.n_players)
        pd.testing.assert_frame_equal(read.games[condition.name], frame, check_exact=True)
        expected = pivot_trajectories(hands, frame)
        pd.testing.assert_frame_equal(read.trajectories[condition.name], expected, check_exact=True, check_dtype=False)


def test_trajectories_of_shuffled_rows_and_of_games_numbered_far_apart_are_the_same(results):
    """ScorePaths' fast path (rows in game order, games numbered 0, 1, ...) and its pandas path agree."""
    condition = results.experiment.conditions[0]
    hands = results.hands[results.hands["condition"] == condition.name]
    frame = game_frame(hands, results.games[results.games["condition"] == condition.name], n_players=3)
    expected = pivot_trajectories(hands, frame)
    shuffled = hands.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(trajectories(shuffled, frame), expected, check_exact=True, check_dtype=False)
    apart = hands.assign(game=hands["game"] * 10**9)  # too sparse for a lookup table
    spread = frame.set_axis(frame.index * 10**9)
    pd.testing.assert_frame_equal(trajectories(apart, spread), expected, check_exact=True, check_dtype=False)


def test_game_outcomes_are_the_pandas_groupings_in_any_row_order(results):
    """frames.game_outcomes in numpy against the plain pandas code it replaced, on engine tables, shuffled too."""

    def in_pandas(games):
        g = games.set_index(["game", "seat"])
        sole = g[g["won"]].reset_index().set_index("game")
        frame = pd.DataFrame(index=pd.Index(sorted(games["game"].unique()), name="game"))
        frame["tied"] = g["tied"].groupby(level="game").any()
        frame["stalled"] = g["stalled"].groupby(level="game").any()
        frame["winner_seat"] = sole["seat"].reindex(frame.index).fillna(-1).astype(int)
        frame["winner_strategy"] = sole["strategy"].reindex(frame.index).astype("str")
        return frame

    for _, games in results.games.groupby("condition", observed=True):
        for rows in (games, games.sample(frac=1.0, random_state=2)):
            pd.testing.assert_frame_equal(game_outcomes(rows), in_pandas(rows), check_exact=True)
    tied = results.games.iloc[:6].assign(won=False, tied=True)  # a game no seat won alone
    assert game_outcomes(tied)[["winner_seat", "winner_strategy"]].iloc[0].tolist() == [-1, "nan"]


def test_an_analysis_in_small_batches_is_the_analysis_in_one(results):
    whole, batched = analyze(results), analyze(results, batch_rows=50)
    pd.testing.assert_frame_equal(batched.metrics_table(), whole.metrics_table(), check_exact=True)
    pd.testing.assert_frame_equal(batched.comparisons_table(), whole.comparisons_table(), check_exact=True)
    assert whole.comparisons_table()["paired"].tolist().count(False) > 0  # the 4-player table: unpaired


def test_a_table_whose_games_rows_are_apart_is_refused(results, tmp_path):
    hands = pq.read_table(results.folder / "hands.parquet")
    order = np.r_[np.arange(1, hands.num_rows), 0]  # the first row of game 0 moved to the end
    folder = tmp_path / "moved"
    folder.mkdir()
    pq.write_table(hands.take(order), folder / "hands.parquet")
    shutil.copyfile(results.folder / "games.parquet", folder / "games.parquet")
    manifest = json.loads((results.folder / "manifest.json").read_text())
    manifest["tables"]["hands"]["sha256"] = file_digest(folder / "hands.parquet")  # a table someone else wrote
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="the rows of game 0 of condition basic are not together, or not whole"):
        read_frames(load_results(folder), batch_rows=100)


def test_resampled_sums_are_the_sums_of_the_drawn_games_whatever_the_batch(monkeypatch):
    rng = np.random.default_rng(1)
    columns = rng.poisson(3.0, size=(50, 3)).astype(float)
    draws = np.random.default_rng(7)
    expected = np.array([columns[draws.integers(0, 50, 50, dtype=np.int32)].sum(axis=0) for _ in range(300)])
    for cells in (1, 170, 1 << 22):  # one resample at a time, a few, all at once
        monkeypatch.setattr(est, "CELLS", cells)
        sums = est.resampled_sums(columns, rng=np.random.default_rng(7), resamples=300)
        np.testing.assert_allclose(sums, expected, rtol=1e-12)


def scipy_interval(statistic, columns, *, seed: int, paired: bool = True) -> tuple[float, float]:
    """The old path's interval: scipy's percentile bootstrap, drawn for this statistic alone."""
    result = stats.bootstrap(
        columns, statistic, paired=paired, vectorized=True, n_resamples=est.RESAMPLES, method="percentile",
        random_state=np.random.default_rng(seed),
    )  # fmt: skip
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def assert_equivalent(new: est.Estimate, old: tuple[float, float], value: float) -> None:
    """The same value; interval ends within 10% of the interval's width (Monte Carlo noise of 2,000 resamples)."""
    width = old[1] - old[0]
    assert new.value == pytest.approx(value, rel=1e-12)
    assert abs(new.low - old[0]) < 0.1 * width and abs(new.high - old[1]) < 0.1 * width, (new, old)


def test_shared_resamples_give_the_intervals_of_scipys_bootstrap_per_metric():
    rng = np.random.default_rng(3)
    hands = rng.integers(3, 12, size=800).astype(float)
    points = rng.poisson(9.0 * hands)
    rummies = rng.binomial(hands.astype(int), 0.05).astype(float)
    got = est.ratio_estimates({"points": (points, hands), "rummies": (rummies, hands)}, seed=5)
    for name, num in (("points", points), ("rummies", rummies)):
        old = scipy_interval(lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), (num, hands), seed=9)
        assert_equivalent(got[name], old, num.sum() / hands.sum())


def test_paired_and_unpaired_differences_match_scipys_bootstrap():
    rng = np.random.default_rng(4)
    shared = rng.random(1000) < 0.4
    a = (shared | (rng.random(1000) < 0.1)).astype(float)
    b = (shared | (rng.random(1000) < 0.15)).astype(float)
    ones = np.ones(1000)
    paired = est.difference_estimates({"d": ((a, ones), (b, ones))}, paired=True, seed=1)["d"]
    assert_equivalent(paired, scipy_interval(lambda x, y, axis=-1: y.mean(axis) - x.mean(axis), (a, b), seed=2),
                      b.mean() - a.mean())  # fmt: skip
    c = (rng.random(700) < 0.45).astype(float)
    apart = est.independent_difference((a, ones), (c, np.ones(700)), seed=1)
    old = scipy_interval(lambda x, y, axis=-1: y.mean(axis) - x.mean(axis), (a, c), seed=2, paired=False)
    assert_equivalent(apart, old, c.mean() - a.mean())
    assert apart.high - apart.low > paired.high - paired.low  # the paired games share their luck


def test_a_condition_against_itself_differs_by_exactly_zero():
    rng = np.random.default_rng(6)
    x = rng.poisson(4.0, size=300).astype(float)
    y = rng.integers(1, 5, size=300).astype(float)
    e = est.difference_estimates({"d": ((x, y), (x.copy(), y.copy()))}, paired=True, seed=1)["d"]
    assert e.value == e.low == e.high == 0.0


def test_the_condition_metrics_use_the_in_memory_values_and_scipy_equivalent_intervals(results):
    """The whole analysis against the old path on a real run: every value equal, intervals within Monte Carlo noise."""
    analysis = analyze(results)
    for condition in analysis.conditions:
        columns = per_game_columns(analysis.frames[condition.name])
        for metric, (num, den, _) in RATIOS.items():
            old = scipy_interval(
                lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), (columns[num], columns[den]),
                seed=seed_for(condition.name, metric, base=results.experiment.seed),
            )  # fmt: skip
            if old[1] - old[0] > 0:
                assert_equivalent(condition.metrics[metric], old, columns[num].sum() / columns[den].sum())
