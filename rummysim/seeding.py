"""Where every random number comes from: streams derived from the experiment seed.

Each stream is a `numpy.random.Generator` built from ``SeedSequence(seed, spawn_key)``:

=========================  ===============================  ===========================
stream                     spawn key                        used for
=========================  ===============================  ===========================
`hand_rng`                 ``(0, game, hand)``              the deal, then every stock
                                                            rebuild of that hand (R3.1,
                                                            R10.1)
`strategy_rng`             ``(1, game, seat)``, hashed      one bot's own choices
`game_rng`                 ``(2, game)``                    the first dealer (R3.1)
=========================  ===============================  ===========================

So a deal depends on (seed, game, hand) alone: every condition of an experiment plays the
same deals, and no number of workers or chunking can change a result.

A bot holds its generator, so nothing in it may lead back to the seed: a generator
built from ``SeedSequence(seed, ...)`` keeps that sequence in ``bit_generator.seed_seq``,
from which the deals could be rebuilt. `strategy_rng` therefore seeds the bot's
generator with a BLAKE2b hash of its stream's state: a one-way key, as reproducible as
the stream itself.
"""

from __future__ import annotations

import hashlib

import numpy as np

_HAND, _STRATEGY, _GAME = 0, 1, 2


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def hand_rng(seed: int, game: int, hand: int) -> np.random.Generator:
    """Return the stream of one hand's deal and stock rebuilds."""
    return _rng(seed, _HAND, game, hand)


def strategy_key(seed: int, game: int, seat: int) -> int:
    """Return the one-way 128-bit key of the bot in one seat for one game (see the module's table)."""
    state = np.random.SeedSequence(seed, spawn_key=(_STRATEGY, game, seat)).generate_state(8, np.uint32)
    return int.from_bytes(hashlib.blake2b(state.tobytes(), digest_size=16, person=b"rummysim-bot").digest(), "little")


def strategy_rng(seed: int, game: int, seat: int) -> np.random.Generator:
    """Return the stream of the bot in one seat for one game, seeded by its one-way `strategy_key`."""
    return np.random.Generator(np.random.PCG64(strategy_key(seed, game, seat)))


def game_rng(seed: int, game: int) -> np.random.Generator:
    """Return the stream of one game's own choices (the first dealer)."""
    return _rng(seed, _GAME, game)
