"""The compiled engine: the built-in bots' games played in numba-compiled code, row for row the reference's.

The reference engine (`rummysim.engine`, `rummysim.game`) is the readable specification
and plays every bot; this package is the second implementation of the same rules for
the bots that have a compiled twin (`TWINS`), some hundred times faster. Both draw every
random number from the counter-based streams of `rummysim.seeding`, so a condition's
tables are equal whichever engine plays it (tests/test_compiled.py plants differences
to prove the check can fail).

Kernels compile on first use and are cached on disk, in a folder of the user's cache
named by a hash of this package's sources and numba's version (`cache_dir`), so a
read-only install works, an upgrade never loads stale machine code, and the runner
compiles once (`load`, in the parent) before its workers start. A first compile takes
some 30 to 40 s, on two cores (`rummysim.compiled.prebuild`): within `announcing`, a
line says so before it starts, with the time the last one took on this machine
(recorded beside the caches, `TIMINGS`). Set
``RUMMYSIM_COMPILED=0`` to switch the compiled engine off: ``engine: auto`` then plays
everything on the reference engine, with the same results.

`playout_rewards` is the compiled twin of montecarlo's playouts
(`rummysim.strategies.rollout.python_rewards`); importing this package registers it
with the search (`rollout.use_compiled`), which uses it wherever the kernels load.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from rummysim.compiled import prebuild
from rummysim.compiled.layout import POLICIES
from rummysim.strategies import expert, rollout

TWINS = (*POLICIES, "expert")
"""The built-in bots the compiled engine plays (`rummysim.compiled.layout.POLICIES`, and expert's search)."""
SWITCH = "RUMMYSIM_COMPILED"
"""Environment variable: ``0`` switches the compiled engine off."""

KERNELS = {"engine": "game.play_games-*.nbi", "playouts": "playouts.judge-*.nbi", "expert": "expert.decide-*.nbi"}
"""Each kernel's entry function in the cache: numba writes its index there once it has compiled (``cache=True``)."""
GUESS = {"engine": 35.0, "playouts": 15.0, "expert": 45.0}
"""Seconds a first compile is said to take where none was timed yet (31 to 43 s for the engine on 2 cores)."""
TIMINGS = "compile-seconds.json"
"""Beside the caches: how long each kernel's last first compile took on this machine."""

_say: Callable[[str], None] | None = None
_loaded: ModuleType | None = None
_why_not: str | None = None
compile_seconds: float | None = None
"""How long the first `load` of this process took (compiling or reading the cache)."""


def cache_dir() -> Path:
    """Return the folder of the compiled kernels: the user's cache, one folder per source and numba version."""
    import numba

    sources = [*sorted(Path(__file__).parent.glob("*.py")), Path(__file__).parent.parent / "core.py"]
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + path.read_bytes())
    digest.update(numba.__version__.encode())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rummysim"
    return base / f"numba-{digest.hexdigest()[:16]}"


@contextlib.contextmanager
def announcing(say: Callable[[str], None] | None) -> Iterator[None]:
    """Within it, say a line through `say` before a kernel compiles (when its cache is cold, not when it is read)."""
    global _say
    before, _say = _say, say
    try:
        yield
    finally:
        _say = before


@contextlib.contextmanager
def _compiling(kernel: str, noun: str) -> Iterator[bool]:
    """Say that `kernel` compiles now if its cache is cold, and time it for the next estimate; yield whether it is."""
    folder = cache_dir()
    if any(folder.rglob(KERNELS[kernel])):  # read from the cache, in a second or two
        yield False
        return
    timings = folder.parent / TIMINGS
    try:
        known = json.loads(timings.read_text())
    except (OSError, ValueError):
        known = {}
    if _say is not None:
        seconds = float(known.get(kernel, GUESS[kernel]))
        _say(f"compiling {noun}, once: about {max(5, round(seconds / 5) * 5)} s")
    clock = time.perf_counter()
    yield True
    with contextlib.suppress(OSError):  # an estimate only: an unwritable cache folder costs nothing else
        timings.write_text(json.dumps(known | {kernel: round(time.perf_counter() - clock, 1)}))


def load() -> ModuleType:
    """Import the kernels, compiling them on first use; raise `RuntimeError` saying why they cannot load."""
    global _loaded, _why_not, compile_seconds
    if _loaded is not None:
        return _loaded
    reason = why_not_loadable()
    if reason is not None:
        raise RuntimeError(reason)
    clock = time.perf_counter()
    try:
        import numba

        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        setattr(numba.config, "CACHE_DIR", str(folder))  # noqa: B010  (read when a kernel is first compiled)
        with _compiling("engine", "the engine") as cold:
            module = importlib.import_module("rummysim.compiled.columns")
            with prebuild.two_cores(folder) if cold else contextlib.nullcontext():
                module.warm_up()
    except Exception as error:  # no numba, no compiler for this platform, an unwritable cache
        _why_not = f"the compiled engine cannot load here ({type(error).__name__}: {error})"
        raise RuntimeError(_why_not) from error
    compile_seconds = time.perf_counter() - clock
    _loaded = module
    return module


def why_not_loadable() -> str | None:
    """Return why the compiled engine cannot load here, judged without compiling it; None if it should."""
    if _loaded is not None:
        return None
    if os.environ.get(SWITCH, "1") == "0":
        return f"the compiled engine is switched off ({SWITCH}=0)"
    if _why_not is not None:
        return _why_not
    if importlib.util.find_spec("numba") is None:
        return "the compiled engine cannot load here (numba is not installed)"
    return None


def available() -> bool:
    """Return True if the compiled engine loads here (compiling it if it must)."""
    try:
        load()
    except RuntimeError:
        return False
    return True


def why_not() -> str | None:
    """Return why the compiled engine does not load here, or None if it does (or was not tried)."""
    return _why_not if _loaded is None else None


_rewards: rollout.Rewards | None = None
_playouts_why_not: str | None = None


def playout_rewards() -> rollout.Rewards | None:
    """Return the compiled playouts (`rummysim.compiled.playouts.rewards`), or None where the kernels do not load.

    Registered with `rummysim.strategies.rollout.use_compiled`, so montecarlo's search
    judges its candidates with compiled playouts wherever they load, with the same numbers.
    """
    global _rewards, _playouts_why_not
    if os.environ.get(SWITCH, "1") == "0":
        return None
    if _rewards is None and _playouts_why_not is None:
        try:
            load()
            with _compiling("playouts", "montecarlo's playouts"):
                module = importlib.import_module("rummysim.compiled.playouts")
                module.warm_up()
        except RuntimeError:
            return None
        except Exception as error:  # the playout kernel itself does not compile here
            _playouts_why_not = f"the compiled playouts cannot load here ({type(error).__name__}: {error})"
            return None
        _rewards = module.rewards
    return _rewards


_expert: ModuleType | None = None


def expert_search() -> ModuleType:
    """Return expert's compiled search (`rummysim.compiled.expert_calls`), compiling it on first use.

    Registered with `rummysim.strategies.expert`: only a run that seats an expert compiles it.
    Raise `RuntimeError` saying why where it cannot load.
    """
    global _expert
    if os.environ.get(SWITCH, "1") == "0":
        raise RuntimeError(f"the compiled engine is switched off ({SWITCH}=0)")
    if _expert is None:
        load()
        try:
            with _compiling("expert", "expert's search"):
                _expert = importlib.import_module("rummysim.compiled.expert_calls")
                _expert.warm_up()  # it seats an expert: its bot asks for this module, now set
        except Exception as error:  # the search itself does not compile here
            _expert = None
            raise RuntimeError(f"its search cannot load here ({type(error).__name__}: {error})") from error
    return _expert


rollout.use_compiled(playout_rewards)
expert.use_compiled(expert_search)
