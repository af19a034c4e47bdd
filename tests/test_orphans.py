"""No orphans (issue 22, part 7): a run killed with SIGKILL leaves no worker and no sealed bot's process behind.

Each test starts a real run in a subprocess whose bot never returns from its first decision
(the hardest case: no pipe to find closed), waits until its workers (loky) or its sealed bots'
processes (Dask's local cluster plays in the run's own process) are stuck in it, kills the run
with SIGKILL, which it cannot catch, and checks that every process it had started is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

STUCK_BOT = textwrap.dedent(
    '''
    import time

    from rummysim.strategies.greedy import Greedy


    class Stuck(Greedy):
        """Thinks for an hour, within its time limit: the run is still waiting when it is killed."""

        name = "stuck"

        def draw(self, view):
            time.sleep(3600)
    '''
)


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def descendants(pid: int) -> dict[int, str]:
    """Return the processes under `pid`, each with its command line."""
    found = {}
    with contextlib.suppress(psutil.NoSuchProcess):
        for child in psutil.Process(pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                found[child.pid] = " ".join(child.cmdline())
    return found


def start_run(tmp_path, *, backend: str, sealed: str) -> subprocess.Popen:
    bot = tmp_path / "stuckbot.py"
    bot.write_text(STUCK_BOT)
    data = {
        "name": "orphans", "question": "Does a killed run leave anything behind?", "seed": 5, "games": 100,
        "time_limit": 3600, "isolate": bool(sealed), "players": [{"strategy": f"{bot}:Stuck"}, "greedy"],
    }  # fmt: skip
    path = tmp_path / "orphans.yaml"
    path.write_text(json.dumps(data))
    args = ["run", str(path), "--out", str(tmp_path / "out"), "--jobs", "2", "--chunk-games", "1", "-q", "--no-report"]
    args += ["--backend", backend] + (["--no-sandbox"] if sealed == "plain" else [])
    return subprocess.Popen([sys.executable, "-m", "rummysim", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip


def wait_for(run: subprocess.Popen, ready) -> dict[int, str]:
    """Return the run's processes once `ready` says they are all there (within a generous bound)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = descendants(run.pid)
        if ready(found):
            return found
        assert run.poll() is None, f"the run ended first: {run.stderr.read().decode() if run.stderr else ''}"
        time.sleep(0.2)
    raise AssertionError(f"the run's processes never appeared: {descendants(run.pid)}")


def n_sealed(found: dict[int, str]) -> int:
    return sum("sealed_host" in line for line in found.values())


def n_workers(found: dict[int, str]) -> int:
    return sum("loky" in line and "resource_tracker" not in line for line in found.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("backend", "sealed", "ready"),
    [
        ("loky", "", lambda found: n_workers(found) >= 2),
        ("loky", "plain", lambda found: n_workers(found) >= 2 and n_sealed(found) >= 2),
        ("loky", "sandbox", lambda found: n_workers(found) >= 2 and n_sealed(found) >= 2),
        ("dask", "plain", lambda found: n_sealed(found) >= 2),
        ("dask", "sandbox", lambda found: n_sealed(found) >= 2),
    ],
    ids=["loky", "loky_sealed", "loky_sandboxed", "dask_sealed", "dask_sandboxed"],
)
def test_a_killed_run_leaves_no_process_behind(tmp_path, backend, sealed, ready):
    run = start_run(tmp_path, backend=backend, sealed=sealed)
    found: dict[int, str] = {}
    try:
        found = wait_for(run, ready)
        time.sleep(1)  # every bot deep in its decision
        found.update(descendants(run.pid))
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
        deadline = time.monotonic() + 30  # a worker looks for its run every half second
        while time.monotonic() < deadline and any(alive(pid) for pid in found):
            time.sleep(0.2)
        left = {pid: line for pid, line in found.items() if alive(pid)}
        assert not left, f"left behind after the run was killed: {left}"
    finally:
        for pid in [run.pid, *found]:  # only what this test started
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.wait(timeout=5)
        if run.stderr:
            run.stderr.close()
