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
RELATIVE: dict[str, float] = {name: m.relative for name, m in MEASURES.items() if m.relative}
"""The measures whose margin is by default a share of the reference's level, decided on the log ratio of the two
levels: measure -> that share (0.05, 5%). A file may set another share (``game_length: 10%``) or a margin in the
measure's unit (``game_length: 2 hands``), which has it decided on the difference instead."""
MARGIN_RANGE = UNIT_RANGE
_AMOUNT = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*$")
_SHARE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*%\s*$")


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
    return margins | _measures({k: v for k, v in value.items() if not _is_share(k, v, where)}, where)


def check_relative(value: Any, where: str) -> dict[str, float]:
    """Return the margins given as a share of the reference's level (`RELATIVE`), by measure, as fractions.

    Each measure of `RELATIVE` has its default share unless the file gives it a margin in its unit
    (then it is decided on the difference, and absent here); ``10%`` sets another share.

    >>> check_relative({"game_length": "2 hands", "hand_length": "10%"}, "x.yaml: margin")
    {'hand_length': 0.1, 'points_per_hand': 0.05}
    >>> check_relative({"order": "5%"}, "x.yaml: margin")
    Traceback (most recent call last):
    ...
    rummysim.errors.ConfigError: x.yaml: margin.order: '5%' is a share of a level, which only game_length, \
hand_length and points_per_hand take; give order a number, such as 0.02
    """
    given = value if isinstance(value, Mapping) else {}
    shares = {}
    for measure, default in RELATIVE.items():
        if measure not in given:
            shares[measure] = default
        elif _is_share(measure, given[measure], where):
            shares[measure] = float(_SHARE.match(given[measure]).group(1)) / 100  # type: ignore[union-attr]
    for measure, amount in given.items():
        _is_share(measure, amount, where)  # a share given to a measure that takes none is refused
    return shares


def _is_share(measure: Any, value: Any, where: str) -> bool:
    """Return True if `value` is a share such as ``5%`` for a measure of `RELATIVE`; refuse a share elsewhere."""
    matched = _SHARE.match(value) if isinstance(value, str) else None
    if matched is None:
        return False
    if measure not in RELATIVE:
        if measure not in MARGINS:
            return False  # an unknown measure: said as such by `_measures`
        unit, default = MARGINS[measure]
        raise ConfigError(
            f"{where}.{key_text(measure)}: {excerpt(value)} is a share of a level, which only "
            f"{_listed(RELATIVE)} take; give {measure} {_such(unit, default)}"
        )
    share = float(matched.group(1))
    if not 0 < share <= 100:
        raise ConfigError(f"{where}.{measure}: {excerpt(value)} is not a share above 0% and at most 100%")
    return True


def _listed(names: Mapping[str, Any]) -> str:
    """Return ``a, b and c``."""
    words = list(names)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


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


def margins_text(absolute: Mapping[str, float], relative: Mapping[str, float]) -> dict[str, str | float]:
    """Return every margin as the experiment file writes it, a share where the measure is decided on one (``5%``).

    >>> margins_text({"game_length": 1.0, "order": 0.02}, {"game_length": 0.05})
    {'game_length': '5%', 'order': 0.02}
    """
    shares = {measure: f"{share * 100:g}%" for measure, share in relative.items()}
    return {measure: shares.get(measure, margin_text(measure, value)) for measure, value in absolute.items()}
