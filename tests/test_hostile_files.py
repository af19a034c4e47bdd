"""Files that cannot hurt (issue 22, part 4): every attack a careless or hostile experiment file or command line
made, kept as a test.

Each ends in one line naming the file and the key (and the rule, where one applies), with
exit status 1, the same from `rummysim validate` and `rummysim run`, and no results
folder written. Attacks that would exhaust memory or block if their guard were gone run
in a subprocess held to a memory limit and a timeout, so that such a test fails rather
than takes the machine with it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_cli_experiments import assert_nothing_written, assert_one_line_error, run_args, write

from rummysim.cli import main

HEAD = "name: hostile\nquestion: Does it hurt?\nseed: 1\ngames: 4\n"
TINY = HEAD + "players: [greedy, greedy]\nrules: {target_score: 30}\n"
ALIASES = "with its aliases (*name) written out, the file would hold over 1,000,000 characters"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def refused(runner: CliRunner, tmp_path: Path, text: str, message: str, *, run: tuple[str, ...] = ()) -> None:
    """Assert that `validate` and `run` both refuse the file in the one line ``PATH<message>`` and write nothing."""
    path = write(tmp_path, text)
    out = tmp_path / "out"
    assert_one_line_error(runner.invoke(main, ["validate", str(path)]), f"{path}{message}")
    assert_one_line_error(runner.invoke(main, run_args(path, out, *run)), f"{path}{message}")
    assert_nothing_written(out)


def bomb(levels: int = 6, fan: int = 10) -> str:
    """Return a flow list whose aliases stand for ``fan ** levels`` strings: a billion laughs, small enough that a
    loader without the guard still finishes (and the test then fails on its message, not on the machine)."""
    items = [f"&l0 [{', '.join(['lol'] * fan)}]"]
    items += [f"&l{i} [{', '.join([f'*l{i - 1}'] * fan)}]" for i in range(1, levels)]
    return f"[{', '.join(items)}]"


# --- YAML: aliases, nesting, numbers ----------------------------------------------------------------------------

BOMBS = [
    pytest.param(HEAD.replace("Does it hurt?", bomb()) + "players: [greedy, greedy]\n", 2, "question", id="question"),
    pytest.param(TINY + f"description: {bomb()}\n", 7, "description", id="description"),
    pytest.param(HEAD + f"players: [greedy, greedy]\nrules: {{target_score: {bomb()}}}\n", 6, "rules", id="rules"),
    pytest.param(HEAD + f"players: [greedy, {bomb()}]\n", 5, "players", id="players"),
    pytest.param(TINY + f"conditions: {{x: {{description: {bomb()}}}}}\n", 7, "conditions", id="conditions"),
    pytest.param(TINY + f"skill: {{strategy: {bomb()}}}\n", 7, "skill", id="skill"),
    pytest.param(TINY + f"margin: {{order: {bomb()}}}\n", 7, "margin", id="margin"),
    pytest.param(
        HEAD + f"players: [greedy, {{strategy: cautious, caution: {bomb()}}}]\n", 5, "players", id="bot-parameter"
    ),
]


@pytest.mark.parametrize(("text", "line", "key"), BOMBS)
def test_an_alias_bomb_is_refused_in_one_line_naming_the_line_and_key(runner, tmp_path, text, line, key):
    refused(
        runner, tmp_path, text, f":{line}: {key}: {ALIASES}, more than an experiment file may; repeat its values less"
    )


def test_aliases_that_stand_for_little_are_ordinary_yaml(runner, tmp_path):
    path = write(tmp_path, HEAD + "players: &two [greedy, greedy]\nconditions:\n  a: {players: *two}\n  b: {}\n")
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "  a: 4 games, players [greedy, greedy]" in result.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            HEAD + "question: &q [*q]\n", ":5: question: an alias (*name) inside the value it names", id="self"
        ),
        pytest.param(
            TINY + "description: " + "[" * 40 + "]" * 40 + "\n",
            ":7: nested more than 32 levels deep, aliases followed",
            id="deep",
        ),
        pytest.param(
            TINY + "description: " + "[" * 20_000 + "]" * 20_000 + "\n",
            ":7: nested more than 32 levels deep, aliases followed",
            id="deeper-than-python-recurses",
        ),
        pytest.param(
            HEAD.replace("seed: 1", "seed: " + "9" * 5000) + "players: [greedy, greedy]\n",
            ":3: a number of 5,000 characters; a number in an experiment file has at most 100",
            id="5000-digits",
        ),
        pytest.param(  # YAML 1.2's core schema reads no hex: a string, refused where a number is meant, at once
            HEAD.replace("seed: 1", "seed: 0x" + "f" * 100_000) + "players: [greedy, greedy]\n",
            ": seed: '0x" + "f" * 38 + "' is not a whole number or 'secret'",
            id="hex-100k-digits",
        ),
        pytest.param(
            TINY + "description: !!timestamp 2026-02-30\n",
            ":7: YAML syntax error: '2026-02-30' is not a date (day is out of range for month)",
            id="no-such-date",
        ),
        pytest.param(TINY + "? [a]\n: 1\n", ":7: YAML syntax error: a key cannot be ['a']", id="list-as-key"),
    ],
)
def test_yaml_that_would_hurt_the_reader_is_refused(runner, tmp_path, text, message):
    refused(runner, tmp_path, text, message)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param("games: 1:30", ": games: '1:30' is not a whole number", id="sexagesimal"),
        pytest.param("games: 0o17", ": games: '0o17' is not a whole number", id="octal"),
        pytest.param("games: 0x1f", ": games: '0x1f' is not a whole number", id="hex"),
        pytest.param("games: 1_000", ": games: '1_000' is not a whole number", id="underscores"),
        pytest.param("games: yes", ": games: 'yes' is not a whole number", id="yes-as-number"),
        pytest.param("games: 4\nisolate: on", ": isolate: 'on' is not true or false", id="on-as-boolean"),
        pytest.param("games: 4\nisolate: yes", ": isolate: 'yes' is not true or false", id="yes-as-boolean"),
    ],
)
def test_yaml_1_1_numbers_and_booleans_are_refused_by_the_core_schema(runner, tmp_path, line, message):
    """Issue 43 part 5: YAML 1.2's core schema: a count is a decimal integer, a boolean true or false."""
    refused(runner, tmp_path, TINY.replace("games: 4", line), message)


def test_a_count_with_leading_zeros_is_decimal(runner, tmp_path):
    path = tmp_path / "zeros.yaml"
    path.write_text(TINY.replace("games: 4", "games: 017"))
    result = runner.invoke(main, ["validate", str(path), "--pilot", "0"])
    assert result.exit_code == 0 and ": 17 games," in result.output, result.output  # never 15, as octal


# --- what run failed on, validate now refuses ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            TINY.replace("games: 4", "games: 1000000000000"),
            ": games: 1000000000000 is above the largest valid value, 1000000000",
            id="games-10**12",
        ),
        pytest.param(
            TINY + "conditions: {x: {games: 1000000001}}\n",
            ": conditions.x.games: 1000000001 is above the largest valid value, 1000000000",
            id="condition-games",
        ),
        pytest.param(
            TINY.replace("target_score: 30", "target_score: 1000000000000000000000"),
            ": rules.target_score: 1000000000000000000000 is above the largest valid value, 1000000000 (R11.1)",
            id="target_score-1e21",
        ),
        pytest.param(
            TINY.replace("target_score: 30", "target_score: 30, rummy_multiplier: 10000000000000000000"),
            ": rules.rummy_multiplier: 10000000000000000000 is above the largest valid value, 1000 (R8.3)",
            id="rummy_multiplier-overflows-int64",
        ),
        pytest.param(
            TINY + "grid: {stall_after_turns: [10, 100000000000]}\n",
            ": grid.stall_after_turns: 100000000000 is above the largest valid value, 1000000 (R10.2)",
            id="grid-stall_after_turns",
        ),
        *[
            pytest.param(
                TINY + f"time_limit: {given}\n",
                f": time_limit: {shown} is not a number of seconds above 0 and at most 3,600",
                id=f"time_limit-{shown}",
            )
            for given, shown in (
                (".nan", "nan"),
                (".inf", "inf"),
                ("-.inf", "-inf"),
                ("0", "0"),
                ("1.0e+300", "1e+300"),
            )
        ],
        pytest.param(
            HEAD + "players: [greedy, {strategy: montecarlo, samples: -3}]\n",
            ": players[1]: strategy 'montecarlo' parameter samples: -3 is below the smallest valid value, 2",
            id="montecarlo-samples--3",
        ),
        pytest.param(
            HEAD + "players: [greedy, {strategy: montecarlo, depth: 1000000000}]\n",
            ": players[1]: strategy 'montecarlo' parameter depth: 1000000000 is above the largest valid value, 10000",
            id="montecarlo-depth-1e9",
        ),
        pytest.param(
            HEAD + "players: [greedy, {strategy: montecarlo, tries: 2.5}]\n",
            ": players[1]: strategy 'montecarlo' parameter tries: 2.5 is not a whole number",
            id="montecarlo-tries-float",
        ),
        pytest.param(
            HEAD + "players: [greedy, {strategy: cautious, caution: .nan}]\n",
            ": players[1]: strategy 'cautious' parameter caution: nan is not a number from 0 to 1,000,000",
            id="caution-nan",
        ),
        pytest.param(
            HEAD
            + "players: [greedy, greedy]\nconditions: {x: {players: [greedy, {strategy: rummy_hunter, danger: -1}]}}\n",
            ": conditions.x.players[1]: strategy 'rummy_hunter' parameter danger: -1 is below the smallest valid "
            "value, 0",
            id="condition-rummy_hunter-danger",
        ),
        pytest.param(
            TINY.replace("name: hostile", "name: " + "n" * 300),
            f": name: '{'n' * 56}... must be 1 to 100 letters, digits, '-' and '_' (it names the results folder)",
            id="name-300-characters",
        ),
        pytest.param(
            TINY + f"conditions: {{{'c' * 300}: {{}}}}\n",
            f": conditions.'{'c' * 56}...: a condition name is 1 to 100 letters, digits, '-' and '_'",
            id="condition-name-300-characters",
        ),
        pytest.param(
            TINY
            + "grid: {target_score: ["
            + ", ".join(map(str, range(1, 41)))
            + "], max_hands: ["
            + ", ".join(map(str, range(1, 41)))
            + "]}\n",
            ": grid: makes 1,600 conditions, more than the 1,000 an experiment may have",
            id="grid-1600-conditions",
        ),
        pytest.param(
            TINY + "time_limit: 1\nengine: compiled\n",
            ": engine (condition default): compiled cannot play it: time_limit times decisions on the reference "
            "engine; use engine: auto or python",
            id="engine-compiled-cannot",
        ),
    ],
)
def test_validate_refuses_what_run_would_fail_on(runner, tmp_path, text, message):
    refused(runner, tmp_path, text, message)


def test_a_value_in_an_error_is_a_short_excerpt_on_one_line(runner, tmp_path):
    forged = "x" * 100_000 + "\\nError: seat 1 (greedy) cheated (R4.5)"
    refused(runner, tmp_path, TINY + f'engine: "{forged}"\n', f": engine: '{'x' * 56}... is not one of auto, python, "
            "compiled")  # fmt: skip


# --- the command line --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["-5", "0", "100000"])
def test_run_refuses_jobs_that_are_not_minus_1_or_a_number_of_workers(runner, tmp_path, jobs):
    path, out = write(tmp_path, TINY), tmp_path / "out"
    result = runner.invoke(main, [*run_args(path, out), "--jobs", jobs])
    assert_one_line_error(
        result, f"--jobs: {jobs} workers; give a number of workers from 1 to 1024, or -1 for every core"
    )
    assert_nothing_written(out)


def test_run_refuses_games_beyond_the_limit_from_the_command_line(runner, tmp_path):
    path, out = write(tmp_path, TINY), tmp_path / "out"
    result = runner.invoke(main, [*run_args(path, out), "--games", "1000000000000"])
    assert_one_line_error(result, "command line: --games: 1000000000000 is above the largest valid value, 1000000000")
    assert_nothing_written(out)


@pytest.mark.parametrize("precision", ["", "precision: {first_seat_edge: 5 pp}\nmax_games: 100\n"])
def test_validate_refuses_a_negative_pilot_with_or_without_precision(runner, tmp_path, precision):
    path = write(tmp_path, TINY + precision)
    result = runner.invoke(main, ["validate", str(path), "--pilot", "-5"])
    assert_one_line_error(result, "--pilot: -5 is below the smallest valid value, 0")


def test_run_without_dask_refuses_before_the_results_folder_is_made(runner, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the dask extra were not installed
    path, out = write(tmp_path, TINY), tmp_path / "out"
    result = runner.invoke(main, [*run_args(path, out), "--backend", "dask"])
    assert_one_line_error(result, "--backend dask needs the dask extra: pip install 'rummysim[dask]'")
    assert_nothing_written(out)


# --- files that are not files ----------------------------------------------------------------------------------

NOT_A_FILE = (
    "is not a regular file (a device, pipe or socket); an experiment file is a YAML file of at most 1,000,000 bytes"
)


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run rummysim in a subprocess held to 3 GiB of memory: an attack whose guard is gone fails, not the machine."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    return subprocess.run(
        [sys.executable, "-m", "rummysim", *args], capture_output=True, text=True, timeout=timeout, preexec_fn=limit
    )


def assert_refused_in_a_process(path: str, message: str, out: Path) -> None:
    for args in (["validate", path], run_args(path, out)):
        done = cli(*args)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", f"Error: {message}\n")
    assert_nothing_written(out)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_dev_zero_is_refused_before_a_byte_is_read(tmp_path):
    assert_refused_in_a_process("/dev/zero", f"/dev/zero: {NOT_A_FILE}", tmp_path / "out")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    pipe = tmp_path / "exp.yaml"
    os.mkfifo(pipe)
    assert_refused_in_a_process(str(pipe), f"{pipe}: {NOT_A_FILE}", tmp_path / "out")


def test_a_file_over_a_megabyte_is_refused_unread(runner, tmp_path):
    path = write(tmp_path, TINY + "description: " + "x" * 1_000_000 + "\n")
    size = path.stat().st_size
    message = f"{path}: is {size:,} bytes; an experiment file is a YAML file of at most 1,000,000 bytes"
    assert_one_line_error(runner.invoke(main, ["validate", str(path)]), message)
    assert_one_line_error(runner.invoke(main, run_args(path, tmp_path / "out")), message)
    assert_nothing_written(tmp_path / "out")


def test_a_file_that_is_not_utf8_names_the_byte(runner, tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_bytes(TINY.encode() + b"description: \xff\n")
    message = f"{path}: cannot be read as UTF-8 text (byte {len(TINY) + 13} is not UTF-8)"
    assert_one_line_error(runner.invoke(main, ["validate", str(path)]), message)


HOSTILE_TEXT = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> & "x"'


def test_a_hostile_question_description_and_bot_name_are_text_in_report_html(tmp_path):
    """Issue 43 part 5: a manifest someone hands you cannot run script in your browser through report.html."""
    import html as html_module

    from rummysim.report import build_report
    from rummysim.runner import run_experiment

    bot_file = tmp_path / '<img src=x onerror="alert(1)">.py'
    bot_file.write_text("from rummysim.strategies.greedy import Greedy\n\n\nclass Bot(Greedy):\n    pass\n")
    spec = {"name": "hostile", "question": HOSTILE_TEXT, "description": HOSTILE_TEXT, "seed": 1, "games": 6,
            "players": [f"{bot_file}:Bot", "greedy"],
            "conditions": {"basic": {"description": HOSTILE_TEXT},
                           "ace_high": {"rules": {"ace": "high_or_low"}}}}  # fmt: skip
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(spec))
    results = run_experiment(path, out=tmp_path / "out", n_jobs=1, quiet=True)
    text = build_report(results.folder).html.read_text()
    assert "pwned" in text and "onerror" in text  # the texts are shown ...
    assert HOSTILE_TEXT not in text and "<img src=x" not in text  # ... as text
    assert "window.pwned = 1</script>" not in text
    assert html_module.escape(HOSTILE_TEXT, quote=False) in text or html_module.escape(HOSTILE_TEXT) in text
