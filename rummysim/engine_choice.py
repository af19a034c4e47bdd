"""Which engine plays a condition: the reference engine or the compiled one (`rummysim.compiled`).

Both play the same rules and draw the same random numbers, so the choice changes the
speed, never the tables. ``engine: auto`` (the default) plays a condition compiled when
every seat's bot has a compiled twin and nothing needs the reference engine: a trace
(``--trace`` records every turn), a ``time_limit`` (it times Python decisions),
``isolate`` (it seals plug-in bots), a plug-in bot or ``montecarlo``. If the compiled
engine cannot load here, ``auto`` plays on the reference engine and says so once.
``engine: compiled`` refuses, in one line, a condition it cannot play.

A searching bot (montecarlo) plays on the reference engine, but judges its moves with
compiled playouts wherever the compiled kernels load (`playouts_of`), again with the
same results. `expert` plays on either engine (the compiled one by default, the reference
one beside montecarlo and plug-ins), with the same rows, and its search is always
compiled: the run compiles it once, before play, only when a condition seats it
(`prepare_searches`); where it cannot load, the run stops before any game with why.
"""

from __future__ import annotations

from typing import NamedTuple

import rummysim.compiled as compiled
from rummysim.design import Condition, Experiment
from rummysim.errors import ConfigError
from rummysim.specs import strategy_label
from rummysim.strategies.registry import builtin


class Choice(NamedTuple):
    """The engine that plays a condition and why."""

    engine: str
    """``python`` (the reference engine) or ``compiled``."""
    why: str
    unavailable: bool = False
    """The condition could have played compiled, but the compiled engine does not load here."""
    playouts: str | None = None
    """How its searching bots judge their moves: ``compiled`` or ``python`` playouts; None if no bot searches."""


def needs_reference(experiment: Experiment, condition: Condition, *, trace: bool) -> str | None:
    """Return why a condition must play on the reference engine, or None if the compiled one can play it."""
    if trace:
        return "--trace records turns on the reference engine"
    if experiment.time_limit is not None:
        return "time_limit times decisions on the reference engine"
    if experiment.isolates(condition):
        return "isolate seals plug-in bots on the reference engine"
    for spec in condition.players:
        cls = builtin(spec)  # a plug-in has no compiled twin; looked at without importing it
        if cls is None or cls.name not in compiled.TWINS:
            return f"{strategy_label(spec)} has no compiled twin (those are {', '.join(compiled.TWINS)})"
    return None


def choose_engine(experiment: Experiment, condition: Condition, *, trace: bool = False, load: bool = True) -> Choice:
    """Return the engine that plays a condition (see the module's docstring); raise `ConfigError` if none can.

    With `load` false the compiled engine is judged loadable without compiling it
    (`rummysim validate` says which engine will play, in a second, on a fresh machine).
    """
    prepare_searches(experiment, condition, load=load)
    asked = experiment.engine_of(condition)
    if asked == "python":
        return Choice("python", "engine: python", playouts=playouts_of(condition, load=load))
    reason = needs_reference(experiment, condition, trace=trace)
    source = experiment.source or experiment.name
    where = (
        f"{source}: conditions.{condition.name}.engine"
        if condition.engine is not None
        else f"{source}: engine (condition {condition.name})"
    )
    if reason is not None:
        if asked == "compiled":
            raise ConfigError(f"{where}: compiled cannot play it: {reason}; use engine: auto or python")
        return Choice("python", reason, playouts=playouts_of(condition, load=load))
    try:
        if load:
            compiled.load()
        elif (why := compiled.why_not_loadable()) is not None:
            raise RuntimeError(why)
    except RuntimeError as error:
        if asked == "compiled":
            raise ConfigError(f"{where}: {error}; use engine: auto or python") from None
        return Choice("python", str(error), unavailable=True)
    return Choice("compiled", "every seat has a compiled twin")


def playouts_of(condition: Condition, *, load: bool = True) -> str | None:
    """Return how a condition's searching bots judge their moves: ``compiled`` or ``python``; None if none searches.

    With `load` the compiled playouts are loaded here (the runner's parent compiles them
    once, before its workers start); without, they are judged loadable without compiling.
    """
    if not any((cls := builtin(spec)) is not None and cls.searches for spec in condition.players):
        return None
    ready = compiled.playout_rewards() is not None if load else compiled.why_not_loadable() is None
    return "compiled" if ready else "python"


def prepare_searches(experiment: Experiment, condition: Condition, *, load: bool = True) -> None:
    """Compile the search of every bot of the condition that has one of its own (`expert`), once, here.

    Raise `ConfigError` naming the condition where it cannot load. With `load` false it is
    judged loadable without compiling it.
    """
    for spec in condition.players:
        cls = builtin(spec)
        if cls is None or not cls.compiled_search:
            continue
        try:
            if load:
                compiled.expert_search()
            elif (why := compiled.why_not_loadable()) is not None:
                raise RuntimeError(why)
        except RuntimeError as error:
            source = experiment.source or experiment.name
            label = strategy_label(spec)
            raise ConfigError(
                f"{source}: conditions.{condition.name}: {label} searches with compiled code, and {error}"
            ) from None
