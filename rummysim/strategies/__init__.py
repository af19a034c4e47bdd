"""Strategies: the bot protocol, the built-in bots and the registry that names them.

A strategy is named in an experiment by its registered name, optionally with
parameters: ``greedy`` or ``{strategy: uniform}``. `make_strategy` builds one from such
a spec with the random stream the caller gives it.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rummysim.errors import ConfigError
from rummysim.seeding import strategy_rng
from rummysim.strategies.base import PlayerView, Strategy, TableMeld
from rummysim.strategies.greedy import Greedy
from rummysim.strategies.uniform import Uniform

__all__ = [
    "REGISTRY",
    "PlayerView",
    "Strategy",
    "TableMeld",
    "make_lineup",
    "make_strategy",
    "register",
    "strategy_class",
    "strategy_label",
    "strategy_params",
]

REGISTRY: dict[str, type[Strategy]] = {}
"""Every strategy by name."""


def register(cls: type[Strategy]) -> type[Strategy]:
    """Add a strategy class to the registry under its `name` (usable as a decorator)."""
    if not cls.name:
        raise ConfigError(f"strategy {cls.__qualname__} has no name; give it a class attribute `name`")
    REGISTRY[cls.name] = cls
    return cls


for _cls in (Uniform, Greedy):
    register(_cls)


def _nearest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def strategy_class(name: str) -> type[Strategy]:
    """Return the strategy class registered under a name."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        valid = ", ".join(sorted(REGISTRY))
        raise ConfigError(
            f"strategy {name!r} is unknown{_nearest(str(name), list(REGISTRY))}; strategies are {valid}"
        ) from None


def strategy_params(cls: type[Strategy]) -> dict[str, Any]:
    """Return a strategy's parameters and their defaults (its keyword arguments but `rng`)."""
    signature = inspect.signature(cls.__init__)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and name != "rng"
    }


def _split(spec: str | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        params = dict(spec)
        if "strategy" not in params:
            raise ConfigError(f"player {dict(spec)!r} has no 'strategy' key naming the bot")
        return str(params.pop("strategy")), params
    raise ConfigError(f"player {spec!r} is neither a strategy name nor a mapping with a 'strategy' key")


def check_strategy(spec: str | Mapping[str, Any]) -> tuple[type[Strategy], dict[str, Any]]:
    """Return the class and parameters of a spec, raising `ConfigError` if either is unknown."""
    name, params = _split(spec)
    cls = strategy_class(name)
    valid = strategy_params(cls)
    for key in params:
        if key not in valid:
            listed = f"its parameters are {', '.join(valid)}" if valid else "it takes no parameters"
            raise ConfigError(f"strategy {name!r} has no parameter {key!r}{_nearest(key, list(valid))}; {listed}")
    return cls, params


def make_strategy(spec: str | Mapping[str, Any], *, rng: np.random.Generator) -> Strategy:
    """Return a new bot from a spec (``"greedy"`` or ``{"strategy": NAME, PARAM: VALUE}``)."""
    cls, params = check_strategy(spec)
    return cls(rng=rng, **params)


def make_lineup(
    players: Sequence[Strategy | str | Mapping[str, Any]], *, seed: int, game: int
) -> tuple[list[Strategy], list[str]]:
    """Return bots and their labels for a lineup of strategies or specs.

    A spec is built with the stream of (`seed`, `game`, seat) (see `rummysim.seeding`);
    a strategy object is used as it is.
    """
    bots, names = [], []
    for seat, player in enumerate(players):
        if isinstance(player, (str, Mapping)):
            bots.append(make_strategy(player, rng=strategy_rng(seed, game, seat)))
            names.append(strategy_label(player))
        else:
            bots.append(player)
            names.append(getattr(player, "name", "") or type(player).__name__)
    return bots, names


def strategy_label(spec: str | Mapping[str, Any]) -> str:
    """Return the label of a spec in tables: its name, with any parameters in brackets."""
    name, params = _split(spec)
    if not params:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"
