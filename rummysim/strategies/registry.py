"""The registry: strategies by name, plug-ins by entry point or path, and building bots from specs.

A strategy is named in an experiment file in one of three ways:

- its registered name (``greedy``), including names registered with `register`;
- an entry point in the group ``rummysim.strategies`` of any installed package
  (``[project.entry-points."rummysim.strategies"] mybot = "mypkg.bots:MyBot"``);
- a path: ``path/to/file.py:ClassName`` or ``package.module:ClassName``.

With parameters: ``{strategy: montecarlo, samples: 64}``. An unknown name or parameter is
a `ConfigError` that lists the valid ones.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

import numpy as np

from rummysim.bot_errors import built_error, is_bots
from rummysim.errors import ConfigError, SealedError, StrategyError, nearest
from rummysim.excerpt import excerpt, key_text
from rummysim.limits import number_within, whole_number_within
from rummysim.seeding import strategy_key, strategy_rng
from rummysim.specs import Spec, split_spec, strategy_label
from rummysim.strategies.base import Strategy
from rummysim.strategies.sealed import SealedPool, entrant

ENTRY_POINT_GROUP = "rummysim.strategies"
PATH_WIDTH = 500
"""The most characters of a strategy's path an error shows: a path is read whole, a parameter's value is not."""

REGISTRY: dict[str, type[Strategy]] = {}
"""Every strategy registered by name (the built-ins and any `register`-ed)."""


def register(cls: type[Strategy]) -> type[Strategy]:
    """Add a strategy class to the registry under its `name` (usable as a decorator)."""
    if not getattr(cls, "name", ""):
        raise ConfigError(f"strategy {cls.__qualname__} has no name; give it a class attribute `name`")
    REGISTRY[cls.name] = cls
    return cls


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _nearest(word: str, choices: list[str]) -> str:
    close = nearest(word, choices)
    return f" (did you mean {close!r}?)" if close else ""


def _check_class(obj: Any, where: str) -> type[Strategy]:
    if not inspect.isclass(obj) or not all(callable(getattr(obj, m, None)) for m in ("draw", "play", "discard")):
        raise ConfigError(f"strategy {where}: is not a class with draw, play and discard methods")
    return cast("type[Strategy]", obj)


def plugin_shape(spec: Spec) -> None:
    """Raise `ConfigError` unless a plug-in's spec is well formed, without importing anything: a name, or a path
    ``file.py:Class`` whose file exists, or ``package.module:Class``."""
    name, _ = split_spec(spec)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"strategy {excerpt(name)} is not a name")
    if ":" in name:
        _path_of(name)
    elif name not in REGISTRY and name not in _plugins():  # an entry point's name is metadata: nothing runs
        raise _unknown(name)


def _unknown(name: str) -> ConfigError:
    known = sorted({*REGISTRY, *_plugins()})
    return ConfigError(
        f"strategy {excerpt(name, width=PATH_WIDTH)} is unknown{_nearest(name, known)}; "
        f"strategies are {', '.join(known)}, or a path such as my_bots.py:MyBot"
    )


def _path_of(spec: str) -> tuple[str, str, Path | None]:
    """Return a path spec's target, class name and file (None for ``package.module:Class``); raise if malformed."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise ConfigError(
            f"strategy {excerpt(spec, width=PATH_WIDTH)}: a path is 'path/to/file.py:ClassName' or "
            "'package.module:ClassName'"
        )
    if not (target.endswith(".py") or "/" in target or "\\" in target):
        return target, attr, None
    path = Path(target)
    if not path.is_file():
        raise ConfigError(f"strategy {excerpt(spec, width=PATH_WIDTH)}: no file {excerpt(target, width=PATH_WIDTH)}")
    return target, attr, path


def _load_path(spec: str) -> type[Strategy]:
    """Load ``file.py:Class`` or ``package.module:Class``."""
    target, attr, path = _path_of(spec)
    if path is not None:
        name = "rummysim_plugin_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
        module = sys.modules.get(name)
        if module is None:
            module_spec = importlib.util.spec_from_file_location(name, path)
            if module_spec is None or module_spec.loader is None:
                raise ConfigError(f"strategy {spec!r}: {target} is not a Python file")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            try:
                module_spec.loader.exec_module(module)
            except Exception:
                del sys.modules[name]
                raise
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise ConfigError(f"strategy {spec!r}: cannot import {target} ({error})") from None
    if not hasattr(module, attr):
        raise ConfigError(f"strategy {spec!r}: {target} has no {attr}")
    return _check_class(getattr(module, attr), repr(spec))


def strategy_class(name: str) -> type[Strategy]:
    """Return the strategy class for a name, entry point or ``file.py:Class`` / ``module:Class`` path."""
    if not isinstance(name, str):
        raise ConfigError(f"strategy {excerpt(name)} is not a name")
    if name in REGISTRY:
        return REGISTRY[name]
    if ":" in name:
        return _load_path(name)
    plugins = _plugins()
    if name in plugins:
        return _check_class(plugins[name].load(), f"{name!r} (entry point {plugins[name].value})")
    raise _unknown(name)


def available_strategies() -> dict[str, type[Strategy]]:
    """Return every strategy by name: the registered ones and the installed plug-ins."""
    found = dict(REGISTRY)
    for name, entry in _plugins().items():
        if name not in found:
            try:
                found[name] = _check_class(entry.load(), name)
            except Exception:  # a broken plug-in must not hide the others
                continue
    return dict(sorted(found.items()))


def strategy_params(cls: type[Strategy]) -> dict[str, Any]:
    """Return a strategy's parameters and their defaults (its keyword arguments but `rng`)."""
    signature = inspect.signature(cls.__init__)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and name != "rng"
    }


BUILTIN_PARAMETERS: dict[str, dict[str, tuple[type, float, float]]] = {
    "cautious": {"caution": (float, 0, 1e6), "blind": (float, 0, 1e6), "hope": (float, 0, 1e6)},
    "rummy_hunter": {"patience": (int, 0, 10_000), "danger": (int, 0, 52)},
    "montecarlo": {
        "samples": (int, 2, 10_000), "candidates": (int, 1, 52), "depth": (int, 1, 10_000),
        "confidence": (float, 0, 1e6), "playout_hope": (bool, 0, 1), "tries": (int, 1, 1_000),
        "patience": (int, 0, 10_000), "alarm": (int, 0, 52),
    },
    "expert": {
        "samples": (int, 2, 10_000), "candidates": (int, 1, 16), "depth": (int, 1, 10_000),
        "confidence": (float, 0, 1e6), "patience": (int, 0, 10_000), "alarm": (int, 0, 52),
        "caution": (float, 0, 1e6), "hope": (float, 0, 1e6), "blind": (float, 0, 1e6),
        "their_patience": (int, 0, 10_000), "drop": (float, 0, 1e6),
        "their_keep": (int, 0, 52), "danger_deals": (int, 0, 10_000),
    },
}  # fmt: skip
"""The built-in bots' parameters: name -> (kind, smallest, largest), checked when a spec is read.

The smallest values are the bots' own (each refuses less as it is built); the largest are
far beyond any useful setting and keep a decision's work bounded (a `samples` of a billion
would think for days) and the compiled engine's arithmetic finite. A weight (`float`) may
be given as a whole number; a count (`int`) must be one; neither may be nan or infinite."""


def check_strategy(spec: Spec) -> tuple[type[Strategy], dict[str, Any]]:
    """Return the class and parameters of a spec; raise `ConfigError` if either is unknown, or a built-in's invalid."""
    name, params = split_spec(spec)
    cls = strategy_class(name)
    valid = strategy_params(cls)
    for key in params:
        if key not in valid:
            listed = f"its parameters are {', '.join(valid)}" if valid else "it takes no parameters"
            raise ConfigError(
                f"strategy {excerpt(name, width=PATH_WIDTH)} has no parameter {excerpt(key)}"
                f"{_nearest(str(key), list(valid))}; {listed}",
                key=key_text(key),
            )
    if is_builtin(cls):
        for key, value in params.items():
            _check_parameter(name, key, value)
    return cls, params


def _check_parameter(name: str, key: str, value: Any) -> None:
    """Raise `ConfigError` unless `value` is valid for a built-in bot's parameter (`BUILTIN_PARAMETERS`)."""
    kind, low, high = BUILTIN_PARAMETERS.get(name, {}).get(key, (object, 0, 0))
    where = f"strategy {name!r} parameter {key}"
    if kind is bool and not isinstance(value, bool):
        raise ConfigError(f"{where}: {excerpt(value)} is not true or false", key=key)
    try:
        if kind is int:
            whole_number_within(value, name=where, low=int(low), high=int(high))
        elif kind is float:
            number_within(value, name=where, low=low, high=high)
    except ConfigError as error:
        error.key = key
        raise


def make_strategy(spec: Spec, *, rng: np.random.Generator) -> Strategy:
    """Return a new bot from a spec (``"greedy"`` or ``{"strategy": NAME, PARAM: VALUE}``)."""
    cls, params = check_strategy(spec)
    try:
        return cls(rng=rng, **params)
    except ConfigError:  # the bot's own one-line error names it already
        raise
    except (TypeError, ValueError) as error:
        raise ConfigError(f"strategy {strategy_label(spec)}: {error}") from None


def builtin(spec: Spec) -> type[Strategy] | None:
    """Return a spec's class if it names one of rummysim's own bots, else None; never imports anything.

    Whatever else a spec names (a file, a module, an entry point, a class registered here) is a plug-in,
    and a sealed plug-in's file is a stranger's code: only its sandbox may import it (`check_sealed`).
    """
    name, _ = split_spec(spec)
    cls = REGISTRY.get(name)
    return cls if cls is not None and is_builtin(cls) else None


def is_builtin(strategy: type[Strategy]) -> bool:
    """Return True for rummysim's own bots, which always run in the engine's process."""
    name = getattr(strategy, "name", None)
    return isinstance(name, str) and REGISTRY.get(name) is strategy and strategy.__module__.startswith("rummysim.")


def portable_spec(spec: Spec) -> dict[str, Any]:
    """Return a spec that a fresh process can load: a path or entry point, never a name registered here only."""
    name, params = split_spec(spec)
    if ":" in name or name not in REGISTRY:  # a path or an entry point: loaded in the sandbox alone, never here
        return {"strategy": name, **params}
    cls = REGISTRY[name]
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        raise ConfigError(
            f"isolate: strategy {name!r} is defined in this process only ({cls.__module__}.{cls.__qualname__}); "
            "put it in a file and name it as path/to/file.py:ClassName to run it sealed"
        )
    return {"strategy": f"{inspect.getfile(cls)}:{cls.__qualname__}", **params}


def make_lineup(
    players: Sequence[Strategy | Spec], *, seed: int, game: int, pool: SealedPool | None = None
) -> tuple[list[Strategy], list[str]]:
    """Return bots and their labels for a lineup of strategies or specs.

    A spec is built with the stream of (`seed`, `game`, seat) (see `rummysim.seeding`);
    a strategy object is used as it is. With a `pool`, every plug-in bot (any but the
    built-ins) runs sealed in its own process (`rummysim.strategies.sealed`).
    """
    bots: list[Strategy] = []
    names: list[str] = []
    copies: dict[str, int] = {}
    for seat, player in enumerate(players):
        if isinstance(player, (str, Mapping)):
            label = strategy_label(player)
            if pool is not None and builtin(player) is None:  # a plug-in, sealed: never imported here
                portable = portable_spec(player)
                copy = copies[entrant(portable)] = copies.get(entrant(portable), -1) + 1  # as the pool tells them
                bots.append(_sealed(pool, seat, portable, label, key=strategy_key(seed, game, seat), seed=seed,
                                    game=game, copy=copy))  # fmt: skip
            else:
                bots.append(_built(player, seat, label, seed=seed, game=game))
            names.append(label)
        else:
            if pool is not None and not is_builtin(type(player)):
                raise ConfigError(
                    f"isolate: seat {seat} is a {type(player).__name__} object, which can only run in this process; "
                    "give its spec (a name or path/to/file.py:ClassName) to run it sealed"
                )
            bots.append(player)
            names.append(getattr(player, "name", "") or type(player).__name__)
    return bots, names


def _built(spec: Spec, seat: int, label: str, *, seed: int, game: int) -> Strategy:
    """Build the in-process bot of a seat; what its ``__init__`` raises is its `StrategyError`, naming the seat."""
    try:
        return make_strategy(spec, rng=strategy_rng(seed, game, seat))
    except ConfigError:
        raise
    except BaseException as exc:
        if not is_bots(exc):  # the user's Ctrl-C
            raise
        raise built_error(exc, seat=seat, label=label, seed=seed, game=game) from exc


def _sealed(
    pool: SealedPool, seat: int, spec: dict[str, Any], label: str, *, key: int, seed: int, game: int, copy: int = 0
) -> Strategy:
    try:
        return pool.bot(seat, spec, key=key, copy=copy)
    except SealedError as error:
        what = f"raised {error.raised} as it was built: {error}" if error.raised else f"{error} as it was built"
        what = f"seat {seat} ({label}), sealed, {what}"
        raise StrategyError(
            f"{what}; reproduce with seed={seed} game={game}", seat=seat, strategy=label, what=what, seed=seed,
            game=game, hand=0, detail=error.traceback,
        ) from None  # fmt: skip
