"""``rummysim bench --main``: the main command timed as a new user meets it, from an empty cache and warm.

Each run is ``rummysim run FILE`` in a process of its own, into a new output folder, with
``XDG_CACHE_HOME`` pointing at a folder of the benchmark's: empty for the first run (so the
compiled kernels are compiled, as after a fresh install), the same folder for the second (the
cache warm). For each run it reports the wall time, the CPU time of the run and its workers,
the peak memory of the largest of those processes, and where the wall time went: the compile
(or reading the compiled kernels from the cache), the play, the merge of the chunks into the
tables, the analysis and the report (`rummysim.phases`, written by the run itself). The load
average before each run is printed beside it: a busy machine's figures are not a quiet one's.
Both runs must write the same ``hands.parquet``, byte for byte (`same_tables`).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rummysim.errors import ConfigError
from rummysim.experiment_file import read_experiment_file
from rummysim.phases import PHASES

ORDER = ("compile", "play", "merge", "analysis", "report")
"""The phases in the order a run goes through them (`rummysim.phases`)."""


def time_run(file: Path, *, cache: Path, out: Path, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run ``rummysim run FILE --out OUT`` in a new process with `cache` as its cache; return its figures.

    Raises `ConfigError` with the run's last line if it fails.
    """
    phases_file = out.parent / f"{out.name}-phases.json"
    env = os.environ | {"XDG_CACHE_HOME": str(cache), PHASES: str(phases_file)}
    load = os.getloadavg()[0]
    said = out.parent / f"{out.name}-said.txt"
    clock = time.perf_counter()
    with open(said, "w+", encoding="utf-8") as stdout, open(said.with_suffix(".err"), "w+", encoding="utf-8") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "rummysim", "run", str(file), "--out", str(out), "--quiet", *options],
            env=env, stdout=stdout, stderr=stderr,
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)  # this run's own usage: its process and the workers it waited for
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - clock
        stdout.seek(0)
        stderr.seek(0)
        printed, complaint = stdout.read(), stderr.read()
    if child.returncode != 0:
        last = (complaint.strip().splitlines() or ["(nothing said)"])[-1]
        raise ConfigError(f"{file}: the main command failed (exit status {child.returncode}): {last}")
    phases = json.loads(phases_file.read_text()) if phases_file.exists() else {}
    return {
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_gb": round(usage.ru_maxrss / 2**20, 2),  # KiB on Linux: the largest of its processes, not a sum
        "load_before": round(load, 2),
        **{f"{name}_seconds": round(float(phases.get(name, 0.0)), 2) for name in ORDER},
        "folder": printed.strip().splitlines()[0] if printed.strip() else str(out),
    }


def _hands_digest(folder: str) -> str:
    path = Path(folder) / "hands.parquet"
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def bench_main(file: str | Path = "experiments/acehigh.yaml", *, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Time the main command twice, from an empty compile cache and warm; return ``{"fresh": ..., "warm": ...}``.

    `options` are passed to ``rummysim run`` (``--strong``, ``--jobs 1``). Adds ``same_tables``:
    whether both runs wrote the same ``hands.parquet`` byte for byte.
    """
    file = Path(file)
    read_experiment_file(file)  # a missing or unreadable file is said in one line before minutes of timing
    with tempfile.TemporaryDirectory(prefix="rummysim-bench-main-") as scratch:
        root = Path(scratch)
        cache = root / "cache"
        cache.mkdir()
        fresh = time_run(file, cache=cache, out=root / "fresh", options=options)
        warm = time_run(file, cache=cache, out=root / "warm", options=options)
        same = _hands_digest(fresh.pop("folder")) == _hands_digest(warm.pop("folder"))
    return {"main_file": str(file), "fresh": fresh, "warm": warm, "same_tables": same}


def lines(figures: dict[str, Any]) -> list[str]:
    """Return the figures of `bench_main` as a small table, a line a run."""
    head = f"{'main command':<14}{'wall s':>8}{'cpu s':>8}{'peak GB':>9}{'load':>6}" + "".join(
        f"{name:>10}" for name in ORDER
    )
    rows = [f"rummysim run {figures['main_file']}", head]
    for run in ("fresh", "warm"):
        f = figures[run]
        rows.append(
            f"{run:<14}{f['wall_seconds']:>8.1f}{f['cpu_seconds']:>8.0f}{f['peak_gb']:>9.2f}{f['load_before']:>6.2f}"
            + "".join(f"{f[f'{name}_seconds']:>10.1f}" for name in ORDER)
        )
    rows.append("same tables (hands.parquet, byte for byte): " + ("yes" if figures["same_tables"] else "NO"))
    return rows
