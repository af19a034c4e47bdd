"""A measure's amount in its own unit: the experiment's margins of equivalence and precision targets.

An experiment file gives each measure of `rummysim.measures` a margin (``margin:``, the
smallest change worth reporting) and, if it asks for one, the half-width of its planned
intervals (``precision:``), both in the measure's unit: ``1 pp`` or ``1`` for a first-seat
edge, ``0.02`` for Order. `rummysim.design` keeps them in the `Experiment`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rummysim.errors import ConfigError, nearest
from rummysim.excerpt import excerpt, key_text
from rummysim.measures import MEASURES, UNIT_RANGE, UNIT_WORDS

MARGINS: dict[str, tuple[str, float]] = {name: (m.unit, m.margin) for name, m in MEASURES.items()}
"""The measures a margin of equivalence (``margin:``) and a precision target (``precision:``) are given for:
measure -> (its unit, the default margin in that unit), from `rummysim.measures` (docs/metrics.md says why).

The margin is also the smallest effect worth reporting: a verdict's "Yes, but small" and "No" are
decided against it (`rummysim.analysis.compare`)."""
MARGIN_RANGE = UNIT_RANGE
_AMOUNT = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*$")


def check_margin(value: Any, where: str) -> dict[str, float]:
    """Return every measure's margin (`MARGINS`), the given ones checked, the rest at their defaults.

    `where` names the key in errors (``FILE: margin``). A first-seat edge is in percentage
    points (``1 pp`` or ``1``), an Order change in Order's own unit (``0.02``):

    >>> margins = check_margin({"first_seat_edge": "0.5 pp", "game_length": "2 hands"}, "x.yaml: margin")
    >>> margins["first_seat_edge"], margins["game_length"], margins["order"]
    (0.5, 2.0, 0.02)
    >>> check_margin({"order": -1}, "x.yaml: margin")
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: x.yaml: margin.order: -1 is not above 0 and at most 2
    """
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{where}: expected a mapping of measure to margin, such as {{first_seat_edge: 1 pp, order: 0.02}}, "
            f"got {excerpt(value)}"
        )
    margins = {measure: default for measure, (_, default) in MARGINS.items()}
    return margins | _measures(value, where)


def check_precision(value: Any, where: str) -> dict[str, float]:
    """Return the half-width asked of each measure's planned comparisons (``precision:``); {} if none is asked.

    The measures and units are the margins' (`MARGINS`): ``first_seat_edge: 0.25 pp``,
    ``order: 0.01``, each the half-width of a 95% interval.

    >>> check_precision({"first_seat_edge": "0.25 pp"}, "x.yaml: precision")
    {'first_seat_edge': 0.25}
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not value:
        raise ConfigError(
            f"{where}: expected a mapping of measure to the half-width of its 95% intervals, such as "
            f"{{first_seat_edge: 0.25 pp, order: 0.01}}, got {excerpt(value)}"
        )
    return _measures(value, where)


def _measures(value: Mapping[Any, Any], where: str) -> dict[str, float]:
    """Return a mapping of measure (`MARGINS`) to a positive amount in its unit, each checked."""
    amounts = {}
    for measure, given in value.items():
        if measure not in MARGINS:
            close = nearest(str(measure), MARGINS)
            hint = f"did you mean {close!r}?" if close else f"measures are {', '.join(MARGINS)}"
            raise ConfigError(f"{where}.{key_text(measure)}: unknown measure; {hint}")
        unit, default = MARGINS[measure]
        number = given
        matched = _AMOUNT.match(given) if isinstance(given, str) else None
        if matched and (matched.group(2) in UNIT_WORDS[unit] or (not matched.group(2) and unit != "pp")):
            number = float(matched.group(1))
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ConfigError(f"{where}.{measure}: {excerpt(given)} is not {_such(unit, default)}")
        top = MARGIN_RANGE[unit]
        if not 0 < number <= top:
            raise ConfigError(
                f"{where}.{measure}: {excerpt(given)} is not above 0 and at most {top:g}{' pp' if unit == 'pp' else ''}"
            )
        amounts[str(measure)] = float(number)
    return amounts


def _such(unit: str, default: float) -> str:
    """Return what a measure's amount looks like, for an error: ``a change in percentage points, such as 1 pp``."""
    if unit == "pp":
        return f"a change in percentage points, such as {default:g} pp"
    if unit in ("", "log"):
        return f"a number, such as {default}"
    return f"a number of {unit}, such as {default:g} or '{default:g} {unit}'"


def margin_text(measure: str, value: float) -> str | float:
    """Return a margin as the experiment file writes it: ``1 pp`` or ``0.02``."""
    return f"{value:g} pp" if MARGINS[measure][0] == "pp" else value
