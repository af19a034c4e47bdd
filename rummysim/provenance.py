"""Where a run's results came from, for its manifest: the code, the libraries, the plug-in bots, the seeds.

The tables depend on the experiment and its seed alone; these records are there so that a
later difference (another machine, an upgraded library, an edited plug-in bot) can be
explained: the git commit, the version of every library the run and its report use (for
each plug-in bot, the SHA-256 of its source file: `rummysim.plugins.plugin_sources`).
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from rummysim.secret_seed import SECRET
from rummysim.seeding import Secret

LIBRARIES = ("numpy", "pandas", "pyarrow", "scipy", "statsmodels", "numba", "joblib", "matplotlib", "distributed")


def git_commit() -> str | None:
    """Return the commit of rummysim's source tree, or None outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def libraries() -> dict[str, str | None]:
    """Return the installed version of each library in `LIBRARIES` (None if it is not installed)."""
    versions: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


SEATS = (
    "seat s of game g plays players[(s + g) % n] (seating: rotate) or, with seating: every_order, players[p[s]], "
    "p the (g mod n!)-th permutation of range(n) in lexicographic order (rummysim.seating)"
)
"""How a game's seats are filled (R3.4), as the manifest records it."""


def seeds(seed: int) -> dict[str, Any]:
    """Return the seed and how every random stream derives from it (`rummysim.seeding`)."""
    if isinstance(seed, Secret):
        return {
            "seed": SECRET,
            "deal": "SplitMix64 keyed by derive(BLAKE2b(key=secret, (0, game)), hand): deal (sub-key 0), rebuild r",
            "strategy": "PCG64(BLAKE2b(key=secret, (1, game, seat))): each bot, a keyed one-way key",
            "first_dealer": "SplitMix64 keyed by BLAKE2b(key=secret, (2, game))",
            "seats": SEATS,
        }
    return {
        "seed": seed,
        "deal": "SplitMix64 keyed by derive(root(seed), 0, game, hand): deal (sub-key 0), rebuild r (1 + r)",
        "strategy": "PCG64(BLAKE2b(SeedSequence(seed, spawn_key=(1, game, seat)))): each bot, a one-way key",
        "first_dealer": "SplitMix64 keyed by derive(root(seed), 2, game)",
        "seats": SEATS,
    }
