"""Strategy specs as experiment files write them, and the labels the tables give them.

A spec is a strategy's name (``"greedy"``, a plug-in's entry point or a
``path/to/file.py:Class``) or a mapping ``{"strategy": NAME, PARAM: VALUE, ...}``.
Reading a spec needs no bot: the registry (`rummysim.strategies.registry`) turns it into
one; tables, analysis and reports only name it.

>>> strategy_label({"strategy": "montecarlo", "samples": 16})
'montecarlo(samples=16)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rummysim.errors import ConfigError

Spec = str | Mapping[str, Any]


def split_spec(spec: Spec) -> tuple[str, dict[str, Any]]:
    """Return a spec's strategy name and its parameters, or raise `ConfigError` for a spec of no strategy."""
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        params = dict(spec)
        if "strategy" not in params:
            raise ConfigError(f"player {dict(spec)!r} has no 'strategy' key naming the bot")
        return str(params.pop("strategy")), params
    raise ConfigError(f"player {spec!r} is neither a strategy name nor a mapping with a 'strategy' key")


def strategy_label(spec: Spec) -> str:
    """Return the label of a spec in tables: its name, with any parameters in brackets."""
    name, params = split_spec(spec)
    if not params:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"
