"""The manifest of a finished run, read and checked like its tables: its shape, its own checksum, what it recomputes.

A run ends by writing ``manifest.json``: what was played (the resolved experiment and its
fingerprint, the seed, the version of the random streams), how, and each table's SHA-256
and rows. Everything read from a results folder starts from it, so it is checked before
anything trusts it:

- `read_manifest`: it is UTF-8 JSON, an object, with ``experiment`` an object, and each
  key this version knows of the type it writes (``tables`` an object of tables, each with
  a 64-digit ``sha256`` and whole ``rows``; ``streams`` a whole number; ...). Anything else
  is one line naming the file and the key. Unknown keys are kept, unchecked: a newer
  version's (or the ``secret*`` keys of a run with a secret seed) are not damage.
- `check_manifest`: what can be recomputed must agree. ``manifest_sha256``, the SHA-256 of
  the manifest's canonical JSON without that key (`seal`, written by the runner), must be
  the manifest's; the fingerprint recorded must be the one of the experiment it records
  (`rummysim.design.Experiment.fingerprint`), the seed in ``seeds`` and ``overrides`` the
  experiment's; each table's rows must be the file's (its Parquet footer) and games.parquet's
  the experiment's games times their seats; under a secret seed, every chunk's seed (``chunk_seeds``)
  the one the manifest reveals (a secret swapped mid-run is refused without a replay).

A manifest written before rummysim sealed its manifests has no ``manifest_sha256``: it is
read with the other checks (`rummysim verify` says its own checksum could not be checked).
The checksum is not a signature: whoever edits a manifest can seal it again, and what the
seed then gives is found by replaying hands (``rummysim verify --replay N``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from rummysim.errors import ConfigError
from rummysim.secret_seed import seed_text

MANIFEST = "manifest.json"
CHECKSUM = "manifest_sha256"
"""The key of the manifest's own checksum: SHA-256 of its `canonical` JSON without this key."""
TABLES = ("hands", "games", "turns")
SEALED = ("fingerprint", "streams", "seeds", "tables")
"""Keys every sealed manifest has (the runner has written them since before manifests were sealed)."""
_HEX = re.compile(r"[0-9a-f]{64}")
_WHOLE = (int,)
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "experiment": ((dict,), "an object"),
    "rummysim_version": ((str,), "a string"),
    "git_commit": ((str, type(None)), "a string or null"),
    "fingerprint": ((str,), "a string"),
    "source": ((str, type(None)), "a string or null"),
    "overrides": ((dict,), "an object"),
    "streams": (_WHOLE, "a whole number"),
    "engines": ((dict,), "an object"),
    "seeds": ((dict,), "an object"),
    "tables": ((dict,), "an object"),
    "precision": ((dict,), "an object"),
    "libraries": ((dict,), "an object"),
    "plugins": ((dict,), "an object"),
    "revealed": ((dict,), "an object"),
    "chunk_seeds": ((dict,), "an object"),
    CHECKSUM: ((str,), "a string"),
}
"""The type of each key this version writes and reads (the others are provenance, never read as data)."""


class Recorded(Protocol):
    """What the manifest's checks need of its experiment (`rummysim.design.Experiment`, a layer above)."""

    @property
    def seed(self) -> Any: ...

    def fingerprint(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


def canonical(manifest: Mapping[str, Any]) -> bytes:
    """Return the manifest's canonical JSON, without its own checksum: sorted keys, no spaces, ASCII."""
    content = {key: value for key, value in manifest.items() if key != CHECKSUM}
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def digest(manifest: Mapping[str, Any]) -> str:
    """Return the SHA-256 of the manifest's `canonical` JSON, in hex."""
    return hashlib.sha256(canonical(json.loads(json.dumps(manifest)))).hexdigest()


def seal(manifest: dict[str, Any]) -> dict[str, Any]:
    """Record the manifest's own checksum in it (``manifest_sha256``, replacing any), and return it."""
    manifest.pop(CHECKSUM, None)
    manifest[CHECKSUM] = digest(manifest)
    return manifest


def read_manifest(path: Path) -> dict[str, Any]:
    """Return the manifest at `path`, or raise `ConfigError` in one line if it is damaged (see the module's docstring).

    A missing file raises `FileNotFoundError`, for the caller to say what the folder is.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a manifest: not UTF-8 text (byte {error.start}); damaged") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: not a manifest: a folder") from None
    if not text.strip():
        raise ConfigError(f"{path}: not a manifest: empty (a run stopped while writing it, or a damaged file)")
    try:
        manifest = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        where = f" (line {error.lineno}, column {error.colno}: {error.msg})" if isinstance(error, ValueError) else ""
        raise ConfigError(f"{path}: not a manifest: not valid JSON{where}; truncated or damaged") from None
    check_shape(manifest, str(path))
    return manifest


def check_shape(manifest: Any, source: str) -> None:
    """Raise `ConfigError` unless the manifest is an object with ``experiment`` and each known key of its type."""
    if not isinstance(manifest, dict):
        raise ConfigError(f"{source}: not a manifest: a JSON {_kind(manifest)}, not an object")
    if "experiment" not in manifest:
        raise ConfigError(f"{source}: experiment: missing; not the manifest of a run")
    needed = SEALED if CHECKSUM in manifest else ()
    for key in needed:
        if key not in manifest:
            raise ConfigError(f"{source}: {key}: missing; every manifest this version writes has it")
    for key, (types, noun) in _TYPES.items():
        if key in manifest and (not isinstance(manifest[key], types) or isinstance(manifest[key], bool)):
            raise ConfigError(f"{source}: {key}: expected {noun}, got a {_kind(manifest[key])}")
    if CHECKSUM in manifest and not _HEX.fullmatch(manifest[CHECKSUM]):
        raise ConfigError(f"{source}: {CHECKSUM}: expected 64 hexadecimal digits")
    for kind, record in (manifest.get("tables") or {}).items():
        where = f"{source}: tables.{str(kind)[:40]}"
        if kind not in TABLES:
            raise ConfigError(f"{where}: not a table of rummysim's ({', '.join(TABLES)})")
        if not isinstance(record, dict):
            raise ConfigError(f"{where}: expected an object, got a {_kind(record)}")
        if not isinstance(record.get("sha256"), str) or not _HEX.fullmatch(record["sha256"]):
            raise ConfigError(f"{where}.sha256: expected 64 hexadecimal digits")
        rows = record.get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            raise ConfigError(f"{where}.rows: expected a whole number, got {str(rows)[:40]}")


def _kind(value: Any) -> str:
    """Return the JSON name of a value's type."""
    names = {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def legacy_fingerprint(experiment: Recorded, streams: int) -> str:
    """Return the fingerprint as rummysim wrote it before the number of games left it (results/bots keeps one)."""
    data = experiment.to_dict()
    old = {key: data[key] for key in ("name", "seed", "games")} | {"streams": streams}
    old["conditions"] = [{k: c[k] for k in ("name", "games", "rules", "players")} for c in data["conditions"]]
    return hashlib.sha256(json.dumps(old, sort_keys=True).encode()).hexdigest()[:16]


def check_manifest(manifest: Mapping[str, Any], experiment: Recorded, folder: Path, *, game_rows: int) -> list[str]:
    """Return what the manifest records that its own content, its experiment or its tables contradict (see above).

    `game_rows`: the game x seat rows its experiment implies (each condition's games times its seats).
    """
    source = folder / MANIFEST
    problems = []
    if CHECKSUM in manifest and manifest[CHECKSUM] != digest(manifest):
        problems.append(f"{source}: does not match its own checksum ({CHECKSUM}): edited or damaged since the run")
    stored = manifest.get("fingerprint")
    streams = manifest.get("streams", 1)
    if stored is not None and stored not in (experiment.fingerprint(), legacy_fingerprint(experiment, streams)):
        problems.append(f"{source}: fingerprint {str(stored)[:20]} is not its experiment's, {experiment.fingerprint()}:"
                        " the experiment or the fingerprint was edited")  # fmt: skip
    for key, record in (("seeds", manifest.get("seeds")), ("overrides", manifest.get("overrides"))):
        if isinstance(record, Mapping) and "seed" in record and record["seed"] != seed_text(experiment.seed):
            problems.append(f"{source}: {key}.seed {str(record['seed'])[:20]} is not its experiment's seed, "
                            f"{seed_text(experiment.seed)}: the seed was edited")  # fmt: skip
    problems += _check_chunk_seeds(manifest, source)
    problems += _check_rows(manifest, folder, game_rows=game_rows)
    return problems


def _check_chunk_seeds(manifest: Mapping[str, Any], source: Path) -> list[str]:
    """Return the chunks a secret-seed run records as played under another seed than the one it reveals."""
    seeds = manifest.get("chunk_seeds") or {}
    return [
        f"{source}: chunk_seeds: chunk {str(chunk)[:40]} was played under the secret seed {str(seed)[:16]}..., not "
        f"{str(manifest.get('secret_sha256'))[:16]}... that the manifest reveals: the secret was changed mid-run"
        for chunk, seed in seeds.items()
        if seed != manifest.get("secret_sha256")
    ]


def _check_rows(manifest: Mapping[str, Any], folder: Path, *, game_rows: int) -> list[str]:
    """Return where the rows recorded disagree with the tables' footers or with the experiment's games."""
    problems = []
    tables = manifest.get("tables") or {}
    games = tables.get("games")
    if games is not None and games["rows"] != game_rows:
        problems.append(f"{folder / MANIFEST}: tables.games.rows is {games['rows']}, and its experiment's games "
                        f"make {game_rows} game x seat rows: the experiment or the rows were edited")  # fmt: skip
    for kind, record in tables.items():
        path = folder / f"{kind}.parquet"
        try:
            rows = pq.read_metadata(path).num_rows
        except (OSError, pa.ArrowException):
            continue  # missing or unreadable: named by the checksums
        if rows != record["rows"]:
            problems.append(f"{path}: {rows} rows, and {MANIFEST} records {record['rows']}")
    return problems
