"""A grid as a factorial design (issue 13, item 8): main effects and interactions recovered with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synthetic import synthetic_tables

from rummysim.analysis.estimates import Estimate
from rummysim.analysis.frames import game_frame
from rummysim.analysis.grid import arms, effects, per_game_measures
from rummysim.analysis.metrics import skill_order, summarize_condition
from rummysim.experiment import parse_experiment

SPEC = {
    "name": "g", "question": "q", "seed": 1, "games": 10, "players": ["greedy", "greedy", "greedy"],
    "grid": {"ace": ["low", "high_or_low"], "going_out": ["any", "discard"]},
}  # fmt: skip


def planted(first_seat: dict[tuple[int, int], float], *, games: int, seed: int):
    """Return frames and summaries of a 2 x 2 grid whose first seat wins each cell's game share (paired deals)."""
    experiment = parse_experiment(SPEC, source="g.yaml")
    rng = np.random.default_rng(seed)
    dealers = rng.integers(3, size=games)
    frames, summaries = {}, {}
    for cell, name in arms(experiment)[""].items():
        r0 = first_seat[cell]
        hands, rows = synthetic_tables(rng, games=games, hands=1, game_probs=[r0, (1 - r0) / 2, (1 - r0) / 2],
                                       condition=name, first_dealers=dealers)  # fmt: skip
        frames[name] = game_frame(hands, rows, n_players=3)
        summaries[name] = summarize_condition(frames[name], name=name, n_players=3, lineup={"greedy": 3})
    return experiment, frames, summaries


def test_the_grid_is_kept_as_factors_and_each_condition_is_a_cell():
    experiment = parse_experiment(SPEC, source="g.yaml")
    assert experiment.grid == {"ace": ("low", "high_or_low"), "going_out": ("any", "discard")}
    assert arms(experiment)[""][(1, 0)] == "ace=high_or_low,going_out=any"
    crossed = parse_experiment({**SPEC, "conditions": {"a": {}, "b": {"players": ["cautious", "greedy", "greedy"]}}},
                               source="g.yaml")  # fmt: skip
    assert set(arms(crossed)) == {"a", "b"} and arms(crossed)["b"][(0, 1)] == "b|ace=low,going_out=discard"


def test_planted_main_effects_and_interaction_are_recovered_inside_their_intervals():
    base = 1 / 3
    truth = {(a, b): base + 0.10 * a + 0.05 * b + 0.08 * a * b for a in (0, 1) for b in (0, 1)}
    experiment, frames, summaries = planted(truth, games=4000, seed=1)
    found = {
        (e.kind, e.term): e.estimate
        for e in effects(experiment, frames=frames, summaries=summaries, strategy={"": None})
        if e.measure == "first_seat_advantage_game"
    }
    ace, going_out = found[("main", "ace=high_or_low")], found[("main", "going_out=discard")]
    both = found[("interaction", "ace=high_or_low × going_out=discard")]
    assert ace.low <= 0.14 <= ace.high and ace.low > 0  # 0.10 + half the interaction
    assert going_out.low <= 0.09 <= going_out.high and going_out.low > 0
    assert both.low <= 0.08 <= both.high and both.low > 0


def test_effects_that_add_up_show_an_interaction_interval_spanning_zero():
    truth = {(a, b): 1 / 3 + 0.10 * a - 0.05 * b for a in (0, 1) for b in (0, 1)}
    experiment, frames, summaries = planted(truth, games=3000, seed=2)
    found = effects(experiment, frames=frames, summaries=summaries, strategy={"": None})
    interaction = next(e for e in found if e.kind == "interaction" and e.measure == "first_seat_advantage_game")
    assert interaction.estimate.spans_zero
    assert interaction.estimate.value == pytest.approx(0.0, abs=0.05)


def test_paired_cells_give_exact_zero_effects_when_a_factor_changes_nothing():
    """Cells on the same deals with the same outcome: the resampled games are the same, so the interval is 0."""
    experiment, frames, summaries = planted({(a, b): 0.4 for a in (0, 1) for b in (0, 1)}, games=300, seed=3)
    names = arms(experiment)[""]
    for name in names.values():  # make every cell the reference cell's games
        frames[name] = frames[names[(0, 0)]]
    found = effects(experiment, frames=frames, summaries=summaries, strategy={"": None})
    for e in found:
        assert e.estimate.value == pytest.approx(0.0, abs=1e-12)
        assert e.estimate.low == pytest.approx(0.0, abs=1e-12) and e.estimate.high == pytest.approx(0.0, abs=1e-12)


def test_a_grid_report_has_the_effects_table_the_heat_map_and_its_csv(tmp_path):
    from rummysim.report import build_report
    from rummysim.runner import run_experiment

    spec = {**SPEC, "games": 12, "rules": {"target_score": 40}}
    results = run_experiment(parse_experiment(spec, source="g.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    report = build_report(results.folder)
    text = report.markdown.read_text()
    assert "### The grid: main effects and interactions (descriptive: uncorrected)" in text
    assert (
        "| every cell | first seat's edge, game level (pp) | interaction | ace=high_or_low × going_out=discard" in text
    )
    assert "![Grid: the first seat's edge over two factors](figures/grid_heatmap.png)" in text
    assert report.figures["grid_heatmap"].stat().st_size > 0
    table = report.tables["effects"].read_text().splitlines()
    assert table[0] == "arm,measure,kind,effect,estimate,low,high,games"
    assert len(table) == 1 + 6 * 3  # 6 measures x (2 main effects, 1 interaction)


PLANTED = {(a, b): 1 / 3 + 0.10 * a + 0.05 * b + 0.08 * a * b for a in (0, 1) for b in (0, 1)}
"""A 2 x 2 grid of the first seat's game share: main effects 0.14 and 0.09 (each averaged over the
other factor), interaction 0.08."""
TRUE_EFFECTS = {
    ("main", "ace=high_or_low"): 0.14,
    ("main", "going_out=discard"): 0.09,
    ("interaction", "ace=high_or_low × going_out=discard"): 0.08,
}


def grid_coverage(*, reps: int, games: int, seed: int) -> dict[tuple[str, str], int]:
    """Return how many of `reps` planted grids' intervals cover each true effect (docs/metrics.md quotes it)."""
    covered = dict.fromkeys(TRUE_EFFECTS, 0)
    for rep in range(reps):
        experiment, frames, summaries = planted(PLANTED, games=games, seed=seed + rep)
        for e in effects(experiment, frames=frames, summaries=summaries, strategy={"": None}):
            if e.measure == "first_seat_advantage_game":
                truth = TRUE_EFFECTS[e.kind, e.term]
                covered[e.kind, e.term] += e.estimate.low <= truth <= e.estimate.high
    return covered


@pytest.mark.slow
def test_the_grids_intervals_cover_planted_main_effects_and_interactions():
    from validation import consistent_with

    reps = 400
    for term, hits in grid_coverage(reps=reps, games=600, seed=1000).items():
        assert consistent_with(hits, reps, 0.95, alternative="less"), (term, hits, reps)


@pytest.mark.parametrize("seats", [1, 2])
def test_a_cells_order_is_the_several_seat_form_of_the_conditions_order(seats):
    """The grid's per-game Order sums to `skill_order`'s (w − k/n) / (1 − k/n) for k seats (docs/metrics.md)."""
    rng = np.random.default_rng(seats)
    n, games = 4, 500
    frame = pd.DataFrame({
        "decided": rng.random(games) < 0.95, "winner_start": rng.integers(n, size=games), "hands": np.ones(games),
        "decided_hands": np.ones(games), "points": np.ones(games), "turns": np.ones(games),
        **{f"hands_won_{s}": np.zeros(games) for s in range(n)},
        "winner_strategy": rng.choice(["cautious", "greedy"], size=games, p=[0.6, 0.4]),
    })  # fmt: skip
    num, den = per_game_measures(frame, n=n, strategy="cautious", seats=seats)["order"]
    decided = frame["decided"].to_numpy()
    w = float(((frame["winner_strategy"] == "cautious") & decided).sum() / decided.sum())
    assert num.sum() / den.sum() == pytest.approx(skill_order(Estimate(w, w, w, games), seats=seats, n=n).value)
