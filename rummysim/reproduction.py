"""A run into a folder of committed results plays them again and says whether its tables are the committed ones.

The repository commits each shipped experiment's manifest and report, not its tables
(results/README.md). A run of the same experiment into that folder therefore plays every game
again: it says so before it plays (`Committed.opening`), and ends with whether the tables it
wrote have the SHA-256 the committed manifest records (`Committed.verdict`). The committed
manifest is read before the run replaces it; a folder whose manifest is of another experiment,
or damaged, is not committed results of this one, and the run says nothing of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rummysim.design import Experiment
from rummysim.errors import ConfigError
from rummysim.manifest import MANIFEST, read_manifest
from rummysim.results import experiment_of

KINDS = ("hands", "games")
"""The tables every run writes, and so every committed manifest records."""


@dataclass(frozen=True)
class Committed:
    """The manifest of this experiment's results found in the folder without their tables."""

    folder: Path
    manifest: dict[str, Any]

    def games(self) -> dict[str, int]:
        """Return each condition's games in the committed run."""
        return games_of(self.manifest, str(self.folder / MANIFEST))

    def opening(self, experiment: Experiment) -> list[str]:
        """Return what the run says before it plays: that it reproduces these results, and what it leaves out."""
        made = self.manifest.get("started", "an unknown date")
        commit = str(self.manifest.get("git_commit") or "")[:12]
        lines = [
            f"{self.folder}: holds the committed results of this experiment (played {made}"
            + (f", commit {commit}" if commit else "")
            + "), without their tables: this run plays them again and checks its tables against that "
            f"{MANIFEST}'s SHA-256"
        ]
        committed = self.games()
        left_out = [c.name for c in experiment.conditions if c.strong and committed.get(c.name)]
        left_out = [name for name in left_out if not experiment.games_of(experiment.condition(name))]
        if left_out:
            games = sum(committed[name] for name in left_out)
            lines.append(
                f"{self.folder}: the committed run also played the checks with strong players ({games:,} games, "
                f"{', '.join(left_out)}); this run leaves them out, so its tables cannot be the committed ones: "
                "run with --strong to reproduce them whole"
            )
        return lines

    def verdict(self, manifest: Mapping[str, Any]) -> str:
        """Return the run's last line: whether its tables (`manifest`'s) are the committed ones, byte for byte."""
        ours, theirs = manifest.get("tables") or {}, self.manifest.get("tables") or {}
        names = " and ".join(f"{k}.parquet" for k in KINDS)
        if not all(isinstance(theirs.get(k), Mapping) and theirs[k].get("sha256") for k in KINDS):
            return f"{self.folder}: the committed {MANIFEST} records no checksums of its tables: nothing to compare"
        differ = [k for k in KINDS if ours.get(k, {}).get("sha256") != theirs[k]["sha256"]]
        if not differ:
            return (
                f"reproduced: {names} are the committed ones byte for byte "
                f"(SHA-256 {theirs['hands']['sha256'][:16]}... and {theirs['games']['sha256'][:16]}...)"
            )
        played, before = games_of(manifest, "this run's manifest"), self.games()
        other = [name for name in sorted(set(played) | set(before)) if played.get(name) != before.get(name)]
        first = differ[0]
        why = (
            f"this run played other games than the committed one ({_games(other, played, before)})"
            if other
            else "the same games gave other rows: a change of the rules or the bots since, or a fault; "
            f"see rummysim verify {self.folder}"
        )
        return (
            f"not reproduced: {first}.parquet has SHA-256 {ours.get(first, {}).get('sha256', '?')[:16]}..., the "
            f"committed {MANIFEST} records {theirs[first]['sha256'][:16]}...: {why}"
        )


def games_of(manifest: Mapping[str, Any], source: str) -> dict[str, int]:
    """Return each condition's games in the run `manifest` records."""
    experiment = experiment_of(manifest, source)
    return {c.name: experiment.games_of(c) for c in experiment.conditions}


def _games(names: list[str], played: Mapping[str, int], committed: Mapping[str, int]) -> str:
    shown = [f"{name}: {played.get(name, 0):,} against {committed.get(name, 0):,}" for name in names[:3]]
    return "; ".join(shown) + (f"; and {len(names) - 3} more" if len(names) > 3 else "")


def committed(folder: Path, experiment: Experiment) -> Committed | None:
    """Return the folder's manifest of this experiment if its tables are absent (committed results), else None."""
    if not (folder / MANIFEST).is_file() or any((folder / f"{k}.parquet").exists() for k in KINDS):
        return None
    try:
        manifest = read_manifest(folder / MANIFEST)
    except (ConfigError, OSError):
        return None
    if not isinstance(manifest, dict) or manifest.get("fingerprint") != experiment.fingerprint():
        return None
    try:
        games_of(manifest, str(folder / MANIFEST))
    except ConfigError:  # an experiment this version cannot read: not results of this one
        return None
    return Committed(folder, manifest)
