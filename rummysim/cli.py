"""The ``rummysim`` command: thin click commands over the public API.

A `RummysimError` becomes a one-line message on stderr and exit status 1; any other
exception is a bug and keeps its traceback (`rummysim.console`). A run stopped with
Ctrl-C exits 130 with the command that resumes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from rummysim.arrangement import best_arrangement
from rummysim.console import one_line_errors as _one_line_errors
from rummysim.console import stopped, write_report
from rummysim.rules import Rules
from rummysim.specs import strategy_name
from rummysim.tournament_commands import commit, nonce
from rummysim.version import __version__
from rummysim.watch_and_play import DEBUG, play, replay

NONCES = (
    "A seed nobody chose (docs/tournaments.md): the file of the entries' revealed nonces, a line bot: nonce "
    "for each entry under seed.entries."
)
SECRET = "A seed nobody chose: the organiser's secret, as rummysim commit kept it. [default: FILE with .secret]"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rummysim")
def main() -> None:
    """Simulate Rummy and answer questions about its rules.

    The rules are in docs/rulebook.md, cited by number as R1-R12.

    \b
    Examples:
      rummysim run experiments/acehigh.yaml
      rummysim report results/acehigh
      rummysim verify results/acehigh
      rummysim dataset results/acehigh
      rummysim validate experiments/acehigh.yaml
      rummysim deadwood "AS 2S 3S 7H 7D 7C KH"
      rummysim bench --json
    """


@main.command()
@click.argument("experiment_file", metavar="FILE")
@click.option("--jobs", "-j", type=int, default=-1, show_default=True, help="Worker processes; -1 for every core.")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="results",
    show_default=True,
    help="Folder under which results/<name>/ is written.",
)
@click.option(
    "--games", type=int, default=None,
    help="Exactly this many games per condition, overriding the file (and its precision:).",
)  # fmt: skip
@click.option("--seed", type=int, default=None, help="The seed, overriding the file.")
@click.option(
    "--secret-seed", is_flag=True,
    help="Play under a secret seed drawn from the system (as seed: secret): for tournaments; a public seed makes "
    "the deals public.",
)  # fmt: skip
@click.option(
    "--backend",
    type=click.Choice(["loky", "dask", "sequential"]),
    default="loky",
    show_default=True,
    help="loky: processes on this machine; dask: a dask.distributed cluster.",
)
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://host:8786); local cluster if unset.")
@click.option(
    "--chunk-games",
    type=int,
    default=None,
    help="Games per chunk: the unit of work and of resuming. Never changes the results. "
    "[default: up to 100 on the reference engine, 2,000 compiled]",
)
@click.option("--trace", is_flag=True, help="Also write turns.parquet, one row per turn with its moves.")
@click.option("--force", is_flag=True, help="Start over, deleting results of an earlier, different run.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--isolate", is_flag=True, help="Run every plug-in bot sealed in its own process (as isolate: true in the file)."
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "python", "compiled"]),
    default=None,
    help="Which engine plays, over the file's engine: (auto: compiled where every bot has a compiled twin).",
)
@click.option(
    "--no-sandbox", is_flag=True,
    help="Seal plug-in bots without the sandbox where it cannot be had (as sandbox: false): they can then reach "
    "the network and the files of this user.",
)  # fmt: skip
@click.option("--no-report", is_flag=True, help="Write the tables only; make the report later with `rummysim report`.")
@click.option(
    "--strong/--no-strong", default=False, show_default=True,
    help="Also play the checks with strong players (strong: true conditions), minutes more: whether each verdict "
    "holds when the players are good. Without it they are left out, and the report says so.",
)  # fmt: skip
@click.option("--nonces", type=click.Path(dir_okay=False), default=None, help=NONCES)
@click.option("--secret", type=click.Path(dir_okay=False), default=None, help=SECRET)
@click.option("--debug", is_flag=True, help=DEBUG)
@_one_line_errors
def run(
    *,
    experiment_file: str,
    jobs: int,
    out: str,
    games: int | None,
    seed: int | None,
    secret_seed: bool,
    backend: str,
    scheduler: str | None,
    chunk_games: int | None,
    trace: bool,
    force: bool,
    quiet: bool,
    isolate: bool,
    engine: str | None,
    no_sandbox: bool,
    no_report: bool,
    strong: bool,
    nonces: str | None,
    secret: str | None,
    debug: bool,
) -> None:
    """Play the experiment in FILE and write its tables and report to OUT/<name>/.

    Prints the results folder, then the report's path. A stopped run (Ctrl-C: exit
    status 130) resumes from its finished chunks when run again; the tables are the
    same for any --jobs, --chunk-games and --backend. A bot's illegal move or exception
    stops the run with the command that replays its hand.

    \b
    Example:
      rummysim run experiments/acehigh.yaml --jobs 2
    """  # fmt: skip
    from rummysim.experiment import load_experiment
    from rummysim.runner import run_experiment

    if secret_seed and seed is not None:
        raise click.UsageError("--seed and --secret-seed: give one, not both (a secret seed is drawn, not given)")
    experiment = load_experiment(experiment_file)
    try:
        results = run_experiment(
            experiment, out=out, n_jobs=jobs, games=games, seed="secret" if secret_seed else seed, backend=backend,
            scheduler=scheduler,
            chunk_games=chunk_games, trace=trace, force=force, quiet=quiet, isolate=isolate, engine=engine,
            sandbox=not no_sandbox, strong=strong, nonces=nonces, secret=secret,
        )  # fmt: skip
        click.echo(str(results.folder))
        if not no_report:
            write_report(results.folder, quiet=quiet, results=results)
        if results.reproduction:  # a run into committed results ends with whether it reproduced them
            click.echo(f"rummysim: {results.reproduction}", err=True)
    except KeyboardInterrupt:
        stopped(click.get_current_context())


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False))
@click.option("--quiet", "-q", is_flag=True, help="No progress messages.")
@_one_line_errors
def report(results_dir: str, quiet: bool) -> None:
    """Analyse a finished run in RESULTS_DIR and write its report.

    Writes report.md, a self-contained report.html, figures/*.png and *.svg, and the
    summary tables as summary_*.csv. The report opens with the experiment's question and its answer: each effect with
    its 95% interval, and whether it holds after Holm's correction. `rummysim run`
    writes it at the end of a run unless --no-report.

    \b
    Example:
      rummysim report results/acehigh
    """
    from rummysim.results import load_results

    results = load_results(results_dir)
    results.check_tables("hands", "games")  # the tables the manifest records, then what the manifest says
    results.check_manifest()  # an edited manifest is refused before any work (rummysim.manifest)
    write_report(Path(results_dir), quiet=quiet, results=results)


@main.command()
@click.option(
    "--results",
    "results_dir",
    default="results",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The folder that holds the committed atlas (atlas/).",
)
@click.option("--out", default=None, type=click.Path(file_okay=False), help="Where to write it; default: --results.")
@_one_line_errors
def cheatsheet(results_dir: str, out: str | None) -> None:
    """Write the players' cheat sheet from the committed atlas.

    cheatsheet.md and cheatsheet.html: every rule and house rule on one page. Plays nothing:
    it reads RESULTS/atlas (atlas_cells.csv, summary_strategies.csv, manifest.json).

    \b
    Example:
      rummysim cheatsheet
    """
    from rummysim.report.cheatsheet import write_cheat_sheet

    for path in write_cheat_sheet(Path(results_dir), Path(out or results_dir)):
        click.echo(str(path))


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False))
@click.option("--replay", "n_replay", type=int, default=0, show_default=True,
              help="Also replay N hands drawn across the run and compare them with the stored rows.")  # fmt: skip
@click.option("--engine", type=click.Choice(["python", "compiled"]), default="python", show_default=True,
              help="The engine the hands replay on.")  # fmt: skip
@click.option("--sample-seed", type=int, default=None,
              help="Draw the hands to replay from this seed (default: a new one, named in the summary).")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@_one_line_errors
def verify(results_dir: str, n_replay: int, engine: str, sample_seed: int | None, quiet: bool) -> None:
    """Check a results folder: manifest, checksums, rows, points (R8), scores (R11).

    The manifest's own checksum, fingerprint, seed and rows are recomputed; the tables
    are read in row batches, so memory stays flat at any size. Prints each problem on
    its own line, then one summary line; exit status 1 if anything checked is wrong.
    What the folder lacks (committed results keep only the manifest) is said as not
    checked. On a terminal, a bar on stderr shows each step and the rows checked.

    \b
    Example:
      rummysim verify results/bots --replay 5 --engine compiled
    """
    from rummysim.errors import whole_number
    from rummysim.progress import StepBar
    from rummysim.verify import verify_results

    whole_number(n_replay, name="--replay", low=0)
    if sample_seed is not None:
        whole_number(sample_seed, name="--sample-seed", low=0)
    with StepBar(quiet=quiet) as bar:
        verification = verify_results(results_dir, replay=n_replay, engine=engine, sample_seed=sample_seed,
                                      progress=bar)  # fmt: skip
    for problem in verification.problems:
        click.echo(f"problem: {problem}")
    click.echo(verification.summary)
    if not verification.ok:
        raise SystemExit(1)


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Where to write the dataset  [default: RESULTS_DIR/dataset]")  # fmt: skip
@_one_line_errors
def dataset(results_dir: str, out: str | None) -> None:
    """Write a finished run's tables as a Parquet dataset for DuckDB and pandas.

    One folder per table, table size and condition (players=N/condition=NAME, hive
    style), read as one table; a grid's factors are columns. The tables are read in
    row batches and must match the manifest's checksums. Prints the folder, then each
    table's rows. See docs/atlas.md.

    \b
    Example:
      rummysim dataset results/atlas
      rummysim dataset results/bots --out /tmp/bots
    """
    from rummysim.dataset import write_dataset

    written = write_dataset(results_dir, out)
    click.echo(str(written.folder))
    for kind, rows in written.rows.items():
        click.echo(f"  {kind}: {rows:,} rows")
    if written.factors:
        click.echo(f"  the grid's factors, as columns: {', '.join(written.factors)}")


@main.command()
@click.argument("experiment_file", metavar="FILE")
@click.option("--pilot", "pilot_games", type=int, default=300, show_default=True,
              help="With precision: in the file, play this many games a condition to estimate the games needed, "
              "and a tenth of it (2 to 10) of each check with strong players to time them (0: skip).")  # fmt: skip
@click.option("--nonces", type=click.Path(dir_okay=False), default=None, help=NONCES)
@click.option("--secret", type=click.Path(dir_okay=False), default=None, help=SECRET)
@_one_line_errors
def validate(experiment_file: str, pilot_games: int, nonces: str | None, secret: str | None) -> None:
    """Check the experiment in FILE without running it; print its conditions.

    With ``precision:`` in the file, a short pilot estimates the games each condition
    needs to reach it, and times a few games of each check with strong players
    (``strong: true``): the minutes of play ``--strong`` adds.

    \b
    Example:
      rummysim validate experiments/acehigh.yaml
    """
    from rummysim.analysis.compare import plan
    from rummysim.engine_choice import choose_engine
    from rummysim.experiment import load_experiment
    from rummysim.limits import MAX_GAMES, whole_number_within
    from rummysim.plugins import check_players, warnings_of
    from rummysim.seating import seating_note
    from rummysim.strategies.registry import builtin

    whole_number_within(pilot_games, name="--pilot", low=0, high=MAX_GAMES)  # checked even where no pilot plays
    experiment = load_experiment(experiment_file)
    if experiment.commitments is not None and nonces is not None:
        from rummysim.runner import revealed_seed

        experiment = revealed_seed(experiment, nonces=nonces, secret=secret)
    check_players(experiment)  # a sealed plug-in in its sandbox: its file never runs here
    for line in warnings_of(experiment):
        click.echo(f"rummysim: {line}", err=True)
    choices = [choose_engine(experiment, c, load=False) for c in experiment.conditions]  # says which, without compiling
    click.echo(f"{experiment_file}: valid: {experiment.name}: {experiment.question}")
    if experiment.commitments is not None:
        click.echo(
            f"  seed: nobody chose it: the organiser's secret (SHA-256 {experiment.commitments.secret_sha256[:16]}...) "
            f"and {experiment.commitments.nonces_text}"
            + (", revealed and checked" if experiment.commitments.revealed else "; reveal them with --nonces FILE")
        )
    against = {other: (ref, paired) for ref, other, paired in plan(experiment.conditions)}
    for condition, choice in zip(experiment.conditions, choices, strict=True):
        players = ", ".join(strategy_name(p["strategy"]) for p in condition.players)
        rules = ", ".join(f"{k}={v}" for k, v in condition.rules.changes().items()) or "basic"
        plugins = [p["strategy"] for p in condition.players if builtin(p) is None]
        sealed = sorted({strategy_name(name) for name in plugins})
        note = f", sealed: {', '.join(sealed)}" if sealed and experiment.isolates(condition) else ""
        note += f", engine: {choice.engine}" + (f" ({choice.why})" if choice.engine == "python" else "")
        note += f", playouts: {choice.playouts}" if choice.playouts else ""
        note += seating_note(condition.rules.n_players, experiment.games_of(condition), condition.seating)
        if condition.name in against:
            ref, paired = against[condition.name]
            note += f", compared with {ref}" + (" (paired)" if paired else " (unpaired: another table)")
        click.echo(
            f"  {condition.name}: {experiment.games_of(condition)} games, players [{players}], rules: {rules}{note}"
        )
    if experiment.precision and pilot_games:
        import rummysim.compiled as compiled
        from rummysim.pilot import pilot

        with compiled.announcing(lambda line: click.echo(f"rummysim: {line}", err=True)):  # a pilot may compile
            found = pilot(experiment, games=pilot_games)
        for line in found.lines(experiment):
            click.echo(line)


@main.command()
def strategies() -> None:
    """List every available strategy with its description and parameters.

    Built-in strategies, those of installed plug-ins (entry point group
    rummysim.strategies), and any registered in this process.

    \b
    Example:
      rummysim strategies
    """
    from rummysim.strategies import available_strategies, strategy_params

    for name, cls in available_strategies().items():
        click.echo(f"{name:<14} {cls.description or (cls.__doc__ or '').strip().splitlines()[0]}")
        params = strategy_params(cls)
        if params:
            click.echo(f"{'':<14} parameters: {', '.join(f'{k}={v!r}' for k, v in params.items())}")


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
@click.option("--runner", is_flag=True, help="Also time the runner: 1 vs 2 workers and its overhead (minutes).")
@click.option("--memory-hands", type=int, default=0, help="Also run this many hands and report peak memory.")
@click.option("--bots", is_flag=True, help="Also time each built-in bot's decisions (mean microseconds).")
@click.option("--sealed", is_flag=True, help="Also time a decision of a sealed bot (isolate: true) against in process.")
@click.option(
    "--report-rows", type=int, default=0, help="Also play a run of about this many hand rows; time its report."
)
@click.option(
    "--main", "main_file", is_flag=False, flag_value="experiments/acehigh.yaml", default=None, metavar="[FILE]",
    help="Time the main command instead (FILE: experiments/acehigh.yaml): from an empty cache, then warm (minutes).",
)  # fmt: skip
@_one_line_errors
def bench(
    *, as_json: bool, quick: bool, runner: bool, memory_hands: int, bots: bool, sealed: bool, report_rows: int,
    main_file: str | None,
) -> None:  # fmt: skip
    """Measure the engine: greedy hands/s and min-deadwood calls/s on one process.

    Figures are medians of several repeats; see docs/benchmarks.md.

    \b
    Example:
      rummysim bench --json
      rummysim bench --runner --memory-hands 1000000 --bots --sealed
      rummysim bench --report-rows 10000000
      rummysim bench --main
    """
    if main_file is not None:
        from rummysim.bench_main import bench_main, lines

        timed = bench_main(main_file)
        click.echo(json.dumps(timed) if as_json else "\n".join(lines(timed)))
        return
    from rummysim.benchmarks import (
        bench_decisions,
        bench_memory,
        bench_report,
        bench_runner,
        bench_sealed,
        run_benchmarks,
    )

    figures = run_benchmarks(quick=quick)
    if runner:
        figures.update(bench_runner(hands=2_000 if quick else 20_000, repeats=1 if quick else 3))
    if memory_hands:
        figures.update(bench_memory(hands=memory_hands))
    if bots:
        figures.update(bench_decisions(hands=30 if quick else 300, slow_hands=3 if quick else 20))
    if sealed:
        figures.update(bench_sealed(hands=20 if quick else 200))
    if report_rows:
        figures.update(bench_report(rows=report_rows))
    if as_json:
        click.echo(json.dumps(figures))
        return
    for key, value in figures.items():
        if isinstance(value, float):
            click.echo(f"{key:<32} {value:>14,.2f}")
        elif isinstance(value, int):
            click.echo(f"{key:<32} {value:>14,}")
        elif key == "compiled_bots":
            for bot, rates in value.items():
                click.echo(
                    f"  compiled {bot:<21} {rates['hands_per_second']:>14,.0f} hands/s, "
                    f"{rates['of_greedy']:.2f}x greedy"
                )
        elif key == "compiled_unavailable":
            click.echo(f"compiled engine: {value}")


# watch a hand of a run, play against the bots (docs/watch-and-play.md)
main.add_command(commit)
main.add_command(nonce)
main.add_command(replay)
main.add_command(play)
