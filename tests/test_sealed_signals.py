"""Issue 43 part 2: a sealed bot's process is in a session and process group of its own, with no controlling
terminal and no descriptor of the host's: no signal it sends reaches the run, and what it prints reaches the run's
stderr only as marked, escaped, capped lines."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from rummysim.strategies import sandbox
from rummysim.strategies.sealed import OUTPUT_BYTES

pytestmark = pytest.mark.skipif(sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}")

HOSTILE = textwrap.dedent(
    """
    import os
    import signal

    from rummysim.strategies.greedy import Greedy

    class Signals(Greedy):
        name = "signals"

        def __init__(self, *, rng=None, sig="SIGKILL", to="group"):
            super().__init__(rng=rng)
            self.sig, self.to = getattr(signal, sig), to

        def draw(self, view):
            target = {"group": 0, "everyone": -1, "parent": os.getppid(), "self": os.getpid()}[self.to]
            os.kill(target, self.sig)
            return super().draw(view)

    class Whispers(Greedy):
        name = "whispers"  # a colluder signalling every process it can name but its own sandbox's (and their threads)

        def draw(self, view):
            own = {int(t) for p in os.listdir("/proc") if p.isdigit() for t in os.listdir(f"/proc/{p}/task")}
            for target in range(1, 1000):
                if target not in own:
                    try:
                        os.kill(target, signal.SIGUSR1)
                    except OSError:
                        pass
            return super().draw(view)

    class Counts(Greedy):
        name = "counts"  # a colluder listening for a partner's signals: a covert channel, if any arrives

        def __init__(self, *, rng=None):
            super().__init__(rng=rng)
            self.heard = 0
            for sig in (signal.SIGUSR1, signal.SIGUSR2):  # not SIGCONT: the engine sends it before each request
                signal.signal(sig, self._hear)

        def _hear(self, signum, frame):
            self.heard += 1

        def discard(self, view):
            if self.heard:
                raise RuntimeError(f"heard {self.heard} signals from outside its sandbox")
            return super().discard(view)

    class Forger(Greedy):
        name = "forger"

        def draw(self, view):
            os.write(2, b"seat 1 (greedy) made an illegal move (R4.5)\\r\\x1b[2Kforged\\n")
            os.write(1, b"x" * 70000 + b"\\n")
            return super().draw(view)

    class Descriptors(Greedy):
        name = "descriptors"

        def draw(self, view):
            named = {}
            for fd in map(int, os.listdir("/proc/self/fd")):
                try:
                    named[fd] = os.readlink(f"/proc/self/fd/{fd}")
                except OSError:  # the listing's own descriptor, closed since
                    pass
            host = {fd: where for fd, where in named.items() if not where.startswith(("pipe:", "/dev/null", "/proc"))}
            try:
                open("/dev/tty").close()
                host["tty"] = "/dev/tty"
            except OSError:
                pass
            if host:
                raise RuntimeError(f"holds the host's {host}")
            return super().draw(view)
    """
)
GAME = textwrap.dedent(
    """
    import sys
    from rummysim.errors import StrategyError
    from rummysim.game import play_game
    from rummysim.strategies.sealed import SealedPool

    spec = {{"strategy": {spec!r}, **{params!r}}}
    try:
        with SealedPool(time_limit=3, sandboxed=True) as pool:
            play_game([spec, "greedy"], seed=3, isolate=pool)
        print("played")
    except StrategyError as error:
        print("stopped:", error)
    print("the run goes on")
    """
)


@pytest.fixture
def bots(tmp_path):
    path = tmp_path / "hostile.py"
    path.write_text(HOSTILE)
    return path


def _run(bots, name: str, **params: str) -> subprocess.CompletedProcess[str]:
    """Play one game with the hostile bot sealed, in a run of its own session (so a signal that escaped would end it,
    not this test), and return how the run ended."""
    code = GAME.format(spec=f"{bots}:{name}", params=params)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          start_new_session=True, cwd=bots.parent)  # fmt: skip


@pytest.mark.parametrize("to", ["group", "everyone", "parent", "self"])
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGHUP", "SIGINT", "SIGSTOP"])
def test_no_signal_a_sealed_bot_sends_leaves_its_sandbox(bots, sig, to):
    done = _run(bots, "Signals", sig=sig, to=to)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-2000:])
    assert done.stdout.rstrip().endswith("the run goes on"), done.stdout
    said = done.stdout.splitlines()[0]
    assert said == "played" or (said.startswith("stopped: seat 0 (hostile.py:Signals(") and "\n" not in said)


def test_sealed_colluders_cannot_signal_each_other(bots):
    """Two sealed entrants at one table: one signals everyone it can reach on every draw, the other listens."""
    code = textwrap.dedent(
        f"""
        from rummysim.game import play_game
        from rummysim.strategies.sealed import SealedPool

        with SealedPool(time_limit=3, sandboxed=True) as pool:
            for game in range(3):
                play_game(["{bots}:Whispers", "{bots}:Counts", "greedy"], seed=game, game=game, isolate=pool)
        print("never heard")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                          start_new_session=True, cwd=bots.parent)  # fmt: skip
    assert done.stdout.strip() == "never heard", done.stdout + done.stderr[-2000:]


def test_what_a_sealed_bot_writes_to_its_fds_is_marked_escaped_and_capped(bots):
    done = _run(bots, "Forger")
    assert done.returncode == 0 and "the run goes on" in done.stdout, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("seat 0 (hostile.py:Forger), sealed, printed") for line in lines), lines[:3]
    assert not any("\x1b" in line or "\r" in line for line in lines)
    assert any(
        line.endswith(r"printed: seat 1 (greedy) made an illegal move (R4.5)\x0d\x1b[2Kforged") for line in lines
    )
    assert lines[-1].endswith(f"printed more than {OUTPUT_BYTES:,} bytes; the rest is cut")
    assert len(done.stderr.encode()) < 2 * OUTPUT_BYTES


def test_a_sealed_bot_holds_no_descriptor_of_the_host_and_no_terminal(bots):
    done = _run(bots, "Descriptors")
    assert done.stdout.splitlines()[0] == "played", done.stdout + done.stderr[-2000:]


def test_the_run_keeps_its_own_process_group_and_session(bots):
    """The sealed server leads a session of its own: the run's group and session hold no process of a bot's."""
    code = textwrap.dedent(
        f"""
        import os
        from rummysim.strategies.sealed import SealedPool
        with SealedPool(time_limit=3, sandboxed=True) as pool:
            sealed = pool.bot(0, {{"strategy": "{bots}:Forger"}}, key=1)
            pid = sealed.process.process.pid
            print(os.getsid(pid) == pid, os.getpgid(pid) == pid, os.getsid(pid) != os.getsid(0))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          start_new_session=True)  # fmt: skip
    assert done.stdout.split() == ["True", "True", "True"], done.stdout + done.stderr
    assert os.getpgrp() != 0 and signal.SIGKILL  # this test's own group untouched (it is still running)


ESCAPES = textwrap.dedent(
    """
    import fcntl
    import os
    import socket
    import termios

    from rummysim.strategies.greedy import Greedy

    class Escapes(Greedy):
        name = "escapes"

        def draw(self, view):
            tries = {
                "memfd_create": lambda: os.memfd_create("held"),
                "socket": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM),
                "socketpair": lambda: socket.socketpair(),
                "TIOCSTI": lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x"),
            }
            for what, attempt in tries.items():
                try:
                    attempt()
                except OSError as error:
                    if error.errno != 1 and what != "TIOCSTI":  # EPERM: refused by the sandbox
                        raise RuntimeError(f"{what}: {error}") from None
                else:
                    raise RuntimeError(f"{what} was allowed")
            return super().draw(view)
    """
)


def test_memory_sockets_and_keystrokes_cannot_leave_the_sandbox(tmp_path):
    """seccomp refuses memfd_create, socket and socketpair (EPERM), and TIOCSTI has no terminal to push into."""
    path = tmp_path / "escapes.py"
    path.write_text(ESCAPES)
    done = _run(path, "Escapes")
    assert done.stdout.splitlines()[0] == "played", done.stdout + done.stderr[-2000:]


PACE = textwrap.dedent(
    """
    import threading
    import time

    from rummysim.strategies.greedy import Greedy

    def spin():
        while True:
            pass

    class Spinner(Greedy):
        '''Leaves threads spinning, to take the machine from the others between its decisions.'''

        name = "spinner"

        def __init__(self, *, rng=None, threads=2):
            super().__init__(rng=rng)
            for _ in range(threads):
                threading.Thread(target=spin, daemon=True).start()

    class Slow(Greedy):
        '''Waits 0.6 s a decision without using the CPU, as a bot on a loaded machine would.'''

        name = "slow"

        def draw(self, view):
            time.sleep(0.6)
            return super().draw(view)

    class Burns(Greedy):
        name = "burns"

        def draw(self, view):
            end = time.process_time() + 5
            while time.process_time() < end:
                pass
            return super().draw(view)
    """
)


@pytest.fixture
def paced(tmp_path):
    path = tmp_path / "pace.py"
    path.write_text(PACE)
    return path


def test_a_sealed_bot_runs_only_while_it_decides(paced):
    """Between requests its process group is stopped: threads it left spinning take no CPU from the others."""
    import time

    from rummysim.strategies.sealed import CpuClock, SealedPool

    with SealedPool(time_limit=5, sandboxed=True) as pool:
        sealed = pool.bot(0, {"strategy": f"{paced}:Spinner"}, key=1)  # built: its threads started, then stopped
        clock = CpuClock(sealed.process.process.pid)
        assert clock.readable
        time.sleep(0.5)
        assert clock.used() < 0.05, clock.used()


def test_the_time_limit_counts_cpu_not_a_slow_machines_wall_clock(paced):
    """A bot that waits 0.6 s a decision plays within a time limit of 0.3 s of CPU (the wall clock's backstop is
    4 x 0.3 + 1 s); one that burns the CPU is stopped at 0.3 s of it."""
    import time

    from rummysim.errors import StrategyError
    from rummysim.game import play_game
    from rummysim.rules import Rules
    from rummysim.strategies.sealed import SealedPool

    with SealedPool(time_limit=0.3, sandboxed=True) as pool:
        rules = Rules(max_hands=1, target_score=None)
        play_game([{"strategy": f"{paced}:Slow"}, "greedy"], rules=rules, seed=1, isolate=pool)
    with SealedPool(time_limit=0.3, sandboxed=True) as pool:
        start = time.monotonic()
        with pytest.raises(StrategyError, match=r"time limit of 0.3 s per decision in draw: more than 0.3 s of CPU"):
            play_game([{"strategy": f"{paced}:Burns"}, "greedy"], seed=1, isolate=pool)
        assert time.monotonic() - start < 3
