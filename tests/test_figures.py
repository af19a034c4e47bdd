"""The charts: legends clear of the data, the game-length histogram out to the longest game, the forest plot."""

from __future__ import annotations

import dataclasses
import itertools
import math

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex
from matplotlib.transforms import Bbox
from synthetic import SMALL

from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.report.figures import CHARTS, ForestRow, forest_plot, game_length, save
from rummysim.report.html import VERDICT_COLORS
from rummysim.runner import run_experiment

SPEC = SMALL
NAN = float("nan")
SEAT = "aces high or low vs low only"


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    from rummysim.analysis import analyze

    out = tmp_path_factory.mktemp("results")
    return analyze(run_experiment(parse_experiment(SPEC, source="small.yaml"), out=out, n_jobs=1, quiet=True))


def _overlap(a: Bbox, b: Bbox) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("name", list(CHARTS))
def test_legends_sit_outside_every_axes_so_they_cover_no_bar_or_line(analysis, name):
    fig = CHARTS[name][0](analysis)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
        if name in ("seat_win_share", "strategy_win_share", "hand_endings", "game_length", "score_trajectories"):
            assert legends, f"{name} has lost its legend"
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in fig.axes:
                assert not _overlap(box, ax.get_window_extent(renderer)), f"{name}: the legend overlaps an axes"
                for bar in ax.patches:  # the bars (and histogram steps) themselves, in display coordinates
                    assert not _overlap(box, bar.get_window_extent(renderer)), f"{name}: the legend covers a bar"
            assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1 - 1, box.y1 - 1)
    finally:
        plt.close(fig)


def test_game_length_reaches_the_longest_game_of_every_condition(analysis):
    """A rare long game must be on the chart: the old histogram stopped at the 99.5% quantile."""
    frames = dict(analysis.frames)
    longest = int(frames["ace_high"]["hands"].max()) * 3
    frame = frames["ace_high"].copy()
    frame.iloc[0, frame.columns.get_loc("hands")] = longest
    frames["ace_high"] = frame
    fig = game_length(dataclasses.replace(analysis, frames=frames))
    try:
        ax = fig.axes[0]
        assert ax.get_xlim()[1] >= longest + 0.5
        reached = [max(x for x, y in patch.get_xy() if y > 0) for patch in ax.patches]
        assert len(reached) == len(analysis.conditions)
        assert reached[1] >= longest + 0.5  # ace_high's steps rise over its longest game
        for steps, c in zip(reached, analysis.conditions, strict=True):  # and every condition's over its own
            assert steps >= frames[c.name]["hands"].max() + 0.5
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert f"ace_high (mean {analysis.condition('ace_high').metrics['hands_per_game'].value:.1f}, " \
               f"longest {longest})" in labels  # fmt: skip
    finally:
        plt.close(fig)


def _rows(n: int) -> list[ForestRow]:
    shapes = [  # label, value, low, high, margin, unit, verdict
        ("hands in a game", -7.26, -7.29, -7.23, 1.0, "hands", "Yes"),
        ("first player's edge in a hand", 0.13, 0.07, 0.19, 1.0, "pp", "Yes, but small"),
        ("first player's edge in a game", -0.09, -0.33, 0.15, 1.0, "pp", "No"),
        ("skill (Order)", -0.075, -0.175, 0.025, 0.02, "", "Can't tell"),
        ("points per hand", 6.2, 5.73, 6.68, NAN, "points", "Yes"),
        ("turns per hand", 40.0, 38.0, 46.0, 2.0, "turns", "Yes"),
    ]
    groups = [SEAT, "cautious: aces high or low vs low only"]
    return [ForestRow(shapes[i % 6][0], groups[i // 6 % 2], *shapes[i % 6][1:]) for i in range(n)]  # type: ignore[arg-type]


def _texts(fig):
    return [t.get_text() for t in fig.texts]


def test_forest_plot_of_one_row_shows_zero_the_interval_and_the_margin_band():
    fig = forest_plot(_rows(1), title="Does ace high change who wins?")
    try:
        (ax,) = fig.axes
        low, high = ax.get_xlim()
        assert low < -7.29 and high > 1.0  # the interval, zero and the whole band ±1 hand
        assert ax.get_label() == "hands in a game"
        band = [p for p in ax.patches if p.get_width() > 0]
        assert len(band) == 1 and math.isclose(band[0].get_x(), -1.0) and math.isclose(band[0].get_width(), 2.0)
        texts = _texts(fig)
        assert "\u22127.26 hands" in texts and "[\u22127.29, \u22127.23]" in texts
        assert "Does ace high change who wins?" in texts and SEAT in texts
        verdict = next(t for t in fig.texts if t.get_text() == "Yes")
        assert to_hex(verdict.get_color()) == VERDICT_COLORS["Yes"]
    finally:
        plt.close(fig)


def test_forest_plot_of_twelve_rows_gives_each_its_own_scale_and_stays_legible():
    rows = _rows(12)
    one, fig = forest_plot(rows[:1]), forest_plot(rows)
    try:
        assert fig.get_figheight() > one.get_figheight() + 10 * 0.5  # it grows with its rows
        assert [ax.get_label() for ax in fig.axes] == [r.label for r in rows]  # grouped, top to bottom
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]  # the axis with its tick labels
        for ax, row in zip(fig.axes, rows, strict=True):
            low, high = ax.get_xlim()
            assert low < min(0, row.low) and max(0, row.high) < high
            if math.isfinite(row.margin):
                assert low < -row.margin and row.margin < high
        for upper, lower in itertools.pairwise(boxes):
            assert upper.y0 > lower.y1  # no row's ticks run into the next row
        for text in fig.texts:
            if text.get_text() in [r.label for r in rows]:
                assert text.get_window_extent(renderer).x1 < boxes[0].x0  # labels left of the axes
            assert fig.bbox.contains(*text.get_window_extent(renderer).min)
            assert fig.bbox.contains(*text.get_window_extent(renderer).max)
        assert sum(t.get_text() in {SEAT, "cautious: aces high or low vs low only"} for t in fig.texts) == 2
    finally:
        plt.close(one)
        plt.close(fig)


def test_forest_plot_draws_the_point_alone_when_a_row_has_no_interval():
    row = ForestRow("skill (Order)", "skilled", -0.075, NAN, NAN, NAN, "", "Can't tell")
    fig = forest_plot([row])
    try:
        (ax,) = fig.axes
        assert not ax.collections  # no interval line, no end caps
        assert not [p for p in ax.patches if p.get_width() > 0]  # no margin band either
        (point,) = [line for line in ax.lines if line.get_marker() == "o"]
        assert list(point.get_xdata()) == [-0.075]
        low, high = ax.get_xlim()
        assert low < -0.075 and high > 0
        assert "\u22120.075" in _texts(fig) and "no interval" in _texts(fig)
    finally:
        plt.close(fig)


def test_forest_row_checks_its_verdict_and_interval():
    with pytest.raises(
        ConfigError,
        match=r"verdict 'Maybe' is not one of \"Yes\", \"Yes, of unclear size\", \"Yes, but small\", \"No\"",
    ):
        ForestRow("x", "g", 1.0, 0.0, 2.0, 1.0, "pp", "Maybe")
    with pytest.raises(ConfigError, match=r"the interval \[2.0, 0.0\] ends below its start"):
        ForestRow("x", "g", 1.0, 2.0, 0.0, 1.0, "pp", "Yes")
    with pytest.raises(ConfigError, match="no rows to draw"):
        forest_plot([])


def test_save_writes_png_and_svg_and_closes_the_figure(tmp_path):
    fig = forest_plot(_rows(3))
    path = save(fig, tmp_path / "figures", "forest")
    assert path == tmp_path / "figures" / "forest.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "figures" / "forest.svg").read_text().count("<svg") == 1
    assert not plt.fignum_exists(fig.number)  # type: ignore[attr-defined]
