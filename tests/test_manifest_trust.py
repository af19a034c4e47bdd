"""Issue 22, parts 5 and 6: the manifest is checked like the tables, and `verify` reads the tables in batches.

Each attack on a results folder's manifest is kept here with what it gives now: a
damaged manifest is one line in `report`, `verify` and wherever it is loaded; an edited
one is refused by `report` (its own checksum, or the fingerprint, seed and rows
recomputed) and named by `verify`, whose replay finds an edited seed even when every
recorded number was made to agree; a missing table fails `verify`. `verify` gives the
same answer for any batch size, holding no more than a batch of rows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.manifest import CHECKSUM, digest, seal
from rummysim.results import SCHEMAS, load_results
from rummysim.runner import run_experiment
from rummysim.verify import verify_results

SPEC = {
    "name": "trust",
    "question": "Can the manifest be trusted?",
    "seed": 11,
    "games": 5,
    "players": ["greedy", "uniform"],
    "rules": {"target_score": 40},
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}}},
}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("trust")
    return run_experiment(parse_experiment(SPEC, source="trust.yaml"), out=out, n_jobs=1).folder


@pytest.fixture
def copy(fresh, tmp_path):
    return Path(shutil.copytree(fresh, tmp_path / "trust"))


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def write(folder: Path, manifest: dict, *, reseal: bool) -> None:
    """Write an edited manifest; with `reseal`, its own checksum recomputed, as a careful forger would."""
    (folder / "manifest.json").write_text(json.dumps(seal(manifest) if reseal else manifest, indent=2))


def report(folder: Path):
    return CliRunner().invoke(main, ["report", str(folder), "-q"])


def verify(folder: Path, *args: str):
    return CliRunner().invoke(main, ["verify", str(folder), *args])


def assert_refused(result, *, says: str) -> None:
    """One line on the terminal (no traceback), exit status 1, saying `says`."""
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert says in lines[0], lines[0]


def assert_verify_fails(result, *, says: str) -> None:
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    problems = [line for line in result.output.splitlines() if line.startswith("problem: ")]
    assert problems and any(says in line for line in problems), result.output


def test_a_fresh_manifest_is_sealed_and_checks_out(fresh):
    manifest = manifest_of(fresh)
    assert manifest[CHECKSUM] == digest(manifest) and list(manifest)[-1] == CHECKSUM
    load_results(fresh).check_manifest()  # raises nothing


DAMAGED = {
    "truncated": lambda text: text[: len(text) // 2],
    "a JSON list": lambda text: "[1, 2, 3]",
    "empty": lambda text: "",
    "no experiment": lambda text: "{}",
    "not UTF-8": lambda text: "\udcff",
    "tables a list": lambda text: json.dumps(json.loads(text) | {"tables": []}),
    "rows a string": lambda text: json.dumps(
        json.loads(text) | {"tables": {"hands": json.loads(text)["tables"]["hands"] | {"rows": "12"}}}
    ),
    "streams a string": lambda text: json.dumps(json.loads(text) | {"streams": "2"}),
    "a rule a list": lambda text: text.replace('"target_score": 40', '"target_score": [40]', 1),
    "conditions a number": lambda text: json.dumps(
        json.loads(text) | {"experiment": json.loads(text)["experiment"] | {"conditions": 3}}
    ),
    "sealed, without its fingerprint": lambda text: json.dumps(
        seal({k: v for k, v in json.loads(text).items() if k != "fingerprint"})
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGED))
def test_a_damaged_manifest_is_one_line_in_report_verify_and_loading(copy, damage):
    path = copy / "manifest.json"
    text = DAMAGED[damage](path.read_text())
    path.write_bytes(b"\xff\xfe{" if damage == "not UTF-8" else text.encode())
    with pytest.raises(ConfigError) as error:
        load_results(copy)
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    assert_refused(report(copy), says=str(path))
    result = verify(copy)
    assert result.exit_code == 1 and result.output.count("\n") == 2, result.output
    assert result.output.startswith(f"problem: {path}: ")
    replayed = CliRunner().invoke(main, ["replay", str(copy), "--condition", "basic", "--game", "0", "--hand", "0"])
    assert replayed.exit_code == 1 and replayed.output.count("\n") == 1, replayed.output


def edit_seed(manifest: dict, seed: int, *, everywhere: bool) -> dict:
    manifest["experiment"]["seed"] = seed
    if everywhere:  # every number that records the seed made to agree
        from rummysim.design import from_manifest

        manifest["seeds"]["seed"] = seed
        manifest["fingerprint"] = from_manifest(manifest, source="m").fingerprint()
    return manifest


def test_the_seed_edited_is_refused_by_report_and_named_by_verify(copy):
    write(copy, edit_seed(manifest_of(copy), 999, everywhere=False), reseal=False)
    assert_refused(report(copy), says="does not match its own checksum (manifest_sha256)")
    assert_verify_fails(verify(copy), says="does not match its own checksum")


def test_the_seed_edited_and_resealed_is_refused_for_its_fingerprint_and_seeds(copy):
    write(copy, edit_seed(manifest_of(copy), 999, everywhere=False), reseal=True)
    assert_refused(report(copy), says="is not its experiment's")
    result = verify(copy)
    assert_verify_fails(result, says="fingerprint")
    assert_verify_fails(result, says="seeds.seed 11 is not its experiment's seed, 999")


def test_the_seed_edited_with_every_record_made_to_agree_is_caught_by_replay(copy):
    """Checksum, fingerprint and seeds all recomputed: nothing recorded disagrees, but the hands are not 999's."""
    write(copy, edit_seed(manifest_of(copy), 999, everywhere=True), reseal=True)
    load_results(copy).check_manifest()  # nothing a manifest can show: the limit of a checksum without a key
    assert verify(copy).exit_code == 0
    for engine in ("python", "compiled"):
        assert_verify_fails(verify(copy, "--replay", "2", "--engine", engine),
                            says=f"does not replay from the seed to the stored rows ({engine} engine)")  # fmt: skip


def test_the_rules_edited_are_refused_by_report_with_or_without_the_checksum_recomputed(copy):
    manifest = manifest_of(copy)
    manifest["experiment"]["conditions"][0]["rules"]["target_score"] = 500
    write(copy, manifest, reseal=False)
    assert_refused(report(copy), says="does not match its own checksum")
    write(copy, manifest, reseal=True)
    assert_refused(report(copy), says="is not its experiment's")
    assert_verify_fails(verify(copy), says="the experiment or the fingerprint was edited")


@pytest.mark.parametrize("kind", ["hands", "games"])
def test_the_row_counts_edited_are_refused_by_report_and_named_by_verify(copy, kind):
    manifest = manifest_of(copy)
    rows = manifest["tables"][kind]["rows"]
    manifest["tables"][kind]["rows"] = rows + 10
    write(copy, manifest, reseal=False)
    assert_refused(report(copy), says="does not match its own checksum")
    write(copy, manifest, reseal=True)
    says = f"{rows} rows, and manifest.json records {rows + 10}"
    assert_refused(report(copy), says=f"records {rows + 10}" if kind == "hands" else "tables.games.rows")
    assert_verify_fails(verify(copy), says=says)


def test_the_games_edited_in_the_experiment_are_refused(copy):
    """The number of games is outside the fingerprint (a run can be extended): the rows it implies are checked."""
    manifest = manifest_of(copy)
    manifest["experiment"]["games"] = 50
    write(copy, manifest, reseal=True)
    assert_refused(report(copy), says="tables.games.rows is 20, and its experiment's games make 200")
    assert_verify_fails(verify(copy), says="missing game x seat rows (50 games of 2 seats)")


@pytest.mark.parametrize("kind", ["hands", "games"])
def test_a_deleted_table_fails_verify_naming_it(copy, kind):
    (copy / f"{kind}.parquet").unlink()
    result = verify(copy)
    assert_verify_fails(result, says=f"{copy / kind}.parquet: missing, and manifest.json records it")
    assert_refused(report(copy), says=f"has no {kind}.parquet")


def test_a_manifest_without_its_checksum_is_read_with_the_other_checks(copy):
    """Manifests written before they were sealed still load; verify says what it could not check."""
    manifest = manifest_of(copy)
    del manifest[CHECKSUM]
    write(copy, manifest, reseal=False)
    load_results(copy).check_manifest()
    result = verify(copy)
    assert result.exit_code == 0 and "could not check: the manifest's own checksum" in result.output
    write(copy, edit_seed(manifest, 999, everywhere=False), reseal=False)
    assert_refused(report(copy), says="is not its experiment's")


def test_keys_of_a_secret_seed_and_of_newer_versions_are_kept_not_refused(copy):
    manifest = manifest_of(copy) | {"secret_sha256": "0" * 64, "secret_note": "kept", "newer": [1]}
    write(copy, manifest, reseal=True)
    results = load_results(copy)
    results.check_manifest()
    assert results.manifest["secret_note"] == "kept"


def tampered(folder: Path) -> None:
    """Change rows of several games and conditions, resealing the table, so many checks fail across batches."""
    hands = pd.read_parquet(folder / "hands.parquet")
    hands.loc[hands.index[::7], "points"] += 3
    hands.loc[hands.index[5::11], "holding_points"] += 1
    pq.write_table(pa.Table.from_pandas(hands, schema=SCHEMAS["hands"], preserve_index=False), folder / "hands.parquet")


def test_verify_gives_the_same_answer_for_any_batch_and_holds_no_more_than_a_batch(copy, monkeypatch):
    tampered(copy)
    whole = verify_results(copy, batch_rows=1 << 20, replay=3, sample_seed=5)
    assert len(whole.problems) > 4
    read = []
    real = pq.ParquetFile.iter_batches

    def counted(self, *args, **kwargs):
        for batch in real(self, *args, **kwargs):
            read.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counted)
    for batch_rows in (5, 13, 64):
        read.clear()
        small = verify_results(copy, batch_rows=batch_rows, replay=3, sample_seed=5)
        assert small.problems == whole.problems and small.checked == whole.checked
        assert max(read) <= batch_rows and len(read) >= 2


def test_the_replayed_sample_is_drawn_across_the_run_from_its_seed(fresh, monkeypatch):
    import rummysim.verify as verify_module

    asked = []
    real = verify_module.replay_hand

    def recorded(folder, *, condition, game, hand):
        asked.append((condition, game, hand))
        return real(folder, condition=condition, game=game, hand=hand)

    monkeypatch.setattr(verify_module, "replay_hand", recorded)
    runs = {}
    for seed in (1, 2, 1):
        asked.clear()
        verify_results(fresh, replay=12, sample_seed=seed, batch_rows=8)
        runs.setdefault(seed, []).append(sorted(asked))
    assert runs[1][0] == runs[1][1] != runs[2][0]
    assert {condition for condition, _, _ in runs[1][0]} == {"basic", "ace_high"}
    assert len(set(runs[1][0])) == 12


def test_rows_out_of_order_are_one_problem_not_checked_game_by_game(copy):
    hands = pq.read_table(copy / "hands.parquet")
    order = [*range(1, hands.num_rows), 0]  # the first row of game 0 moved to the end
    pq.write_table(hands.take(order), copy / "hands.parquet")
    problems = verify_results(copy).problems
    assert any("rows are not in the order rummysim writes them" in p for p in problems), problems


def test_an_edited_manifest_is_never_extended(copy):
    manifest = manifest_of(copy)
    manifest["tables"]["hands"]["rows"] += 2
    write(copy, manifest, reseal=True)
    with pytest.raises(ConfigError, match="rows"):
        run_experiment(parse_experiment({**SPEC, "games": 7}, source="trust.yaml"), out=copy.parent, n_jobs=1)
