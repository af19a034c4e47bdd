"""What a report opens with: the ladder where the experiment is a round robin of bots, else the verdicts."""

from __future__ import annotations

from click.testing import CliRunner

from rummysim.cli import main
from rummysim.experiment import parse_experiment
from rummysim.report import Report, build_report
from rummysim.runner import run_experiment

VERDICT_WORDS = ("Yes", "No", "Can't tell")


def spec(conditions: dict) -> dict:
    return {
        "name": "t", "question": "Which is it?", "games": 120, "seed": 5, "players": ["greedy", "greedy"],
        "rules": {"target_score": 50}, "conditions": conditions,
    }  # fmt: skip


ROUND_ROBIN = {
    "greedy_vs_cautious": {"players": ["greedy", "cautious"]},
    "greedy_vs_rummy_hunter": {"players": ["greedy", "rummy_hunter"]},
    "rummy_hunter_vs_cautious": {"players": ["rummy_hunter", "cautious"]},
    "greedy_vs_rummy_hunter_no_bonus": {"players": ["greedy", "rummy_hunter"], "rules": {"rummy_multiplier": 1}},
}
"""A round robin with one comparison of rules beside it (experiments/bots.yaml in small)."""

RULES_WITH_PAIRINGS = {
    "greedy_vs_cautious": {"players": ["greedy", "cautious"]},
    "greedy_vs_cautious_high": {"players": ["greedy", "cautious"], "rules": {"ace": "high_or_low"}},
    "greedy_vs_rummy_hunter": {"players": ["greedy", "rummy_hunter"]},
    "greedy_vs_rummy_hunter_high": {"players": ["greedy", "rummy_hunter"], "rules": {"ace": "high_or_low"}},
}
"""Two pairings each under two rule sets: the question is the rules (R9), the ladder a side view."""


def reported(conditions: dict, tmp_path) -> tuple[Report, str, list[str]]:
    """Play a small experiment, write its report; return it, its markdown, and its paragraphs in order."""
    run_experiment(parse_experiment(spec(conditions), source="t.yaml"), out=tmp_path, n_jobs=1)
    report = build_report(tmp_path / "t")
    text = report.markdown.read_text()
    parts = [part for part in text.split("\n\n") if part.strip()]
    assert parts[0] == "# Which is it?"
    return report, text, parts


def test_a_round_robin_opens_with_its_ladder_and_its_comparison_of_rules_follows(tmp_path):
    report, text, parts = reported(ROUND_ROBIN, tmp_path)
    assert " tops the ladder: measured, it beats `greedy` in " in parts[1].split(". ")[0]  # the answer, first
    assert parts[2].startswith("Measured where they met, in games to 50 points: head to head")  # measured first
    assert parts[3].startswith("| pairing | players | games | measured share [95% interval] | condition |")
    assert text.index("| pairing |") < text.index("| | strategy | rating [95% interval] |")  # the fit after
    comparisons = text.index("## The planned comparisons")
    first_verdict = min(text.index(f"- **{word}**") for word in VERDICT_WORDS if f"- **{word}**" in text)
    assert text.index("tops the ladder") < text.index("| | strategy |") < comparisons < first_verdict
    assert comparisons < text.index("## Each pairing") < text.index("## The evidence")
    assert "## The ladder: how strong is each strategy?" not in text  # said once, at the top
    # what `rummysim run` prints: the ladder's lead, then the verdicts
    assert " tops the ladder: " in report.verdicts[0] and "`" not in report.verdicts[0]
    assert report.verdicts[1].startswith(VERDICT_WORDS)
    page = report.html.read_text()
    page = page[page.index("<main") :]  # past the contents, which list the headings
    assert page.index("tops the ladder") < page.index("The planned comparisons")


def test_an_experiment_of_rules_opens_with_its_verdicts_even_with_a_ladder_beside_them(tmp_path):
    report, text, parts = reported(RULES_WITH_PAIRINGS, tmp_path)
    assert parts[1].startswith("**In short**: with aces high or low instead of aces low only (greedy against cautious)")
    assert parts[2].startswith("| lineup | measure | aces low only | aces high or low | change [interval] | verdict |")
    assert parts[3].startswith("Strong players: not checked")
    assert parts[4].startswith("These are the answers of the bots named (`cautious`, `greedy`, `rummy_hunter`)")
    assert parts[5] == "## The verdicts in full"  # the first screen ends here: the full sentences follow
    ladder = text.index("## The ladder: how strong is each strategy?")
    assert text.index("- **") < ladder < text.index("Each pairing as measured, with the ladder's forecast beside it")
    assert "## The planned comparisons" not in text and "## Each pairing" not in text
    # what `rummysim run` prints: "In short", then each verdict with its lineup
    assert report.verdicts[0].startswith("In short: with aces high or low") and "`" not in report.verdicts[0]
    rows = report.verdicts[1:]
    assert rows and all(r.startswith(("- greedy against cautious, ", "- greedy against rummy_hunter, ")) for r in rows)
    assert all(any(f": {word} (change " in r for word in ("Yes", "No", "Can't tell")) for r in rows)


def test_rummysim_report_prints_the_answer_the_report_opens_with(tmp_path):
    run_experiment(parse_experiment(spec(ROUND_ROBIN), source="t.yaml"), out=tmp_path, n_jobs=1)
    result = CliRunner().invoke(main, ["report", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = lines.index("t: the answer (details in the report)")
    assert " tops the ladder: " in lines[at + 1]
