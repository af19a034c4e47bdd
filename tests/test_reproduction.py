"""Issue 44 part 5: a run says what it redoes: committed results played again and checked; a finished run, not."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from rummysim.cli import main

SPEC = {
    "name": "t", "question": "Does it?", "games": 40, "seed": 11, "players": ["greedy", "greedy"],
    "rules": {"target_score": 50}, "measures": ["first_player_edge_hand"],
    "conditions": {
        "basic": {}, "high": {"rules": {"ace": "high_or_low"}},
        "check": {"players": ["cautious", "greedy"], "games": 30, "strong": True},
    },
}  # fmt: skip


def run(tmp_path, *flags: str, spec: dict = SPEC) -> list[str]:
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(spec))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "-j", "1", *flags])
    assert result.exit_code == 0, result.output
    return [line for line in result.stderr.splitlines() if line.startswith("rummysim: ")]


def committed(tmp_path) -> None:
    """Leave the folder as the repository commits it: the manifest and report, not the tables."""
    for kind in ("hands", "games"):
        (tmp_path / "out" / "t" / f"{kind}.parquet").unlink()


def test_a_run_into_committed_results_says_so_and_ends_with_their_checksums_matched(tmp_path):
    run(tmp_path, "--no-report")
    first = json.loads((tmp_path / "out" / "t" / "manifest.json").read_text())["tables"]
    committed(tmp_path)
    said = run(tmp_path, "--no-report")
    assert "holds the committed results of this experiment" in said[0] and "plays them again" in said[0]
    assert said[-1].startswith("rummysim: reproduced: hands.parquet and games.parquet are the committed ones")
    assert first["hands"]["sha256"][:16] in said[-1]


def test_other_tables_than_the_committed_ones_are_named_with_why(tmp_path):
    run(tmp_path, "--no-report")
    committed(tmp_path)
    said = run(tmp_path, "--no-report", "--games", "20")  # same experiment (fingerprint), other games
    assert said[-1].startswith("rummysim: not reproduced: hands.parquet has SHA-256 ")
    assert "this run played other games than the committed one (basic: 20 against 40; high: 20 against 40)" in said[-1]


def test_committed_checks_with_strong_players_are_not_played_without_strong_and_it_says_so(tmp_path):
    """kept_checks keeps a finished run's checks; a manifest without its tables holds none to keep."""
    run(tmp_path, "--no-report", "--strong")
    committed(tmp_path)
    said = run(tmp_path, "--no-report")
    assert any("also played the checks with strong players (30 games, check)" in line for line in said)
    games = pd.read_parquet(tmp_path / "out" / "t" / "games.parquet").condition.value_counts().to_dict()
    assert games == {"basic": 80, "high": 80}
    assert said[-1].startswith("rummysim: not reproduced: ") and "check: 0 against 30" in said[-1]


def test_an_ordinary_folder_says_nothing_of_committed_results(tmp_path):
    said = run(tmp_path, "--no-report")
    assert not any("committed" in line or "reproduced" in line for line in said)


def test_a_finished_run_run_again_says_it_is_finished_and_plays_nothing(tmp_path):
    run(tmp_path, "--no-report")
    stamp = (tmp_path / "out" / "t" / "hands.parquet").stat().st_mtime_ns
    said = run(tmp_path, "--no-report")
    assert said[-1].startswith("rummysim: ") and "finished already (80 games, played " in said[-1]
    assert "nothing to play" in said[-1]
    assert (tmp_path / "out" / "t" / "hands.parquet").stat().st_mtime_ns == stamp


def test_a_finished_sized_run_goes_straight_to_its_last_wave(tmp_path, monkeypatch):
    """The recorded waves are not analysed again: only the last, whose analysis checks the stop once more."""
    import rummysim.analysis as analysis

    sized = SPEC | {"games": 30, "max_games": 240, "precision": {"first_seat_edge": "8 pp"},
                    "measures": ["first_seat_edge"]}  # fmt: skip
    run(tmp_path, "--no-report", spec=sized)
    record = json.loads((tmp_path / "out" / "t" / "manifest.json").read_text())["precision"]
    assert len(record["waves"]) >= 2, record  # the test needs a run of more than one wave
    seen = []
    real = analysis.analyze
    monkeypatch.setattr(analysis, "analyze", lambda results, **kw: seen.append(kw.get("games")) or real(results, **kw))
    said = run(tmp_path, "--no-report", spec=sized)
    assert seen == [None]  # one analysis, of the whole tables
    assert any("finished already" in line for line in said)
    again = json.loads((tmp_path / "out" / "t" / "manifest.json").read_text())["precision"]
    assert again["waves"] == record["waves"] and again["widths"] == record["widths"]
