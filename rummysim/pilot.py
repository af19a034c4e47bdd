"""A short pilot run that estimates how many games an experiment's ``precision:`` needs (`rummysim validate`).

It also times the checks with strong players (``strong: true``), which ``precision:`` does not size:
a few games of each, played apart from the sized pilot, give their minutes of play at this
machine's pace.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from rummysim.analysis import analyze
from rummysim.design import Condition, Experiment
from rummysim.measures import MEASURES
from rummysim.precision import Width, needed, widths
from rummysim.runner import run_experiment

CHECK_PILOT_MOST = 10
"""The most games the pilot plays of each check with strong players: enough for a pace, few enough
that validate stays quick with expert's search (about 0.1 s a game at its default budget)."""


def check_pilot_games(pilot_games: int, games: int) -> int:
    """Return how many games the pilot plays of a check with strong players that names `games`.

    A tenth of the pilot's games a condition, at least 2 (a pace of one game is mostly its
    start-up) and at most `CHECK_PILOT_MOST`, never more than the check's own; none without a pilot.

    >>> [check_pilot_games(p, 1600) for p in (0, 1, 60, 300)], check_pilot_games(300, 4)
    ([0, 2, 6, 10], 4)
    """
    if pilot_games <= 0:
        return 0
    return min(games, max(2, min(CHECK_PILOT_MOST, pilot_games // 10)))


@dataclass(frozen=True)
class CheckPace:
    """A check with strong players as the pilot timed it."""

    games: int
    """The games the file names for it (all played with ``--strong``)."""
    played: int
    """The games the pilot played of it."""
    seconds: float
    """Their seconds of play (compiling not counted)."""

    @property
    def seconds_needed(self) -> float:
        """Return the seconds of play its `games` take on one core at the pilot's pace."""
        return self.seconds * self.games / self.played


@dataclass(frozen=True)
class Pilot:
    """What a pilot found: each planned width at the pilot's size, and the games each condition needs."""

    games: int
    seconds: float
    found: list[Width]
    needs: dict[str, int]
    """Games per condition for every width to reach its target (by `rummysim.precision`'s rule, uncapped)."""
    checks: dict[str, CheckPace] = field(default_factory=dict)
    """The checks with strong players the pilot timed, by condition (empty: none played)."""

    def lines(self, experiment: Experiment) -> list[str]:
        """Return what `rummysim validate` prints of it."""
        strong = [c for c in experiment.conditions if c.strong]
        if not self.needs:  # a file of checks alone: nothing for precision: to size
            return ["  precision: sizes no condition here: every one is a check with strong players",
                    *self._check_lines(experiment, strong)]  # fmt: skip
        wide = [w for w in self.found if w.half_width == w.half_width]
        lines = [f"  precision: a pilot of {self.games:,} games a condition ({self.seconds:.1f} s of play):"]
        for w in wide:
            unit = f" {MEASURES[w.measure].unit}" if w.measure in MEASURES and MEASURES[w.measure].unit else ""
            lines.append(f"    {w.measure}, {w.other} against {w.reference}: ±{w.half_width:.3g}{unit} "
                         f"(target ±{w.target:g}{unit})")  # fmt: skip
        most = max(self.needs.values())
        over = f", beyond max_games {experiment.max_games:,}" if most > (experiment.max_games or most) else ""
        time_left = self.seconds * sum(self.needs.values()) / max(1, self.games * len(self.needs))
        lines.append(
            "    needs about "
            + ", ".join(f"{n:,} games ({name})" for name, n in self.needs.items())
            + f"{over}; about {time_left / 60:.1f} min of play on one core, at the pilot's pace"
        )
        if strong:
            lines += self._check_lines(experiment, strong)
        return lines

    def _check_lines(self, experiment: Experiment, strong: list[Condition]) -> list[str]:
        """Say the checks' games and, where the pilot timed them, their minutes of play, wrapped."""
        games = {c.name: experiment.games_of(c) for c in strong}
        if len(games) > 1 and len(set(games.values())) == 1:
            named = f"{next(iter(games.values())):,} games each ({', '.join(games)})"
        else:
            named = ", ".join(f"{n:,} games ({name})" for name, n in games.items())
        when = "played only with --strong" if len(strong) < len(experiment.conditions) else "every run plays them"
        text = f"checks with strong players ({when}): {named}"
        if self.checks:
            one_core = sum(pace.seconds_needed for pace in self.checks.values())
            cores = os.cpu_count() or 1
            across = f" ({_duration(one_core / cores)} on all {cores} cores)" if cores > 1 else ""
            played = {pace.played for pace in self.checks.values()}
            each = f"{min(played)}{f' to {max(played)}' if len(played) > 1 else ''} games" + (
                " each" if len(self.checks) > 1 else ""
            )
            seconds = sum(pace.seconds for pace in self.checks.values())
            text += (f"; about {_duration(one_core)} of play on one core{across} at the pilot's pace "
                     f"({each}, {_duration(seconds)})")  # fmt: skip
        return textwrap.wrap(
            text,
            width=110,
            initial_indent="    ",
            subsequent_indent="      ",
            break_long_words=False,
            break_on_hyphens=False,
        )


def _duration(seconds: float) -> str:
    """Return seconds as minutes to a tenth, or under a minute as seconds to three figures.

    >>> _duration(662.0), _duration(4.13), _duration(0.0031)
    ('11.0 min', '4.13 s', '0.0031 s')
    """
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.3g} s"


def pilot(experiment: Experiment, *, games: int, n_jobs: int = 1) -> Pilot:
    """Play `games` games a condition (at most the file's first wave) in a temporary folder; estimate the
    games ``precision:`` needs.

    The checks with strong players (``strong: true``) are not sized: the pilot plays a few games of
    each (`check_pilot_games`) apart from the sized ones, each check in a run of its own, and times
    them; the sized estimate is the same as with no checks in the file.
    """
    sized = tuple(c for c in experiment.conditions if not c.strong)
    sizes = {c.name: min(games, experiment.games_of(c)) for c in sized}
    small = dataclasses.replace(experiment, conditions=sized, precision={}, max_games=None).with_games(sizes)
    with tempfile.TemporaryDirectory(prefix="rummysim-pilot-") as folder:
        if not sized:  # a file of checks alone: precision: sizes none of them
            return Pilot(0, 0.0, [], {}, _time_checks(experiment, games=games, out=Path(folder), n_jobs=n_jobs))
        results = run_experiment(small, out=folder, n_jobs=n_jobs)
        found = widths(analyze(results), experiment.precision)
        seconds = float(results.manifest["seconds"])
        checks = _time_checks(experiment, games=games, out=Path(folder) / "checks", n_jobs=n_jobs)
    needs = needed(small, found, growth=float("inf"), cap=0)
    return Pilot(max(sizes.values()), seconds, found, needs, checks)


def _time_checks(experiment: Experiment, *, games: int, out: Path, n_jobs: int) -> dict[str, CheckPace]:
    """Play a few games of each check with strong players, alone in its own run; return their paces."""
    paces: dict[str, CheckPace] = {}
    for condition in experiment.conditions:
        played = check_pilot_games(games, experiment.games_of(condition)) if condition.strong else 0
        if not played:
            continue
        alone = dataclasses.replace(condition, games=played, reference="")  # compared with none: only timed
        one = dataclasses.replace(experiment, conditions=(alone,), precision={}, max_games=None)
        results = run_experiment(one, out=out / str(len(paces)), n_jobs=n_jobs, strong=True)
        paces[condition.name] = CheckPace(experiment.games_of(condition), played, float(results.manifest["seconds"]))
    return paces
