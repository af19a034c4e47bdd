"""Secret seeds for tournaments (``seed: secret``): drawn, committed, kept out of the bots' reach, revealed.

A public seed makes the deals public (`rummysim.seeding`). A run of an experiment whose
seed is ``secret`` (or ``rummysim run --secret-seed``) plays under a `Secret` drawn from
the operating system, and:

1. before any game, writes the secret to ``.secret`` in the results folder (readable by
   its owner only; a sealed bot's sandbox shows it no part of the results folder) and its
   SHA-256 to ``run.json`` as ``secret_sha256``, and prints that commitment;
2. on resume, plays on under the kept secret, once it matches the commitment;
3. when it finishes, writes the secret itself into the manifest (``secret``) beside its
   commitment, so the run is reproducible and verifiable from its manifest alone.

Anyone may check the reveal: ``sha256(secret)`` must equal the commitment published
before play (`check_reveal`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rummysim.errors import ConfigError, whole_number
from rummysim.seeding import Secret

SECRET = "secret"
"""The word for a secret seed, in an experiment file and in a manifest's ``experiment.seed``."""
SECRET_FILE = ".secret"
"""The file in the results folder that keeps a running run's secret (mode 0600), until the manifest reveals it."""


def check_seed(value: Any, *, name: str) -> int:
    """Return a seed setting: a whole number (public), ``secret`` (a new `Secret`) or a `Secret` (kept as it is).

    Raise `ConfigError` for anything else.
    """
    if isinstance(value, Secret):  # a revealed secret, replayed: never turned into a public seed
        return value
    if value == SECRET:
        return Secret()
    if isinstance(value, str):
        raise ConfigError(f"{name}: {value[:40]!r} is not a whole number or 'secret'")
    return int(whole_number(value, name=name, low=0))


def seed_text(seed: int) -> int | str:
    """Return a seed as an experiment records it: the number, or ``secret`` (never the secret's bits)."""
    return SECRET if isinstance(seed, Secret) else seed


def check_reveal(secret: Secret, commitment: Any, *, source: str) -> Secret:
    """Return `secret` if its SHA-256 is `commitment`, else raise `ConfigError`: the secret was changed after play."""
    if not isinstance(commitment, str) or secret.commitment != commitment:
        raise ConfigError(
            f"{source}: the secret seed does not match the commitment published before play "
            f"(secret_sha256 {str(commitment)[:64]!r}); the results cannot be trusted"
        )
    return secret


def recorded(record: Mapping[str, Any], *, source: str) -> Secret:
    """Return the secret of a run from its manifest (``secret``) or, unfinished, from ``.secret`` beside it.

    Raises `ConfigError` if neither holds it or it does not match ``secret_sha256``.
    """
    text = record.get(SECRET)
    if text is None:
        path = Path(source).parent / SECRET_FILE
        try:
            text = path.read_text().strip()
        except OSError:
            raise ConfigError(
                f"{source}: the run's secret seed is not revealed (the run has not finished) and {path} "
                "cannot be read; it is kept there until the run finishes"
            ) from None
    try:
        secret = Secret.revealed(text)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: secret: {str(text)[:40]!r} is not a revealed secret seed") from None
    return check_reveal(secret, record.get("secret_sha256"), source=source)


def keep(folder: Path, experiment_seed: int, state: Mapping[str, Any] | None) -> int:
    """Return the seed a run plays under: its `Secret`, kept in ``.secret`` across stops; a public seed as it is.

    `state` is the folder's ``run.json`` of an earlier, unfinished run of the same
    experiment (None: a new run). A kept secret is used only if it matches that run's
    commitment; otherwise the run is a new one and keeps the new secret.
    """
    if not isinstance(experiment_seed, Secret):
        return experiment_seed
    path = folder / SECRET_FILE
    revealed = _revealed(folder)
    if state is not None and state.get("secret_sha256"):  # the same experiment, started before: its secret
        record = {"secret_sha256": state["secret_sha256"]}
        if not path.exists() and revealed is not None:  # finished and revealed: an extension plays on under it
            record[SECRET] = revealed.reveal
        return recorded(record, source=str(folder / "run.json"))
    if revealed is not None:  # finished results without run.json (copied): their games are under this secret
        return revealed
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(experiment_seed.reveal + "\n")
    return experiment_seed


def _revealed(folder: Path) -> Secret | None:
    """Return the secret a finished run's manifest in `folder` reveals (checked against its commitment), or None."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get(SECRET) is None:
        return None
    return recorded(manifest, source=str(folder / "manifest.json"))


def forget(folder: Path) -> None:
    """Remove the kept secret once the manifest reveals it (a later extension reads it there)."""
    with contextlib.suppress(FileNotFoundError):
        (folder / SECRET_FILE).unlink()


def commitment_fields(seed: int, *, reveal: bool) -> dict[str, str]:
    """Return what a run's records say of a secret seed: its commitment, and with `reveal` the secret."""
    if not isinstance(seed, Secret):
        return {}
    return {"secret_sha256": seed.commitment, **({SECRET: seed.reveal} if reveal else {})}
