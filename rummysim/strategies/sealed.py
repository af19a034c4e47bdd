"""Sealed bots, the engine's side: a plug-in bot in its own process, handed only its views and the public events.

For tournaments of bots that others wrote (``isolate: true``). Each sealed seat gets a
fresh Python process (`rummysim.strategies.sealed_host`, started with the same Python) that
builds the bot from its spec and its one-way key (`rummysim.seeding.strategy_key`), then
answers one request at a time. Nothing in that process ever holds a hidden card, the seed or
the engine's state, so not even introspection finds them there. Here: the pool of those
processes (`SealedPool`), the stand-in bot the engine plays (`Sealed`) and the channel.

The channel, over two pipes of its own (the process's fd 0 is /dev/null; what a bot prints,
on fds 1 and 2, is one more pipe that `relay` reads, marks with its seat and caps), is a
stream of frames, each a 4-byte big-endian length and a body:

=================  ======================================  ===============================
direction          body                                    what
=================  ======================================  ===============================
engine -> bot      pickle of ``("check", spec, 0)``          check a spec before play (`check_sealed`)
engine -> bot      pickle of ``("start", spec, key, seat)``  build a new bot (each game)
engine -> bot      pickle of ``(decision, view)``          ``draw``, ``play``, ``discard``
engine -> bot      pickle of ``("observe", event)``        a public event; no answer
bot -> engine      JSON ``{"answer": ...}``                the decision, as plain values
bot -> engine      JSON ``{"error": "Type: message",       the bot raised, and its traceback
                   "traceback": "..."}``
=================  ======================================  ===============================

The engine never unpickles what a bot sends: answers are JSON of strings, ints and
lists, rebuilt into moves and checked like any other answer. A bot that crashes, hangs
past its time limit (`DEFAULT_TIME_LIMIT` unless the experiment sets one) or answers
garbage fails the hand with the usual `StrategyError` or `IllegalMoveError`; what it
says in an error (its exception's text, the repr of an answer) is quoted there, on one line.
A bot's process ends with the process that started it (`rummysim.strategies.sealed_host.main`), and
starts in a session and process group of its own, so no signal it sends its group reaches the run.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from rummysim.bot_errors import Opaque as Opaque  # an answer part that is not a plain value, as before
from rummysim.errors import SealedError as SealedError  # raised here, and importable from here as before
from rummysim.errors import named, quoted
from rummysim.moves import Event, LayOff, Meld
from rummysim.specs import strategy_label
from rummysim.strategies import sandbox
from rummysim.strategies.base import PlayerView, Strategy

DEFAULT_TIME_LIMIT = 10.0
"""Seconds a sealed bot may take per decision when the experiment sets no `time_limit`."""
START_LIMIT = 60.0
"""Seconds a sealed bot's process may take to start and build its bot."""
MAX_FRAME = 1 << 20
"""The longest answer a sealed bot may send, in bytes."""
HEADER = struct.Struct(">I")
"""The head of every frame of the channel: its body's length in bytes, 4 bytes big-endian."""


_PRCTL = getattr(ctypes.CDLL(None), "prctl", None) if sys.platform.startswith("linux") else None
"""Linux's prctl, looked up before any fork (the child of a fork may not load a library)."""


def _die_with_parent() -> None:
    """Have the kernel kill this new process as the thread that started it ends (PR_SET_PDEATHSIG = 1).

    That thread plays the chunk (a worker's main thread, or a Dask thread), which outlives the pool's
    processes; so a killed run's bots end with its workers, sandboxed or not.
    """
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)


class BotProcess:
    """One sealed bot's process and its channel; reused for every game of one entrant (`SealedPool.bot`)."""

    def __init__(self, *, time_limit: float | None, files: list[str] | None = None) -> None:
        """Start the bot's server; sandboxed (`rummysim.strategies.sandbox`) seeing `files` if they are given.

        The frames go over two pipes of their own; the bot's fd 0 is /dev/null and its fds 1 and 2 one pipe that
        `relay` reads, so no descriptor of its process names a file or terminal of the host. It starts in a
        session and process group of its own (no controlling terminal), so a signal it sends to its group, or
        keystrokes it would push into a terminal, never reach the run.
        """
        self.time_limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
        self.files = files
        self.pids: list[int] | None = None
        """Its processes, once all started, whose CPU time a decision counts (`CpuClock`)."""
        self.who = "a sealed bot"
        """Who prints now, as its lines are marked: ``seat 1 (bot.py:Bot), sealed,`` (`Sealed` sets it)."""
        inbox, to_bot = os.pipe()
        from_bot, outbox = os.pipe()
        said, says = os.pipe()
        argv = [sys.executable, "-c", f"from rummysim.strategies.sealed_host import main; main({inbox}, {outbox})"]
        if files is not None:
            argv = sandbox.command(argv, files=files, cwd=os.getcwd())
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=says,
                stderr=says,
                pass_fds=(inbox, outbox),
                close_fds=True,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # the sandbox's unshare too, and with it everything inside it
            )
        finally:
            for fd in (inbox, outbox, says):
                os.close(fd)
        self.stdin: IO[bytes] = os.fdopen(to_bot, "wb")
        self.stdout_fd = from_bot
        threading.Thread(target=relay, args=(said, self), name="rummysim-sealed-output", daemon=True).start()

    def send(self, message: tuple[Any, ...], *, answered: bool = True) -> None:
        """Send a frame, the bot's process running meanwhile; one that gets no answer (`answered` false, an event)
        leaves it stopped again, so it runs only while it decides."""
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self._signal(signal.SIGCONT)
        try:
            self.stdin.write(HEADER.pack(len(body)) + body)
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self.died() from None
        if not answered:
            self._signal(signal.SIGSTOP)

    def _signal(self, sig: int) -> None:
        """Stop or continue the bot's whole process group (its session's: the sandbox and all in it)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def receive(self, decision: str, *, limit: float) -> Any:
        """Return the answer to the last request, or raise `SealedError`; then stop the bot's process till the next.

        `limit` is the CPU seconds the bot may spend on it (its process's, every thread counted), so a bot slowed
        by the machine is not disqualified; `WALL_FACTOR` times it, plus a second, of the wall clock is the
        backstop (and the limit itself where CPU time cannot be read).
        """
        try:
            return self._receive(decision, limit=limit)
        finally:
            self._signal(signal.SIGSTOP)

    def _receive(self, decision: str, *, limit: float) -> Any:
        clock = CpuClock(self.process.pid, self.pids)
        if self.pids is None and len(clock.pids) >= (3 if self.files is not None else 1):
            self.pids = clock.pids  # unshare, the sandbox's init and the server; no process is added after (seccomp)
        wall = limit * WALL_FACTOR + 1 if clock.readable else limit
        deadline = time.monotonic() + wall
        header = self._read(HEADER.size, deadline, decision, limit, clock)
        (size,) = HEADER.unpack(header)
        if size > MAX_FRAME:
            self.close()
            raise SealedError(f"answered {size:,} bytes in {decision}, more than the {MAX_FRAME:,} a sealed bot may")
        try:
            reply = json.loads(self._read(size, deadline, decision, limit, clock))
        except ValueError:
            self.close()
            raise SealedError(f"answered something that is not a message in {decision}") from None
        if not isinstance(reply, dict):
            raise SealedError(f"answered {_text(reply)} in {decision}, not a message")
        if "error" in reply:
            kind, _, text = str(reply["error"]).partition(": ")
            trace = reply.get("traceback")
            if kind == "MemoryError" and self.files is not None:  # the limit's, not the bot's words
                limit = sandbox.LIMITS["memory_mib"]
                raise SealedError(f"hit the sandbox's memory limit of {limit} MiB in {decision} (MemoryError)",
                                  traceback=str(trace) if trace else None)  # fmt: skip
            raise SealedError(text[:500], raised=kind[:80] or "Exception", traceback=str(trace) if trace else None)
        return reply.get("answer")

    def _read(self, n: int, deadline: float, decision: str, limit: float, clock: CpuClock) -> bytes:
        data, wall = b"", deadline - clock.start_wall
        while len(data) < n:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.stdout_fd], [], [], max(min(left, CPU_LOOK), 0.0))
            if not ready:
                if clock.readable and clock.used() > limit:
                    self.close()
                    raise SealedError(f"took longer than the time limit of {limit:g} s per decision in {decision}: "
                                      f"more than {limit:g} s of CPU {SET_LIMIT}")  # fmt: skip
                if time.monotonic() >= deadline:
                    self.close()
                    held = f": {wall:.1f} s of the wall clock, its backstop" if clock.readable else ""
                    raise SealedError(f"took longer than the time limit of {limit:g} s per decision in {decision}"
                                      f"{held} {SET_LIMIT}")  # fmt: skip
                continue
            chunk = os.read(self.stdout_fd, n - len(data))
            if not chunk:
                raise self.died()
            data += chunk
        return data

    def died(self) -> SealedError:
        try:  # its end of the channel closed: the process is ending, or about to
            code: int | None = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.close()
        limit = sandbox.exit_reason(code) if self.files is not None else None
        return SealedError(f"ended its process (exit code {code})" + (f": it hit {limit}" if limit else ""))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        with contextlib.suppress(OSError):
            self.stdin.close()
        if self.stdout_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.stdout_fd)
            self.stdout_fd = -1


WALL_FACTOR = 4
"""A sealed decision's wall-clock backstop, in times its CPU time limit (plus a second)."""
SET_LIMIT = "(a sealed bot; set time_limit in the experiment file to change it)"
CPU_LOOK = 0.05
"""How often, in seconds, the CPU a decision has used is read while the engine waits for it."""


class CpuClock:
    """The CPU seconds a sealed bot's processes have used since the clock started (Linux /proc: user + system of
    the process and every one below it, every thread counted); not `readable` elsewhere."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, pid: int, pids: list[int] | None = None) -> None:
        self.pids = pids or _tree(pid)
        self.start_wall = time.monotonic()
        start = self._total()
        self.readable = start is not None
        self.start = start or 0.0

    def used(self) -> float:
        return (self._total() or 0.0) - self.start

    def _total(self) -> float | None:
        total, seen = 0.0, False
        for pid in self.pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    fields = f.read().rpartition(b")")[2].split()
                total += (int(fields[11]) + int(fields[12])) / self.TICK  # utime, stime (proc(5))
                seen = True
            except (OSError, ValueError, IndexError):
                continue
        return total if seen else None


def _tree(pid: int) -> list[int]:
    """Return a process and every process below it (Linux /proc; just `pid` elsewhere)."""
    found, stack = [], [pid]
    while stack:
        here = stack.pop()
        found.append(here)
        try:
            for task in os.listdir(f"/proc/{here}/task"):
                with open(f"/proc/{here}/task/{task}/children") as f:
                    stack += [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            continue
    return found


OUTPUT_BYTES = 1 << 16
"""The most a sealed bot may print over its process's life; past it, one line says the rest was cut."""


def relay(fd: int, process: BotProcess) -> None:
    """Copy what a sealed bot prints to this process's stderr, a line at a time: each line marked with who printed
    it, its control characters escaped (no ANSI sequence erases a mark, no carriage return forges a line), and
    at most `OUTPUT_BYTES` in all."""
    pending, total, cut = b"", 0, False
    with os.fdopen(fd, "rb", buffering=0) as stream:
        while chunk := stream.read(4096):
            total += len(chunk)
            if cut:
                continue
            *lines, pending = (pending + chunk).split(b"\n")
            if total > OUTPUT_BYTES:
                pending, cut = b"", True
            for line in lines:
                _say(process, line)
            if cut:
                print(f"{process.who} printed more than {OUTPUT_BYTES:,} bytes; the rest is cut", file=sys.stderr)
        if pending and not cut:
            _say(process, pending)


def _say(process: BotProcess, line: bytes) -> None:
    text = line.decode("utf-8", "replace")
    text = "".join(c if c == "\t" or (c >= " " and not 0x7F <= ord(c) <= 0x9F) else f"\\x{ord(c):02x}" for c in text)
    print(f"{process.who} printed: {text[:2000]}", file=sys.stderr, flush=True)


def check_sealed(spec: Mapping[str, Any], *, sandboxed: bool) -> None:
    """Check a sealed plug-in's spec where it will play: its file imported, its class and parameters looked at, in
    a sealed process of its own (sandboxed if `sandboxed`), never in this one. Raise `SealedError` with what it
    raised (``ConfigError`` for a spec rummysim refuses)."""
    process = BotProcess(time_limit=START_LIMIT, files=sandbox.bot_files(spec) if sandboxed else None)
    process.who = f"{strategy_label(spec)}, sealed, checked,"
    try:
        process.send(("check", dict(spec), 0))
        process.receive("check", limit=START_LIMIT)
    finally:
        process.close()


def entrant(spec: Mapping[str, Any]) -> str:
    """Return who a portable spec is, as the pool tells its processes apart: the spec, as canonical JSON."""
    return json.dumps(dict(spec), sort_keys=True, default=str)


class SealedPool:
    """The processes of a worker's sealed bots, one per entrant (its spec) and copy; close it (or use ``with``)."""

    def __init__(self, *, time_limit: float | None = None, sandboxed: bool | None = None) -> None:
        """`sandboxed`: run each bot in the sandbox (None: wherever it can be had, `sandbox.unavailable`)."""
        self.time_limit = time_limit
        self.sandboxed = sandbox.unavailable() is None if sandboxed is None else sandboxed
        self.processes: dict[tuple[str, int], BotProcess] = {}

    def bot(self, slot: int, spec: Mapping[str, Any], *, key: int, copy: int = 0) -> Sealed:
        """Return a new sealed bot for a spec, at seat `slot`, in a process of that spec's own (started if need be).

        One process per entrant: a process serves one spec only, whatever seat it sits in from game to game, so
        nothing one entrant leaves in its process (a hook, a thread, a file) meets another's bot. `copy` tells
        apart the processes of a spec seated more than once at one table (the second, the third, ...).
        """
        key_ = (entrant(spec), copy)
        process = self.processes.get(key_)
        if process is None or process.process.poll() is not None:
            files = sandbox.bot_files(spec) if self.sandboxed else None
            process = self.processes[key_] = BotProcess(time_limit=self.time_limit, files=files)
        return Sealed(process, dict(spec), key=key, seat=slot)

    def close(self) -> None:
        for process in self.processes.values():
            process.close()
        self.processes.clear()

    def __enter__(self) -> SealedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Sealed(Strategy):
    """The engine's stand-in for a sealed bot: sends each view, reads back a plain answer."""

    name = "sealed"

    def __init__(self, process: BotProcess, spec: dict[str, Any], *, key: int, seat: int = 0) -> None:
        super().__init__(rng=np.random.default_rng(0))
        self.process = process
        self.spec = spec
        process.who = f"seat {seat} ({strategy_label(spec)}), sealed,"
        process.send(("start", spec, key, seat))
        try:
            reply = process.receive("start", limit=max(START_LIMIT, process.time_limit))
        except SealedError as error:  # its builder words the error: what the bot said goes quoted
            if error.raised is None:
                raise
            raise SealedError(quoted(str(error)), raised=named(error.raised), traceback=error.traceback) from None
        self.observing = bool(isinstance(reply, dict) and reply.get("observes"))

    def draw(self, view: PlayerView) -> Any:
        return _pile(self._ask("draw", view))

    def play(self, view: PlayerView) -> Any:
        return _plays(self._ask("play", view))

    def discard(self, view: PlayerView) -> Any:
        return _card(self._ask("discard", view))

    def observe(self, event: Event) -> None:
        if self.observing:
            self.process.send(("observe", event), answered=False)

    def _ask(self, decision: str, view: PlayerView) -> Any:
        self.process.send((decision, view))
        return self.process.receive(decision, limit=self.process.time_limit)


def _pile(answer: Any) -> Any:
    return answer if isinstance(answer, str) else Opaque(_text(answer))


def _card(answer: Any) -> Any:
    if isinstance(answer, str) or (type(answer) is int):
        return answer
    return Opaque(_text(answer))


def _plays(answer: Any) -> Any:
    if answer is None:
        return []
    if not isinstance(answer, list):
        return Opaque(_text(answer))
    plays: list[Any] = []
    for item in answer:
        if isinstance(item, list) and len(item) == 2 and item[0] == "meld" and type(item[1]) is int:
            plays.append(Meld(item[1]))
        elif isinstance(item, list) and len(item) == 3 and item[0] == "lay_off":
            card, meld = (x if type(x) is int else Opaque(_text(x)) for x in item[1:])
            plays.append(LayOff(card, meld))  # type: ignore[arg-type]  # an Opaque part is refused by the engine
        else:
            plays.append(Opaque(_text(item)))
    return plays


def _text(value: Any) -> str:
    """Return an answer part as the engine's error shows it: the repr the bot's process gave, quoted, or its JSON."""
    if isinstance(value, dict) and isinstance(value.get("repr"), str):
        return quoted(value["repr"], width=60)
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
