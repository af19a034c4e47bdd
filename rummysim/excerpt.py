"""How an error message shows a value it did not expect: an excerpt, quoted, on one line, a few dozen characters.

A value in an experiment file can be anything YAML makes: a megabyte of text, a number of
thousands of digits, a list that holds itself a billion times over through aliases. A
message must not format all of it (that alone can exhaust memory) nor let it break the
message's one line, so every message quotes a value through `excerpt`: its ``repr``,
walked only a few levels and items deep (`reprlib`), cut to `WIDTH` characters with
``...``. A ``repr`` escapes line breaks and control characters, so one line stays one.
(Text a bot says is quoted by `rummysim.errors.quoted`.)

>>> excerpt("two\\nlines")
"'two\\\\nlines'"
>>> excerpt("x" * 1000) == "'" + "x" * 56 + "..."
True
>>> bomb = ["lol"]
>>> for _ in range(30):
...     bomb = [bomb] * 9
>>> excerpt(bomb)
'[[[[...], [...], [...], [...], [...], [...], ...], [[...]...'
>>> excerpt(7 ** 10000)
'a whole number of about 8,452 digits'
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

WIDTH = 60
"""The most characters of a value a message shows."""
KEY_WIDTH = 40
"""The most characters of a key a key path shows as it is written."""
_DIGITS = 1000
"""Beyond this many bits a whole number is described, not written (Python refuses to write one of 4,300 digits)."""

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = _REPR.maxother = WIDTH + 3  # cut again, to a prefix, below
_REPR.maxlong = WIDTH + 3
for _name in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque", "maxarray"):
    setattr(_REPR, _name, 6)


def excerpt(value: Any, *, width: int = WIDTH) -> str:
    """Return a value as an error message shows it: its ``repr`` on one line, cut to `width` characters with ``...``."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _DIGITS:
        digits = math.floor(value.bit_length() * math.log10(2)) + 1
        return f"a whole number of about {digits:,} digits"
    try:
        text = repr(value[: width + 1]) if isinstance(value, (str, bytes)) else _REPR.repr(value)
    except Exception:  # a value whose repr fails (only a Python caller can pass one) is named by its type
        text = f"<{type(value).__name__}>"
    text = text.replace("\n", "\\n").replace("\r", "\\r")  # an object's own repr may break lines
    return text if len(text) <= width else text[: width - 3] + "..."


def key_text(key: Any) -> str:
    """Return a key as a key path shows it (``rules.ace``): as written if it is a short line of text, else an excerpt.

    >>> key_text("ace"), key_text("a\\nb"), key_text(3)
    ('ace', "'a\\\\nb'", '3')
    """
    return key if isinstance(key, str) and 0 < len(key) <= KEY_WIDTH and key.isprintable() else excerpt(key)
