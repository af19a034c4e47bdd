"""An experiment's design as a value: its conditions, lineups, seed and fingerprint.

An `Experiment` is built from an experiment file (`rummysim.experiment`, which checks
every key) or read back from a results folder's manifest (`Experiment.from_manifest`),
so the runner, the analysis, the report and replay all work from the same frozen
objects, never from dicts. Nothing here loads a bot: a lineup is a tuple of strategy
specs (`rummysim.specs`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rummysim.commitments import Commitments, check_commitments, check_revealed
from rummysim.errors import ConfigError, nearest, whole_number
from rummysim.excerpt import excerpt, key_text
from rummysim.limits import MAX_GAMES, whole_number_within
from rummysim.margins import MARGIN_RANGE as MARGIN_RANGE  # defined there, importable from here as before
from rummysim.margins import MARGINS as MARGINS
from rummysim.margins import check_margin, check_precision, check_relative, margin_text, margins_text
from rummysim.measures import DEFAULT_MEASURES, PLANNABLE
from rummysim.rules import FIELDS, Rules
from rummysim.seating import DEFAULT_SEATING, check_seating, seated
from rummysim.secret_seed import SECRET, check_seed, recorded, seed_text
from rummysim.seeding import STREAMS
from rummysim.version import __version__

ENGINES = ("auto", "python", "compiled")
"""``auto`` plays a condition compiled when it can (`rummysim.runner.choose_engine`), else on the
reference engine; ``python`` always on the reference engine; ``compiled`` compiled or not at all."""


LADDER = ("uniform", "greedy", "rummy_hunter", "cautious", "montecarlo", "expert")
"""The built-in strategies from weakest to strongest (docs/strategies.md, results/bots): without
``skill.strategy``, the skill of the lineup's strategy highest on it is measured."""


def check_measures(value: Any, where: str) -> tuple[str, ...]:
    """Return the measures a question plans (``measures:``, `rummysim.measures`); the default if absent.

    >>> check_measures(["game_length", "skill"], "x.yaml: measures")
    ('game_length', 'skill')
    >>> check_measures(["game_lenght"], "x.yaml: measures")
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: x.yaml: measures[0]: 'game_lenght' is not a measure; did you mean 'game_length'?
    """
    if value is None:
        return DEFAULT_MEASURES
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(
            f"{where}: expected a list of measures, such as [first_player_edge_hand, game_length, skill], "
            f"got {excerpt(value)}"
        )
    for i, name in enumerate(value):
        if name not in PLANNABLE:
            close = nearest(name, PLANNABLE) if isinstance(name, str) else None
            hint = f"did you mean {close!r}?" if close else f"measures are {', '.join(PLANNABLE)}"
            raise ConfigError(f"{where}[{i}]: {excerpt(name)} is not a measure; {hint}")
    return tuple(dict.fromkeys(str(v) for v in value))


def check_skill(value: Any, where: str, *, labels: set[str] | None = None) -> tuple[str, ...]:
    """Return the strategies ``skill.strategy`` names, in order of preference (empty: the ladder's rule).

    `where` names the key in errors (``FILE: skill``); with `labels` (the strategies the
    lineups seat), each named strategy must be one of them:

    >>> check_skill({"strategy": "cautious"}, "x.yaml: skill")
    ('cautious',)
    >>> check_skill({"strategy": ["cautious", "hunter"]}, "x.yaml: skill", labels={"cautious", "greedy"})
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: x.yaml: skill.strategy: 'hunter' is seated by no lineup; lineups seat cautious, greedy
    """
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a mapping such as {{strategy: cautious}}, got {excerpt(value)}")
    for key in value:
        if key != "strategy":
            close = nearest(str(key), ("strategy",))
            hint = f"did you mean {close!r}?" if close else "the key is strategy"
            raise ConfigError(f"{where}.{key_text(key)}: unknown key; {hint}")
    named = value.get("strategy")
    names = [named] if isinstance(named, str) else named
    if not isinstance(names, list) or not names or not all(isinstance(x, str) and x for x in names):
        raise ConfigError(
            f"{where}.strategy: expected a strategy or a list of strategies, such as [cautious, rummy_hunter], "
            f"got {excerpt(named)}"
        )
    for name in names:
        if labels is not None and name not in labels:
            close = nearest(name, sorted(labels))
            hint = f"did you mean {close!r}?" if close else f"lineups seat {', '.join(sorted(labels))}"
            raise ConfigError(f"{where}.strategy: {excerpt(name)} is seated by no lineup; {hint}")
    return tuple(dict.fromkeys(names))


def check_engine(value: Any, where: str) -> str:
    """Return an engine setting if it is one of `ENGINES`, else raise `ConfigError` naming `where`."""
    if value not in ENGINES:
        raise ConfigError(f"{where}: {excerpt(value)} is not one of {', '.join(ENGINES)}")
    return str(value)


@dataclass(frozen=True)
class Condition:
    """One condition of an experiment: its rules and its lineup."""

    name: str
    rules: Rules
    players: tuple[dict[str, Any], ...]
    """Strategy specs by seat, each ``{"strategy": NAME, PARAM: VALUE, ...}``."""
    description: str = ""
    games: int | None = None
    """Games for this condition, if not the experiment's number."""
    isolate: bool | None = None
    """Whether its plug-in bots run sealed, if not as the experiment says. Never changes results."""
    engine: str | None = None
    """Which engine plays it (`ENGINES`), if not as the experiment says. Never changes results."""
    strong: bool = False
    """A check of the question with strong players (``strong: true``): it plays its own `games`, never
    sized by ``precision:``, and its comparisons are tested in a family of their own, so they never
    change the question's verdicts; the report says beside each verdict whether it holds with them."""
    seating: str = DEFAULT_SEATING
    """Who sits where in each game (`rummysim.seating`, R3.4): ``rotate`` or ``every_order``."""
    reference: str | None = None
    """The condition it is compared with (``reference:``), ``""`` for none; None: the first that seats the same
    strategies (`rummysim.analysis.compare.plan`). Never changes results."""

    def to_dict(self) -> dict[str, Any]:
        """Return the condition with every rule resolved, as plain values (``strong`` and ``seating`` when not
        the default: manifests stay as they were)."""
        return (
            {
                "name": self.name,
                "description": self.description,
                "games": self.games,
                "isolate": self.isolate,
                "engine": self.engine,
                "rules": self.rules.to_dict(),
                "players": [dict(p) for p in self.players],
            }
            | ({"strong": True} if self.strong else {})
            | ({"seating": self.seating} if self.seating != DEFAULT_SEATING else {})
            | ({"reference": self.reference or "none"} if self.reference is not None else {})
        )

    def lineup(self, game: int) -> list[dict[str, Any]]:
        """Return game `game`'s strategy specs, seat by seat (`rummysim.seating.seated`, R3.4)."""
        return seated(self.players, game, self.seating)


@dataclass(frozen=True)
class Experiment:
    """A validated experiment: what to play and how to name its results."""

    name: str
    question: str
    seed: int
    games: int
    """Games per condition."""
    conditions: tuple[Condition, ...]
    description: str = ""
    source: str = ""
    """The file it came from, if any."""
    time_limit: float | None = None
    """Seconds a bot may take per decision; over it the run stops with an error. Never changes results."""
    isolate: bool = False
    """Run every plug-in bot sealed in its own process (`rummysim.strategies.sealed`). Never changes results."""
    sandbox: bool = True
    """Run sealed bots in the sandbox (`rummysim.strategies.sandbox`); False: sealed without it. Never changes
    results."""
    engine: str = "auto"
    """Which engine plays the conditions (`ENGINES`); a condition may say otherwise. Never changes results."""
    margin: dict[str, float] = dataclasses.field(default_factory=lambda: check_margin(None, "margin"))
    """Each measure's margin of equivalence (`MARGINS`), in its own unit. Never changes results."""
    relative_margin: dict[str, float] = dataclasses.field(default_factory=lambda: check_relative(None, "margin"))
    """The measures decided on the log ratio of their levels (`rummysim.margins.RELATIVE`), each with its margin as
    a share of the reference's level (0.05); a measure given a margin in its unit is decided on the difference."""
    precision: dict[str, float] = dataclasses.field(default_factory=dict)
    """The half-width asked of each measure's planned comparisons (`rummysim.precision`); {}: play ``games``."""
    max_games: int | None = None
    """With `precision`: the most games a condition may play."""
    skill: tuple[str, ...] = ()
    """The strategies whose skill is measured, in order of preference (``skill.strategy``); empty: the
    lineup's strategy highest on the `LADDER`. Never changes results."""
    measures: tuple[str, ...] = DEFAULT_MEASURES
    """The question's measures (``measures:``, `rummysim.measures`): the planned comparisons. Never changes results."""
    grid: dict[str, tuple[Any, ...]] = dataclasses.field(default_factory=dict)
    """The grid's factors: rule setting -> its levels, the first the reference (``grid:``); empty if none."""
    commitments: Commitments | None = None
    """A seed nobody chose (`rummysim.commitments`): the organiser's and the entries' commitments, and once
    revealed the seed they give; None for a seed the file or the run gives."""

    def to_dict(self) -> dict[str, Any]:
        """Return the resolved experiment (every default filled in), as plain values."""
        return {
            "name": self.name,
            "question": self.question,
            "description": self.description,
            "seed": self.commitments.to_dict() if self.commitments else seed_text(self.seed),
            "games": self.games,
            "time_limit": self.time_limit,
            "isolate": self.isolate,
            **({} if self.sandbox else {"sandbox": False}),  # listed only when off: manifests stay as they were
            "engine": self.engine,
            "margin": margins_text(self.margin, self.relative_margin),
            "precision": {measure: margin_text(measure, value) for measure, value in self.precision.items()},
            "max_games": self.max_games,
            "skill": {"strategy": list(self.skill)} if self.skill else None,
            "measures": list(self.measures),
            "grid": {factor: list(levels) for factor, levels in self.grid.items()} or None,
            "conditions": [c.to_dict() for c in self.conditions],
        }

    def games_of(self, condition: Condition) -> int:
        """Return how many games a condition plays: its own number, else the experiment's."""
        return condition.games if condition.games is not None else self.games

    def isolates(self, condition: Condition) -> bool:
        """Return whether a condition's plug-in bots run sealed: its own setting, else the experiment's."""
        return self.isolate if condition.isolate is None else condition.isolate

    def engine_of(self, condition: Condition) -> str:
        """Return the engine a condition asks for (`ENGINES`): its own setting, else the experiment's."""
        return self.engine if condition.engine is None else condition.engine

    def fingerprint(self) -> str:
        """Return a hash of everything that changes the results (not the question, descriptions or isolation).

        The version of the random streams (`rummysim.seeding.STREAMS`) is part of it. The
        number of games is not: game g is the same game however many are played, so a
        finished run can be extended (more games, a tighter ``precision:``).
        """
        data = self.to_dict() | {"streams": STREAMS}
        for text in ("question", "description", "time_limit", "isolate", "engine", "margin", "games", "precision",
                     "max_games", "skill", "measures", "grid", "sandbox"):  # fmt: skip
            data.pop(text, None)
        for condition in data["conditions"]:
            for text in ("description", "isolate", "engine", "games", "reference"):
                condition.pop(text, None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def condition(self, name: str) -> Condition:
        """Return a condition by name."""
        for condition in self.conditions:
            if condition.name == name:
                return condition
        raise ConfigError(f"condition {name!r} is not in experiment {self.name!r}; conditions are {self.names}")

    @property
    def names(self) -> str:
        """Return the condition names, comma-separated."""
        return ", ".join(c.name for c in self.conditions)

    def with_games(self, games: Mapping[str, int]) -> Experiment:
        """Return the experiment with these conditions playing these numbers of games (a wave, `rummysim.precision`)."""
        conditions = tuple(
            dataclasses.replace(c, games=games[c.name]) if c.name in games else c for c in self.conditions
        )
        return dataclasses.replace(self, conditions=conditions)

    def with_overrides(
        self, *, games: int | None = None, seed: int | str | None = None, isolate: bool = False,
        engine: str | None = None, sandbox: bool = True, strong: bool = True,
    ) -> Experiment:  # fmt: skip
        """Return the experiment with its games, seed or engine replaced, or isolated (from the command line).

        `games` plays exactly that many games a condition: it also sets ``precision:`` aside
        (a quick run of a sized experiment). `strong` false leaves the checks with strong
        players (``strong: true``) unplayed: they stay in the experiment at 0 games, so its
        fingerprint is the same and a later run with `strong` plays them into the same folder
        (unless every condition is one: such a file plays them).
        """
        changes: dict[str, Any] = {}
        if engine is not None:
            changes["engine"] = check_engine(engine, "command line: --engine")
            changes["conditions"] = tuple(dataclasses.replace(c, engine=None) for c in self.conditions)
        if isolate:
            changes["isolate"] = True
            conditions = changes.get("conditions", self.conditions)
            changes["conditions"] = tuple(dataclasses.replace(c, isolate=None) for c in conditions)
        if games is not None:
            changes["games"] = whole_number_within(games, name="command line: --games", low=1, high=MAX_GAMES)
            conditions = changes.get("conditions", self.conditions)
            changes["conditions"] = tuple(dataclasses.replace(c, games=None) for c in conditions)
            changes["precision"], changes["max_games"] = {}, None
        if seed is not None:
            changes["seed"] = check_seed(seed, name="command line: --seed")
            changes["commitments"] = None  # a seed given on the command line is not the committed one
        conditions = changes.get("conditions", self.conditions)
        if not strong and not all(c.strong for c in conditions):  # a file of checks alone plays them: nothing else
            changes["conditions"] = tuple(dataclasses.replace(c, games=0) if c.strong else c for c in conditions)
        if not sandbox:
            changes["sandbox"] = False
        return Experiment(**{**self.__dict__, **changes}) if changes else self


def _field(data: Mapping[str, Any], key: str, where: str) -> Any:
    try:
        return data[key]
    except (KeyError, TypeError):
        raise ConfigError(f"{where}.{key}: missing; not a manifest this version of rummysim can read") from None


def _condition(data: Any, where: str, *, written_by: str) -> Condition:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a condition, got {excerpt(data)}")
    rules = _field(data, "rules", where)
    if not isinstance(rules, Mapping):
        raise ConfigError(f"{where}.rules: expected the rule settings, got {excerpt(rules)}")
    for key in rules:
        if key not in FIELDS:
            raise ConfigError(
                f"{where}.rules.{key}: not a rule setting of rummysim {__version__} (the results were written by "
                f"rummysim {written_by}); settings are {', '.join(FIELDS)}"
            )
    try:
        built = Rules(**rules)
    except ConfigError as error:
        raise ConfigError(f"{where}.rules.{error}") from None
    # The manifest keeps resolved values; the settings that follow others go back to following them.
    follows = Rules(n_players=built.n_players, ace=built.ace)
    built = built.replace(
        cards_dealt=None if built.cards_dealt == follows.n_dealt else built.cards_dealt,
        ace_points=None if built.ace_points == follows.ace_value else built.ace_points,
    )
    players = _field(data, "players", where)
    if not isinstance(players, list) or not all(isinstance(p, Mapping) and "strategy" in p for p in players):
        raise ConfigError(f"{where}.players: expected a list of strategy specs, got {excerpt(players)}")
    return Condition(
        name=str(_field(data, "name", where)),
        rules=built,
        players=tuple(dict(p) for p in players),
        description=str(data.get("description") or ""),
        games=data.get("games"),
        isolate=data.get("isolate"),
        engine=data.get("engine"),
        strong=data.get("strong") is True,
        seating=check_seating(data.get("seating", DEFAULT_SEATING), f"{where}.seating"),
        reference=None
        if data.get("reference") is None
        else ""
        if data["reference"] == "none"
        else str(data["reference"]),
    )


def from_manifest(manifest: Mapping[str, Any], *, source: str) -> Experiment:
    """Return the experiment a results folder's manifest records, or raise `ConfigError` naming what it cannot read.

    `source` names the manifest in errors. A manifest of an unknown rule (written by
    another version) is a one-line error, never a guess.
    """
    written_by = str(manifest.get("rummysim_version", "unknown")) if isinstance(manifest, Mapping) else "unknown"
    data = _field(manifest, "experiment", source)
    where = f"{source}: experiment"
    conditions = _field(data, "conditions", where)
    if not isinstance(conditions, list) or not conditions:
        raise ConfigError(f"{where}.conditions: expected a list of conditions, got {excerpt(conditions)}")
    time_limit = data.get("time_limit")
    seed, commitments = _recorded_seed(manifest, _field(data, "seed", where), source=source)
    return Experiment(
        name=str(_field(data, "name", where)),
        question=str(data.get("question") or ""),
        seed=seed,
        commitments=commitments,
        games=whole_number(_field(data, "games", where), name=f"{where}.games", low=1),
        conditions=tuple(
            _condition(c, f"{where}.conditions[{i}]", written_by=written_by) for i, c in enumerate(conditions)
        ),
        description=str(data.get("description") or ""),
        source=str(manifest.get("source") or ""),
        time_limit=float(time_limit) if time_limit is not None else None,
        isolate=bool(data.get("isolate", False)),
        sandbox=data.get("sandbox", True) is not False,
        engine=str(data.get("engine") or "auto"),
        margin=check_margin(data.get("margin"), f"{where}.margin"),
        relative_margin=check_relative(data.get("margin"), f"{where}.margin"),
        precision=check_precision(data.get("precision"), f"{where}.precision") if data.get("precision") else {},
        max_games=whole_number(data["max_games"], name=f"{where}.max_games", low=1) if data.get("max_games") else None,
        skill=check_skill(data.get("skill"), f"{where}.skill"),
        measures=check_measures(data.get("measures"), f"{where}.measures"),
        grid={str(k): tuple(v) for k, v in (data.get("grid") or {}).items()},
    )


def _recorded_seed(manifest: Mapping[str, Any], seed: Any, *, source: str) -> tuple[int, Commitments | None]:
    """Return the seed a manifest records, and its commitments if nobody chose it, each checked.

    The seed is its number, or its secret (revealed, or kept beside it) checked against its
    commitment; a seed nobody chose is derived again from the secret and nonces the manifest
    reveals (`rummysim.commitments`), and must be that secret.
    """
    if isinstance(seed, Mapping):
        commitments = check_commitments(
            seed, where=f"{source}: experiment", seated=[str(k) for k in seed.get("entries") or {}]
        )
        secret = recorded(manifest, source=source)
        if "revealed" not in manifest:
            return secret, commitments  # a run not finished: its seed is kept beside it, the reveal to come
        commitments = check_revealed(commitments, manifest["revealed"], source=source)
        if commitments.seed != secret:
            raise ConfigError(
                f"{source}: the secret and nonces it reveals give the seed {commitments.seed.commitment[:16]}..., "
                f"not the {secret.commitment[:16]}... it was played under; the results cannot be trusted"
            )
        return secret, commitments
    if seed == SECRET:
        return recorded(manifest, source=source), None
    return int(whole_number(seed, name=f"{source}: experiment.seed", low=0)), None


def check_streams(version: int, *, folder: object, cannot: str) -> None:
    """Raise `ConfigError` unless results made under random streams `version` are this rummysim's.

    Manifests before the streams had a version were made under version 1.
    """
    if version != STREAMS:
        raise ConfigError(
            f"{folder}: made under random streams v{version}, and this rummysim draws v{STREAMS} "
            f"(rummysim.seeding), so it cannot {cannot}"
        )
