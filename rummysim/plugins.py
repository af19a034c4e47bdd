"""Plug-in bots seen from the host: checked where they play, their sources recorded, a sealed one's never run here.

A plug-in bot (a file, a module or an entry point: anything but rummysim's own bots) that
plays in the engine's process is imported here, as it will be to play. A sealed one's file is
a stranger's code: nothing of it runs outside its sandbox, not its import, its class body, its
``__init__`` or its entry point's loading. So before a run, `check_players` checks each sealed
spec inside a sealed process of its own (`rummysim.strategies.sealed.check_sealed`), and the
manifest's record of its source (`plugin_sources`) is found from the spec and the file system
alone: its file and that file's SHA-256, never its class object.
"""

from __future__ import annotations

import importlib.util
import inspect
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from rummysim.checksums import file_digest
from rummysim.design import Experiment
from rummysim.errors import ConfigError, SealedError
from rummysim.seeding import Secret
from rummysim.specs import split_spec, strategy_label
from rummysim.strategies import sandbox
from rummysim.strategies.registry import ENTRY_POINT_GROUP, builtin, check_strategy, portable_spec
from rummysim.strategies.sealed import check_sealed


def check_sandbox(experiment: Experiment) -> None:
    """Refuse, in one line, to seal bots without the sandbox where it cannot be had, unless the user chose to."""
    if not experiment.sandbox or not any(experiment.isolates(c) for c in experiment.conditions):
        return
    why = sandbox.unavailable()
    if why is not None:
        raise ConfigError(
            f"{experiment.source or experiment.name}: isolate: the sandbox for sealed bots cannot be had here "
            f"({why}); set sandbox: false in the file or run with --no-sandbox to seal them without it"
        )


def warnings_of(experiment: Experiment) -> list[str]:
    """Return what an organiser should know before sealed bots play: no sandbox, or a public seed (one line each;
    `validate` and `run` print them)."""
    if not any(experiment.isolates(c) for c in experiment.conditions):
        return []
    said = []
    if not experiment.sandbox:
        said.append("sandbox: false: the sealed bots run without the sandbox, so they can reach the network, this "
                    "user's files and, by a signal, this user's processes (docs/tournaments.md)")  # fmt: skip
    if not isinstance(experiment.seed, Secret):
        said.append(f"seed {experiment.seed} is public: an entrant who knows it can deal every hand itself; a "
                    "tournament plays seed: secret (docs/tournaments.md)")  # fmt: skip
    return said


def check_players(experiment: Experiment) -> None:
    """Raise `ConfigError` naming the condition and seat of a plug-in bot that cannot play: an in-process one
    imported and checked here, a sealed one in its sandbox (each distinct spec once)."""
    sandboxed = experiment.sandbox and sandbox.unavailable() is None
    seen: set[tuple[str, bool]] = set()
    for condition in experiment.conditions:
        sealed = experiment.isolates(condition)
        for seat, spec in enumerate(condition.players):
            key = (repr(sorted(dict(spec).items())), sealed)
            if builtin(spec) is not None or key in seen:
                continue
            seen.add(key)
            where = f"{experiment.source or experiment.name}: condition {condition.name}, seat {seat}"
            if not sealed:
                try:
                    check_strategy(spec)
                except ConfigError as error:
                    raise ConfigError(f"{where}: {error}", key=error.key) from None
                continue
            try:
                check_sealed(portable_spec(spec), sandboxed=sandboxed)
            except SealedError as error:
                label = strategy_label(spec)
                if error.raised == "ConfigError":
                    raise ConfigError(f"{where}: {error} (checked in its sandbox)") from None
                raised = f"raised {error.raised}: {error}" if error.raised else str(error)
                raise ConfigError(f"{where}: {label}, sealed, {raised} as it was checked in its sandbox") from None


def plugin_sources(experiment: Experiment) -> dict[str, dict[str, Any]]:
    """Return, for each plug-in bot the experiment seats, its class, source file and that file's SHA-256.

    A sealed plug-in's are read from its spec and the file system (`source_file`), without importing it.
    """
    found: dict[str, dict[str, Any]] = {}
    for condition in experiment.conditions:
        for spec in condition.players:
            name, _ = split_spec(spec)
            if name in found or builtin(spec) is not None:
                continue
            if experiment.isolates(condition):
                path = source_file(name)
                entry: dict[str, Any] = {"class": name.rpartition(":")[2] or name, "file": None, "sha256": None}
            else:
                cls, _ = check_strategy(spec)
                entry = {"class": f"{cls.__module__}.{cls.__qualname__}", "file": None, "sha256": None}
                try:
                    path = inspect.getsourcefile(cls)
                except TypeError:  # defined where no file holds it
                    path = None
            if path and Path(path).is_file():
                entry["file"] = str(path)
                entry["sha256"] = file_digest(Path(path))
            found[name] = entry
    return found


def source_file(name: str) -> str | None:
    """Return the file a plug-in's spec loads, found without running any of it: ``file.py:Class``'s file, or the
    module of ``package.module:Class`` or of an entry point, looked up on the import path; None if not found.

    Only the top package is located (`importlib.util.find_spec` of a top-level name reads no code); the rest of
    the module's path is followed on the file system, so no package's ``__init__`` runs.
    """
    if ":" not in name:
        point = next((ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name), None)
        if point is None:
            return None
        name = point.value
    target = name.rpartition(":")[0]
    if target.endswith(".py") or "/" in target or "\\" in target:
        return str(Path(target).resolve())
    top, *rest = target.split(".")
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None or found.origin in (None, "built-in", "frozen"):
        return None
    here = Path(str(found.origin))
    if not rest:
        return str(here)
    base = here.parent.joinpath(*rest)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return str(candidate)
    return None
