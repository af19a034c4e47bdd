"""The sandbox of sealed bots (issue 22, part 2), against real targets.

Each attacking bot plays greedy and, in its first draw, tries one thing a sandbox must stop:
reach a listener on this machine's loopback, read another process's /proc, read a file
outside, start a child that outlives the run, read the user's environment. If the attack
works, the bot raises ``escaped: ...``. Sandboxed, every game ends normally; sealed without
the sandbox, the same bot escapes (so each test can fail).
"""

from __future__ import annotations

import os
import socket
import textwrap
import time

import psutil
import pytest

from rummysim.errors import ConfigError, StrategyError
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.runner import run_experiment
from rummysim.strategies import sandbox
from rummysim.strategies.sealed import SealedPool

# Where the kernel allows no user namespaces the sandbox cannot be had: there a run refuses to seal bots
# without it (the last test, which runs everywhere), and these tests of the sandbox itself cannot run.
needs_sandbox = pytest.mark.skipif(
    sandbox.unavailable() is not None, reason=f"the sandbox cannot be had here: {sandbox.unavailable()}"
)

ATTACKS = textwrap.dedent(
    '''
    import os
    import socket
    import subprocess

    from rummysim.strategies.greedy import Greedy


    class Attack(Greedy):
        """Greedy that tries its attack once, at its first draw; `escaped` if it works."""

        def __init__(self, *, rng=None, target=""):
            super().__init__(rng=rng)
            self.target = target
            self.tried = False

        def draw(self, view):
            if not self.tried:
                self.tried = True
                try:
                    found = self.attack()
                except Exception:
                    found = None
                if found:
                    raise RuntimeError(f"escaped: {found}")
            return super().draw(view)


    class Network(Attack):
        def attack(self):
            host, port = self.target.split(":")
            with socket.create_connection((host, int(port)), timeout=2) as connection:
                return connection.recv(64).decode()


    class OtherProcess(Attack):
        def attack(self):
            with open(f"/proc/{self.target}/environ", "rb") as handle:
                return f"read {len(handle.read())} bytes of /proc/{self.target}/environ"


    class OutsideFile(Attack):
        def attack(self):
            with open(self.target) as handle:
                return handle.read()


    class Child(Attack):
        def attack(self):
            child = subprocess.Popen(["sleep", "300"], start_new_session=True)
            with open(self.target, "w") as handle:
                handle.write(str(child.pid))
            return f"started {child.pid}"


    class Environment(Attack):
        def attack(self):
            return os.environ.get(self.target)


    class Hog(Greedy):
        def __init__(self, *, rng=None, target=""):
            super().__init__(rng=rng)

        def draw(self, view):
            self.hoard = bytearray(3 << 30)
            return super().draw(view)


    class Spin(Hog):
        def draw(self, view):
            while True:
                pass
    '''
)


@pytest.fixture
def bots(tmp_path):
    path = tmp_path / "attacks.py"
    path.write_text(ATTACKS)
    return path


def _spec(bots, name: str, target: object = "") -> dict:
    return {"strategy": f"{bots}:{name}", "target": str(target)}


def _play(bots, name: str, target: object, *, sandboxed: bool, time_limit: float = 20) -> None:
    with SealedPool(time_limit=time_limit, sandboxed=sandboxed) as pool:
        play_game([_spec(bots, name, target), "greedy"], seed=3, isolate=pool)


def _both(bots, name: str, target: object) -> str:
    """Play the attack sandboxed (it must fail) and sealed without the sandbox (it must escape); return the escape."""
    _play(bots, name, target, sandboxed=True)
    with pytest.raises(StrategyError, match="escaped") as escape:
        _play(bots, name, target, sandboxed=False)
    return str(escape.value)


@needs_sandbox
def test_a_sandboxed_bot_cannot_reach_a_listener_on_loopback(bots):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(5)
        port = server.getsockname()[1]
        answered = []

        def answer() -> None:
            try:
                connection, _ = server.accept()
                connection.sendall(b"hello from the machine")
                connection.close()
                answered.append(True)
            except OSError:
                pass

        import threading

        waiter = threading.Thread(target=answer)
        waiter.start()
        _play(bots, "Network", f"127.0.0.1:{port}", sandboxed=True)
        with pytest.raises(StrategyError, match="escaped: hello from the machine"):
            _play(bots, "Network", f"127.0.0.1:{port}", sandboxed=False)
        waiter.join()
    assert answered == [True]  # the one connection was the unsandboxed bot's


@needs_sandbox
def test_a_sandboxed_bot_cannot_read_another_process(bots):
    assert "environ" in _both(bots, "OtherProcess", os.getpid())


@needs_sandbox
def test_a_sandboxed_bot_cannot_read_a_file_outside_its_own(bots, tmp_path):
    secret = tmp_path / "experiment.yaml"
    secret.write_text("seed: 2026 # the deals")
    assert "seed: 2026" in _both(bots, "OutsideFile", secret)


@needs_sandbox
def test_a_sandboxed_bot_cannot_read_the_users_environment(bots, monkeypatch):
    monkeypatch.setenv("RUMMYSIM_TEST_TOKEN", "hunter2")
    assert "hunter2" in _both(bots, "Environment", "RUMMYSIM_TEST_TOKEN")


@needs_sandbox
def test_a_sandboxed_bot_starts_no_process_and_none_outlives_the_run(bots, tmp_path):
    pid_file = tmp_path / "child.pid"
    _play(bots, "Child", pid_file, sandboxed=True)
    assert not pid_file.exists()  # it could not start one (nor write outside its root)
    with pytest.raises(StrategyError, match="escaped: started"):
        _play(bots, "Child", pid_file, sandboxed=False)
    escaped = psutil.Process(int(pid_file.read_text()))
    assert escaped.is_running()  # what an unsandboxed bot leaves behind
    escaped.kill()


@needs_sandbox
def test_nothing_of_a_sandbox_is_left_when_its_pool_closes(bots):
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with SealedPool(time_limit=20, sandboxed=True) as pool:
        play_game([_spec(bots, "Attack"), "greedy"], seed=3, isolate=pool)
        inside = {p.pid for p in psutil.Process().children(recursive=True)} - before
        assert len(inside) >= 3  # unshare, the namespace's init and the bot's server
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(psutil.pid_exists(pid) for pid in inside):
        time.sleep(0.1)
    assert not [pid for pid in inside if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]


@needs_sandbox
def test_a_bot_over_the_memory_limit_ends_in_one_line_naming_seat_bot_and_limit(bots):
    with pytest.raises(StrategyError) as error:
        _play(bots, "Hog", "", sandboxed=True)
    text = str(error.value)
    assert "\n" not in text and "seat 0" in text and "Hog" in text and "memory limit" in text


@needs_sandbox
def test_a_bot_over_the_cpu_limit_ends_in_one_line_naming_seat_bot_and_limit(bots, monkeypatch):
    monkeypatch.setitem(sandbox.LIMITS, "cpu_seconds", 1)
    with pytest.raises(StrategyError) as error:
        _play(bots, "Spin", "", sandboxed=True, time_limit=60)
    text = str(error.value)
    assert "\n" not in text and "seat 0" in text and "Spin" in text and "CPU limit of 1 s" in text


def test_where_the_sandbox_cannot_be_had_a_run_refuses_in_one_line_unless_told_to_go_on(bots, tmp_path, monkeypatch):
    monkeypatch.setattr("rummysim.strategies.sandbox.unavailable", lambda: "it needs Linux, and this is plan9")
    experiment = parse_experiment(
        {"name": "sealed", "question": "q?", "seed": 1, "games": 2, "isolate": True,
         "players": [_spec(bots, "Attack"), "greedy"]},
        source="sealed.yaml",
    )  # fmt: skip
    with pytest.raises(ConfigError, match=r"sealed.yaml: isolate: the sandbox .* plan9\); .* --no-sandbox"):
        run_experiment(experiment, out=tmp_path, n_jobs=1)
    assert not (tmp_path / "sealed").exists()
    results = run_experiment(experiment, out=tmp_path, n_jobs=1, sandbox=False)
    assert len(results.games) == 4 and results.manifest["experiment"]["sandbox"] is False


def test_sandbox_false_in_a_file_is_listed_in_the_manifest_and_never_changes_the_fingerprint():
    base = {"name": "s", "question": "q?", "seed": 1, "games": 2, "players": ["greedy", "greedy"]}
    plain, without = (parse_experiment({**base, **extra}, source="s.yaml") for extra in ({}, {"sandbox": False}))
    assert plain.sandbox and not without.sandbox
    assert "sandbox" not in plain.to_dict() and without.to_dict()["sandbox"] is False
    assert plain.fingerprint() == without.fingerprint()
    with pytest.raises(ConfigError, match="sandbox"):
        parse_experiment({**base, "sandbox": "maybe"}, source="s.yaml")


@needs_sandbox
def test_a_plug_in_named_through_a_link_or_a_relative_path_plays_sandboxed(tmp_path, monkeypatch):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "bot.py").write_text(
        "from rummysim.strategies.greedy import Greedy\n\nclass Mine(Greedy):\n    name = 'mine'\n"
    )
    monkeypatch.chdir(tmp_path)
    for name in (f"{tmp_path}/link/bot.py:Mine", "link/bot.py:Mine", "real/../real/bot.py:Mine"):
        with SealedPool(time_limit=20, sandboxed=True) as pool:
            assert len(play_game([name, "greedy"], seed=1, isolate=pool).hands) > 0, name


@needs_sandbox
def test_a_one_file_module_inside_a_folder_already_bound_is_seen_through_it():
    import subprocess
    import sys

    import typing_extensions  # one file in site-packages (mypy's dependency), which is bound whole

    files = sandbox.bot_files({"strategy": "typing_extensions:Protocol"})
    assert files == [typing_extensions.__file__]
    done = subprocess.run(
        sandbox.command([sys.executable, "-c", "import typing_extensions"], files=files, cwd="/tmp"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # it once failed: a file bound over a read-only folder
