"""The commands of a tournament's seed that nobody chose: ``rummysim commit`` and ``rummysim nonce``.

Thin click commands over `rummysim.commitments` (docs/tournaments.md); `rummysim.cli` adds
them to the ``rummysim`` command.
"""

from __future__ import annotations

import click

from rummysim.console import one_line_errors


@click.command()
@click.argument("experiment_file", metavar="FILE", type=click.Path(dir_okay=False))
@one_line_errors
def commit(experiment_file: str) -> None:
    """Draw the organiser's secret for FILE's tournament; print its SHA-256.

    Run it before entries close. The secret is kept beside FILE (FILE with the suffix
    .secret, readable by you only) until the run reveals it in its manifest; its SHA-256
    goes in FILE as seed.secret_sha256, and is published where the entrants see it. A
    secret is drawn once: run again, it prints the same SHA-256 and draws nothing.

    \b
    Example:
      rummysim commit tournaments/spring_cup.yaml
    """
    from rummysim.commitments import DOCS, draw, secret_path

    secret, drawn = draw(experiment_file)
    path = secret_path(experiment_file)
    if drawn:
        click.echo(f"rummysim: drew the organiser's secret into {path} (readable by you only); keep it until the run")
    else:
        click.echo(f"rummysim: {path} already holds the organiser's secret: it is kept, not drawn again")
    click.echo(f"secret_sha256: {secret.commitment}")
    click.echo(
        f"rummysim: publish that line now, before entries close, and write it in {experiment_file} under seed: with "
        f"each entry's SHA-256 under seed.entries ({DOCS})"
    )


@click.command()
@one_line_errors
def nonce() -> None:
    """Draw a nonce for a tournament entry, and print it with its SHA-256.

    Send the SHA-256 with the entry; reveal the nonce after entries close.

    The nonce is 32 hexadecimal digits from the operating system. Keep it to yourself
    until entries close: together with the organiser's committed secret and the other
    entries' nonces it makes the tournament's seed, so that nobody chose it.

    \b
    Example:
      rummysim nonce
    """
    from rummysim.commitments import DOCS, new_nonce, sha256

    drawn = new_nonce()
    click.echo(f"nonce: {drawn}")
    click.echo(f"sha256: {sha256(drawn)}")
    click.echo(f"rummysim: send the sha256 line with your entry; reveal the nonce only after entries close ({DOCS})")
