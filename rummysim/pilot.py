"""A short pilot run that estimates how many games an experiment's ``precision:`` needs (`rummysim validate`)."""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass

from rummysim.analysis import analyze
from rummysim.design import Experiment
from rummysim.measures import MEASURES
from rummysim.precision import Width, needed, widths
from rummysim.runner import run_experiment


@dataclass(frozen=True)
class Pilot:
    """What a pilot found: each planned width at the pilot's size, and the games each condition needs."""

    games: int
    seconds: float
    found: list[Width]
    needs: dict[str, int]
    """Games per condition for every width to reach its target (by `rummysim.precision`'s rule, uncapped)."""

    def lines(self, experiment: Experiment) -> list[str]:
        """Return what `rummysim validate` prints of it."""
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
        strong = [c for c in experiment.conditions if c.strong]
        if strong:
            lines.append(
                "    checks with strong players, not sized: "
                + ", ".join(f"{experiment.games_of(c):,} games ({c.name})" for c in strong)
            )
        return lines


def pilot(experiment: Experiment, *, games: int, n_jobs: int = 1) -> Pilot:
    """Play `games` games a condition (at most the file's first wave) in a temporary folder; estimate the
    games ``precision:`` needs.

    The checks with strong players (``strong: true``) are not sized: the pilot leaves them out
    and says the games they name.
    """
    sized = tuple(c for c in experiment.conditions if not c.strong)
    sizes = {c.name: min(games, experiment.games_of(c)) for c in sized}
    small = dataclasses.replace(experiment, conditions=sized, precision={}, max_games=None).with_games(sizes)
    with tempfile.TemporaryDirectory(prefix="rummysim-pilot-") as folder:
        results = run_experiment(small, out=folder, n_jobs=n_jobs)
        found = widths(analyze(results), experiment.precision)
        seconds = float(results.manifest["seconds"])
    needs = needed(small, found, growth=float("inf"), cap=0)
    return Pilot(max(sizes.values()), seconds, found, needs)
