"""Compiled building blocks: card masks as int64, and the counter-based streams of `rummysim.seeding`.

Every function here is the compiled twin of a reference function, named alike: the
streams must give the very numbers `rummysim.seeding` gives (tests/test_compiled.py
checks them over random keys), and the masks are the 52-bit masks of `rummysim.cards`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba import njit
from numba.core.errors import NumbaPedanticWarning
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic, register_jitable

import rummysim.core as core
from rummysim.seeding import _MIX1, _MIX2, GOLDEN

# numba's own internal checks ("please report"), raised when a kernel inlining the rules core compiles, whenever
# that is: not the user's to read (pyproject.toml filters them in the tests too)
warnings.filterwarnings("ignore", category=NumbaPedanticWarning)

for _rule in core.RULES:  # the rules core, compiled and inlined into every kernel that calls it (rummysim.core)
    register_jitable(inline="always")(_rule)  # a call instead made montecarlo's playouts 4x slower

_G = np.uint64(GOLDEN)
_M1, _M2 = np.uint64(_MIX1), np.uint64(_MIX2)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)
_ONE = np.uint64(1)

F = TypeVar("F", bound=Callable[..., Any])


def kernel(*, inline: bool = False) -> Callable[[F], F]:
    """Compile a function with numba, cached on disk, without reference counting.

    Numba counts references to every array a compiled function receives, at some
    nanoseconds a call around work of a few. So the kernels run without it (numba's
    ``_nrt=False``) and allocate nothing: each array comes from the caller that made it
    (`state.new_hand`, `game.play_games`, `playouts.judge`, which keep numba's defaults).
    The state and the tables are numpy records (`state.HAND`, `lookups.LOOKUPS`), which a
    call passes as one pointer each, so the policies are called, each compiled once.

    `inline` inlines the function into its callers in numba's IR, for the small ones a
    call would cost more than their work. Numba re-reads and copies an inlined function's
    IR at every call site, so inlining a large function that inlines others made the
    first compile take minutes; a called kernel is compiled once.
    """
    options: dict[str, Any] = {"cache": True, "_nrt": False}
    if inline:
        options["inline"] = "always"
    return njit(**options)


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return x(x), codegen


@kernel(inline=True)
def popcount(mask: int) -> int:
    """Return how many cards a mask holds (`int.bit_count`), with the processor's popcount."""
    return _ctpop(mask)  # type: ignore[call-arg]


@kernel(inline=True)
def lowest(mask: int) -> int:
    """Return the lowest card of a non-empty mask (the first of `iter_cards`)."""
    return trailing_zeros(mask)  # type: ignore[call-arg]


@kernel(inline=True)
def mix64(z: np.uint64) -> np.uint64:
    """`rummysim.seeding.mix64`."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel(inline=True)
def derive(key: np.uint64, step: int) -> np.uint64:
    """`rummysim.seeding.derive` with one path element."""
    return mix64(key ^ mix64((np.uint64(step) + _ONE) * _G))


@kernel(inline=True)
def draw(key: np.uint64, i: int) -> np.uint64:
    """`rummysim.seeding.draw`."""
    return mix64(key + (np.uint64(i) + _ONE) * _G)


@kernel(inline=True)
def below(u: np.uint64, n: int) -> int:
    """`rummysim.seeding.below`."""
    return np.int64(((u >> _S32) * np.uint64(n)) >> _S32)


@kernel()
def shuffle(key: np.uint64, cards: np.ndarray, n: int) -> None:
    """Shuffle ``cards[:n]`` in place as `rummysim.seeding.permutation` orders ``range(n)``.

    The same swaps on the cards as on ``range(n)`` leave ``cards[permutation]``.
    """
    for i in range(n - 1, 0, -1):
        j = below(draw(key, n - 1 - i), i + 1)
        cards[i], cards[j] = cards[j], cards[i]
