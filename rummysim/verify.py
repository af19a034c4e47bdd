"""Verify a results folder someone hands you: its files are the files written, and its rows are the rules' rows.

`verify_results` checks, in order, what the folder has:

- the manifest loads and names an experiment this rummysim can read;
- each table (and, in a stopped run, each chunk) matches the SHA-256 recorded for it;
- each table has the schema of `rummysim.results.SCHEMAS` and the rows the experiment
  implies: every game of every condition with a row per seat, every hand of every game
  with a row per seat, each seat playing the strategy its rotation gives (R3.4);
- every hand's points recompute from the holdings left (R8): each holding's points from
  its cards (R8.2), the winner's credit from the others' holdings times the multiplier
  (R8.1, R8.3), nobody else scoring; a hand ended by a block (``went_out_by: block``, only
  with ``stock_out: block``) is won by the one lowest holding, for the sum over the others
  of their points less the winner's, never rummy, and a tie for the lowest is stalled (R12.3);
- the scores add up (R11): each hand's running score, and each game's score, hands won,
  stalled hands, end (R11.1) and winner from its hands;
- optionally, N hands chosen at random (from the experiment's seed, so the same N are
  chosen every time) replay from the seed to the stored rows (`rummysim.replay`).

What a folder lacks (committed results keep only the manifest and the report) is listed
as not checked, never as a problem; anything checked and wrong is a problem, named with
its table, condition, game, hand and seat and the rule it breaks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rummysim.cards import card_code, card_points
from rummysim.checksums import check_chunk, check_file
from rummysim.design import Experiment, from_manifest
from rummysim.errors import RummysimError
from rummysim.ledger import Ledger
from rummysim.moves import WentOutBy
from rummysim.replay import replay_hand
from rummysim.results import MANIFEST, SCHEMAS
from rummysim.rules import StockOut
from rummysim.seeding import STREAMS
from rummysim.specs import strategy_label

SHOWN = 3
"""Rows named per problem; the rest are counted."""


@dataclass
class Verification:
    """What `verify_results` checked, what it could not, and every problem it found."""

    folder: Path
    checked: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Return True if nothing checked is wrong."""
        return not self.problems

    @property
    def summary(self) -> str:
        """Return the one summary line."""
        if self.problems:
            n = len(self.problems)
            return f"{self.folder}: {n} problem{'s' if n != 1 else ''} found (listed above); checked: " + (
                ", ".join(self.checked) or "nothing"
            )
        done = ", ".join(self.checked)
        if self.unchecked:
            return f"{self.folder}: verified what is there: {done}; could not check: {'; '.join(self.unchecked)}"
        return f"{self.folder}: verified: {done}"


def _bad_rows(problems: list[str], frame: pd.DataFrame, what: str, where: str) -> bool:
    """Name up to `SHOWN` offending rows of a table as one problem; return True if there were any."""
    if frame.empty:
        return False
    keys = [c for c in ("condition", "game", "hand", "seat") if c in frame.columns]
    shown = "; ".join(", ".join(f"{k} {row[k]}" for k in keys) for row in frame.head(SHOWN).to_dict("records"))
    more = f" (and {len(frame) - SHOWN} more)" if len(frame) > SHOWN else ""
    problems.append(f"{where}: {what}: {shown}{more}")
    return True


def _check_file_sums(folder: Path, manifest: dict[str, Any], present: list[str], result: Verification) -> None:
    recorded = manifest.get("tables") or {}
    unrecorded = [kind for kind in present if "sha256" not in (recorded.get(kind) or {})]
    for kind in present:
        record = recorded.get(kind) or {}
        if "sha256" in record:
            problem = check_file(folder / f"{kind}.parquet", record)
            if problem:
                result.problems.append(f"{folder / kind}.parquet: {problem.split(' ', 1)[1]} in {MANIFEST}")
        try:
            rows = pq.read_metadata(folder / f"{kind}.parquet").num_rows
        except (OSError, pa.ArrowException):
            continue  # named by the schema check
        if "rows" in record and rows != record["rows"]:
            result.problems.append(f"{folder / kind}.parquet: {rows} rows, and {MANIFEST} records {record['rows']}")
    if unrecorded:
        written_by = manifest.get("rummysim_version", "an unknown version")
        result.unchecked.append(
            f"checksums of {', '.join(unrecorded)} (the manifest, written by rummysim {written_by}, records none)"
        )
    if len(unrecorded) < len(present):
        result.checked.append("checksums")


def _check_chunks(folder: Path, result: Verification) -> None:
    """Check a stopped run's chunks against its ledger (`rummysim.ledger`)."""
    chunk_dir = folder / "chunks"
    ledger = Ledger(folder)
    on_disk = sorted(p.name for p in chunk_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    for chunk_id in sorted(set(on_disk) | set(ledger.records)):
        record = ledger.records.get(chunk_id)
        problem = check_chunk(chunk_dir / chunk_id, record) if record is not None else "is not in the ledger"
        if problem:
            result.problems.append(f"{chunk_dir / chunk_id}: {problem} (rummysim run plays it again)")
    result.checked.append(f"{len(on_disk)} chunks of a stopped run")


def _check_schema(folder: Path, kind: str, result: Verification) -> bool:
    try:
        schema = pq.read_schema(folder / f"{kind}.parquet")
    except (OSError, pa.ArrowException) as error:  # truncated: no footer
        result.problems.append(f"{folder / kind}.parquet: cannot be read as Parquet ({str(error).splitlines()[0]})")
        return False
    found = [(f.name, str(f.type)) for f in schema]
    wanted = [(f.name, str(f.type)) for f in SCHEMAS[kind]]
    if found != wanted:
        missing = [name for name, _ in wanted if name not in dict(found)]
        result.problems.append(
            f"{folder / kind}.parquet: not the schema of rummysim's {kind} table"
            + (f" (missing {', '.join(missing)})" if missing else f" (columns {found})")
        )
        return False
    return True


def _check_rows(experiment: Experiment, hands: pd.DataFrame, games: pd.DataFrame, where: Callable[[str], str],
                problems: list[str]) -> None:  # fmt: skip
    """Check every game x seat and every hand x seat is there once, each seat playing its rotation (R3.4)."""
    names = [c.name for c in experiment.conditions]
    for kind, frame in (("hands", hands), ("games", games)):
        extra = frame[~frame.condition.isin(names)]
        _bad_rows(problems, extra, f"rows of no condition of the experiment ({', '.join(names)})", where(kind))
        keys = ["condition", "game", "hand", "seat"] if kind == "hands" else ["condition", "game", "seat"]
        _bad_rows(problems, frame[frame.duplicated(keys)], "rows given twice", where(kind))
    for condition in experiment.conditions:
        n, n_games = condition.rules.n_players, experiment.games_of(condition)
        labels = np.array([strategy_label(p) for p in condition.players], dtype=object)
        g = games[games.condition == condition.name]
        expected = pd.MultiIndex.from_product([range(n_games), range(n)], names=["game", "seat"])
        missing = expected.difference(pd.MultiIndex.from_frame(g[["game", "seat"]]))
        if len(missing):
            frame = missing.to_frame(index=False).assign(condition=condition.name)
            _bad_rows(problems, frame, f"missing game x seat rows ({n_games} games of {n} seats)", where("games"))
        for kind, frame in (("games", g), ("hands", hands[hands.condition == condition.name])):
            wrong = frame[frame.strategy.to_numpy() != labels[(frame.seat + frame.game).to_numpy() % n]]
            _bad_rows(problems, wrong, "a seat plays another strategy than its rotation gives (R3.4)", where(kind))
        h = hands[hands.condition == condition.name]
        per_game = h.groupby("game").agg(rows=("seat", "size"), hands=("hand", "nunique"), low=("hand", "min"),
                                         high=("hand", "max"))  # fmt: skip
        n_hands = g.groupby("game").n_hands.first()
        table = per_game.reindex(n_hands.index).assign(n_hands=n_hands)
        bad = table[(table.rows != table.n_hands * n) | (table.hands != table.n_hands) | (table.low != 0)
                    | (table.high != table.n_hands - 1)]  # fmt: skip
        frame = bad.reset_index()[["game"]].assign(condition=condition.name)
        _bad_rows(problems, frame, "games whose hands x seats are not all there once (games.n_hands)", where("hands"))


def _check_points(experiment: Experiment, hands: pd.DataFrame, where: str, problems: list[str]) -> None:
    """Check every holding's points and every hand's points from the holdings left (R8, R12.3)."""
    for condition in experiment.conditions:
        rules = condition.rules
        h = hands[hands.condition == condition.name]
        values = {card_code(c): card_points(c, ace_value=rules.ace_value) for c in range(52)}
        cards = h.holding_end.str.split().explode()
        recomputed = cards.map(values).fillna(0).groupby(level=0).sum().astype("int64")
        _bad_rows(problems, h[recomputed.reindex(h.index).to_numpy() != h.holding_points.to_numpy()],
                  "holding_points is not the points of holding_end (R8.2)", where)  # fmt: skip
        key = ["game", "hand"]
        total = h.groupby(key).holding_points.transform("sum")
        winners = h.groupby(key).won.transform("sum")
        multiplier = np.where(h.went_rummy, rules.rummy_multiplier, 1)
        _bad_rows(problems, h[h.multiplier != multiplier],
                  f"multiplier is not {rules.rummy_multiplier} for going rummy, else 1 (R8.3)", where)  # fmt: skip
        _bad_rows(problems, h[(winners != (~h.stalled).astype(int))],
                  "a hand that did not stall has not exactly one winner, or a stalled hand has one (R8.1, R10.2)",
                  where)  # fmt: skip
        blocked = _check_endings(h, blocks=rules.stock_out is StockOut.BLOCK, where=where, problems=problems)
        winner = h[h.won & ~blocked]
        owed = (total[winner.index] - winner.holding_points) * winner.multiplier
        _bad_rows(problems, winner[winner.points != owed],
                  "the winner's points are not the others' holding points times the multiplier (R8.1, R8.3)",
                  where)  # fmt: skip
        winner = h[h.won & blocked]
        seats = h.groupby(key).seat.transform("size")
        owed = total[winner.index] - seats[winner.index] * winner.holding_points
        _bad_rows(problems, winner[winner.points != owed],
                  "the points of a blocked hand's winner are not the sum over the others of their holding points "
                  "less the winner's (R12.3)", where)  # fmt: skip
        _bad_rows(problems, h[~h.won & (h.points != 0)], "a seat that did not go out scored points (R8.1)", where)


ENDED_BY = frozenset(e.value for e in WentOutBy)
"""The values of ``went_out_by`` (R7.1, R12.3); null is a hand stalled under R10.2."""


def _check_endings(h: pd.DataFrame, *, blocks: bool, where: str, problems: list[str]) -> pd.Series:
    """Check how each hand of one condition ended (R7.1, R10.2, R12.3); return which rows are of blocked hands.

    A blocked hand is won by the one seat with the lowest holding points, never by going rummy;
    a tie for the lowest has no winner and is stalled (R12.3).
    """
    ended_by = h.went_out_by
    _bad_rows(problems, h[ended_by.notna() & ~ended_by.isin(sorted(ENDED_BY))],
              f"went_out_by is not one of {', '.join(sorted(ENDED_BY))} (R7.1, R12.3)", where)  # fmt: skip
    blocked = ended_by == WentOutBy.BLOCK
    unsaid = (h.stalled & ended_by.notna() & ~blocked) | (~h.stalled & ended_by.isna())
    _bad_rows(problems, h[unsaid], "went_out_by does not fit stalled: a stalled hand has none (R10.2) or block "
              "(a tie, R12.3), any other hand one", where)  # fmt: skip
    if not blocks:
        _bad_rows(
            problems, h[blocked], "went_out_by is block, but the condition plays stock_out: rebuild (R12.3)", where
        )
        return blocked
    lowest = h.groupby(["game", "hand"]).holding_points.transform("min")
    at_lowest = h.holding_points == lowest
    tied = at_lowest.groupby([h.game, h.hand]).transform("sum") > 1
    _bad_rows(problems, h[blocked & ((h.won != (at_lowest & ~tied)) | (h.stalled != tied))],
              "in a blocked hand the one seat with the lowest holding points wins, and a tie for it is stalled "
              "with no winner (R12.3)", where)  # fmt: skip
    _bad_rows(problems, h[blocked & (h.went_rummy | (h.multiplier != 1))],
              "a blocked hand went rummy or has a multiplier other than 1 (R12.3)", where)  # fmt: skip
    return blocked


def _check_scores(experiment: Experiment, hands: pd.DataFrame, games: pd.DataFrame, where: Callable[[str], str],
                  problems: list[str]) -> None:  # fmt: skip
    """Check the running scores and each game's score, record and winner from its hands (R11)."""
    ordered = hands.sort_values(["condition", "game", "seat", "hand"])
    running = ordered.groupby(["condition", "game", "seat"]).points.cumsum()
    _bad_rows(problems, ordered[ordered.score != running], "score is not the running sum of points (R11)",
              where("hands"))  # fmt: skip
    per_seat = ordered.groupby(["condition", "game", "seat"]).agg(
        score=("points", "sum"), hands_won=("won", "sum"), n_hands=("hand", "size")
    )
    per_hand = hands.drop_duplicates(["condition", "game", "hand"]).groupby(["condition", "game"]).stalled.sum()
    g = games.set_index(["condition", "game", "seat"]).sort_index()
    sums = per_seat.reindex(g.index)
    for column in ("score", "hands_won", "n_hands"):
        wrong = g[g[column].to_numpy() != sums[column].to_numpy()].reset_index()
        _bad_rows(problems, wrong, f"{column} does not add up from hands.parquet (R11)", where("games"))
    stalled = per_hand.reindex(g.index.droplevel("seat")).to_numpy()
    _bad_rows(problems, g[g.n_stalled.to_numpy() != stalled].reset_index(),
              "n_stalled is not the count of stalled hands (R10.2)", where("games"))  # fmt: skip
    top = g.groupby(level=["condition", "game"]).score.transform("max")
    leaders = (g.score == top).groupby(level=["condition", "game"]).transform("sum")
    won = (g.score == top) & (leaders == 1) & ~g.stalled
    tied = (g.score == top) & (leaders > 1) & ~g.stalled
    _bad_rows(problems, g[(g.won != won) | (g.tied != tied)].reset_index(),
              "won or tied is not what the final scores give (R11)", where("games"))  # fmt: skip
    for condition in experiment.conditions:
        target = condition.rules.target_score
        if target is None:
            continue
        h = ordered[ordered.condition == condition.name]
        last = h.groupby("game").hand.transform("max")
        early = h[(h.hand < last) & (h.score >= target)]
        _bad_rows(problems, early, f"the game went on after a score reached {target} (R11.1)", where("hands"))


def _replay(folder: Path, experiment: Experiment, hands: pd.DataFrame, n: int, result: Verification) -> None:
    """Replay `n` hands chosen from the experiment's seed and compare them with the stored rows."""
    chosen = hands.drop_duplicates(["condition", "game", "hand"])[["condition", "game", "hand"]]
    picks = chosen.sample(n=min(n, len(chosen)), random_state=np.random.default_rng(experiment.seed))
    for row in picks.sort_values(["condition", "game", "hand"]).itertuples(index=False):
        replayed = replay_hand(folder, condition=str(row.condition), game=int(row.game), hand=int(row.hand))
        if not replayed.matches:
            result.problems.append(
                f"{folder / 'hands.parquet'}: condition {row.condition}, game {row.game}, hand {row.hand} does not "
                f"replay from the seed to the stored rows: {replayed.mismatches[0]}"
            )
    result.checked.append(f"{len(picks)} replayed hand{'s' if len(picks) != 1 else ''}")


def verify_results(folder: str | Path, *, replay: int = 0) -> Verification:
    """Check a results folder (see the module's docstring); return what was checked and every problem found."""
    folder = Path(folder)
    result = Verification(folder)
    if not folder.is_dir():
        result.problems.append(f"{folder}: no such folder")
        return result
    if (folder / "chunks").is_dir():
        _check_chunks(folder, result)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        experiment = from_manifest(manifest, source=str(folder / MANIFEST))
    except FileNotFoundError:
        result.problems.append(f"{folder}: no {MANIFEST}; not the folder of a finished run")
        return result
    except (ValueError, RummysimError) as error:  # JSONDecodeError is a ValueError
        result.problems.append(f"{folder / MANIFEST}: does not load: {error}")
        return result
    result.checked.append("manifest")
    present = [kind for kind in ("hands", "games", "turns") if (folder / f"{kind}.parquet").exists()]
    _check_file_sums(folder, manifest, present, result)
    if {"hands", "games"} - set(present):
        source = manifest.get("source") or "its experiment file"
        lacking = " or ".join(f"{kind}.parquet" for kind in ("hands", "games") if kind not in present)
        result.unchecked.append(
            f"tables, rows, points and scores (no {lacking}: committed results keep only the manifest; "
            f"play them again with: rummysim run {source})"
        )
        if replay:
            result.unchecked.append("replayed hands (no hands.parquet to compare them with)")
        return result
    if not all([_check_schema(folder, kind, result) for kind in present]):
        return result  # an unreadable or foreign table is named; its rows are not read as data
    result.checked.append("schemas")
    hands, games = pd.read_parquet(folder / "hands.parquet"), pd.read_parquet(folder / "games.parquet")

    def where(kind: str) -> str:
        return str(folder / f"{kind}.parquet")

    _check_rows(experiment, hands, games, where, result.problems)
    result.checked.append("rows (every game x seat, every hand x seat)")
    _check_points(experiment, hands, where("hands"), result.problems)
    result.checked.append("points (R8)")
    _check_scores(experiment, hands, games, where, result.problems)
    result.checked.append("scores (R11)")
    if "turns" in present:
        stored = pq.read_metadata(folder / "turns.parquet").num_rows
        played = int(hands.drop_duplicates(["condition", "game", "hand"]).turns.sum())
        if stored != played:
            result.problems.append(f"{where('turns')}: {stored} rows, and hands.parquet counts {played} turns")
        result.checked.append("turns")
    if replay:
        if manifest.get("streams", 1) != STREAMS:
            result.unchecked.append(f"replayed hands (made under random streams v{manifest.get('streams', 1)})")
        else:
            _replay(folder, experiment, hands, replay, result)
    return result
