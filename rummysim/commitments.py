"""A seed nobody chose: the organiser's committed secret and each entry's own nonce (docs/tournaments.md).

``seed: secret`` (`rummysim.secret_seed`) keeps the deals from the bots, but the organiser
draws the secret alone. A tournament that must show nobody chose its seed writes::

    seed:
      secret_sha256: 9f2c...            # printed by `rummysim commit FILE`, published before entries close
      entries:                          # each entry's bot: the SHA-256 of a nonce of its own
        entries/alice.py:Alice: 5d41...
        entries/bob.py:Bob: 7c22...

The timeline:

1. before entries close, ``rummysim commit FILE`` draws the organiser's secret (`draw`),
   keeps it beside FILE (``FILE.secret``, readable by its owner only) and prints its SHA-256,
   which the organiser publishes and writes in the file as ``secret_sha256``;
2. each entrant draws a nonce (``rummysim nonce``), keeps it, and sends its SHA-256 with
   the entry; the file lists them under ``entries``;
3. after entries close, each entrant reveals its nonce; the organiser gathers them in a
   file (bot: nonce) and runs ``rummysim run FILE --nonces THAT_FILE``. An entry whose nonce
   is missing, or does not hash to its SHA-256, is disqualified: the run refuses to start,
   naming it (`reveal`);
4. the seed is the keyed BLAKE2b hash of the nonces, in seat order, under the secret
   (`derive`): the organiser committed to the secret before seeing any nonce, the entrants
   to their nonces before seeing the secret, so no one of them chose it;
5. the manifest records the secret and every nonce (``revealed``), and every reader of it
   (``report``, ``verify``, ``replay``) derives the seed again and refuses a manifest whose
   reveal does not give it (`check_revealed`).

Seat order is the order in which the experiment first seats each entry: its conditions in
order, each one's lineup seat by seat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rummysim.errors import ConfigError
from rummysim.excerpt import excerpt
from rummysim.seeding import Secret
from rummysim.specs import strategy_name

NONCE_CHARS = (32, 256)
"""A nonce's length in characters, at least and at most: 32 hexadecimal digits are 128 bits."""
_HEX = re.compile(r"[0-9a-f]{64}")
_NONCE = re.compile(r"[\x21-\x7e]+")
_PERSON = b"rummysim-draw"
DOCS = "docs/tournaments.md"


@dataclasses.dataclass(frozen=True)
class Commitments:
    """What a tournament publishes before its seed exists: the organiser's and each entry's commitment.

    `entries` are (bot label, SHA-256 of its nonce) in seat order. Once revealed (`reveal`),
    `secret` and `nonces` hold what was committed to, and `seed` is the seed they give.
    """

    secret_sha256: str
    entries: tuple[tuple[str, str], ...]
    secret: Secret | None = None
    nonces: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the commitments as the experiment file writes them (never what is revealed)."""
        return {"secret_sha256": self.secret_sha256, "entries": dict(self.entries)}

    @property
    def nonces_text(self) -> str:
        """Say whose nonces make the seed: ``1 entry's nonce``, ``3 entries' nonces``."""
        n = len(self.entries)
        return "1 entry's nonce" if n == 1 else f"{n} entries' nonces"

    @property
    def revealed(self) -> bool:
        return self.secret is not None and self.nonces is not None

    @property
    def seed(self) -> Secret:
        """Return the seed the revealed secret and nonces give (`derive`); ConfigError before the reveal."""
        if self.secret is None or self.nonces is None:
            raise ConfigError(f"seed: not revealed yet; give the entries' nonces (--nonces FILE, {DOCS})")
        return derive(self.secret, self.nonces)

    def reveal_record(self) -> dict[str, Any]:
        """Return what the manifest records of the reveal: the organiser's secret and each entry's nonce."""
        if self.secret is None or self.nonces is None:
            return {}
        labels = [label for label, _ in self.entries]
        return {"secret": self.secret.reveal, "nonces": dict(zip(labels, self.nonces, strict=True))}


def derive(secret: Secret, nonces: Iterable[str]) -> Secret:
    """Return the seed of a tournament: BLAKE2b keyed by the secret, of the nonces in seat order (each length-prefixed).

    >>> derive(Secret(1), ["a" * 32]) == derive(Secret(1), ["a" * 32]) != derive(Secret(1), ["b" * 32])
    True
    """
    data = b"".join(len(n.encode()).to_bytes(4, "little") + n.encode() for n in nonces)
    digest = hashlib.blake2b(data, digest_size=Secret.BITS // 8, key=secret.key, person=_PERSON).digest()
    return Secret(int.from_bytes(digest, "little"))


def sha256(text: str) -> str:
    """Return the SHA-256 of a text's UTF-8 bytes, in hexadecimal: what a commitment is."""
    return hashlib.sha256(text.encode()).hexdigest()


def new_nonce() -> str:
    """Return a fresh nonce for an entrant: 32 hexadecimal digits from the operating system."""
    return secrets.token_hex(16)


def check_commitments(value: Any, *, where: str, seated: list[str]) -> Commitments:
    """Return a ``seed:`` mapping read as `Commitments`, the entries in seat order; ConfigError naming the key.

    `seated` lists the plug-in bots the experiment seats, in seat order: the entries must be exactly these.
    """
    if not isinstance(value, Mapping) or set(value) - {"secret_sha256", "entries"}:
        unknown = sorted(set(value) - {"secret_sha256", "entries"}) if isinstance(value, Mapping) else []
        raise ConfigError(
            f"{where}: seed: {excerpt(unknown[0]) + ' is not a key of it; ' if unknown else ''}a seed that nobody "
            f"chose is a mapping of secret_sha256 (from rummysim commit) and entries (each entry's bot: the SHA-256 "
            f"of its nonce), {DOCS}",
            key="seed",
        )
    digest = _digest(value.get("secret_sha256"), f"{where}: seed.secret_sha256", "rummysim commit FILE prints it")
    entries = value.get("entries")
    if not isinstance(entries, Mapping) or not entries:
        raise ConfigError(f"{where}: seed.entries: each entry's bot with the SHA-256 of its nonce ({DOCS})",
                          key="entries")  # fmt: skip
    named = {
        strategy_name(str(k)): _digest(v, f"{where}: seed.entries.{k}", "rummysim nonce prints one")
        for k, v in entries.items()
    }
    unnamed, unseated = [s for s in seated if s not in named], [n for n in named if n not in seated]
    if unnamed or unseated:
        problem = (f"seed.entries: {unnamed[0]} plays but names no SHA-256 of a nonce; every plug-in bot is an entry "
                   f"({DOCS})" if unnamed else f"seed.entries.{excerpt(unseated[0])}: no plug-in bot of that name "
                   f"plays; the bots that play are {', '.join(seated) or 'none'}")  # fmt: skip
        raise ConfigError(f"{where}: {problem}", key="entries")
    return Commitments(digest, tuple((label, named[label]) for label in seated))


def _digest(value: Any, name: str, hint: str) -> str:
    if not isinstance(value, str) or not _HEX.fullmatch(value.strip().lower()):
        raise ConfigError(f"{name}: {excerpt(value)} is not a SHA-256 (64 hexadecimal digits; {hint})",
                          key=name.rpartition(".")[2])  # fmt: skip
    return value.strip().lower()


def reveal(commitments: Commitments, *, secret: Secret, nonces: Mapping[str, Any], source: str) -> Commitments:
    """Return the commitments with the organiser's secret and the entries' nonces, each checked against its SHA-256.

    Raise `ConfigError`: the secret does not match (the results cannot be trusted), or an
    entry's nonce is missing or does not match (that entry is disqualified).
    """
    if secret.commitment != commitments.secret_sha256:
        raise ConfigError(
            f"{source}: the organiser's secret does not match seed.secret_sha256, the commitment published before "
            f"entries closed ({commitments.secret_sha256[:16]}...); the results could not be trusted"
        )
    revealed = []
    for label, digest in commitments.entries:
        nonce = nonces.get(label)
        if nonce is None:
            why = "did not reveal its nonce"
        elif not isinstance(nonce, str) or not _is_nonce(nonce):
            why = f"revealed {excerpt(nonce)}, not a nonce ({NONCE_CHARS[0]} to {NONCE_CHARS[1]} printable characters)"
        elif sha256(nonce) != digest:
            why = "revealed a nonce whose SHA-256 is not the one its entry named"
        else:
            revealed.append(nonce)
            continue
        raise ConfigError(
            f"{source}: entry {label} {why}: it is disqualified; take its seats and its line under seed.entries out "
            f"of the file, publish it again and run ({DOCS})", key=label,
        )  # fmt: skip
    return dataclasses.replace(commitments, secret=secret, nonces=tuple(revealed))


def _is_nonce(text: str) -> bool:
    return NONCE_CHARS[0] <= len(text) <= NONCE_CHARS[1] and _NONCE.fullmatch(text) is not None


def check_revealed(commitments: Commitments, record: Any, *, source: str) -> Commitments:
    """Return the commitments revealed by a manifest's ``revealed`` record; ConfigError if it does not match them."""
    nonces = record.get("nonces") if isinstance(record, Mapping) else None
    try:
        secret = Secret.revealed(record.get("secret"))
    except (AttributeError, TypeError, ValueError):
        secret = None
    if secret is None or not isinstance(nonces, Mapping):
        wrong: str | None = "the organiser's secret and the entries' nonces are not recorded"
    elif secret.commitment != commitments.secret_sha256:
        wrong = "the organiser's secret does not match seed.secret_sha256"
    else:
        entries = commitments.entries
        wrong = next((f"the nonce of {label} does not match its entry's SHA-256" for label, hashed in entries
                      if not isinstance(nonces.get(label), str) or sha256(nonces[label]) != hashed), None)  # fmt: skip
    if wrong is not None or secret is None or not isinstance(nonces, Mapping):
        raise ConfigError(f"{source}: revealed: {wrong}; the results cannot be trusted")
    return dataclasses.replace(
        commitments, secret=secret, nonces=tuple(nonces[label] for label, _ in commitments.entries)
    )


def secret_path(experiment_file: str | Path) -> Path:
    """Return where `rummysim commit` keeps an experiment's secret: beside it, as ``NAME.secret``."""
    return Path(experiment_file).with_suffix(".secret")


def draw(experiment_file: str | Path) -> tuple[Secret, bool]:
    """Draw the organiser's secret into `secret_path` (mode 0600); return it and whether it was drawn now.

    A secret already drawn is kept, never drawn again (a second draw would be a second
    chance at the seed): it is returned with False.
    """
    path = secret_path(experiment_file)
    secret = Secret()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_secret(path), False
    except OSError as error:
        raise ConfigError(f"{path}: cannot keep the secret there ({error.strerror})") from None
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret.reveal + "\n")
    return secret, True


def read_secret(path: str | Path) -> Secret:
    """Return the secret `rummysim commit` kept in `path`; ConfigError naming the file if it cannot be read."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ConfigError(f"{path}: the organiser's secret cannot be read ({error.strerror}); rummysim commit "
                          "keeps it beside the experiment file") from None  # fmt: skip
    try:
        return Secret.revealed(text.strip())
    except ValueError:
        raise ConfigError(f"{path}: is not a secret that rummysim commit drew") from None
