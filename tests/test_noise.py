"""No library noise (issue 14): no library warning reaches the terminal; a test that cannot be computed says so."""

from __future__ import annotations

import json
import re
import warnings

import pandas as pd
import scipy.stats
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.noise import muffled

TINY = {
    "name": "tiny",
    "question": "Does it run quietly?",
    "seed": 11,
    "games": 6,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}


def test_muffled_drops_the_libraries_warnings_and_shows_any_other():
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with muffled() as dropped:
            scipy.stats.pearsonr([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])  # scipy: constant input
            pd.Series([1.0]).std(ddof=2)  # numpy, through pandas: degrees of freedom <= 0
            warnings.warn("my bot's own warning", UserWarning, stacklevel=1)
    assert [str(w.message) for w in shown] == ["my bot's own warning"]
    assert len(dropped) >= 1 and all("my bot" not in str(w.message) for w in dropped)
    assert any(w.category.__module__.startswith("scipy") for w in dropped)


def test_a_tiny_run_prints_no_warning_and_its_report_says_the_seat_test_could_not_be_computed(tmp_path):
    """Six games leave the Stuart-Maxwell table of winning seats singular (statsmodels warned into the terminal)."""
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(TINY))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert [str(w.message) for w in shown] == []
    assert "Warning" not in result.output
    comparisons = pd.read_csv(tmp_path / "tiny" / "summary_comparisons.csv")
    seat = comparisons[comparisons.metric == "seat_distribution_game"].iloc[0]
    assert seat.test == "Stuart-Maxwell" and pd.isna(seat.p)
    assert seat.verdict == "test could not be computed (too few games)"
    row = r"\| planned +\| seat_distribution_game .*\| Stuart-Maxwell +\| +\| +\| +\| test could not be computed"
    assert re.search(row, (tmp_path / "tiny" / "report.md").read_text())
