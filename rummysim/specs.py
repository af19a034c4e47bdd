"""Strategy specs as experiment files write them, and the labels the tables give them.

A spec is a strategy's name (``"greedy"``, a plug-in's entry point or a
``path/to/file.py:Class``) or a mapping ``{"strategy": NAME, PARAM: VALUE, ...}``.
Reading a spec needs no bot: the registry (`rummysim.strategies.registry`) turns it into
one; tables, analysis and reports only name it.

>>> strategy_label({"strategy": "montecarlo", "samples": 16})
'montecarlo(samples=16)'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from rummysim.errors import ConfigError
from rummysim.excerpt import excerpt

Spec = str | Mapping[str, Any]
_FOLDERS = re.compile(r"[/\\]")


def split_spec(spec: Spec) -> tuple[str, dict[str, Any]]:
    """Return a spec's strategy name and its parameters, or raise `ConfigError` for a spec of no strategy."""
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        params = dict(spec)
        if "strategy" not in params:
            raise ConfigError(f"player {excerpt(dict(spec))} has no 'strategy' key naming the bot")
        return str(params.pop("strategy")), params
    raise ConfigError(f"player {excerpt(spec)} is neither a strategy name nor a mapping with a 'strategy' key")


def strategy_name(name: str) -> str:
    """Return how tables and messages name a strategy: a file path by its file only, never by its folders.

    The tables then read the same on every machine, and no absolute path shows in an error,
    a progress line or a report:

    >>> strategy_name("/home/ann/bots/hoarder.py:Hoarder")
    'hoarder.py:Hoarder'
    >>> strategy_name("club_bots:Hoarder"), strategy_name("greedy")
    ('club_bots:Hoarder', 'greedy')
    """
    target, colon, attr = name.rpartition(":")
    if colon and (target.endswith(".py") or "/" in target or "\\" in target):
        return f"{_FOLDERS.split(target)[-1]}:{attr}"
    return name


def strategy_label(spec: Spec) -> str:
    """Return the label of a spec in tables: its name (`strategy_name`), with any parameters in brackets."""
    name, params = split_spec(spec)
    if not params:
        return strategy_name(name)
    return f"{strategy_name(name)}({', '.join(f'{k}={v}' for k, v in sorted(params.items()))})"


def check_names(specs: Iterable[Spec], *, where: str) -> None:
    """Raise `ConfigError` if two different strategies would have one name in the tables (`strategy_name`).

    >>> check_names(["a/bot.py:Bot", "b/bot.py:Bot"], where="x")
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: x: a/bot.py:Bot and b/bot.py:Bot would both be bot.py:Bot in the tables; rename one
    """
    seen: dict[str, str] = {}
    for spec in specs:
        name = split_spec(spec)[0]
        other = seen.setdefault(strategy_name(name), name)
        if other != name:
            raise ConfigError(
                f"{where}: {other} and {name} would both be {strategy_name(name)} in the tables; rename one"
            )
