"""Experiment files: YAML parsed and validated into a frozen `Experiment` (`rummysim.design`).

An experiment names a question, a seed, a number of games per condition, a lineup of
strategies and base rules, and the conditions to compare (each overriding rules and/or
the lineup), optionally as a `grid` of rule values. Every error is one line naming the
file, the key path and the value, with the rule it breaks; nothing is run or written
until the whole file is valid.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from rummysim.commitments import check_commitments
from rummysim.design import (
    Condition,
    Experiment,
    check_engine,
    check_margin,
    check_measures,
    check_precision,
    check_relative,
    check_skill,
)
from rummysim.errors import ConfigError, nearest
from rummysim.excerpt import excerpt, key_text
from rummysim.experiment_file import read_experiment_file
from rummysim.limits import MAX_CONDITIONS, MAX_GAMES, MAX_NAME, MAX_TIME_LIMIT, seconds_within, whole_number_within
from rummysim.measures import SKILL
from rummysim.rules import FIELDS, Rules, check_setting
from rummysim.seating import DEFAULT_SEATING, check_seating
from rummysim.secret_seed import check_seed
from rummysim.seeding import Secret
from rummysim.specs import check_names, strategy_label
from rummysim.strategies import check_strategy
from rummysim.strategies.registry import builtin, plugin_shape

KEYS = ("name", "question", "description", "seed", "games", "players", "rules", "conditions", "grid", "time_limit",
        "isolate", "engine", "margin", "precision", "max_games", "skill", "measures", "sandbox", "seating")  # fmt: skip
REQUIRED = ("name", "question", "seed", "games", "players")
CONDITION_KEYS = ("rules", "players", "games", "description", "isolate", "engine", "strong", "seating", "reference")
RULE_KEYS = tuple(f for f in FIELDS if f != "n_players")  # the lineup sets the player count
NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def _suggest(key: str, valid: Sequence[str]) -> str:
    close = nearest(key, valid)
    return f"did you mean {close!r}?" if close else f"valid keys are {', '.join(valid)}"


def _check_keys(data: Mapping[str, Any], valid: Sequence[str], path: str, where: str) -> None:
    for key in data:
        if key not in valid:
            raise ConfigError(f"{where}: {path}{key_text(key)}: unknown key; {_suggest(key, valid)}", key=key_text(key))


def _mapping(value: Any, path: str, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: {path}: expected a mapping of keys to values, got {excerpt(value)}")
    return value


def _text(value: Any, path: str, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {path}: expected text, got {excerpt(value)}")
    return value.strip()


def _players(value: Any, path: str, where: str) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list):
        raise ConfigError(
            f"{where}: {path}: expected a list of strategies, such as [greedy, greedy], got {excerpt(value)}"
        )
    if not 2 <= len(value) <= 6:
        count = "1 player" if len(value) == 1 else f"{len(value)} players"
        raise ConfigError(f"{where}: {path}: {count} given, rummy takes 2 to 6 (R1.1)")
    specs = []
    for seat, spec in enumerate(value):
        spec = {"strategy": spec} if isinstance(spec, str) else spec
        if isinstance(spec, Mapping) and isinstance(spec.get("strategy"), str):
            spec = {**spec, "strategy": _relative_to(spec["strategy"], where)}
        try:
            if builtin(spec) is not None:
                check_strategy(spec)  # rummysim's own bot: its parameters are checked here
            else:
                plugin_shape(spec)  # a plug-in: imported only where it plays (`_check_plugins`)
        except ConfigError as error:
            raise ConfigError(f"{where}: {path}[{seat}]: {error}", key=error.key) from None
        specs.append(dict(spec))
    return tuple(specs)


def _check_plugins(drafts: Sequence[_Draft], isolate: bool, where: str) -> None:
    """Check the plug-in bots of every condition that plays them in this process (imported, as they will be).

    A sealed condition's plug-ins are never imported here, not even to be checked: their file is a stranger's
    code, checked inside its sandbox before play (`rummysim.plugins.check_players`).
    """
    for draft in drafts:
        if (isolate if draft.isolate is None else draft.isolate) is True:
            continue
        for seat, spec in enumerate(draft.players):
            if builtin(spec) is None:
                try:
                    check_strategy(spec)
                except ConfigError as error:
                    raise ConfigError(f"{where}: {draft.players_path}[{seat}]: {error}", key=error.key) from None


def _relative_to(name: str, where: str) -> str:
    """Make a ``file.py:Class`` strategy path relative to the experiment file absolute."""
    target, colon, attr = name.rpartition(":")
    if not colon or not (target.endswith(".py") or "/" in target) or Path(target).is_absolute():
        return name
    base = Path(where).parent if Path(where).is_file() else Path.cwd()
    return f"{(base / target).resolve()}:{attr}"


def _time_limit(value: Any, where: str) -> float | None:
    """Return the seconds a bot may take per decision: finite, above 0, at most `MAX_TIME_LIMIT` (or None)."""
    if value is None:
        return None
    return seconds_within(value, name=f"{where}: time_limit", high=MAX_TIME_LIMIT)


def _flag(value: Any, path: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {path}: {excerpt(value)} is not true or false")
    return value


def _settings(values: Mapping[str, Any], path: str, where: str) -> dict[str, Any]:
    """Check each rule setting on its own; the error names the key path."""
    _check_keys(values, RULE_KEYS, path, where)
    checked = {}
    for key, value in values.items():
        try:
            checked[key] = check_setting(key, value)
        except ConfigError as error:
            raise ConfigError(f"{where}: {path}{error}", key=key) from None
    return checked


class _Draft(NamedTuple):
    """A condition as the file gives it, before its rules are built."""

    name: str
    overrides: dict[str, Any]
    """The condition's own rule settings."""
    grid: dict[str, Any]
    """The grid point's rule settings."""
    players: tuple[dict[str, Any], ...]
    description: str
    games: int | None = None
    isolate: bool | None = None
    engine: str | None = None
    strong: bool = False
    seating: str | None = None
    reference: str | None = None
    players_path: str = "players"
    """Where the file gives its players, for errors: ``players`` or ``conditions.NAME.players``."""


def _rules(base: dict[str, Any], draft: _Draft, where: str) -> Rules:
    """Build a draft's rules; an error names where the offending setting was given."""
    n_players = len(draft.players)
    try:
        return Rules(n_players=n_players, **{**base, **draft.overrides, **draft.grid})
    except ConfigError as error:
        key = error.key
        if key in draft.grid:
            raise ConfigError(f"{where}: grid.{error} (in condition {draft.name!r})", key=key) from None
        if key in draft.overrides:
            raise ConfigError(f"{where}: conditions.{draft.name}.rules.{error}", key=key) from None
        raise ConfigError(
            f"{where}: rules.{error} (in condition {draft.name!r}, {n_players} players)", key=key
        ) from None


def _grid(value: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Return the grid's points: each combination of the factors' levels, named by its values."""
    grid = _mapping(value, "grid", where)
    _check_keys(grid, RULE_KEYS, "grid.", where)
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(
                f"{where}: grid.{key}: expected a non-empty list of values, got {excerpt(values)}", key=key
            )
        for item in values:
            try:
                check_setting(key, item)
            except ConfigError as error:
                raise ConfigError(f"{where}: grid.{error}", key=key) from None
    _check_count(math.prod(len(values) for values in grid.values()), "grid", where)
    points = []
    for combo in itertools.product(*grid.values()):
        settings = dict(zip(grid, combo, strict=True))
        points.append((",".join(f"{k}={v}" for k, v in settings.items()), settings))
    return points


def parse_experiment(data: Any, *, source: str = "<experiment>") -> Experiment:
    """Validate a parsed experiment mapping and return the `Experiment`.

    Checked in this order, so that a file with several mistakes is told of the same one first:
    its keys, name, question, seed, games, lineup and rules, its conditions and grid, the rules
    of each condition, then its measures, sizing and the settings of the whole run.
    """
    where = source
    data = _top_level(data, where)
    name, question = _name(data["name"], where), _question(data["question"], where)
    committed = isinstance(data["seed"], Mapping)  # a seed nobody chose: read once the lineups are (below)
    seed = Secret() if committed else check_seed(data["seed"], name=f"{where}: seed")
    games = whole_number_within(data["games"], name=f"{where}: games", low=1, high=MAX_GAMES)
    lineup = _players(data["players"], "players", where)
    base = _settings(_mapping(data.get("rules"), "rules", where), "rules.", where)
    declared = _mapping(data.get("conditions"), "conditions", where)
    _check_count(len(declared), "conditions", where)
    drafts = [_draft(cname, body, lineup, where) for cname, body in declared.items()]
    _check_references(drafts, where)
    factors: dict[str, tuple[Any, ...]] = {}
    if "grid" in data:
        if any(d.reference is not None for d in drafts):
            raise ConfigError(f"{where}: grid: each cell is compared with its condition's first cell; "
                              "reference: is for files without a grid", key="reference")  # fmt: skip
        drafts, factors = _on_grid(data["grid"], drafts, lineup, where)
    if not drafts:
        drafts = [_Draft("default", {}, {}, lineup, "")]
    isolate = _flag(data.get("isolate", False), "isolate", where)
    _check_plugins(drafts, isolate, where)
    seating = check_seating(data.get("seating", DEFAULT_SEATING), f"{where}: seating")
    conditions = tuple(_condition(base, draft, where, seating) for draft in drafts)
    check_names((p for c in conditions for p in c.players), where=f"{where}: players")  # as `run` does
    seated = list(dict.fromkeys(strategy_label(p) for c in conditions for p in c.players if builtin(p) is None))
    commitments = check_commitments(data["seed"], where=where, seated=seated) if committed else None
    measures = check_measures(data.get("measures"), f"{where}: measures")
    sizing = _sizing(data, conditions, games, where)
    _check_sized_measures_are_planned(sizing["precision"], measures, where)
    return Experiment(
        name=name,
        question=question,
        seed=seed,
        commitments=commitments,
        games=games,
        conditions=conditions,
        description=_text(data.get("description"), "description", where),
        time_limit=_time_limit(data.get("time_limit"), where),
        isolate=isolate,
        sandbox=_flag(data.get("sandbox", True), "sandbox", where),
        engine=check_engine(data.get("engine", "auto"), f"{where}: engine"),
        margin=check_margin(data.get("margin"), f"{where}: margin"),
        relative_margin=check_relative(data.get("margin"), f"{where}: margin"),
        measures=measures,
        **sizing,
        skill=check_skill(
            data.get("skill"), f"{where}: skill", labels={strategy_label(p) for c in conditions for p in c.players}
        ),
        grid=factors,
        source=source,
    )


def _top_level(data: Any, where: str) -> Mapping[str, Any]:
    """Return the file's mapping if it has no unknown key and every required one."""
    if data is None:
        raise ConfigError(f"{where}: the file is empty; an experiment needs {', '.join(REQUIRED)}")
    data = _mapping(data, "the file", where)
    _check_keys(data, KEYS, "", where)
    for key in REQUIRED:
        if key not in data:
            raise ConfigError(f"{where}: {key}: missing; an experiment needs {', '.join(REQUIRED)}", key=key)
    return data


def _name(name: Any, where: str) -> str:
    """Return the experiment's name if it can name its results folder."""
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        raise ConfigError(
            f"{where}: name: {excerpt(name)} must be 1 to {MAX_NAME} letters, digits, '-' and '_' "
            "(it names the results folder)",
            key="name",
        )
    return name


def _question(question: Any, where: str) -> str:
    """Return the question the experiment answers, stripped."""
    if not isinstance(question, str) or not question.strip():
        raise ConfigError(
            f"{where}: question: expected the question the experiment answers, got {excerpt(question)}", key="question"
        )
    return question.strip()


def _draft(cname: Any, body: Any, lineup: tuple[dict[str, Any], ...], where: str) -> _Draft:
    """Return a condition of ``conditions:`` as the file gives it; its rules are built later (`_rules`)."""
    if not isinstance(cname, str) or not NAME.match(cname) or len(cname) > MAX_NAME:
        raise ConfigError(
            f"{where}: conditions.{key_text(cname)}: a condition name is 1 to {MAX_NAME} letters, digits, '-' and '_'"
        )
    body = _mapping(body, f"conditions.{cname}", where)
    _check_keys(body, CONDITION_KEYS, f"conditions.{cname}.", where)
    overrides = _settings(_mapping(body.get("rules"), f"conditions.{cname}.rules", where),
                          f"conditions.{cname}.rules.", where)  # fmt: skip
    players = _players(body["players"], f"conditions.{cname}.players", where) if "players" in body else lineup
    text = _text(body.get("description"), f"conditions.{cname}.description", where)
    games_here = (
        whole_number_within(body["games"], name=f"{where}: conditions.{cname}.games", low=1, high=MAX_GAMES)
        if "games" in body
        else None
    )
    isolate = _flag(body["isolate"], f"conditions.{cname}.isolate", where) if "isolate" in body else None
    engine = check_engine(body["engine"], f"{where}: conditions.{cname}.engine") if "engine" in body else None
    strong = _flag(body["strong"], f"conditions.{cname}.strong", where) if "strong" in body else False
    seating = check_seating(body["seating"], f"{where}: conditions.{cname}.seating") if "seating" in body else None
    if strong and games_here is None:
        raise ConfigError(
            f"{where}: conditions.{cname}.strong: a check with strong players plays the games it names, not "
            "as many as precision: needs; give it games:", key="games"
        )  # fmt: skip
    reference = _reference(body["reference"], cname, where) if "reference" in body else None
    own = f"conditions.{cname}.players" if "players" in body else "players"
    return _Draft(cname, overrides, {}, players, text, games_here, isolate, engine, strong, seating, reference, own)


def _reference(value: Any, cname: str, where: str) -> str:
    """Return a condition's ``reference:``: another condition's name, or ``""`` for ``none`` (compared with none)."""
    if not isinstance(value, str) or not (value == "none" or NAME.match(value)):
        raise ConfigError(
            f"{where}: conditions.{cname}.reference: expected the name of the condition it is compared with, or "
            f"none, got {excerpt(value)}", key="reference"
        )  # fmt: skip
    return "" if value == "none" else value


def _check_references(drafts: Sequence[_Draft], where: str) -> None:
    """Refuse a ``reference:`` that names no earlier condition, or one of other strategies or of the other family
    (a check with strong players against the question's, or the other way)."""
    seen: dict[str, _Draft] = {}
    for draft in drafts:
        ref = seen.get(draft.reference or "")
        key = f"{where}: conditions.{draft.name}.reference: {draft.reference}"
        if draft.reference and ref is None:
            raise ConfigError(f"{key}: not a condition before it; name one of {', '.join(seen) or 'none'}",
                              key="reference")  # fmt: skip
        if ref is not None and sorted(map(strategy_label, ref.players)) != sorted(map(strategy_label, draft.players)):
            raise ConfigError(f"{key}: seats other strategies; a condition is compared with one that seats the same",
                              key="reference")  # fmt: skip
        if ref is not None and ref.strong != draft.strong:
            raise ConfigError(f"{key}: a check with strong players is compared only with another (strong: true)",
                              key="reference")  # fmt: skip
        seen[draft.name] = draft


def _check_count(count: int, key: str, where: str) -> None:
    """Refuse more conditions than `MAX_CONDITIONS` (each is planned, played and reported), before any is made."""
    if count > MAX_CONDITIONS:
        raise ConfigError(
            f"{where}: {key}: makes {count:,} conditions, more than the {MAX_CONDITIONS:,} an experiment may have",
            key=key,
        )


def _on_grid(
    value: Any, drafts: list[_Draft], lineup: tuple[dict[str, Any], ...], where: str
) -> tuple[list[_Draft], dict[str, tuple[Any, ...]]]:
    """Return every condition at every point of the grid (``name|point``), and each factor's levels."""
    points = _grid(value, where)
    _check_count(len(points) * max(1, len(drafts)), "grid", where)
    factors = {key: tuple(dict.fromkeys(settings[key] for _, settings in points)) for key in points[0][1]}
    for draft in drafts:
        for key in points[0][1]:
            if key in draft.overrides:
                raise ConfigError(
                    f"{where}: grid.{key}: also set in conditions.{draft.name}.rules; set it in one place", key=key
                )
    crossed = [
        draft._replace(name=f"{draft.name}|{gname}", grid=settings)
        if draft.name
        else draft._replace(name=gname, grid=settings)
        for draft in (drafts or [_Draft("", {}, {}, lineup, "")])
        for gname, settings in points
    ]
    return crossed, factors


def _condition(base: dict[str, Any], draft: _Draft, where: str, seating: str) -> Condition:
    """Return a draft as a `Condition`, with its rules built; `seating` is the experiment's (R3.4)."""
    return Condition(
        draft.name,
        _rules(base, draft, where),
        draft.players,
        draft.description,
        draft.games,
        draft.isolate,
        draft.engine,
        draft.strong,
        draft.seating or seating,
        draft.reference,
    )


def _check_sized_measures_are_planned(precision: Mapping[str, Any], measures: Sequence[str], where: str) -> None:
    """Refuse a ``precision:`` target for a measure that ``measures:`` does not plan."""
    for measure in precision:
        planned = "skill" if measure in SKILL else measure
        if planned not in measures:
            raise ConfigError(
                f"{where}: precision.{measure}: sizes a planned comparison, and measures: does not plan {planned} "
                f"(it plans {', '.join(measures)}); add it to measures:"
            )


def _sizing(data: Mapping[str, Any], conditions: tuple[Condition, ...], games: int, where: str) -> dict[str, Any]:
    """Return ``precision`` and ``max_games``: the half-widths to play for, and the cap (`rummysim.precision`)."""
    precision = check_precision(data.get("precision"), f"{where}: precision")
    if data.get("max_games") is None:
        if precision:
            raise ConfigError(f"{where}: precision: needs max_games, the most games a condition may play")
        return {"precision": precision, "max_games": None}
    if not precision:
        raise ConfigError(f"{where}: max_games: caps the games that precision: asks for; give precision: too")
    cap = whole_number_within(data["max_games"], name=f"{where}: max_games", low=1, high=MAX_GAMES)
    for condition in conditions:
        first = condition.games if condition.games is not None else games
        if first > cap and not condition.strong:  # a check with strong players is not sized: not capped either
            raise ConfigError(
                f"{where}: max_games: {cap} is below the {first} games condition {condition.name} plays first"
            )
    return {"precision": precision, "max_games": cap}


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file (raises `ConfigError` with the file and key path).

    The file is read within the limits of `rummysim.experiment_file`: a regular file of at
    most a megabyte, its YAML safe and bounded.
    """
    return parse_experiment(read_experiment_file(path), source=str(path))
