"""The first compile on two cores (`rummysim.compiled.prebuild`): the second process compiles what the callers use.

A kernel prebuilt for argument types its callers do not pass would be compiled again by
them: the rows would be the same, only the time lost. The slow test compiles from an empty
cache as a user's first run does, and checks every prebuilt signature is the one the
turn and the game loop ask for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from rummysim.compiled import prebuild

pytest.importorskip("numba")

_CHECK = """
import json
import rummysim.compiled as compiled
from rummysim.compiled import prebuild
compiled.load()
types = prebuild.signatures()
found = prebuild.kernels()
print(json.dumps({name: types[name] in found[name].signatures for name in found}))
"""


def _run(code: list[str], cache: Path, **env: str) -> str:
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), **env}
    return subprocess.run([sys.executable, *code], env=environment, capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_the_kernels_prebuilt_by_the_second_process_are_the_ones_the_turn_calls(tmp_path: Path) -> None:
    folder = _run(["-c", "from rummysim.compiled import cache_dir; print(cache_dir())"], tmp_path).strip()
    _run(["-m", "rummysim.compiled.prebuild", folder], tmp_path)
    for name in prebuild.HELPER:
        assert list(Path(folder).rglob(f"*.{name}-*.nbi")), f"the second process did not cache {name}"
    used = json.loads(_run(["-c", _CHECK], tmp_path, RUMMYSIM_PREBUILD="0"))
    assert used == dict.fromkeys([*prebuild.HELPER, *prebuild.OWN], True)


class _Helper:
    """A stand-in for the second process: records how it was waited for and ended."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.waited: list[float | None] = []
        self.killed = False
        self.running = True
        _Helper.made.append(self)

    made: ClassVar[list[_Helper]] = []

    def wait(self, timeout: float | None = None) -> int:
        self.waited.append(timeout)
        return 0

    def poll(self) -> int | None:
        return None if self.running else 0

    def kill(self) -> None:
        self.killed = True
        self.running = False


def test_this_process_compiles_its_own_half_then_waits_for_the_helper(monkeypatch, tmp_path) -> None:
    compiled: list[tuple[str, ...]] = []
    _Helper.made.clear()
    monkeypatch.setenv(prebuild.SWITCH, "1")
    monkeypatch.setattr(prebuild.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(prebuild.subprocess, "Popen", _Helper)
    monkeypatch.setattr(prebuild, "compile_kernels", compiled.append)
    with prebuild.two_cores(tmp_path):
        assert compiled == [prebuild.OWN]
        assert _Helper.made[0].waited == [prebuild.WAIT]
    assert _Helper.made[0].killed  # still running once the compile is done: ended, not left behind


@pytest.mark.parametrize("why", ["switched off", "one core", "no second process"])
def test_without_a_second_process_every_kernel_compiles_where_it_is_called(monkeypatch, tmp_path, why) -> None:
    compiled: list[tuple[str, ...]] = []

    def cannot_start(*args: object, **kwargs: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setenv(prebuild.SWITCH, "0" if why == "switched off" else "1")
    monkeypatch.setattr(prebuild.os, "cpu_count", lambda: 1 if why == "one core" else 2)
    monkeypatch.setattr(prebuild.subprocess, "Popen", cannot_start)
    monkeypatch.setattr(prebuild, "compile_kernels", compiled.append)
    entered = False
    with prebuild.two_cores(tmp_path):
        entered = True
    assert entered and compiled == []


def test_every_prebuilt_kernel_has_its_callers_types() -> None:
    assert set(prebuild.signatures()) == {*prebuild.HELPER, *prebuild.OWN}
    assert not set(prebuild.HELPER) & set(prebuild.OWN)
