"""What newer Pythons have built in, for Python 3.10."""

from __future__ import annotations

import sys
from enum import Enum

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10

    class StrEnum(str, Enum):
        """An enum whose members are strings and print as their value (`enum.StrEnum`, 3.11)."""

        def __str__(self) -> str:
            return str(self.value)


__all__ = ["StrEnum"]
