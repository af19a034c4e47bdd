"""The explorer's words and numbers (`rummysim.report.explorer`): each a twin of a function of ``explorer.js``.

`number_text`, `estimate_text` and `change_phrase` are what the page writes for a number, an
estimate with its interval and a change; `level_words` says a factor's level as a player says it
(`rummysim.report.verdicts.rule_words`). Change one here, change its twin in ``explorer.js``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rummysim.errors import ConfigError
from rummysim.report.verdicts import rule_words

UNITS: dict[str, tuple[float, str]] = {"pp": (100.0, " pp"), "hands": (1.0, " hands"), "": (1.0, "")}
"""Each unit's scale and the words after a value."""

BETTER = ("low", "high", "zero", "")

REFERENCE = "basic rummy"
"""What a change is measured against: the cell of the same table size with every factor at its first level."""


@dataclass(frozen=True)
class Measure:
    """One measure the page shows.

    `name` is its column stem in the cells frame, `label` its name for a reader, `unit` ``"pp"``
    (a proportion, shown x 100), ``"hands"`` or ``""``, `digits` the decimals shown, and `better`
    the direction a player would call better: ``"low"``, ``"high"``, ``"zero"`` (nearer zero, as a
    seat's edge: 0 is fair) or ``""`` (none); a hint in the words only (`change_phrase`).
    """

    name: str
    label: str
    unit: str
    digits: int
    better: str

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ConfigError(f"measure {self.name!r}: a name is letters, digits and underscores (a column stem)")
        if self.unit not in UNITS:
            raise ConfigError(f"measure {self.name}: unit {self.unit!r}, not one of 'pp', 'hands', ''", key="unit")
        if self.better not in BETTER:
            raise ConfigError(f"measure {self.name}: better {self.better!r}, not one of 'low', 'high', 'zero', ''")
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 0 <= self.digits <= 12:
            raise ConfigError(f"measure {self.name}: digits {self.digits!r}, not a whole number from 0 to 12")


def number_text(x: float, digits: int, *, signed: bool = False) -> str:
    """Return `x` with `digits` decimals, a sign if `signed` or negative, never ``-0.00`` (``explorer.js``'s twin).

    >>> number_text(0.125, 2), number_text(0.375, 2), number_text(-0.125, 2, signed=True), number_text(-0.001, 2)
    ('0.12', '0.38', '-0.12', '0.00')
    """
    text = f"{abs(x):.{digits}f}"
    return ("-" if x < 0 and text.strip("0.") else "+" if signed else "") + text


def _finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)


def estimate_text(value: float, low: float, high: float, measure: Measure, *, signed: bool = False) -> str:
    """Return ``value unit [low, high]`` as the page shows it: ``n/a`` without a value, no brackets without an interval.

    An interval whose ends are equal (two cells alike in every game) is no interval, and is not shown.

    An exact zero without an interval (basic rummy against itself, a cell against itself) is ``0``, never ``+0.00``.

    >>> edge = Measure("edge", "Edge", "pp", 2, "low")
    >>> estimate_text(0.0231, 0.0198, 0.0264, edge), estimate_text(0.0, math.nan, math.nan, edge, signed=True)
    ('2.31 pp [1.98, 2.64]', '0 pp')
    >>> estimate_text(0.0, 0.0, 0.0, edge, signed=True), estimate_text(0.00004, math.nan, math.nan, edge, signed=True)
    ('0 pp', '+0.00 pp')
    """
    if not math.isfinite(value):
        return "n/a"
    scale, unit = UNITS[measure.unit]

    def shown(x: float) -> str:
        return number_text(x * scale, measure.digits, signed=signed)

    interval = f" [{shown(low)}, {shown(high)}]" if _finite(low, high) and low != high else ""
    return ("0" if value == 0 and not interval else shown(value)) + unit + interval


def level_text(level: float) -> str:
    """Return a confidence level as a percentage with enough digits to differ from 100%.

    >>> level_text(0.95), level_text(1 - 0.03 / 1260)
    ('95%', '99.998%')
    """
    digits = max(0, math.ceil(-math.log10(max(1.0 - level, 1e-12))) - 2)
    return f"{level * 100:.{digits}f}%"


def _hint(low: float, high: float, measure: Measure, base: float) -> str:
    """Return `` (better)``, `` (worse)`` or nothing for a change whose interval [low, high] excludes zero.

    ``zero``: better when every change in the interval brings `base` (the level the change is
    from) nearer zero, worse when every one takes it further, else nothing.
    """
    if measure.better in ("low", "high"):
        return " (better)" if (high < 0) == (measure.better == "low") else " (worse)"
    if measure.better != "zero" or not math.isfinite(base):
        return ""
    near, far = sorted((0.0, -2.0 * base))  # |base + d| < |base| exactly when d lies strictly between them
    if near < low and high < far:
        return " (better)"
    return " (worse)" if high < near or low > far else ""


def change_phrase(
    change: float, low: float, high: float, measure: Measure, *, base: float = math.nan, against: str = REFERENCE
) -> str:
    """Return the page's words for a change against `against`: which way, whether its interval excludes zero, and
    whether that is better or worse in the measure's direction (``zero``: judged from `base`, `against`'s level).

    >>> change_phrase(-0.01, -0.02, -0.005, Measure("edge", "Edge", "pp", 2, "low"))
    'lower than basic rummy (better): the interval excludes zero'
    >>> edge = Measure("edge", "Edge", "pp", 2, "zero")
    >>> change_phrase(-0.01, -0.02, -0.005, edge, base=-0.006)  # further from zero: less fair
    'lower than basic rummy (worse): the interval excludes zero'
    >>> change_phrase(-0.01, -0.02, -0.005, edge, base=0.02)  # nearer zero, whichever end is true
    'lower than basic rummy (better): the interval excludes zero'
    """
    if not math.isfinite(change):
        return "not measured"
    if _finite(low, high) and low == high:
        return f"the same in every game as {against}" if change == 0 else "no interval"
    if not _finite(low, high):
        return f"this is {against}, the reference" if change == 0 and against == REFERENCE else "no interval"
    way = "higher" if low > 0 else "lower" if high < 0 else ""
    if not way:
        return "no change shown: the interval includes zero"
    return f"{way} than {against}{_hint(low, high, measure, base)}: the interval excludes zero"


def level_words(factor: str, level: object, levels: Sequence[object]) -> str:
    """Return one level of a factor as a player says it (`rummysim.report.verdicts.rule_words`), never as a key.

    `levels` are the factor's levels, typed as the experiment file has them (``[2, 1]`` for the rummy bonus):

    >>> level_words("rummy_multiplier", "1", [2, 1]), level_words("rummy_multiplier", 2, [2, 1])
    ('no bonus for going rummy', 'going rummy doubling the points')
    """
    value = next((v for v in levels if str(v) == str(level)), level)
    other = next((v for v in levels if str(v) != str(level)), None)
    words = rule_words({factor: value}, base={factor: other}) if other is not None else []
    return words[0] if words else f"{factor.replace('_', ' ')}: {level}"
