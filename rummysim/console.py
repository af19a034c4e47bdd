"""What the command line says around the library's work: one-line errors, a stopped run, the report's progress.

A `RummysimError` becomes one line and exit status 1; with ``--debug``, a bot's own
traceback is printed above it. A run stopped with Ctrl-C says, in one line, the command
that resumes it, and exits 130 (128 + SIGINT, as shells do). The report is written under
a progress bar (`rummysim.progress.AnalysisBar`).
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from rummysim.errors import RummysimError, disk_error
from rummysim.noise import muffled
from rummysim.phases import phase
from rummysim.progress import AnalysisBar, hand_rows, shown
from rummysim.timing import record_interrupts

F = TypeVar("F", bound=Callable[..., Any])
STOPPED = 130
"""The exit status of a command stopped with Ctrl-C: 128 + SIGINT."""


def one_line_errors(command: F) -> F:
    """Print a `RummysimError` as one line (exit 1), and keep the libraries' warnings off the terminal.

    A bot's exception keeps its traceback (`rummysim.errors.BotError.detail`): printed above
    the line when the command's ``--debug`` is on, and offered by the line when it is off.
    A plug-in file that does not compile is named in one line too, and each real Ctrl-C is
    noted so that a bot's own KeyboardInterrupt is not taken for one (`rummysim.timing`).
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        record_interrupts()
        try:
            with muffled():
                return command(*args, **kwargs)
        except SyntaxError as error:
            if not error.filename or Path(error.filename).resolve().is_relative_to(Path(__file__).parent):
                raise  # rummysim's own: a bug
            where = f"{error.filename}, line {error.lineno}" if error.lineno else error.filename
            raise click.ClickException(f"{where}: {error.msg}: a plug-in that does not compile") from None
        except RummysimError as error:
            message, detail = str(error), getattr(error, "detail", None)
            if detail and kwargs.get("debug"):
                click.echo(detail.rstrip(), err=True)
            elif detail and "debug" in kwargs:
                message += " (--debug shows the bot's traceback)"
            raise click.ClickException(message) from None

    return wrapper  # type: ignore[return-value]


def same_command(ctx: click.Context, *, leave_out: tuple[str, ...] = ()) -> str:
    """Return the command being run: its arguments, then the options given in the order typed, but `leave_out`."""
    params = {param.name: param for param in ctx.command.params}
    words = ["rummysim", ctx.command_path.split()[-1]]
    words += [str(ctx.params[name]) for name, param in params.items() if isinstance(param, click.Argument)]
    for name, value in ctx.params.items():  # click fills the options in the order they were typed
        param, given = params[name], ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
        if isinstance(param, click.Option) and given and name not in leave_out:
            flag = max(param.opts, key=len)
            words += [flag] if param.is_flag else [flag, str(value)]
    return shlex.join(words)


def stopped(ctx: click.Context) -> None:
    """Say in one line how to resume a run stopped with Ctrl-C, and exit 130: its finished chunks are kept."""
    click.echo(f"stopped; the same command resumes: {same_command(ctx, leave_out=('force',))}", err=True)
    ctx.exit(STOPPED)


def write_report(folder: Path, *, quiet: bool, results: Any = None) -> None:
    """Analyse a finished run (unless `results` carries its analysis) and write its report; print the paths."""
    from rummysim.report import build_report
    from rummysim.results import load_results

    results = results or load_results(folder)
    results.check_tables("hands", "games")  # an error before any work (hashed once: the analysis reuses it)
    if not quiet and not shown(quiet):  # no bar where stderr is not a terminal: one line for the log
        click.echo("analysing the tables and drawing the report ...", err=True)
    rows = None if results.analysis is not None else hand_rows(folder)
    try:
        with AnalysisBar(rows, quiet=quiet, first="drawing the charts") as bar, phase("report"):
            report = build_report(folder, results=results, progress=bar)
    except OSError as error:
        raise disk_error(
            error, folder=folder, doing="writing the report", then=f"run: rummysim report {folder}"
        ) from error
    if not quiet and report.verdicts:
        click.echo(f"{report.markdown.parent.name}: the answer (details in the report)")
        for sentence in report.verdicts:
            click.echo(f"  {sentence}")
    click.echo(str(report.markdown))
    click.echo(str(report.html))
