"""The tables as a partitioned Parquet dataset, and an atlas-like grid on Dask (issue 23, part 7).

An atlas-like grid (three lineups at 2 and 3 players, two rules on and off) is played once;
its dataset must read back, in pandas, pyarrow and DuckDB, exactly the rows of hands.parquet
and games.parquet; the DuckDB query and the pandas code of docs/atlas.md must find what pandas
finds in hands.parquet; a missing or tampered table is a one-line error that leaves no partial
dataset; and the same grid on a local Dask cluster must write the same tables, byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from mini_atlas import SPEC

import rummysim.dataset as dataset_module
from rummysim.cli import main
from rummysim.dataset import PARTITIONING, write_dataset
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.results import DATASET_MARKER, SCHEMAS
from rummysim.runner import run_experiment

KINDS = ("hands", "games")
KEYS = {"hands": ["condition", "game", "hand", "seat"], "games": ["condition", "game", "seat"]}
ATLAS_MD = Path(__file__).parent.parent / "docs" / "atlas.md"
CHUNK_GAMES = 2  # three chunks a condition, on either backend


def experiment():
    return parse_experiment(SPEC, source="mini_atlas.yaml")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("joblib")
    return run_experiment(experiment(), out=out, n_jobs=2, chunk_games=CHUNK_GAMES, quiet=True)  # joblib: loky


@pytest.fixture(scope="module")
def written(run):
    return write_dataset(run.folder)


def in_order(table: pa.Table, kind: str) -> pa.Table:
    """Return a table's columns of `kind` (`SCHEMAS`), typed as the run writes them, sorted by their keys."""
    table = table.select(SCHEMAS[kind].names).cast(SCHEMAS[kind])
    return table.sort_by([(key, "ascending") for key in KEYS[kind]])


def source(run, kind: str) -> pa.Table:
    return in_order(pq.read_table(run.folder / f"{kind}.parquet"), kind)


def test_the_dataset_is_partitioned_by_table_size_and_condition(run, written):
    assert written.folder == run.folder / "dataset"
    assert written.rows == {kind: run.manifest["tables"][kind]["rows"] for kind in KINDS}
    assert written.factors == ("going_out", "stock_out")
    files = sorted(p.relative_to(written.folder).as_posix() for p in written.folder.rglob("*.parquet"))
    assert len(files) == 2 * 12
    assert "hands/players=2/condition=p2_skill%7Cgoing_out%3Dany%2Cstock_out%3Dblock/part-0.parquet" in files
    assert "games/players=3/condition=p3%7Cgoing_out%3Ddiscard%2Cstock_out%3Drebuild/part-0.parquet" in files
    recorded = json.loads((written.folder / DATASET_MARKER).read_text())["tables"]
    assert recorded == {kind: run.manifest["tables"][kind] for kind in KINDS}


def test_pyarrow_reads_back_every_row_with_its_table_size_and_factor_levels(run, written):
    for kind in KINDS:
        table = ds.dataset(written.folder / kind, partitioning=PARTITIONING).to_table()
        assert in_order(table, kind).equals(source(run, kind)), kind
        cells = table.select(["condition", "players", "going_out", "stock_out"]).group_by(
            ["condition", "players", "going_out", "stock_out"]).aggregate([]).to_pylist()  # fmt: skip
        assert len(cells) == 12
        for cell in cells:
            rules = run.experiment.condition(cell["condition"]).rules
            assert (cell["players"], cell["going_out"], cell["stock_out"]) == (
                rules.n_players, rules.going_out, rules.stock_out)  # fmt: skip
            assert cell["condition"].startswith(f"p{cell['players']}")


def test_pandas_reads_back_the_same_rows_as_the_tables(run, written):
    for kind in KINDS:
        frame = pd.read_parquet(written.folder / kind)
        frame["condition"] = frame["condition"].astype(str)
        expected = pd.read_parquet(run.folder / f"{kind}.parquet")
        got = frame[list(expected.columns)].sort_values(KEYS[kind]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected.sort_values(KEYS[kind]).reset_index(drop=True))
        assert sorted(frame["players"].astype(int).unique()) == [2, 3]


def test_duckdb_reads_back_the_same_rows_as_the_tables(run, written):
    for kind in KINDS:
        query = f"SELECT * FROM read_parquet('{written.folder / kind}/**/*.parquet', hive_partitioning = true)"
        table = duckdb.sql(query).arrow()  # a Table before DuckDB 1.4, a reader since
        table = table if isinstance(table, pa.Table) else table.read_all()
        assert table.schema.field("players").type == pa.int64()
        assert in_order(table, kind).equals(source(run, kind)), kind


def documented(language: str) -> str:
    """Return the one code block in `language` of docs/atlas.md's dataset section."""
    text = ATLAS_MD.read_text()
    section = text[text.index("## The tables as a dataset") :]
    section = section[: section.index("\n## ", 1)]
    (block,) = re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)
    return block


def first_player_by_hand(run) -> pd.DataFrame:
    """Return the first player's share of decided hands (R3.4) by table size and block rummy, from hands.parquet."""
    hands = pd.read_parquet(run.folder / "hands.parquet")
    won = hands[hands.won & ~hands.condition.str.contains("_skill")].copy()
    won["players"] = won.condition.str[1].astype(int)  # p2|..., p3|...
    won["stock_out"] = won.condition.str.extract(r"stock_out=(\w+)", expand=False)
    by = won.groupby(["players", "stock_out"])["position"]
    found = pd.DataFrame({"decided_hands": by.size(), "share": by.apply(lambda p: (p == 0).mean())})
    return found.reset_index()


def test_the_documented_duckdb_query_finds_what_pandas_finds_in_hands_parquet(run, written):
    query = documented("sql").replace("results/atlas", str(run.folder))
    got = duckdb.sql(query).df()
    expected = first_player_by_hand(run)
    assert list(got[["players", "stock_out"]].itertuples(index=False)) == list(
        expected[["players", "stock_out"]].itertuples(index=False))  # fmt: skip
    assert got["decided_hands"].tolist() == expected["decided_hands"].tolist()
    assert got["first_player_share_pct"].tolist() == pytest.approx((100 * expected["share"]).tolist(), abs=0.006)
    edge = 100 * (expected["share"] - 1 / expected["players"])
    assert got["first_player_edge_pp"].tolist() == pytest.approx(edge.tolist(), abs=0.006)


def test_the_documented_pandas_code_finds_the_same(run, written):
    code = documented("python").replace("results/atlas", str(run.folder))
    names: dict = {}
    exec(compile(code, "docs/atlas.md", "exec"), names)
    got = names["table"].reset_index()
    expected = first_player_by_hand(run)
    assert got["players"].astype(int).tolist() == expected["players"].tolist()
    assert got["decided_hands"].tolist() == expected["decided_hands"].tolist()
    assert got["first_player_share_pct"].tolist() == pytest.approx((100 * expected["share"]).tolist(), abs=1e-9)


def test_the_dataset_command_prints_the_folder_and_each_tables_rows(run, tmp_path):
    result = CliRunner().invoke(main, ["dataset", str(run.folder), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    hands, games = (run.manifest["tables"][kind]["rows"] for kind in KINDS)
    assert result.output == (
        f"{tmp_path / 'ds'}\n  hands: {hands:,} rows\n  games: {games:,} rows\n"
        "  the grid's factors, as columns: going_out, stock_out\n"
    )


def copy_of(run, tmp_path: Path) -> Path:
    """Return a copy of the run's folder: its manifest and tables."""
    folder = tmp_path / "copy"
    folder.mkdir()
    for name in ("manifest.json", "hands.parquet", "games.parquet"):
        shutil.copy(run.folder / name, folder / name)
    return folder


def assert_no_dataset(folder: Path) -> None:
    assert not (folder / "dataset").exists()
    assert not list(folder.glob(".dataset*")), "a temporary folder was left"


def test_a_missing_table_is_a_one_line_error_and_no_dataset_is_written(run, tmp_path):
    folder = copy_of(run, tmp_path)
    (folder / "games.parquet").unlink()
    result = CliRunner().invoke(main, ["dataset", str(folder)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {folder}: has no games.parquet; play it again with: rummysim run mini_atlas.yaml\n"
    )
    assert_no_dataset(folder)


def test_a_tampered_table_is_a_one_line_error_and_no_dataset_is_written(run, tmp_path):
    folder = copy_of(run, tmp_path)
    hands = pq.read_table(folder / "hands.parquet")
    pq.write_table(hands.slice(1), folder / "hands.parquet")  # one row fewer
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(folder))}: hands.parquet does not match its checksum"):
        write_dataset(folder)
    assert_no_dataset(folder)


def test_an_error_midway_leaves_the_earlier_dataset_whole(run, tmp_path, monkeypatch):
    folder = copy_of(run, tmp_path)
    first = write_dataset(folder)
    before = sorted(p.relative_to(folder) for p in first.folder.rglob("*"))
    original = dataset_module._Cells.extend

    def fail_on_games(self, batch, schema):
        if "n_hands" in schema.names:
            raise ConfigError("stopped while writing games")
        return original(self, batch, schema)

    monkeypatch.setattr(dataset_module._Cells, "extend", fail_on_games)
    with pytest.raises(ConfigError, match=r"^stopped while writing games$"):
        write_dataset(folder)
    assert sorted(p.relative_to(folder) for p in first.folder.rglob("*")) == before
    assert not list(folder.glob(".dataset*")), "a temporary folder was left"
    shutil.rmtree(first.folder)
    with pytest.raises(ConfigError):
        write_dataset(folder)
    assert_no_dataset(folder)


def test_a_folder_that_is_not_a_dataset_is_never_replaced(run, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(mine))}: exists and is not a dataset rummysim wrote"):
        write_dataset(run.folder, mine)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    again = write_dataset(run.folder, tmp_path / "again")
    assert write_dataset(run.folder, again.folder).rows == again.rows  # its own dataset is replaced whole


def test_the_atlas_like_grid_on_a_local_dask_cluster_writes_the_joblib_tables(run, tmp_path):
    import distributed

    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as c:
        on_dask = run_experiment(
            experiment(), out=tmp_path, backend="dask", scheduler=c.scheduler_address, chunk_games=CHUNK_GAMES,
            quiet=True,
        )  # fmt: skip
    assert on_dask.manifest["backend"] == "dask" and run.manifest["backend"] == "loky"
    for kind in KINDS:
        assert on_dask.manifest["tables"][kind] == run.manifest["tables"][kind], kind  # SHA-256 and rows
        pd.testing.assert_frame_equal(getattr(on_dask, kind), getattr(run, kind))
    assert len(run.hands) > 1000 and run.hands.condition.nunique() == 12


def test_a_run_that_replaces_or_extends_the_tables_removes_their_dataset(tmp_path):
    """The dataset is made from the tables: --force and an extension (more games) leave none that is stale."""
    made = run_experiment(experiment(), out=tmp_path, n_jobs=1, chunk_games=CHUNK_GAMES, quiet=True)
    write_dataset(made.folder)
    (made.folder / "dataset" / "mine.txt").write_text("kept?")
    again = run_experiment(experiment(), out=tmp_path, n_jobs=1, force=True, quiet=True)
    assert not (again.folder / "dataset").exists()
    write_dataset(again.folder)
    more = run_experiment(experiment(), out=tmp_path, n_jobs=1, games=8, quiet=True)
    assert more.manifest["tables"]["games"]["rows"] > again.manifest["tables"]["games"]["rows"]
    assert not (more.folder / "dataset").exists()
    other = more.folder / "dataset"
    other.mkdir()
    (other / "notes.txt").write_text("not rummysim's")  # a folder rummysim did not write is never removed
    run_experiment(experiment(), out=tmp_path, n_jobs=1, force=True, quiet=True)
    assert (other / "notes.txt").read_text() == "not rummysim's"


def test_a_small_limit_on_open_files_writes_the_same_dataset(run, tmp_path, monkeypatch):
    """Where the system allows fewer open files than conditions (12 here), the writer closes finished ones."""
    monkeypatch.setattr(dataset_module, "open_files", lambda: 2)
    small = write_dataset(run.folder, tmp_path / "small")
    assert {p.name for p in small.folder.rglob("*.parquet")} == {"part-0.parquet"}
    for kind in KINDS:
        table = ds.dataset(small.folder / kind, format="parquet", partitioning=PARTITIONING).to_table()
        assert in_order(table, kind).equals(source(run, kind))
