"""The sandbox of sealed bots (Linux): no network, no file system but the bot's own, limits, a clean environment.

A sealed bot (``isolate: true``) runs in its own process (`rummysim.strategies.sealed`).
Sandboxed, that process starts in new user, mount, network and PID namespaces made by
``unshare`` (util-linux, on every Linux; no root needed where unprivileged user
namespaces are allowed, the default of current distributions), and
`rummysim.strategies.sandbox_boot` builds its world before the bot's code runs:

- **network:** a network namespace of its own, with no interface up: nothing to reach,
  not even this machine's loopback;
- **files:** a root of its own: Python and its libraries, the rummysim package and the
  bot's own files, all read-only, and a scratch tmpfs (`LIMITS` ``scratch_mib``); no
  experiment file, no results folder, no home directory;
- **processes:** a PID namespace: its /proc shows its own processes only; it may not
  start new ones (seccomp, where libseccomp is installed: forbidden fork and clone), and
  when its server ends, the kernel ends every process left in the namespace;
- **limits:** memory (address space), CPU seconds, open files, file size (`LIMITS`);
- **environment:** scrubbed to a few variables (`ENVIRONMENT`); no capability.

Why ``unshare`` and not a library: it is part of util-linux, present wherever Linux is,
maintained with the kernel's interfaces; bubblewrap or nsjail do the same but are
packages a user would have to install. The boot process is ~150 lines of standard
library, readable in one sitting.

Where the sandbox cannot be had (not Linux, no ``unshare``, user namespaces disabled),
`unavailable` says why in one line and the run refuses to seal bots without it unless
the user chose to go on (``sandbox: false`` or ``--no-sandbox``).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LIMITS: dict[str, int] = {"memory_mib": 1024, "cpu_seconds": 3600, "open_files": 64, "file_mib": 16, "scratch_mib": 64}
"""A sealed bot's limits: address space, CPU seconds over its process's life, open files, size of a file it
writes, and its scratch space (the tmpfs its root lives in)."""
ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
"""The whole environment of a sandboxed bot: nothing of the user's."""
_SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
           "/etc/localtime")  # fmt: skip
_UNSHARE = ("--user", "--map-root-user", "--net", "--mount", "--pid", "--fork", "--kill-child")
BOOT = Path(__file__).with_name("sandbox_boot.py")
PACKAGE = Path(__file__).resolve().parent.parent
"""The rummysim package's folder, which a sandbox binds for the bot's server."""


def bot_files(spec: Mapping[str, Any]) -> list[str]:
    """Return the files a sealed bot's spec loads (its plug-in file, or its module or package), to bind read-only."""
    name = str(spec.get("strategy", ""))
    target = name.rpartition(":")[0]
    if not target:
        return []
    if target.endswith(".py") or "/" in target or "\\" in target:
        return [os.path.abspath(target)]  # as the spec names it (the server loads that path), links and all
    try:
        found = importlib.util.find_spec(target.partition(".")[0])
    except (ImportError, ValueError):
        return []
    if found is None or found.origin in (None, "built-in", "frozen"):
        return []
    origin = Path(str(found.origin))
    return [str(origin.parent if origin.name == "__init__.py" else origin)]


def _python_paths() -> list[str]:
    """Return what the bot's server needs to run Python and import rummysim: prefixes, site-packages, the package."""
    paths = {sys.base_prefix, sys.prefix, str(Path(sys.executable).parent), str(PACKAGE)}
    for entry in sys.path:
        if entry and Path(entry).name in ("site-packages", "dist-packages") and Path(entry).is_dir():
            paths.add(entry)
    return sorted(paths)


def command(argv: list[str], *, files: list[str], cwd: str, limits: Mapping[str, int] | None = None) -> list[str]:
    """Return the command that runs `argv` sandboxed, seeing `files` (and what Python needs) read-only."""
    config = {
        "binds": [*_SYSTEM, *_python_paths(), *files],
        "cwd": cwd,
        "argv": argv,
        "env": ENVIRONMENT,
        "limits": {**LIMITS, **(limits or {})},
    }
    unshare = shutil.which("unshare") or "unshare"
    return [unshare, *_UNSHARE, sys.executable, "-I", "-S", str(BOOT), json.dumps(config)]


@functools.cache
def unavailable() -> str | None:
    """Return why the sandbox cannot be had on this machine, in a few words; None if it can (tried once)."""
    if not sys.platform.startswith("linux"):
        return f"it needs Linux, and this is {sys.platform}"
    if shutil.which("unshare") is None:
        return "it needs util-linux's unshare, which is not on the PATH"
    probe = command([sys.executable, "-c", "import rummysim.strategies.sealed_host"], files=[], cwd="/tmp")
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unshare could not start ({error})"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"unshare failed: {said[:200]}"
    return None


def exit_reason(code: int | None, limits: Mapping[str, int] | None = None) -> str | None:
    """Return the limit a sandboxed bot's exit code says it hit, or None (128 + SIGXCPU; SIGKILL at the hard one)."""
    cpu = {**LIMITS, **(limits or {})}["cpu_seconds"]
    if code in (128 + 24, -24, 128 + 9, -9):
        if code in (128 + 24, -24):
            return f"the sandbox's CPU limit of {cpu} s"
        return "a kill (the CPU or memory limit, or a signal of its own)"
    if code == 70:
        return "the sandbox could not start it"
    return None
