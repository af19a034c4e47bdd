"""Where every random number comes from: streams derived from the experiment seed.

Each stream is a `numpy.random.Generator` built from ``SeedSequence(seed, spawn_key)``:

=========================  ===============================  ===========================
stream                     spawn key                        used for
=========================  ===============================  ===========================
`hand_rng`                 ``(0, game, hand)``              the deal, then every stock
                                                            rebuild of that hand (R3.1,
                                                            R10.1)
`strategy_rng`             ``(1, game, seat)``              one bot's own choices
`game_rng`                 ``(2, game)``                    the first dealer (R3.1)
=========================  ===============================  ===========================

So a deal depends on (seed, game, hand) alone: every condition of an experiment plays the
same deals, and no number of workers or chunking can change a result.
"""

from __future__ import annotations

import numpy as np

_HAND, _STRATEGY, _GAME = 0, 1, 2


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def hand_rng(seed: int, game: int, hand: int) -> np.random.Generator:
    """Return the stream of one hand's deal and stock rebuilds."""
    return _rng(seed, _HAND, game, hand)


def strategy_rng(seed: int, game: int, seat: int) -> np.random.Generator:
    """Return the stream of the bot in one seat for one game."""
    return _rng(seed, _STRATEGY, game, seat)


def game_rng(seed: int, game: int) -> np.random.Generator:
    """Return the stream of one game's own choices (the first dealer)."""
    return _rng(seed, _GAME, game)
