"""What a sized run reads and says of its waves (`rummysim.precision`): each condition's games, the waves recorded."""

from __future__ import annotations

from collections.abc import Sequence

import rummysim.precision as precision
from rummysim.design import Experiment
from rummysim.measures import MEASURES
from rummysim.precision import Width
from rummysim.results import Results


def recorded_waves(finished: Results | None, experiment: Experiment) -> list[dict[str, int]]:
    """Return the waves a finished sized run of this experiment records, if it asked this precision; else [].

    The stop is decided on the last wave's analysis, which the run makes again: the earlier waves,
    each decided on the same tables by the same rule, need not be.
    """
    record = finished.manifest.get("precision") if finished is not None else None
    if finished is None or not isinstance(record, dict) or not isinstance(record.get("waves"), list):
        return []
    asked, waves = precision.record(experiment, [], []), record["waves"]
    if any(record.get(key) != asked[key] for key in ("target", "max_games", "rule")) or not waves:
        return []
    if waves[0] != games(experiment) or waves[-1] != games(finished.experiment):
        return []
    return [dict(wave) for wave in waves]


def games(experiment: Experiment) -> dict[str, int]:
    """Return each condition's number of games."""
    return {c.name: experiment.games_of(c) for c in experiment.conditions}


def too_wide(found: Sequence[Width]) -> str:
    """Say how many planned intervals are still too wide, and the widest, in its measure's unit."""
    wide = [w for w in found if not w.met]
    worst = max(wide, key=lambda w: w.half_width / w.target if w.half_width == w.half_width else float("inf"))
    measure = MEASURES.get(worst.measure)
    noun, unit = (measure.noun, f" {measure.unit}" if measure.unit else "") if measure else (worst.measure, "")
    return (f"{len(wide)} of {len(found)} planned intervals wider than asked (widest: {worst.other} against "
            f"{worst.reference}, {noun}: ±{worst.half_width:.3g}{unit}, target ±{worst.target:g}{unit})")  # fmt: skip


def games_text(games: dict[str, int]) -> str:
    return ", ".join(f"{n:,} games ({name})" for name, n in games.items())
