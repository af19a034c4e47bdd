"""Intervals by the delta method from `estimates.DELTA_GAMES` games on (issue 23, part 5): the bootstrap's, faster.

Each statistic here is a ratio of per-game sums, a difference of two, a contrast of a grid's
cells or a difference of log strengths. At these sizes the delta method and the percentile
bootstrap must give the same interval (within a few percent of its width), and the delta
method's must cover the truth 95% of the time, paired or apart: a standard error that ignores
the ratio's denominator, or the pairing, fails the coverage tests below.
"""

from __future__ import annotations

import numpy as np
import pytest
from validation import consistent_with

from rummysim.analysis import estimates, grid, skill
from rummysim.analysis.estimates import DELTA_GAMES, delta_difference, difference_estimates, ratio_estimates

N = DELTA_GAMES


def game_columns(rng: np.random.Generator, n: int, *, share: float = 0.4, shift: float = 0.0):
    """Return per-game (hands won by seat 0, hands) of `n` games whose hands share the game's luck.

    Each game has 1 + Poisson(3) hands; seat 0's chance of a hand is `share` (+ `shift`) moved by the game's
    own luck (uniform ±0.2), so a game's hands are correlated: the unit of sampling is the game.
    """
    hands = 1 + rng.poisson(3.0, n)
    luck = rng.uniform(-0.2, 0.2, n)
    won = rng.binomial(hands, np.clip(share + shift + luck, 0, 1))
    return won.astype(float), hands.astype(float)


def test_a_ratio_s_delta_interval_is_the_bootstraps(monkeypatch):
    num, den = game_columns(np.random.default_rng(1), N)
    delta = ratio_estimates({"r": (num, den)}, seed=3)["r"]
    monkeypatch.setattr(estimates, "DELTA_GAMES", 10**12)
    boot = ratio_estimates({"r": (num, den)}, seed=3)["r"]
    assert delta.value == boot.value == num.sum() / den.sum()
    width = boot.high - boot.low
    assert delta.low == pytest.approx(boot.low, abs=0.05 * width)
    assert delta.high == pytest.approx(boot.high, abs=0.05 * width)


@pytest.mark.parametrize("paired", [True, False])
def test_a_difference_s_delta_interval_is_the_bootstraps(monkeypatch, paired):
    rng = np.random.default_rng(2)
    a = game_columns(rng, N)
    if paired:  # the same games, a few hands turned over: most of the luck is shared
        flip = rng.binomial(a[1].astype(int), 0.05)
        b = (np.clip(a[0] + flip, 0, a[1]), a[1])
    else:
        b = game_columns(rng, N, shift=0.02)
    delta = difference_estimates({"d": (a, b)}, paired=paired, seed=4)["d"]
    monkeypatch.setattr(estimates, "DELTA_GAMES", 10**12)
    boot = difference_estimates({"d": (a, b)}, paired=paired, seed=4)["d"]
    width = boot.high - boot.low
    assert delta.value == pytest.approx(boot.value, abs=1e-15)
    assert delta.low == pytest.approx(boot.low, abs=0.06 * width)
    assert delta.high == pytest.approx(boot.high, abs=0.06 * width)


def paired_games(rng: np.random.Generator, n: int, *, share: float = 0.4, shift: float = 0.1):
    """Return (a, b): per-game (won, hands) of `n` games played twice, 70% of hands the same both times.

    Hand by hand: a's win has chance `share` + the game's luck; b replays 30% of the hands with
    `shift` added, and keeps a's result on the rest. So ratio(b) − ratio(a) → 0.3 · `shift`.
    """
    hands = 1 + rng.poisson(3.0, n)
    luck = rng.uniform(-0.2, 0.2, n)[:, None]
    here = np.arange(hands.max()) < hands[:, None]
    a_hands = rng.random(here.shape) < share + luck
    replayed = rng.random(here.shape) < 0.3
    b_hands = np.where(replayed, rng.random(here.shape) < share + shift + luck, a_hands)
    count = hands.astype(float)
    return ((a_hands & here).sum(axis=1).astype(float), count), ((b_hands & here).sum(axis=1).astype(float), count)


def coverage(*, reps: int, n: int, paired: bool, seed: int) -> int:
    """Return how many of `reps` delta intervals of ratio(b) − ratio(a) cover the true change (0.03 both ways)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        a, b = paired_games(rng, n) if paired else (game_columns(rng, n), game_columns(rng, n, shift=0.03))
        est = delta_difference(a, b, paired=paired)
        hits += est.low <= 0.03 <= est.high
    return hits


@pytest.mark.parametrize("paired", [True, False])
def test_delta_intervals_of_a_difference_cover_95_percent(paired):
    reps = 600
    hits = coverage(reps=reps, n=N, paired=paired, seed=10 + paired)
    assert consistent_with(hits, reps, 0.95), (hits, reps)


def test_the_delta_interval_uses_the_pairing():
    """Paired games that move together give a far narrower interval than the same games taken apart."""
    rng = np.random.default_rng(5)
    a = game_columns(rng, N)
    b = (np.minimum(a[0] + (rng.random(N) < 0.1), a[1]), a[1])
    together, apart = delta_difference(a, b, paired=True), delta_difference(a, b, paired=False)
    assert together.value == apart.value
    assert (together.high - together.low) < 0.5 * (apart.high - apart.low)


def test_below_delta_games_the_bootstrap_answers():
    num, den = game_columns(np.random.default_rng(6), 400)
    found = ratio_estimates({"r": (num, den)}, seed=7)["r"]
    value, se = num.sum() / den.sum(), estimates.influence_se(estimates.linearised(num, den))
    normal = (value - estimates.Z * se, value + estimates.Z * se)
    assert (found.low, found.high) != pytest.approx(normal, abs=1e-12)  # percentiles, not value ± 1.96 se
    assert found.low == pytest.approx(normal[0], abs=0.3 * (normal[1] - normal[0]))


def test_grid_effects_by_the_delta_method_match_the_bootstrap(monkeypatch):
    from test_grid import PLANTED, planted

    experiment, frames, summaries = planted(PLANTED, games=N, seed=8)

    def found() -> dict:
        return {
            (e.measure, e.kind, e.term): e.estimate
            for e in grid.effects(experiment, frames=frames, summaries=summaries, strategy={"": None})
        }

    delta = found()
    monkeypatch.setattr(grid, "DELTA_GAMES", 10**12)
    boot = found()
    assert delta.keys() == boot.keys()
    for key, b in boot.items():
        d, width = delta[key], b.high - b.low
        assert d.value == pytest.approx(b.value, abs=1e-12), key
        assert d.low == pytest.approx(b.low, abs=0.08 * width + 1e-12), key
        assert d.high == pytest.approx(b.high, abs=0.08 * width + 1e-12), key


def test_grid_cells_on_the_same_games_give_zero_width_delta_effects():
    from test_grid import planted

    experiment, frames, summaries = planted({(a, b): 0.4 for a in (0, 1) for b in (0, 1)}, games=N, seed=9)
    names = grid.arms(experiment)[""]
    for name in names.values():
        frames[name] = frames[names[(0, 0)]]
    for e in grid.effects(experiment, frames=frames, summaries=summaries, strategy={"": None}):
        assert e.estimate.value == pytest.approx(0.0, abs=1e-12)
        assert e.estimate.high - e.estimate.low == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("paired", [True, False])
def test_a_strength_difference_s_delta_interval_is_the_bootstraps(monkeypatch, paired):
    rng = np.random.default_rng(11)
    wins_a = (rng.random(N) < 0.45).astype(float)
    wins_b = np.where(rng.random(N) < 0.8, wins_a, rng.random(N) < 0.5) if paired else (rng.random(N) < 0.5)
    wins_b = wins_b.astype(float)
    kwargs = {"seats": (1, 1), "n": (3, 3), "paired": paired, "seed": 12}
    delta = skill.strength_difference(wins_a, wins_b, **kwargs)
    monkeypatch.setattr(skill, "DELTA_GAMES", 10**12)
    boot = skill.strength_difference(wins_a, wins_b, **kwargs)
    width = boot.high - boot.low
    assert delta.value == pytest.approx(boot.value, abs=1e-12)
    assert delta.low == pytest.approx(boot.low, abs=0.06 * width)
    assert delta.high == pytest.approx(boot.high, abs=0.06 * width)
