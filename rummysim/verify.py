"""Verify a results folder someone hands you: its files are the files written, and its rows are the rules' rows.

`verify_results` checks, in order, what the folder has:

- the manifest loads (`rummysim.manifest`: one problem if it is damaged) and agrees with
  itself: its own checksum, its fingerprint and seed recomputed from its experiment, its
  rows against the tables' footers and the experiment's games;
- each table (and, in a stopped run, each chunk) matches the SHA-256 recorded for it, and
  no table the manifest records is missing;
- each table has the schema of `rummysim.results.SCHEMAS`; then, game by game, reading the
  tables in row batches (`rummysim.verify_rows`, so memory does not grow with the run):
  the rows the experiment implies and each seat's seating (R3.4), every hand's points
  from the holdings left (R8, R12.3) and the scores (R11);
- optionally, N hands drawn across the run from a sample seed replay from the
  experiment's seed to the stored rows, on the reference or the compiled engine.

A `Checking` (`rummysim.progress.StepBar`) hears each step as it begins and how far the
counted ones have gone: the chunks, the hand rows (against ``hands.parquet``'s footer;
nearly all the time of a large run, most of it the points' check) and the replayed hands.

What a folder lacks (committed results keep only the manifest and the report) is listed
as not checked, never as a problem; anything checked and wrong is a problem, named with
its table, condition, game, hand and seat and the rule it breaks.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import rummysim.compiled as compiled
from rummysim.checksums import check_chunk, check_file
from rummysim.design import Experiment
from rummysim.errors import RummysimError
from rummysim.ledger import Ledger
from rummysim.manifest import CHECKSUM, check_manifest
from rummysim.replay import replay_hand
from rummysim.results import MANIFEST, SCHEMAS, game_rows, load_results
from rummysim.resume import STATE
from rummysim.seeding import STREAMS
from rummysim.strategies.registry import builtin
from rummysim.verify_rows import BATCH_ROWS, Problems, Tally, check_block, check_end, offer, paired_blocks

ENGINES = ("python", "compiled")
"""The engines a sample of hands replays on (`rummysim.engine_choice`)."""


class Checking(Protocol):
    """What hears how far `verify_results` has gone (`rummysim.progress.StepBar`).

    The steps, in order, each only where the folder has what it checks: ``checking the
    chunks`` (a stopped run's; counted in chunks), ``checking the manifest``, ``checking the
    checksums``, ``checking the rows`` (counted in hand rows, to the rows in ``hands.parquet``'s
    footer) and ``replaying the hands`` (counted in hands).
    """

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        """Hear that the step `name` begins: `total` `unit`s to count, or None if it counts nothing."""

    def __call__(self, done: int) -> None:
        """Hear that `done` more units of the counted step are checked."""


class _Unheard:
    """A `Checking` that hears nothing: `verify_results` with no `progress`."""

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        pass

    def __call__(self, done: int) -> None:
        pass


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


def _check_file_sums(folder: Path, manifest: dict[str, Any], present: list[str], result: Verification) -> None:
    recorded = manifest.get("tables") or {}
    unrecorded = [kind for kind in present if "sha256" not in (recorded.get(kind) or {})]
    for kind in present:
        record = recorded.get(kind) or {}
        if "sha256" in record:
            problem = check_file(folder / f"{kind}.parquet", record)
            if problem:
                result.problems.append(f"{folder / kind}.parquet: {problem.split(' ', 1)[1]} in {MANIFEST}")
    if unrecorded:
        written_by = manifest.get("rummysim_version", "an unknown version")
        result.unchecked.append(
            f"checksums of {', '.join(unrecorded)} (the manifest, written by rummysim {written_by}, records none)"
        )
    if len(unrecorded) < len(present):
        result.checked.append("checksums")


def _check_chunks(folder: Path, result: Verification, progress: Checking) -> None:
    """Check a stopped run's chunks against its ledger (`rummysim.ledger`), telling `progress` of each."""
    chunk_dir = folder / "chunks"
    ledger = Ledger(folder)
    try:
        committed = json.loads((folder / STATE).read_text()).get("secret_sha256")
    except (OSError, ValueError, AttributeError):
        committed = None
    on_disk = sorted(p.name for p in chunk_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    every = sorted(set(on_disk) | set(ledger.records))
    progress.phase("checking the chunks", len(every), "chunk")
    for chunk_id in every:
        progress(1)
        record = ledger.records.get(chunk_id)
        problem = check_chunk(chunk_dir / chunk_id, record) if record is not None else "is not in the ledger"
        if problem:
            result.problems.append(f"{chunk_dir / chunk_id}: {problem} (rummysim run plays it again)")
        elif committed and ledger.seeds.get(chunk_id) != committed:  # the secret of run.json, or another
            result.problems.append(f"{chunk_dir / chunk_id}: was played under another secret seed than run.json's "
                                   f"({str(committed)[:16]}...): the secret was changed mid-run")  # fmt: skip
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


def _load(folder: Path, result: Verification) -> tuple[dict[str, Any], Experiment] | None:
    """Return the manifest and its experiment, checked (`rummysim.manifest`); None, with the problem, if damaged."""
    try:
        results = load_results(folder)
        experiment = results.experiment
    except RummysimError as error:
        result.problems.append(str(error))
        return None
    manifest = results.manifest
    result.problems += check_manifest(manifest, experiment, folder, game_rows=game_rows(experiment))
    result.checked.append("manifest")
    if experiment.commitments is not None:  # derived again as the manifest was read (rummysim.commitments)
        result.checked.append(
            f"the seed (derived again from the committed secret and {experiment.commitments.nonces_text})"
        )
    if manifest.get("chunk_seeds"):
        result.checked.append(f"each of {len(manifest['chunk_seeds'])} chunks played under the seed revealed")
    if CHECKSUM not in manifest:
        version = manifest.get("rummysim_version", "unknown")
        result.unchecked.append(f"the manifest's own checksum (written by rummysim {version}, before it sealed them)")
    return manifest, experiment


def _check_present(folder: Path, manifest: dict[str, Any], present: list[str], result: Verification) -> bool:
    """Name each table the manifest records that is missing; return True if hands and games are there to check.

    A folder with neither (committed results keep only the manifest and report) is said as not checked.
    """
    if not {"hands", "games"} & set(present):
        source = manifest.get("source") or "its experiment file"
        result.unchecked.append(
            "tables, rows, points and scores (no hands.parquet or games.parquet: committed results keep only the "
            f"manifest; play them again with: rummysim run {source})"
        )
        return False
    for kind in manifest.get("tables") or {}:
        if kind not in present:
            result.problems.append(f"{folder / kind}.parquet: missing, and {MANIFEST} records it")
    for kind in ("hands", "games"):
        if kind not in present and kind not in (manifest.get("tables") or {}):
            result.problems.append(f"{folder / kind}.parquet: missing (every finished run has it)")
    return {"hands", "games"} <= set(present)


def _check_tables(folder: Path, experiment: Experiment, result: Verification, *, batch_rows: int,
                  sample: tuple[int, int], progress: Checking) -> Tally:  # fmt: skip
    """Check the rows, points and scores game by game (`rummysim.verify_rows`); return what spans the games.

    `progress` hears the hand rows of each block once it is checked.
    """

    def where(kind: str) -> str:
        return str(folder / f"{kind}.parquet")

    problems, tally = Problems(), Tally()
    progress.phase("checking the rows", pq.read_metadata(folder / "hands.parquet").num_rows, "row")
    for hands, games in paired_blocks(folder, experiment, batch_rows, tally):
        check_block(experiment, hands, games, where, problems, tally)
        offer(hands, tally, n=sample[0], seed=sample[1])
        progress(len(hands))
    if tally.disorder:
        result.problems.append(tally.disorder)
        return tally
    check_end(experiment, where, problems, tally)
    result.problems += problems.lines()
    result.checked += ["rows (every game x seat, every hand x seat)", "points (R8)", "scores (R11)"]
    if (folder / "turns.parquet").exists():
        stored = pq.read_metadata(folder / "turns.parquet").num_rows
        if stored != tally.turns:
            result.problems.append(f"{where('turns')}: {stored} rows, and hands.parquet counts {tally.turns} turns")
        result.checked.append("turns")
    return tally


def verify_results(
    folder: str | Path, *, replay: int = 0, engine: str = "python", sample_seed: int | None = None,
    batch_rows: int = BATCH_ROWS, progress: Checking | None = None,
) -> Verification:  # fmt: skip
    """Check a results folder (see the module's docstring); return what was checked and every problem found.

    `replay` hands are drawn across the run from `sample_seed` (the same seed, the same hands;
    by default one drawn from the system, named in the summary) and played again on `engine`
    (``python`` or ``compiled``). The tables are read `batch_rows` rows at a time.
    `progress` hears each step and how far the counted ones have gone (`Checking`).
    """
    folder = Path(folder)
    progress = progress or _Unheard()
    result = Verification(folder)
    if not folder.is_dir():
        result.problems.append(f"{folder}: no such folder")
        return result
    if (folder / "chunks").is_dir():
        _check_chunks(folder, result, progress)
    progress.phase("checking the manifest")
    loaded = _load(folder, result)
    if loaded is None:
        return result
    manifest, experiment = loaded
    present = [kind for kind in ("hands", "games", "turns") if (folder / f"{kind}.parquet").exists()]
    progress.phase("checking the checksums")
    _check_file_sums(folder, manifest, present, result)
    if not _check_present(folder, manifest, present, result):
        if replay:
            result.unchecked.append("replayed hands (no hands.parquet to compare them with)")
        return result
    if not all([_check_schema(folder, kind, result) for kind in present]):
        return result  # an unreadable or foreign table is named; its rows are not read as data
    result.checked.append("schemas")
    sample_seed = secrets.randbits(32) if sample_seed is None else sample_seed
    tally = _check_tables(folder, experiment, result, batch_rows=batch_rows, sample=(replay, sample_seed),
                          progress=progress)  # fmt: skip
    if replay and not tally.disorder:
        if manifest.get("streams", 1) != STREAMS:
            result.unchecked.append(f"replayed hands (made under random streams v{manifest.get('streams', 1)})")
        else:
            replay_sample(folder, experiment, tally.sample, result, engine=engine, sample_seed=sample_seed,
                          progress=progress)  # fmt: skip
    return result


def replay_sample(folder: Path, experiment: Experiment, sample: pd.DataFrame, result: Verification, *, engine: str,
                  sample_seed: int, progress: Checking | None = None) -> None:  # fmt: skip
    """Replay the sampled hands on `engine` and compare them with the stored rows; name each that differs.

    `progress` hears the hands of each game once replayed (those a compiled engine cannot play too).
    """
    progress = progress or _Unheard()
    picks = sample.sort_values(["condition", "game", "hand"])
    progress.phase("replaying the hands", len(picks), "hand")
    replayed = 0
    for (name, game), hands in picks.groupby(["condition", "game"], sort=False):
        condition = experiment.condition(str(name))
        for hand, mismatch in _replayed(folder, experiment, condition, int(game), list(hands.hand), engine, result):
            replayed += 1
            if mismatch:
                result.problems.append(
                    f"{folder / 'hands.parquet'}: condition {name}, game {game}, hand {hand} does not replay from "
                    f"the seed to the stored rows ({engine} engine): {mismatch}"
                )
        progress(len(hands))
    noun = f"{replayed} replayed hand{'s' if replayed != 1 else ''}"
    result.checked.append(f"{noun} ({engine} engine, sample seed {sample_seed})")


def _replayed(folder: Path, experiment: Experiment, condition: Any, game: int, hands: list[int], engine: str,
              result: Verification) -> list[tuple[int, str | None]]:  # fmt: skip
    """Return each hand of a game replayed on `engine` with its first difference from the stored rows (or None)."""
    if engine == "python":
        return [(h, _replay_python(folder, condition.name, game, h)) for h in hands]
    twinless = [s for s in condition.players if (cls := builtin(s)) is None or cls.name not in compiled.TWINS]
    try:
        if twinless:
            raise RuntimeError(f"{twinless[0]['strategy']} has no compiled twin")
        tables, _ = compiled.load().play_chunk_tables(condition.name, condition.rules, condition.players,
                                                      seed=experiment.seed, start=game, stop=game + 1,
                                                      seating=condition.seating)  # fmt: skip
    except RuntimeError as error:
        result.unchecked.append(f"hands of condition {condition.name} on the compiled engine ({error}; "
                                "replay them with --engine python)")  # fmt: skip
        return []
    played = tables["hands"].to_pandas()
    stored = pd.read_parquet(folder / "hands.parquet", filters=[("condition", "==", condition.name),
                                                                 ("game", "==", game)])  # fmt: skip
    return [(h, _difference(played[played.hand == h], stored[stored.hand == h])) for h in hands]


def _replay_python(folder: Path, condition: str, game: int, hand: int) -> str | None:
    """Return the first difference of a hand replayed on the reference engine from its stored rows, or None."""
    try:
        replayed = replay_hand(folder, condition=condition, game=game, hand=hand)
    except RummysimError as error:  # the seed's game has no such hand, or a bot fails in it
        return str(error)
    return replayed.mismatches[0] if replayed.mismatches else None


def _difference(played: pd.DataFrame, stored: pd.DataFrame) -> str | None:
    """Return the first difference of a hand's replayed rows from its stored ones, or None."""
    if len(played) != len(stored):
        return f"rows: replayed {len(played)}, stored {len(stored)}"
    played, stored = played.sort_values("seat"), stored.sort_values("seat")
    for column in SCHEMAS["hands"].names:
        a, b = played[column].tolist(), stored[column].tolist()
        for seat, x, y in zip(played.seat, a, b, strict=True):
            if x != y and not (pd.isna(x) and pd.isna(y)):
                return f"seat {seat} {column}: replayed {x!r}, stored {y!r}"
    return None
