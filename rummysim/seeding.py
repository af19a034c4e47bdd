"""Where every random number comes from: counter-based streams keyed by the experiment seed.

Every random choice of a game is a pure function of (seed, stream, game, hand, counter),
so both engines (the reference engine and the compiled one, `rummysim.compiled`) draw
the same numbers without sharing any state, in any order, on any worker:

=========================  =====================================  ===========================
stream                     key                                    used for
=========================  =====================================  ===========================
`hand_key`                 ``derive(root(seed), 0, game, hand)``  the deal (sub-key 0), then
                                                                  the r-th stock rebuild (sub-key
                                                                  1 + r) of that hand (R3.1, R10.1)
`strategy_rng`             ``(1, game, seat)``, hashed one-way    one bot's own choices
`game_key`                 ``derive(root(seed), 2, game)``        the first dealer (R3.1)
=========================  =====================================  ===========================

The generator is SplitMix64 (Steele, Lea and Flood, 2014): the i-th number of the stream
with key ``k`` is ``mix64(k + (i + 1) * GOLDEN)``, and keys are derived by mixing one
path element at a time (`derive`). A number below ``n`` is ``(u >> 32) * n >> 32``
(Lemire's multiply-shift without rejection: its bias is below ``n / 2**32``, under 1.3e-8
for a 52-card deck). A shuffle is Fisher-Yates from the top (`permutation`).

So a deal depends on (seed, game, hand) alone: every condition of an experiment plays the
same deals, and no number of workers, chunking or engine can change a result. The
streams carry a version, `STREAMS`, recorded in each run's manifest and fingerprint: a
folder made under other streams is never resumed or replayed as if it were this one.

A bot holds its generator, so nothing in it may lead back to the seed. `strategy_rng`
seeds a numpy `Generator` with a BLAKE2b hash of its stream's state: a one-way key, as
reproducible as the stream itself. A built-in bot that draws often (`uniform`) takes
one 64-bit number from that generator as the key of its own counter-based `Stream`,
which the compiled engine reproduces.

A public seed (every shipped experiment uses one) makes every deal public: anyone who
knows it, a bot included, can deal each hand ahead of play, and trying the small seeds
people pick takes a fraction of a second. For tournaments a run draws a `Secret`
(``seed: secret``): 128 bits from the operating system. Then every key a bot could learn
anything from is a keyed BLAKE2b hash of the secret (`_keyed`): each game's hands key, its
first dealer's key and each bot's key. None of them leads back to the secret or to
another game; SplitMix64 derives only the hands and rebuilds within one game from its
keyed hash. The run publishes the secret's SHA-256 before play (`Secret.commitment`) and
the secret itself when it finishes (`Secret.reveal`), so the run stays reproducible.

>>> permutation(derive(root(7), 0, 0, 0), 5)
[2, 4, 3, 1, 0]
>>> s = Stream(12345); [s.below(6) for _ in range(4)]
[0, 1, 0, 1]
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import struct

import numpy as np

STREAMS = 2
"""The version of the random streams: 1 drew from numpy's SeedSequence and PCG64 per hand
(rummysim before the compiled engine), 2 from the counter-based streams of this module."""

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
"""2**64 over the golden ratio, odd: SplitMix64's increment."""
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB

HAND, STRATEGY, GAME = 0, 1, 2
"""The first path element of each stream's key."""


def mix64(z: int) -> int:
    """Return SplitMix64's finaliser of a 64-bit word: a bijection that scatters every bit."""
    z = ((z ^ (z >> 30)) * _MIX1) & M64
    z = ((z ^ (z >> 27)) * _MIX2) & M64
    return z ^ (z >> 31)


def root(seed: int) -> int:
    """Return the 64-bit root key of an experiment seed (any whole number of at least 0)."""
    key, word = 0, seed
    while True:
        key = mix64((key ^ (word & M64)) + GOLDEN & M64)
        word >>= 64
        if not word:
            return key


def derive(key: int, *path: int) -> int:
    """Return the key reached from `key` by the path elements, one mix each (each below 2**64)."""
    for step in path:
        key = mix64(key ^ (_STEPS[step] if 0 <= step < _N_STEPS else mix64((step + 1) * GOLDEN & M64)))
    return key


_N_STEPS = 1024
_STEPS = tuple(mix64((step + 1) * GOLDEN & M64) for step in range(_N_STEPS))
"""The mix of each small path element, made once: `derive` mixes only the key for these."""


def draw(key: int, i: int) -> int:
    """Return the `i`-th 64-bit number (from 0) of the stream with this key."""
    return mix64((key + (i + 1) * GOLDEN) & M64)


def below(u: int, n: int) -> int:
    """Return a number in ``range(n)`` from a 64-bit number `u` (multiply-shift, n < 2**32)."""
    return ((u >> 32) * n) >> 32


def permutation(key: int, n: int) -> list[int]:
    """Return ``range(n)`` shuffled by Fisher-Yates from the top, the i-th swap drawing number i.

    The swap positions are ``below(draw(key, i), n - i)``, computed for all i at once.
    """
    order = list(range(n))
    if n < 2:
        return order
    steps, bounds = _steps(n)
    z = steps + np.uint64(key)  # uint64 arrays wrap around, as the 64-bit arithmetic must
    z ^= z >> _S30  # mix64, in place
    z *= _U_MIX1
    z ^= z >> _S27
    z *= _U_MIX2
    z ^= z >> _S31
    z >>= _S32  # below(u, n - i), in place
    z *= bounds
    z >>= _S32
    i = n
    for j in z.tolist():  # the swaps of i = n - 1 down to 1
        i -= 1
        order[i], order[j] = order[j], order[i]
    return order


_U_MIX1, _U_MIX2 = np.uint64(_MIX1), np.uint64(_MIX2)
_S27, _S30, _S31, _S32 = (np.uint64(s) for s in (27, 30, 31, 32))


@functools.cache
def _steps(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the counters' offsets ``(i + 1) * GOLDEN`` and the bounds ``n - i`` of a shuffle of n."""
    return np.arange(1, n, dtype=np.uint64) * np.uint64(GOLDEN), np.arange(n, 1, -1, dtype=np.uint64)


class Stream:
    """A counter-based stream of numbers: the i-th is ``draw(key, i)``.

    The compiled engine keeps the same key and counter per seat, so a bot drawing from
    a `Stream` makes the same choices in either engine.
    """

    __slots__ = ("count", "key")

    def __init__(self, key: int | np.random.Generator) -> None:
        if isinstance(key, np.random.Generator):
            key = stream_key(key)
        self.key = key & M64
        self.count = 0

    def below(self, n: int) -> int:
        """Return the next number in ``range(n)``."""
        u = draw(self.key, self.count)
        self.count += 1
        return below(u, n)


def stream_key(rng: np.random.Generator) -> int:
    """Return the key of a bot's `Stream`: the next raw 64-bit number of its generator."""
    return int(rng.bit_generator.random_raw())


class Secret(int):
    """A secret seed: 128 bits drawn from the operating system (``seed: secret``), shown as its commitment.

    An int, so it goes wherever a seed goes; every stream keyed by it is a keyed hash
    (`_keyed`). Its text never shows the bits: ``secret-`` and the start of `commitment`.
    """

    BITS = 128

    def __new__(cls, value: int | None = None) -> Secret:
        value = secrets.randbits(cls.BITS) if value is None else value
        if not 0 <= value < 1 << cls.BITS:
            raise ValueError(f"a secret seed is {cls.BITS} bits")
        return super().__new__(cls, value)

    @classmethod
    def revealed(cls, text: str) -> Secret:
        """Return the secret whose `reveal` is `text` (32 hexadecimal digits); ValueError if it is not one."""
        if not isinstance(text, str) or len(text) != cls.BITS // 4:
            raise ValueError(f"a revealed secret is {cls.BITS // 4} hexadecimal digits")
        return cls(int(text, 16))

    @property
    def key(self) -> bytes:
        """The secret's 16 bytes: the key of every keyed hash."""
        return int(self).to_bytes(self.BITS // 8, "little")

    @property
    def reveal(self) -> str:
        """The secret as 32 hexadecimal digits, published when the run finishes."""
        return f"{int(self):032x}"

    @property
    def commitment(self) -> str:
        """The SHA-256 of `reveal`: published before play, so the secret cannot be changed after."""
        return hashlib.sha256(self.reveal.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"secret-{self.commitment[:12]}"

    __str__ = __repr__

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (Secret, (int(self),))


def _keyed(secret: Secret, *path: int, size: int = 8) -> int:
    """Return the keyed BLAKE2b hash of a path under a secret: one-way, and no key of it leads to another."""
    data = struct.pack(f"<{len(path)}Q", *path)
    digest = hashlib.blake2b(data, digest_size=size, key=secret.key, person=b"rummysim").digest()
    return int.from_bytes(digest, "little")


def hand_key(seed: int, game: int, hand: int) -> int:
    """Return the key of one hand's stream: its deal and stock rebuilds (see the module's table)."""
    return derive(_game_hands_key(seed, game), hand)


@functools.lru_cache(maxsize=64, typed=True)  # typed: a Secret equal to a public seed keys other streams
def _game_hands_key(seed: int, game: int) -> int:
    """Return ``derive(root(seed), HAND, game)``, which every hand of a game starts from (kept for a game's hands).

    Under a `Secret`, the keyed hash of ``(HAND, game)``.
    """
    return _keyed(seed, HAND, game) if isinstance(seed, Secret) else derive(root(seed), HAND, game)


def game_hands_keys(seed: int, start: int, stop: int) -> np.ndarray:
    """Return the hands key of each game from ``start`` to ``stop`` (`hand_key` derives each hand's from it)."""
    return np.array([_game_hands_key(seed, game) for game in range(start, stop)], np.uint64)


def game_key(seed: int, game: int) -> int:
    """Return the key of one game's own choices (the first dealer); under a `Secret`, a keyed hash."""
    return _keyed(seed, GAME, game) if isinstance(seed, Secret) else derive(root(seed), GAME, game)


def game_keys(seed: int, start: int, stop: int) -> np.ndarray:
    """Return `game_key` of each game from ``start`` to ``stop``."""
    return np.array([game_key(seed, game) for game in range(start, stop)], np.uint64)


def first_dealer(seed: int, game: int, n_players: int) -> int:
    """Return the seat that deals a game's first hand, drawn at random (R3.1)."""
    return below(draw(game_key(seed, game), 0), n_players)


def strategy_key(seed: int, game: int, seat: int) -> int:
    """Return the one-way 128-bit key of the bot in one seat for one game (see the module's table).

    Under a `Secret`, the keyed hash of ``(STRATEGY, game, seat)``.
    """
    if isinstance(seed, Secret):
        return _keyed(seed, STRATEGY, game, seat, size=16)
    state = np.random.SeedSequence(seed, spawn_key=(STRATEGY, game, seat)).generate_state(8, np.uint32)
    return int.from_bytes(hashlib.blake2b(state.tobytes(), digest_size=16, person=b"rummysim-bot").digest(), "little")


def strategy_rng(seed: int, game: int, seat: int) -> np.random.Generator:
    """Return the stream of the bot in one seat for one game, seeded by its one-way `strategy_key`."""
    return np.random.Generator(np.random.PCG64(strategy_key(seed, game, seat)))
