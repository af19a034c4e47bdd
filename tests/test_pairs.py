"""Paired differences of cells that share deals (`rummysim.analysis.pairs`): the delta method on the shared games."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rummysim.analysis.estimates import Z, delta_change, delta_log_ratio
from rummysim.analysis.pairs import paired_differences


def correlated_cells(n: int = 4000, seed: int = 42) -> list[tuple[np.ndarray, np.ndarray]]:
    """Three cells of one table size whose games move together: a deal's luck, shared, plus a little of each cell's.

    Each game's (num, den) is a ratio's: hands won from a seat less 1/n of the decided hands, over decided hands.
    """
    rng = np.random.default_rng(seed)
    luck = rng.normal(0, 1, n)  # the deal: the same in every cell
    decided = rng.integers(8, 20, n).astype(float)
    cells = []
    for shift in (0.0, 0.05, 0.12):
        share = np.clip(0.5 + shift + 0.15 * luck + 0.03 * rng.normal(0, 1, n), 0, 1)
        won = np.round(share * decided)
        cells.append((won - decided / 2, decided))
    return cells


def test_a_paired_interval_is_the_delta_method_on_the_shared_games_and_narrower_than_an_unpaired_one():
    cells = correlated_cells()
    found = paired_differences(cells)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        value, se = delta_change(cells[i], cells[j], paired=True)  # the direct computation, one pair at a time
        assert found.difference[i, j] == pytest.approx(value, rel=1e-12)
        assert found.low[i, j] == pytest.approx(value - Z * se, rel=1e-9)
        assert found.high[i, j] == pytest.approx(value + Z * se, rel=1e-9)
        _, unpaired = delta_change(cells[i], cells[j], paired=False)
        assert (found.high[i, j] - found.low[i, j]) / 2 < 0.5 * Z * unpaired  # the shared luck cancels
        # the other way round: the same interval, turned
        assert found.difference[j, i] == pytest.approx(-value, rel=1e-12)
        assert (found.low[j, i], found.high[j, i]) == pytest.approx((-found.high[i, j], -found.low[i, j]), rel=1e-9)
    assert found.games == 4000 and np.isnan(found.low[0, 0]) and found.difference[1, 1] == 0


def test_the_level_widens_the_interval_by_its_normal_quantile():
    cells = correlated_cells(n=500)
    at95, at999 = paired_differences(cells), paired_differences(cells, level=0.999)
    k = 3.2905267314919255 / Z  # z(0.9995) / z(0.975)
    assert at999.level == 0.999
    assert (at999.high[0, 2] - at999.difference[0, 2]) == pytest.approx(k * (at95.high[0, 2] - at95.difference[0, 2]))


def test_a_relative_measure_is_paired_on_the_log_ratio_and_turned_back_into_its_unit():
    rng = np.random.default_rng(7)
    length = rng.gamma(9.0, 2.0, 3000)  # hands a game, a deal's luck shared
    cells = [(length, np.ones(3000)), (0.8 * length + rng.normal(0, 0.5, 3000), np.ones(3000))]
    found = paired_differences(cells, relative=True)
    log = delta_log_ratio(cells[0], cells[1], paired=True)
    base = float(np.mean(cells[0][0]))
    assert found.difference[0, 1] == pytest.approx(float(np.mean(cells[1][0])) - base)
    assert found.difference[0, 1] == pytest.approx(base * math.expm1(log.value))
    assert (found.low[0, 1], found.high[0, 1]) == pytest.approx(
        (base * math.expm1(log.low), base * math.expm1(log.high))
    )


def test_cells_alike_in_every_game_differ_by_zero_and_an_unmeasured_cell_has_no_interval():
    cells = correlated_cells(n=200)
    found = paired_differences([cells[0], cells[0], (np.zeros(200), np.zeros(200))])
    assert found.difference[0, 1] == 0 and found.low[0, 1] == 0 == found.high[0, 1]  # the explorer shows no interval
    assert math.isnan(found.difference[0, 2]) and math.isnan(found.low[0, 2]) and math.isnan(found.high[1, 2])
    with pytest.raises(ValueError, match="the same games"):
        paired_differences([cells[0], (cells[1][0][:10], cells[1][1][:10])])
