"""No nonsense, checked (issue 42 part 6): every committed report passes the lint, and what the READMEs quote is so.

`rummysim.report.lint` reads each committed ``results/*/report.md`` and its charts
(``figures/*.svg``); each of its rules fires on a planted bad line and stays silent on a good one.
Then the figures README.md and results/README.md quote (games played, hands, the last wave's time,
the answer's sentences and numbers) are read against the committed manifests and reports.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rummysim.analysis import Estimate
from rummysim.measures import MEASURES
from rummysim.report.forest import ForestRow, forest_plot
from rummysim.report.lint import NUMBER, RULES, Problem, chart_texts, lint, sentences, svg_problems, value
from rummysim.report.verdicts import _by, _level
from rummysim.report.wording import ends, num, percent_text, pp, rounded, signed

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
FOLDERS = sorted(p.parent.name for p in RESULTS.glob("*/report.md"))
NOT_YET_REPLAYED: tuple[str, ...] = ()
"""Committed reports written by older code, whose tables are not here to write them again: they are played again
with the new code in a later step. expert_strength, the fifth such folder, already passes, so it is not marked."""


def _marked(name: str) -> Any:
    if name in NOT_YET_REPLAYED:
        return pytest.param(
            name, marks=pytest.mark.xfail(strict=True, reason="re-played with the new code in a later step")
        )
    return name


# --- each rule, planted and not ---------------------------------------------------------------------------------

PLANTED = {
    "nan or inf": ("| order:cautious | nan | 0.44 [0.43, 0.44] |", "| order:cautious | n/a | 0.440 [0.437, 0.443] |"),
    "negative zero": ("it rules out changes outside [-0.16, -0.00] pp",
                      "it rules out changes outside [-0.16, -0.00005] pp"),
    "zero change with signs": ("| taking the discard only to play it | +0.00 [+0.00, +0.00] |",
                               "| taking the discard only to play it | 0 in every game |"),
    "interval with equal ends": ("it rules out changes outside [+1.8, +1.8] turns",
                                 "it rules out changes outside [+1.75, +1.84] turns"),
    "point outside its interval": ("the first seat wins +0.9 pp [+1.0, +2.1] more",
                                   "the first seat wins +1.2 pp [+1.0, +2.1]"),
    "sign on a level": ("Basic rummy: 2 players +33.08 hands, 3 players +15.23 hands.",
                        "Basic rummy: 33.08 hands at 2 players, 15.23 hands at 3 players."),
    "pp on a share": ("rummy hands take 0.25 percentage points more of the points (0.50 instead of 0.25 pp; change "
                      "+0.25 [+0.19, +0.31] pp).",
                      "rummy hands take 0.25 percentage points more of the points (0.50% instead of 0.25%; change "
                      "+0.25 [+0.19, +0.31] pp)."),
    "one number rounded two ways": ("the dealer's edge in a hand falls by 0.082 percentage points (-1.02 instead of "
                                    "-0.94 pp; change -0.08 [-0.16, -0.01] pp).",
                                    "the dealer's edge in a hand falls by 0.08 percentage points (-1.02 instead of "
                                    "-0.94 pp; change -0.08 [-0.16, -0.01] pp)."),
}  # fmt: skip


def test_every_rule_has_a_planted_line():
    assert set(PLANTED) | {"truncated title"} == set(RULES)


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_each_rule_fires_on_its_planted_line_and_not_on_the_good_one(rule):
    bad, good = PLANTED[rule]
    assert rule in {p.rule for p in lint(bad)}, lint(bad)
    assert lint(good) == []


@pytest.mark.parametrize(
    "line",
    [
        "- **Yes**: games end 7.3 hands (30.4%) sooner (16.6 instead of 23.9 hands a game; "
        "change -30.4% [-30.6, -30.3]).",
        "**Seat advantage**: +0.54 pp [+0.50, +0.58] and +0.67 pp [+0.62, +0.72]; difference +0.13 pp [+0.07, +0.19] "
        "(z-test p = 1.5e-05, Holm-adjusted p = 0.00012); it rules out a change of more than 0.350 pp either way, "
        "within the margin of 0.50 pp.",
        "8,000 games to tell 60% from 58%: expert won 59.8% [58.7, 60.8] of them.",
        "Basic rummy: 2 players +0.64 pp, 3 players +0.42 pp; Order +0.466 under basic rummy.",
        "- `cautious`'s Order falls by 0.031 (0.41 instead of 0.44; change -0.031 [-0.037, -0.025]).",
        "| tied_games | 0.000000 [0.000000, 0.000016] | 0 of 1,000 [0.0, 0.4] |",
        "How hands end: out by ... (R7), or stalled (R10.2); seed 2026-12-07, R3.4.",
        "- points per hand +5.66 [+5.64, +5.67] points (13.91 → 19.56)",
    ],
)
def test_legitimate_lines_pass(line):
    assert lint(line) == []


def test_a_problem_names_its_line_and_rule_and_rules_are_known():
    text = "# Title\n\nfine 1.0 [0.5, 1.5]\n\n| a | -0.00 |\n"
    assert [str(p) for p in lint(text)] == ["line 5: negative zero: -0.00"]
    with pytest.raises(ValueError, match="is not one of"):
        Problem(1, "a typo", "x")


def test_numbers_are_read_as_printed():
    assert [m.group() for m in re.finditer(NUMBER, "R3.4 1.5e-05 −0.30 +1,600.5 (30.4%) 2026-12-07")] == [
        "−0.30", "+1,600.5", "30.4", "2026"
    ]  # fmt: skip
    assert value("−1,600.5") == -1600.5
    assert sentences("It ends. Then it: goes on.") == ["It ends.", "Then it: goes on."]


def test_a_cut_or_overflowing_chart_text_is_a_truncated_title(tmp_path):
    assert [p.rule for p in lint("fine", titles=["aces high or low vs aces low only [...]"])] == ["truncated title"]
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none"}):
        fig = plt.figure(figsize=(3, 2))
        fig.text(0.05, 0.5, "a title far too long for a figure three inches wide, running off its right edge")
        fig.text(0.05, 0.2, "a short one")
        fig.savefig(tmp_path / "wide.svg")
        plt.close(fig)
    found = svg_problems((tmp_path / "wide.svg").read_text())
    assert [p.excerpt for p in found] == [
        "a title far too long for a figure three inches wide, running off its right edge"
    ]


# --- the fixed functions -----------------------------------------------------------------------------------------


def test_a_change_is_rounded_once_for_its_value_and_ends():
    """Issue 42: "-0.08170 [-0.16335, -0.00005] pp", "0.029 [0.029, 0.029]", "-0.00 pp" and "+0.00 [+0.00, +0.00]"."""
    assert signed(Estimate(-0.000817, -0.0016335, -0.0000005, 10), scale=100.0) == "-0.08 [-0.16, -0.00005]"
    assert num(Estimate(0.02921, 0.02894, 0.02949, 10)) == "0.0292 [0.0289, 0.0295]"
    assert pp(Estimate(-0.00004, -0.0015, 0.0014, 10)) == "-0.004 pp [-0.15, +0.14]"
    assert num(Estimate(0.0, 0.0, 0.0, 10)) == "0.000 (no spread)"
    assert signed(Estimate(-0.031, -0.0367, -0.0251, 10)) == "-0.031 [-0.037, -0.025]"
    assert rounded(-0.0, 1e-13, least=2, sign="+") == ["+0.00", "+0.00"]
    assert pp(Estimate(1.0, 0.9998, 1.0, 10), signed=False, unit="%") == "100.00% [99.98, 100.00]"


def test_what_a_change_rules_out_reads_as_the_change_beside_it():
    e = Estimate(-0.000817, -0.0016335, -0.0000005, 10)
    assert ends("dealer_advantage_hand", e) == "[-0.16, -0.00005] pp"
    assert percent_text(Estimate(-30.4, -30.62, -30.28, 1)) == ("-30.4%", "[-30.6, -30.3]")
    assert percent_text(Estimate(0.0, 0.0, 0.0, 1)) == ("+0%", "(no spread)")


def test_a_verdict_says_its_change_at_the_digits_printed_and_a_share_in_percent():
    dealer, share = MEASURES["dealer_edge_hand"], MEASURES["rummy_point_share"]
    change = Estimate(-0.0817, -0.16335, -0.00005, 10)
    assert _by(dealer, change) == "0.08 percentage points" and signed(change).startswith("-0.08 ")
    assert _by(MEASURES["order"], Estimate(-0.0308, -0.0367, -0.0251, 10)) == "0.031"
    assert _level(Estimate(0.005, 0.004, 0.006, 10), share) == "0.50%"
    assert _level(Estimate(0.005, 0.004, 0.006, 10), dealer) == "+0.50"  # an edge is above or below the fair share


def test_a_forest_plots_long_headings_wrap_and_fit(tmp_path):
    """Issue 42: a heading cut at 100 characters, so both lineups read the same."""
    import matplotlib.pyplot as plt

    from rummysim.report.figures import RC, save

    long = "block rummy (the hand ends when the stock runs out) vs the stock rebuilt from the discards"
    rows = [ForestRow("the length of a game", f"{long} ({lineup})", -10.0, -11.0, -9.0, 5.0, "%", "Yes")
            for lineup in ("three greedy", "cautious against two greedy")]  # fmt: skip
    with plt.rc_context(RC):
        path = save(forest_plot(rows), tmp_path, "answer")
    svg = path.with_suffix(".svg").read_text()
    assert svg_problems(svg) == []
    said = " ".join(t.text for t in chart_texts(svg)[1])
    assert f"{long} (three greedy)" in said and f"{long} (cautious against two greedy)" in said


def test_a_fresh_report_passes_the_lint(tmp_path):
    """A small run's report, written by the code as it is: its text and its charts print no nonsense."""
    from synthetic import SMALL

    from rummysim.experiment import parse_experiment
    from rummysim.report import build_report
    from rummysim.runner import run_experiment

    results = run_experiment(parse_experiment(SMALL, source="small.yaml"), out=tmp_path, n_jobs=1, quiet=True)
    build_report(results.folder)
    assert report_problems(results.folder) == []


# --- every committed report --------------------------------------------------------------------------------------


def report_problems(folder: Path) -> list[str]:
    """Return every problem of a committed report: its markdown's, then each chart's."""
    found = [str(p) for p in lint((folder / "report.md").read_text())]
    for svg in sorted((folder / "figures").glob("*.svg")):
        found += [f"figures/{svg.name}: {p}" for p in svg_problems(svg.read_text())]
    return found


@pytest.mark.parametrize("name", [_marked(name) for name in FOLDERS])
def test_every_committed_report_passes_the_lint(name):
    found = report_problems(RESULTS / name)
    assert not found, f"results/{name}: {len(found)} problems:\n" + "\n".join(found[:60])


@pytest.mark.parametrize("name", ["README.md", "results/README.md"])
def test_the_readmes_pass_the_lint(name):
    assert [str(p) for p in lint((ROOT / name).read_text())] == []


# --- what the READMEs quote --------------------------------------------------------------------------------------


@cache
def manifest(name: str) -> dict[str, Any]:
    path = RESULTS / name / "manifest.json"
    if not path.exists():
        pytest.skip(f"results/{name} has no manifest.json (a run in progress)")
    return json.loads(path.read_text())


def conditions(name: str) -> dict[str, tuple[int, bool]]:
    """Return each condition's games and whether it plays strong players, as the manifest records them."""
    m = manifest(name)
    experiment = m["experiment"]
    strong = {c["name"]: bool(c.get("strong")) for c in experiment.get("conditions", [])}
    waves = (m.get("precision") or {}).get("waves")
    if waves:  # a sized run: its last wave is what it played
        return {c: (games, strong.get(c, False)) for c, games in waves[-1].items()}
    return {c["name"]: (c.get("games") or experiment["games"], strong[c["name"]]) for c in experiment["conditions"]}


def totals(name: str) -> dict[str, int]:
    """Return a run's games: the question's own, its strong players', and all."""
    played = conditions(name).values()
    own, strong = sum(g for g, s in played if not s), sum(g for g, s in played if s)
    return {"own": own, "strong": strong, "all": own + strong}


def hands(name: str) -> dict[str, int]:
    """Return a run's hands from its report's table of conditions (the question's own and all), and its rows."""
    rows = {"rows": manifest(name)["tables"]["hands"]["rows"]}
    text = (RESULTS / name / "report.md").read_text()
    table = text.split("### Conditions", 1)[1].split("\n### ", 1)[0] if "### Conditions" in text else ""
    strong = {c for c, (_, s) in conditions(name).items() if s}
    own = every = 0
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[5].isdigit():
            every += int(cells[5])
            own += 0 if cells[0] in strong else int(cells[5])
    return {**rows, **({"own": own, "all": every} if every else {})}


def number(text: str) -> int:
    return int(text.replace(",", ""))


def table_rows() -> list[tuple[str, list[str]]]:
    """Return results/README.md's table of runs: (folder, its cells)."""
    found = []
    for line in (RESULTS / "README.md").read_text().splitlines():
        m = re.match(r"\| \[(\w+)\]\(\1/report\.md\) \|", line)
        if m:
            found.append((m.group(1), [c.strip() for c in line.strip().strip("|").split("|")]))
    return found


def test_results_readme_lists_every_committed_run():
    assert sorted(name for name, _ in table_rows()) == FOLDERS


PENDING_ROWS: tuple[str, ...] = ()
"""Runs played again now, in another step: their row is written with them."""


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="re-played with the new code in a later step"))
     if name in PENDING_ROWS else name for name, _ in table_rows()],
)  # fmt: skip
def test_results_readme_table_agrees_with_each_manifest_and_report(name):
    cells = dict(table_rows())[name]
    _, question, games, counted, timing = cells
    assert question == manifest(name)["experiment"]["question"]
    assert (RESULTS / name / "report.md").read_text().startswith(f"# {question}\n")
    played = totals(name)
    first = re.match(r"\*?\*?([\d,]+)", games)
    assert first and number(first.group(1)) == played["own"], (games, played)
    strong = re.search(r"([\d,]+) with strong players", games)
    assert number(strong.group(1)) == played["strong"] if strong else played["strong"] == 0, (games, played)
    each = re.search(r"\((\d+) conditions x ([\d,]+)\)", games)
    if each:
        assert (int(each.group(1)), number(each.group(2))) == (
            len(conditions(name)),
            played["own"] // len(conditions(name)),
        )
    count = hands(name)
    rows = re.fullmatch(r"([\d,]+) hand x seat rows", counted)
    if rows:
        assert number(rows.group(1)) == count["rows"]
    elif counted != "see its report":
        assert number(counted) == count["all"], (counted, count)
    wave = re.search(r"last wave's play (\d+) s", timing)
    if wave:
        assert int(wave.group(1)) == round(manifest(name)["seconds"])


NAMED = (r"results/({n})\b", r"experiments/({n})\.yaml", r"\[({n})\]\(", r"`({n})`", r"\b({n})'s\b",
         r"(?<![/\w`])({u})(?![\w/`])")  # fmt: skip


def named(text: str) -> set[str]:
    """Return the committed runs a text names: by folder, file, link or code name (a bare word only if it is not an
    everyday one, as ``going_rummy`` or ``acehigh`` are, unlike ``players``)."""
    names = "|".join(FOLDERS)
    rare = "|".join(n for n in FOLDERS if "_" in n or n == "acehigh")
    found = set()
    for pattern in NAMED:
        found |= {m.group(1) for m in re.finditer(pattern.format(n=names, u=rare), text)}
    return found


def quoted(readme: str) -> list[tuple[str, str, bool]]:
    """Return (run, text, is_quote) for each prose sentence (or clause, after a semicolon) of a README that speaks of
    one committed run, the one it names or else the one its paragraph names; and for each quote (a verdict's bullet,
    "In short"), whole, the run named last before it in its section ("(from `results/acehigh/report.md`):")."""
    found: list[tuple[str, str, bool]] = []
    last: str | None = None
    for block in re.split(r"\n\s*\n", re.sub(r"```.*?```", "", readme, flags=re.S)):
        lines = [line.strip() for line in block.strip().splitlines()]
        if not lines or lines[0].startswith("|"):  # a table is not prose
            continue
        if lines[0].startswith("#"):  # a new section
            last = None
            continue
        items: list[str] = []
        for line in lines:
            if line.startswith("- ") or not items:
                items.append(line.removeprefix(">").strip())
            else:
                items[-1] += " " + line.removeprefix(">").strip()
        around = named(" ".join(items))
        for item in items:
            is_quote = item.startswith(("- **", "**In short**"))
            for sentence in [item] if is_quote else re.split(r"(?<=[.:])\s+(?=[A-Z*(`])|(?<=;)\s+", item):
                mine = named(sentence)
                run = mine or (around if len(around) == 1 else set()) or ({last} if is_quote and last else set())
                if len(run) == 1:
                    found.append((next(iter(run)), sentence, is_quote))
        last = next(iter(around)) if len(around) == 1 else last
    return found


def _report_text(name: str) -> str:
    return re.sub(r"\s+", " ", (RESULTS / name / "report.md").read_text())


FIGURE = re.compile(rf"({NUMBER})(%| pp| hands| turns| points| percentage points)?")


def figures_of(sentence: str) -> list[str]:
    """Return the figures a sentence quotes: numbers with decimals or a unit, never times, dates, flags or counts."""
    plain = re.sub(r"`[^`]*--[^`]*`", "", sentence)  # a command's flags
    found = []
    for m in FIGURE.finditer(plain):
        text, unit = m.group(1), m.group(2) or ""
        after = plain[m.end() :]
        if re.match(r"\s?(?:min|s|ms|GiB|MB|x|million)\b|[^.;]{0,30}\btime\b", after) or not ("." in text or unit):
            continue  # a time, a size, a count in millions (`_games_checked`), a share of time (docs/benchmarks.md)
        found.append(f"{text}{unit}")
    return found


def _games_checked(name: str, sentence: str) -> list[str]:
    """Return each "N games" of a sentence about a run that its manifest does not record: a total (the question's,
    the strong players', all) or one condition's games."""
    allowed = set(totals(name).values()) | {g for g, _ in conditions(name).values()}
    wrong = []
    for m in re.finditer(r"(?<![\w.-])([\d,]{3,})(?: [\w-]+)? games(?! a condition| of each)", sentence):
        if number(m.group(1)) not in allowed:
            wrong.append(f"{m.group()} (the manifest: {sorted(allowed)})")
    for m in re.finditer(r"(\d+\.\d) million hands", sentence):
        if not any(f"{h / 1e6:.1f}" == m.group(1) for k, h in hands(name).items() if k != "rows"):
            wrong.append(f"{m.group()} (the report: {hands(name)})")
    return wrong


@pytest.mark.parametrize("readme", ["README.md", "results/README.md"])
def test_what_the_readmes_quote_of_a_run_is_in_its_manifest_and_report(readme):
    """Every "N games" beside a run's name is one its manifest records; every figure (a number with decimals or a
    unit) is printed in its report; a quoted verdict or "In short" is in it word for word, "..." marking a cut."""
    wrong = []
    for name, sentence, is_quote in quoted((ROOT / readme).read_text()):
        report = _report_text(name)
        wrong += [f"{name}: {w}" for w in _games_checked(name, sentence)]
        for part in re.split(r"\s*\.\.\.\s*", sentence.removeprefix("- ")) if is_quote else []:
            part = part.strip(" .;,()")
            if part and part not in report:
                wrong.append(f"{name}: not in its report: {part!r}")
        for figure in figures_of(sentence):
            if figure not in report and figure.replace(" percentage points", " pp") not in report:
                wrong.append(f"{name}: {figure!r} is not printed in its report ({sentence[:90]}...)")
    assert not wrong, "\n".join(wrong)


def test_quoted_sentences_are_attributed_to_the_run_they_name():
    text = "The acehigh run: 852,800 games.\n\nAnother, `going_rummy` and `acehigh`, 94,000 games; `players`.\n"
    text += "\n- **Yes**: ... games end 7.3 hands.\n\n## Next\n\n- **No**: ... unnamed.\n"
    assert quoted(text) == [  # the second clause names two runs, the quote in the next section none
        ("acehigh", "The acehigh run: 852,800 games.", False),
        ("players", "`players`.", False),
        ("acehigh", "- **Yes**: ... games end 7.3 hands.", True),
    ]
    assert named("results/block_rummy, `bots`, players, expert_strength's") == {
        "block_rummy",
        "bots",
        "expert_strength",
    }


def test_the_readmes_never_call_a_played_rule_unplayed():
    """Issue 42: README said R12 "is specified but not yet played" after the house rules were played (block_rummy)."""
    for name in ("README.md", "results/README.md"):
        text = re.sub(r"\s+", " ", (ROOT / name).read_text())
        assert not re.search(r"(specified|reserved)[^.]{0,40}not yet played|not yet played", text), name
