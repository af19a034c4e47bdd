"""The ``rummysim`` command: thin click commands over the public API.

A `RummysimError` becomes a one-line message on stderr and exit status 1; any other
exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from rummysim import __version__
from rummysim.errors import RummysimError
from rummysim.melds import best_arrangement
from rummysim.rules import Rules

F = TypeVar("F", bound=Callable[..., Any])


def _one_line_errors(command: F) -> F:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except RummysimError as error:
            raise click.ClickException(str(error)) from None

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rummysim")
def main() -> None:
    """Simulate Rummy (RULES.md R1-R11) and answer questions about its rules.

    \b
    Examples:
      rummysim deadwood "AS 2S 3S 7H 7D 7C KH"
      rummysim bench --json
    """


@main.command()
@click.argument("cards")
@click.option(
    "--ace",
    type=click.Choice(["low", "high_or_low"]),
    default="low",
    show_default=True,
    help="Where an ace may stand in a sequence (R5.3, R9.1).",
)
@click.option("--ace-points", type=int, default=None, help="What an ace scores (default 1, or 15 high or low).")
@_one_line_errors
def deadwood(cards: str, ace: str, ace_points: int | None) -> None:
    """Show the best arrangement of CARDS and its least deadwood (R5, R8.2).

    \b
    Example:
      rummysim deadwood "QH KH AH 5C 5D 5S 9C" --ace high_or_low
    """
    rules = Rules(ace=ace, ace_points=ace_points)  # type: ignore[arg-type]
    click.echo(str(best_arrangement(cards, rules=rules)))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--quick", is_flag=True, help="A tenth of the work: a smoke run, not a measurement.")
def bench(as_json: bool, quick: bool) -> None:
    """Measure the engine: greedy hands/s and min-deadwood calls/s on one process.

    Figures are medians of several repeats; see docs/benchmarks.md.

    \b
    Example:
      rummysim bench --json
    """
    from rummysim.benchmarks import run_benchmarks

    figures = run_benchmarks(quick=quick)
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(f"greedy 2-player hands/s (play_hand, records) {figures['hands_per_second']:>12,.0f}")
    click.echo(f"min_deadwood calls/s (masks, 10 cards)        {figures['min_deadwood_per_second']:>12,.0f}")
    click.echo(f"min_deadwood calls/s (public API, card lists) {figures['min_deadwood_api_per_second']:>12,.0f}")
