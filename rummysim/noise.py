"""Library noise kept off the terminal: the warnings numpy, scipy, statsmodels, pyarrow and friends raise.

A warning from a library the analysis uses says nothing the user can act on (what it
means, such as a test that cannot be computed on a tiny run, is said in the report where
it arises, `rummysim.analysis.compare`). `muffled` drops those and lets any other warning
(a plug-in bot's own, say) through unchanged. rummysim itself never warns, so a warning
attributed to a line of rummysim is a library's, raised with a ``stacklevel`` that points
at its caller.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import warnings
from collections.abc import Iterator
from pathlib import Path

LIBRARIES = ("numpy", "scipy", "statsmodels", "pyarrow", "pandas", "matplotlib", "numba", "joblib")
"""Whose warnings are noise (and rummysim's): by where the warning class is defined or the file it is attributed to."""


@functools.cache
def _folders() -> tuple[Path, ...]:
    """Return the folders of rummysim and of the installed `LIBRARIES` (found without importing them)."""
    folders = [Path(__file__).parent]
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders += [Path(p) for p in spec.submodule_search_locations]
    return tuple(folders)


def is_noise(message: warnings.WarningMessage) -> bool:
    """Return True if a caught warning comes from one of the `LIBRARIES` or rummysim (by its class or its file)."""
    if message.category.__module__.split(".")[0] in (*LIBRARIES, "rummysim"):
        return True
    filename = Path(message.filename)
    return any(filename.is_relative_to(folder) for folder in _folders())


@contextlib.contextmanager
def muffled() -> Iterator[list[warnings.WarningMessage]]:
    """Drop the libraries' warnings raised inside the block; show any other once it ends. Yield the dropped ones."""
    dropped: list[warnings.WarningMessage] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield dropped
        finally:
            kept: list[warnings.WarningMessage] = []
            for message in caught:
                (dropped if is_noise(message) else kept).append(message)
    for message in kept:
        warnings.warn_explicit(message.message, message.category, message.filename, message.lineno)
