"""The commands to watch a hand of a run and to play against the bots: ``rummysim replay`` and ``rummysim play``.

Thin click commands over `rummysim.replay` and `rummysim.session` (docs/watch-and-play.md);
`rummysim.cli` adds them to the ``rummysim`` command.
"""

from __future__ import annotations

import contextlib

import click

from rummysim.console import one_line_errors

DEBUG = "Keep a bot's traceback: print it above the one-line error."


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False))
@click.option("--condition", "-c", required=True, help="The condition, as named in the experiment.")
@click.option("--game", "-g", type=int, required=True, help="The game's number in the tables, from 0.")
@click.option("--hand", "-H", "hand", type=int, required=True, help="The hand's number in the game, from 0.")
@click.option("--seat", "-s", type=int, default=None, help="Show only what this seat could see.")
@click.option("--debug", is_flag=True, help=DEBUG)
@one_line_errors
def replay(*, results_dir: str, condition: str, game: int, hand: int, seat: int | None, debug: bool) -> None:
    """Replay one hand of a run, turn by turn, from its seed alone.

    Prints every holding (marked [hidden]), each draw, meld, lay-off and discard, the
    table and the scoring, then checks the replay against the stored rows of
    hands.parquet: exit status 1 if they differ. A run a bot stopped replays too (from
    its run.json), up to the bot's illegal move or exception: exit status 1.

    \b
    Example:
      rummysim replay results/acehigh --condition ace_high --game 3 --hand 2
      rummysim replay results/acehigh -c basic -g 0 -H 0 --seat 1
    """
    from rummysim.replay import replay_hand

    replayed = replay_hand(results_dir, condition=condition, game=game, hand=hand, seat=seat)
    click.echo(str(replayed))
    if replayed.error is not None:
        raise replayed.error
    if not replayed.matches:
        n = len(replayed.mismatches)
        raise click.ClickException(
            f"the replay of game {game} hand {hand} differs from the stored rows "
            f"({n} difference{'s' if n != 1 else ''}, listed above)"
        )


@click.command()
@click.option("--players", "-n", type=int, default=None, help="Players at the table, you included (2 to 6).")
@click.option(
    "--against",
    "-a",
    default=None,
    help="The bots, comma-separated (greedy,montecarlo); one name plays every seat. Default: greedy.",
)
@click.option("--rules", "-r", "settings", multiple=True, metavar="KEY=VALUE", help="A rule setting; repeatable.")
@click.option("--seed", type=int, default=None, help="Fix the deals (a random seed is chosen and printed otherwise).")
@click.option("--hint", "adviser", default="expert", show_default=True, help="The bot whose moves hint tells.")
@click.option(
    "--think",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Give expert (opponents and hint) about SECONDS a decision; by default its deals, the same on any machine.",
)
@one_line_errors
def play(
    players: int | None, against: str | None, settings: tuple[str, ...], seed: int | None, adviser: str,
    think: float | None,
) -> None:  # fmt: skip
    """Play rummy in the terminal against the bots, to the game's end.

    You are seat 0; hands follow one another until the game ends (R11). Type moves as
    card codes (draw stock, meld 7H 8H 9H, layoff 6C, discard KD); help lists the
    commands, hint says what expert (or the --hint bot) would do, quit stops.
    Rule settings are those of docs/rules.md.

    \b
    Example:
      rummysim play
      rummysim play --players 3 --against greedy,cautious --rules target_score=50 --seed 7
      rummysim play --against expert --hint cautious
      rummysim play --against expert --think 0.5
    """
    import sys

    from rummysim.session import parse_settings, play_session

    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401 - line editing and history for input()
    play_session(
        players=players,
        against=against.split(",") if against else (),
        rules=parse_settings(settings),
        seed=seed,
        hint=adviser,
        think=think,
        read=input,
        write=click.echo,
    )
