"""The installed version of rummysim, recorded in every manifest."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rummysim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
