"""The report's lint: the nonsense a report must never print, found in its text and its charts.

`lint` reads a report's markdown (and, if given, its charts' texts) and returns a `Problem`
for each line that breaks a rule of `RULES`; `svg_problems` reads one chart as it was saved
(``figures/*.svg``, its text kept as text) and finds the texts cut short or running off the
figure. Every number is read as it is printed: ``-0.08 [-0.16, -0.00]`` is checked as those
three numbers, not as the estimate behind them.

A sentence is a line's text up to a full stop and a capital (a table's cell is a sentence of
its own). A *change* is a number followed by its interval (``+0.13 [+0.05, +0.21] pp``) or
after ``change``, ``difference`` or ``by``; a *level* is a condition's own value, after
``instead of`` (``16.6 instead of 23.9 hands a game``), beside a table size
(``2 players 33.08 hands``) or under a condition (``23.9 hands under `basic```).

>>> [p.rule for p in lint("games last +16.6 hands instead of +23.9 (change -30.6% [-30.6, -30.6]).")]
['interval with equal ends', 'sign on a level']
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

RULES = {
    "nan or inf": "a number that is not one: nan, inf (a missing value is said in words, as n/a)",
    "negative zero": "a zero printed with a minus sign, at any precision: -0, -0.0, -0.00 pp",
    "zero change with signs": "a change of nothing printed as a measured one: +0.00 [+0.00, +0.00]",
    "interval with equal ends": "an interval whose two printed ends are the same number: [+1.8, +1.8]",
    "point outside its interval": "a value printed beside an interval that does not hold it: 0.5 [0.6, 0.9]",
    "sign on a level": "a + on a condition's level of a length, a score or a share (only an edge or a change is "
    "signed): 2 players +33.08 hands, +16.6 instead of +23.9 hands",
    "pp on a share": "percentage points on a share's level, not on a change of it: (0.25 instead of 0.50 pp), "
    "1.7 pp of all points",
    "one number rounded two ways": "the change of a sentence printed at two precisions: falls by 0.082 ... "
    "change -0.08 [-0.16, -0.01]",
    "truncated title": "a chart's text cut short ([...] or ... at its end) or running off the figure",
}
"""Each rule's name, as a `Problem` names it, and what it finds."""

NUMBER = r"(?:(?<![\w.,])[+\-−]|(?<![\w.,+\-−]))(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]\d|[\w])"
"""A printed number: ``-0.08``, ``1,600``, ``+30.4``; never a rule (R3.4), a p-value's exponent or a word's digit."""
_NUMBER = re.compile(NUMBER)
_INTERVAL = re.compile(rf"\[\s*({NUMBER})\s*%?\s*,\s*({NUMBER})\s*%?\s*\]")
_POINT = re.compile(rf"({NUMBER})(\s?%|\s(?:pp|hands|turns|points))?\s\[\s*({NUMBER})\s*%?\s*,\s*({NUMBER})\s*%?\s*\]")
_NOT_A_NUMBER = re.compile(r"(?<![\w\-.])[+\-−]?(?:nan|inf|infinity)(?![\w\-])", re.IGNORECASE)
_LENGTHS = r"%|hands|turns|points"
_SIGNED_LEVEL = re.compile(rf"(\+(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?)\s?({_LENGTHS})(?![\w-])")
_INSTEAD = re.compile(rf"({NUMBER})(%)? instead of ({NUMBER})(%|\s(?:pp|percentage points|hands|turns|points)\b)?")
_SHARE_OF_POINTS = re.compile(r"of (?:all |the )?points|share of the points|points from rumm|point share")
_PP_LEVEL = re.compile(rf"({NUMBER})\s?pp (?:of (?:all |the )?points|under `)")
_UNIT_AFTER = re.compile(r"\s?(%|pp\b|percentage points|hands|turns|points|games|players|seats|cards)")
_BOUND_BEFORE = re.compile(
    r"(?:\b(?:margin of|less than|more than|up to|at least|at most|over|p [=<]|p|seed|ratio|in)|±)\s*$"
)
_BY = re.compile(r"\b(?:by|end|last|take|takes|scores)\s+$")
_MOVED = re.compile(
    r"\s?(?:%|pp\b|percentage points|hands|turns|points)?\)?\s+(?:\(\S+\)\s+)?"
    r"(?:more|less|fewer|sooner|longer)\b"
)
_SENTENCE = re.compile(r"(?<=[.!?:])\s+(?=[A-Z*`_(\[])")
PLACEHOLDERS = ("[...]", "...", "…")
"""How a cut text ends: `textwrap.shorten`'s and `textwrap.fill`'s placeholders."""


@dataclass(frozen=True)
class Problem:
    """One broken rule: the line (1-based; 0 for a chart's text), the rule's name (`RULES`) and what was printed."""

    line: int
    rule: str
    excerpt: str

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"Problem: rule {self.rule!r} is not one of {', '.join(RULES)}")

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "chart"
        return f"{where}: {self.rule}: {self.excerpt}"


def lint(markdown: str, *, titles: Iterable[str] = ()) -> list[Problem]:
    """Return every problem of a report's markdown, line by line, then of its charts' texts (`titles`).

    >>> [str(p) for p in lint("- the dealer's edge -0.00 pp")]
    ["line 1: negative zero: - the dealer's edge -0.00 pp"]
    """
    problems = []
    fenced = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("!["):
            continue
        for rule, excerpt in line_problems(line):
            problems.append(Problem(number, rule, excerpt))
    problems += [Problem(0, "truncated title", title) for title in titles if is_cut(title)]
    return problems


def is_cut(text: str) -> bool:
    """Return whether a chart's text ends with a placeholder of a shortened text (``... [...]``).

    >>> is_cut("aces high or low vs aces low only [...]"), is_cut("How hands end: out by ... (R7)")
    (True, False)
    """
    return text.rstrip().endswith(PLACEHOLDERS)


def line_problems(line: str) -> Iterator[tuple[str, str]]:
    """Yield (rule, excerpt) for each problem of one line of markdown, sentence by sentence."""
    for sentence in sentences(line):
        yield from _numbers(sentence)
        yield from _intervals(sentence)
        yield from _levels(sentence)
        yield from _roundings(sentence)


def sentences(line: str) -> list[str]:
    """Return a line's sentences: a table row's cells, or the text split at a full stop before a capital.

    >>> sentences("| a | b \\\\| c |"), sentences("It ends. Then (this): More.")
    (['a', 'b \\\\| c'], ['It ends.', 'Then (this):', 'More.'])
    """
    text = line.strip()
    if text.startswith("|"):
        return [cell.strip() for cell in re.split(r"(?<!\\)\|", text.strip("|")) if cell.strip()]
    return [part for part in _SENTENCE.split(text) if part]


def value(text: str) -> float:
    """Return a printed number's value: ``-1,600.5`` is -1600.5, ``−0.3`` (a minus sign) is -0.3."""
    return float(text.replace(",", "").replace("−", "-"))


def _excerpt(sentence: str, start: int, end: int, *, reach: int = 50) -> str:
    """Return the part of a sentence around a match, for the problem's message."""
    low, high = max(0, start - reach), min(len(sentence), end + reach)
    return f"{'...' if low else ''}{sentence[low:high]}{'...' if high < len(sentence) else ''}"


def _numbers(sentence: str) -> Iterator[tuple[str, str]]:
    for m in _NOT_A_NUMBER.finditer(sentence):
        yield "nan or inf", _excerpt(sentence, m.start(), m.end())
    for m in _NUMBER.finditer(sentence):
        if m.group().startswith(("-", "−")) and value(m.group()) == 0:
            yield "negative zero", _excerpt(sentence, m.start(), m.end())


def _intervals(sentence: str) -> Iterator[tuple[str, str]]:
    zero: set[int] = set()
    for m in _POINT.finditer(sentence):
        if re.search(r"\d\s+of\s+$", sentence[: m.start()]):
            continue  # "0 of 1,000 [0.0, 0.4]": a count, then a rate's interval
        x, low, high = value(m.group(1)), value(m.group(3)), value(m.group(4))
        if x == low == high == 0 and (re.search(r"[+\-−.]", m.group(1) + m.group(3) + m.group(4))):
            zero.add(m.start(3))
            yield "zero change with signs", _excerpt(sentence, m.start(), m.end())
        elif x < low or x > high:
            yield "point outside its interval", _excerpt(sentence, m.start(), m.end())
    for m in _INTERVAL.finditer(sentence):
        if m.start(1) not in zero and value(m.group(1)) == value(m.group(2)):
            yield "interval with equal ends", _excerpt(sentence, m.start(), m.end())


def _inside_brackets(sentence: str, at: int) -> bool:
    return sentence.rfind("[", 0, at) > sentence.rfind("]", 0, at)


def _levels(sentence: str) -> Iterator[tuple[str, str]]:
    """Yield a + on a level of a length, a score or a share, and pp on a share's level (module doc)."""
    flagged: set[int] = set()
    for m in _INSTEAD.finditer(sentence):
        a, unit, b = m.group(1), (m.group(4) or m.group(2) or "").strip(), m.group(3)
        if unit in ("pp", "percentage points"):
            if not a.startswith(("+", "-", "−")) or not b.startswith(("+", "-", "−")):  # an edge's levels are signed
                yield "pp on a share", _excerpt(sentence, m.start(), m.end())
        elif unit and "+" in a + b:
            flagged.update((m.start(1), m.start(3)))
            yield "sign on a level", _excerpt(sentence, m.start(), m.end())
    for m in _SIGNED_LEVEL.finditer(sentence):
        before, after = sentence[: m.start()], sentence[m.end() :]
        if m.start() in flagged or _inside_brackets(sentence, m.start()) or after.lstrip().startswith("["):
            continue
        if re.search(r"(?:change|changes|difference|by|effect|a change of|outside|of up to|shift)\s*$", before):
            continue
        yield "sign on a level", _excerpt(sentence, m.start(), m.end())
    if _SHARE_OF_POINTS.search(sentence):
        for m in _PP_LEVEL.finditer(sentence):
            yield "pp on a share", _excerpt(sentence, m.start(), m.end())


def _unit(sentence: str, end: int) -> str:
    """Return the unit printed after a number (or after its interval), normalised: ``pp`` for percentage points."""
    rest = sentence[end:]
    interval = _INTERVAL.match(rest.lstrip())
    if interval:
        rest = rest.lstrip()[interval.end() :]
    m = _UNIT_AFTER.match(rest)
    unit = m.group(1) if m else ""
    return "pp" if unit == "percentage points" else unit


def _roundings(sentence: str) -> Iterator[tuple[str, str]]:
    """Yield one number rounded two ways: a change's printed value (a number before its interval) and the size of a
    change said in words in the same sentence and unit (after ``by``, ``end``, ``last``, ``take``, ``scores``, or
    before ``more``, ``less``, ``fewer``, ``sooner``, ``longer``) that is the same figure at other decimals
    (``falls by 0.082`` and ``change -0.08 [...]``; ``take 11 percentage points more`` and ``+10.53 [...] pp``).

    Levels, bounds and margins (after ``less than``, ``margin of``, ``±``, ...), p-values and interval ends are
    other numbers and are never compared.
    """
    points = [(m.group(1), m.start(1), _unit(sentence, m.end(1))) for m in _POINT.finditer(sentence)]
    at_points = {start for _, start, _ in points}
    bare = []
    for m in _NUMBER.finditer(sentence):
        if m.start() in at_points or _inside_brackets(sentence, m.start()):
            continue
        before, after = sentence[: m.start()], sentence[m.end() :]
        if _BOUND_BEFORE.search(before) or not (_BY.search(before) or _MOVED.match(after)):
            continue  # a bound, a margin, a level: not the size of a change
        bare.append((m.group(), m.start(), _unit(sentence, m.end())))
    for x, x_at, x_unit in bare:
        for y, _, y_unit in points:
            if x_unit == y_unit and _rounded_apart(x, y):
                yield "one number rounded two ways", _excerpt(sentence, x_at, x_at + len(x), reach=80)
                break


def decimals_of(text: str) -> int:
    """Return how many decimals a number is printed with: ``-0.082`` has 3, ``11`` none."""
    return len(text.split(".")[1]) if "." in text else 0


def _rounded_apart(x: str, y: str) -> bool:
    """Return whether two printed numbers are one figure at two precisions: their sizes differ, and the finer one,
    rounded to the coarser one's decimals, is the coarser one (``0.082`` and ``-0.08``; ``11`` and ``+10.53``)."""
    a, b = abs(value(x)), abs(value(y))
    da, db = decimals_of(x), decimals_of(y)
    if da == db or a == b or not a or not b:
        return False
    (fine, _), (coarse, dc) = ((a, da), (b, db)) if da > db else ((b, db), (a, da))
    if dc == 0 and coarse < 10:  # a bare count (2 players, 3 seats), never a rounded change
        return False
    return math.isclose(round(fine, dc), coarse, abs_tol=0.5 * 10**-dc * 1e-6)


@dataclass(frozen=True)
class ChartText:
    """One text of a saved chart: what it says, where it starts (pt), its size, weight and anchor."""

    text: str
    x: float
    size: float
    bold: bool
    anchor: str


def chart_texts(svg: str) -> tuple[float, list[ChartText]]:
    """Return a saved chart's width (pt) and its horizontal texts (matplotlib's SVG with ``svg.fonttype: none``)."""
    root = ET.fromstring(svg)
    width = float(root.get("width", "0").removesuffix("pt") or 0)
    found = []
    for node in root.iter("{http://www.w3.org/2000/svg}text"):
        text = "".join(node.itertext())
        transform = node.get("transform", "")
        if not text.strip() or re.search(r"rotate\(-?(?!0\b)\d", transform):  # a rotated axis label: not checked
            continue
        style = dict(
            (part.split(":", 1)[0].strip(), part.split(":", 1)[1].strip())
            for part in node.get("style", "").split(";")
            if ":" in part
        )
        size = float(style.get("font-size", "10px").removesuffix("px"))
        shift = re.search(r"translate\(\s*(-?[\d.]+)", transform)  # a line of a text of several lines
        x = float(node.get("x", "0")) + (float(shift.group(1)) if shift else 0.0)
        found.append(ChartText(text, x, size, style.get("font-weight") in ("700", "bold"),
                               style.get("text-anchor", "start")))  # fmt: skip
    return width, found


def text_width(text: str, *, size: float, bold: bool = False) -> float:
    """Return a text's width in points, in the charts' font (DejaVu Sans, matplotlib's default)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(family="DejaVu Sans", size=size, weight="bold" if bold else "normal")
    return TextToPath().get_text_width_height_descent(text, font, ismath=False)[0]


def svg_problems(svg: str) -> list[Problem]:
    """Return a saved chart's texts that are cut short or reach past its left or right edge."""
    width, texts = chart_texts(svg)
    problems = []
    for t in texts:
        w = text_width(t.text, size=t.size, bold=t.bold)
        left = t.x - {"start": 0.0, "middle": w / 2, "end": w}.get(t.anchor, 0.0)
        if is_cut(t.text) or left < -0.5 or left + w > width + 0.5:
            problems.append(Problem(0, "truncated title", t.text))
    return problems
