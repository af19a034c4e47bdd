"""`rummysim verify` (issue 14): it passes every fresh and committed results folder and catches every planted defect."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import rummysim.chunks as chunks
from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.manifest import seal
from rummysim.results import SCHEMAS
from rummysim.runner import run_experiment
from rummysim.verify import verify_results

ROOT = Path(__file__).parent.parent
SPEC = {
    "name": "tiny",
    "question": "Does it verify?",
    "seed": 11,
    "games": 6,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}
CHECKED = "manifest, checksums, schemas, rows (every game x seat, every hand x seat), points (R8), scores (R11)"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("fresh")
    return run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=out, n_jobs=1).folder


@pytest.fixture
def copy(fresh, tmp_path):
    """A copy of the fresh run to plant a defect in."""
    return Path(shutil.copytree(fresh, tmp_path / "tiny"))


def verify(folder, *args):
    return CliRunner().invoke(main, ["verify", str(folder), *args])


def rewrite(folder: Path, kind: str, frame: pd.DataFrame, *, reseal: bool) -> None:
    """Write a changed table; with `reseal`, record its new checksum and rows, as a careful tamperer would."""
    path = folder / f"{kind}.parquet"
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMAS[kind], preserve_index=False), path)
    if reseal:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["tables"][kind].update(sha256=hashlib.sha256(path.read_bytes()).hexdigest(), rows=len(frame))
        (folder / "manifest.json").write_text(json.dumps(seal(manifest)))  # its own checksum too


def test_a_fresh_run_verifies_with_its_replayed_hands(fresh):
    result = verify(fresh, "--replay", "4")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{fresh}: verified: {CHECKED}, 4 replayed hands (python engine, sample seed ")


@pytest.mark.parametrize("name", ["acehigh", "bots", "discard_to_go_out", "going_rummy", "players"])
def test_every_committed_results_folder_verifies_what_it_keeps(name, tmp_path):
    folder = tmp_path / name  # what git keeps of it, not the tables a local run may have left beside it
    tracked = subprocess.run(
        ["git", "ls-files", f"results/{name}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked
    for path in tracked:
        (folder / Path(path).relative_to(f"results/{name}")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, folder / Path(path).relative_to(f"results/{name}"))
    result = verify(folder)
    assert result.exit_code == 0, result.output
    assert result.output.count("\n") == 1 and "problem" not in result.output
    if name == "bots":  # the only one that keeps its tables
        assert result.output == (
            f"{folder}: verified: manifest, checksums, schemas, rows (every game x seat, every hand x seat), "
            "points (R8), scores (R11)\n"
        )
    else:
        assert result.output == (
            f"{folder}: verified what is there: manifest; could not check: tables, rows, points and scores (no "
            "hands.parquet or games.parquet: committed results keep only the manifest; play them again with: "
            f"rummysim run experiments/{name}.yaml)\n"
        )


def winner_of_a_last_hand(hands: pd.DataFrame) -> int:
    """Return the index of the winner's row in the last hand of the first game that has a winner there."""
    last = hands.groupby(["condition", "game"]).hand.transform("max")
    return int(hands[(hands.hand == last) & hands.won].index[0])


def test_a_table_with_one_rows_points_changed_is_caught_r8_r11(copy):
    hands = pd.read_parquet(copy / "hands.parquet")
    row = winner_of_a_last_hand(hands)
    hands.loc[row, "points"] += 5
    rewrite(copy, "hands", hands, reseal=False)
    c, g, h, s = hands.loc[row, ["condition", "game", "hand", "seat"]]
    path = copy / "hands.parquet"
    result = verify(copy)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"problem: {path}: does not match its checksum in manifest.json",
        f"problem: {path}: the winner's points are not the others' holding points times the multiplier "
        f"(R8.1, R8.3): condition {c}, game {g}, hand {h}, seat {s}",
        f"problem: {path}: score is not the running sum of points (R11): condition {c}, game {g}, hand {h}, seat {s}",
        f"problem: {copy / 'games.parquet'}: score does not add up from hands.parquet (R11): "
        f"condition {c}, game {g}, seat {s}",
        f"{copy}: 4 problems found (listed above); checked: {CHECKED}",
    ]


def test_a_resealed_table_with_a_holding_changed_is_caught_by_its_points_r8_2(copy):
    hands = pd.read_parquet(copy / "hands.parquet")
    held = hands.holding_end
    row = int(hands[(held.str.len() > 0) & ~held.str.contains("KS")].index[0])
    hands.loc[row, "holding_end"] = "KS " + held[row]  # a king more than the seat held, its points unchanged
    rewrite(copy, "hands", hands, reseal=True)
    c, g, h, s = hands.loc[row, ["condition", "game", "hand", "seat"]]
    problems = verify_results(copy).problems
    assert problems[0] == (
        f"{copy / 'hands.parquet'}: holding_points is not the points of holding_end (R8.2): "
        f"condition {c}, game {g}, hand {h}, seat {s}"
    )


def test_a_missing_hand_x_seat_row_is_caught(copy):
    hands = pd.read_parquet(copy / "hands.parquet")
    row = int(hands[~hands.won].index[-1])
    c, g = hands.loc[row, ["condition", "game"]]
    rewrite(copy, "hands", hands.drop(index=row), reseal=True)
    problems = verify_results(copy).problems
    assert (
        f"{copy / 'hands.parquet'}: games whose hands x seats are not all there once (games.n_hands): "
        f"condition {c}, game {g}"
    ) in problems


def test_a_truncated_table_is_named_and_not_read(copy):
    path = copy / "games.parquet"
    path.write_bytes(path.read_bytes()[:100])
    result = verify(copy)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == f"problem: {path}: does not match its checksum in manifest.json"
    assert lines[1].startswith(f"problem: {path}: cannot be read as Parquet (")
    assert lines[2] == f"{copy}: 2 problems found (listed above); checked: manifest, checksums"


def test_a_row_the_rules_allow_but_the_seed_did_not_deal_is_caught_by_replay(copy):
    """Every hand's turns changed on every seat's row: consistent with R8 and R11, so only a replay can tell."""
    hands = pd.read_parquet(copy / "hands.parquet")
    first = (hands.condition == "basic") & (hands.game == 0) & (hands.hand == 0)
    hands.loc[first, "turns"] += 1
    rewrite(copy, "hands", hands, reseal=True)
    assert verify_results(copy).ok
    n_hands = len(hands.drop_duplicates(["condition", "game", "hand"]))
    checked = verify_results(copy, replay=n_hands)
    assert checked.problems == [
        f"{copy / 'hands.parquet'}: condition basic, game 0, hand 0 does not replay from the seed to the stored rows "
        "(python engine): "
        f"seat 0 turns: replayed {hands.loc[first, 'turns'].iloc[0] - 1}, stored {hands.loc[first, 'turns'].iloc[0]}"
    ]


def stop_after_two_chunks(tmp_path, monkeypatch) -> None:
    """Run the tiny experiment in chunks of 2 games into `tmp_path`, stopped (Ctrl-C) after its second chunk."""
    real = chunks.play_chunk
    calls = {"n": 0}

    def flaky(chunk):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(chunks, "play_chunk", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=tmp_path, n_jobs=1, chunk_games=2)


def test_a_stopped_runs_damaged_chunk_is_named(tmp_path, monkeypatch):
    stop_after_two_chunks(tmp_path, monkeypatch)
    chunk = tmp_path / "tiny" / "chunks" / "c000-g000000002-000000004"
    (chunk / "hands.parquet").write_bytes(b"PAR1")
    result = verify(tmp_path / "tiny")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"problem: {chunk}: hands.parquet does not match its checksum (rummysim run plays it again)",
        f"problem: {tmp_path / 'tiny'}: no manifest.json; not the folder of a finished run",
        f"{tmp_path / 'tiny'}: 2 problems found (listed above); checked: 2 chunks of a stopped run",
    ]


class Steps:
    """A `rummysim.verify.Checking` that keeps each step: [name, total, unit, counted]."""

    def __init__(self) -> None:
        self.steps: list[list] = []

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        self.steps.append([name, total, unit, 0])

    def __call__(self, done: int) -> None:
        assert self.steps and self.steps[-1][1] is not None, "only a counted step counts"
        self.steps[-1][3] += done


def test_verify_tells_its_progress_each_step_and_every_row_and_hand_once(fresh):
    steps = Steps()
    result = verify_results(fresh, replay=3, sample_seed=5, batch_rows=7, progress=steps)  # many blocks
    rows = pq.ParquetFile(fresh / "hands.parquet").metadata.num_rows
    assert result.ok and rows > 7
    assert steps.steps == [
        ["checking the manifest", None, "", 0],
        ["checking the checksums", None, "", 0],
        ["checking the rows", rows, "row", rows],
        ["replaying the hands", 3, "hand", 3],
    ]
    assert verify_results(fresh, replay=3, sample_seed=5).summary == result.summary  # the same answer, heard or not


def test_verify_tells_the_chunks_of_a_stopped_run_then_stops_at_its_manifest(tmp_path, monkeypatch):
    stop_after_two_chunks(tmp_path, monkeypatch)
    steps = Steps()
    verify_results(tmp_path / "tiny", progress=steps)
    assert steps.steps == [["checking the chunks", 2, "chunk", 2], ["checking the manifest", None, "", 0]]


def test_rummysim_verify_draws_nothing_where_stderr_is_not_a_terminal_quiet_or_not(fresh):
    said = [CliRunner().invoke(main, ["verify", str(fresh), *quiet]) for quiet in ([], ["--quiet"], ["-q"])]
    assert [r.exit_code for r in said] == [0, 0, 0]
    assert [r.stderr for r in said] == ["", "", ""]
    assert said[0].stdout == said[1].stdout == said[2].stdout == f"{fresh}: verified: {CHECKED}\n"


def test_a_manifest_from_before_checksums_verifies_the_rest_and_says_what_it_could_not_check(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["tables"], manifest["manifest_sha256"]  # as written before either was recorded
    manifest["rummysim_version"] = "0.1.0"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    result = verify(copy)
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{copy}: verified what is there: manifest, schemas, rows (every game x seat, every hand x seat), "
        "points (R8), scores (R11); could not check: the manifest's own checksum (written by rummysim 0.1.0, "
        "before it sealed them); checksums of hands, games (the manifest, written by rummysim 0.1.0, records none)\n"
    )


def test_report_refuses_tables_that_are_not_the_manifests_and_writes_nothing(copy):
    """Another run's hands.parquet in the folder: every figure would be that run's, so the report is not drawn."""
    hands = pd.read_parquet(copy / "hands.parquet")
    rewrite(copy, "hands", hands[hands["game"] < 3], reseal=False)
    (copy / "report.md").unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        f"Error: {copy}: hands.parquet does not match its checksum in manifest.json (another run's table, or a "
        f"damaged one); see rummysim verify {copy}, or play it again with: rummysim run tiny.yaml"
    )
    assert not (copy / "report.md").exists()
    from rummysim.results import load_results

    results = load_results(copy)
    assert len(results.games) > 0  # the games table is still this run's
    with pytest.raises(ConfigError, match=r"hands\.parquet does not match its checksum"):
        _ = results.hands


def test_a_run_never_resumes_or_extends_tables_its_manifest_does_not_record(copy, fresh):
    """The stale tables are refused with one line; --force plays the run again, to the manifest's own bytes."""
    hands = pd.read_parquet(copy / "hands.parquet")
    rewrite(copy, "hands", hands[hands["game"] < 3], reseal=False)
    spec = {**SPEC, "games": 8}  # extending it would have split and kept the stale rows
    with pytest.raises(ConfigError, match=r"hands\.parquet does not match its checksum .* rerun with --force"):
        run_experiment(parse_experiment(spec, source="tiny.yaml"), out=copy.parent, n_jobs=1)
    again = run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=copy.parent, n_jobs=1, force=True)
    recorded = json.loads((fresh / "manifest.json").read_text())["tables"]
    assert again.manifest["tables"]["hands"]["sha256"] == recorded["hands"]["sha256"]


def test_a_table_the_manifest_does_not_record_is_refused(copy):
    """A traced-looking turns.parquet copied into an untraced run's folder is not this run's table."""
    shutil.copyfile(copy / "games.parquet", copy / "turns.parquet")
    from rummysim.results import load_results

    with pytest.raises(ConfigError, match=r"turns\.parquet is not recorded in manifest\.json"):
        _ = load_results(copy).turns
    spec = {**SPEC, "games": 8}  # extending the run would split the stray table into chunks
    with pytest.raises(ConfigError, match=r"turns\.parquet is not recorded .* rerun with --force"):
        run_experiment(parse_experiment(spec, source="tiny.yaml"), out=copy.parent, n_jobs=1)


BLOCK_SPEC = {
    "name": "blocky",
    "question": "Does block rummy verify?",
    "seed": 7,
    "games": 4,
    "engine": "python",
    "players": ["greedy", "greedy", "greedy"],
    # 3 x 15 dealt and the upcard leave 6 cards of stock: most hands end by a block, one in a tie
    "rules": {"target_score": 60, "cards_dealt": 15, "stock_out": "block"},
}


@pytest.fixture(scope="module")
def blocky(tmp_path_factory):
    out = tmp_path_factory.mktemp("blocky")
    return run_experiment(parse_experiment(BLOCK_SPEC, source="blocky.yaml"), out=out, n_jobs=1).folder


def test_r12_3_a_run_of_block_rummy_verifies_its_blocked_hands_and_a_blocked_tie(blocky):
    hands = pd.read_parquet(blocky / "hands.parquet")
    blocked = hands[hands.went_out_by == "block"]
    assert blocked.won.any() and (blocked.stalled & ~blocked.won).any()  # won blocks, and a tie
    assert (blocked.multiplier == 1).all() and not blocked.went_rummy.any()
    result = verify(blocky, "--replay", "4")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{blocky}: verified: {CHECKED}, 4 replayed hands (python engine, sample seed ")


def test_r12_3_a_blocked_hand_s_points_changed_are_caught_naming_r12_3(blocky, tmp_path):
    copy = Path(shutil.copytree(blocky, tmp_path / "blocky"))
    hands = pd.read_parquet(copy / "hands.parquet")
    row = int(hands[(hands.went_out_by == "block") & hands.won].index[0])
    hands.loc[row, "points"] += 5
    hands.loc[(hands.game == hands.game[row]) & (hands.seat == hands.seat[row]) & (hands.hand >= hands.hand[row]),
              "score"] += 5  # fmt: skip
    rewrite(copy, "hands", hands, reseal=True)
    g, h, s = hands.loc[row, ["game", "hand", "seat"]]
    problems = verify_results(copy).problems
    assert problems[0] == (
        f"{copy / 'hands.parquet'}: the points of a blocked hand's winner are not the sum over the others of their "
        f"holding points less the winner's (R12.3): condition default, game {g}, hand {h}, seat {s}"
    )


def test_r12_3_a_blocked_tie_given_a_winner_or_an_unknown_ending_is_caught(blocky, tmp_path):
    copy = Path(shutil.copytree(blocky, tmp_path / "blocky"))
    hands = pd.read_parquet(copy / "hands.parquet")
    tie = hands[(hands.went_out_by == "block") & hands.stalled]
    row = int(tie.holding_points.idxmin())
    hands.loc[tie.index, "stalled"] = False
    hands.loc[row, "won"] = True
    other = int(hands[hands.went_out_by == "discard"].index[0])
    hands.loc[other, "went_out_by"] = "blocked"
    rewrite(copy, "hands", hands, reseal=True)
    problems = [p.split(": ", 1)[1] for p in verify_results(copy).problems]
    assert f"went_out_by is not one of block, discard, lay_off, meld (R7.1, R12.3): {_where(hands, other)}" in problems
    rule = (
        "in a blocked hand the one seat with the lowest holding points wins, and a tie for it is stalled with no "
        "winner (R12.3): "
    )
    (found,) = [p.removeprefix(rule).split("; ") for p in problems if p.startswith(rule)]
    assert found == [_where(hands, i) for i in tie.index]  # every seat of the tie: stalled is false on each


def _where(hands: pd.DataFrame, row: int) -> str:
    c, g, h, s = hands.loc[row, ["condition", "game", "hand", "seat"]]
    return f"condition {c}, game {g}, hand {h}, seat {s}"
