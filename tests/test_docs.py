"""The code in the docs runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.strategies import REGISTRY

DOCS = Path(__file__).parent.parent / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_twenty_line_bot_in_strategies_md_plays_a_game_as_a_script_and_nothing_on_import(capsys):
    (block,) = python_blocks(DOCS / "strategies.md")
    body = block.split("\n\n\n")[1]
    assert len(body.strip().splitlines()) <= 20
    try:
        exec(compile(block, "docs/strategies.md", "exec"), {"__name__": "__main__"})
        scores = capsys.readouterr().out
        assert scores.startswith("(")
        assert max(eval(scores.split(")")[0] + ")")) >= 150
        exec(compile(block, "docs/strategies.md", "exec"), {"__name__": "hoarder"})  # as a run loads it
        assert capsys.readouterr().out == ""
    finally:
        REGISTRY.pop("hoarder", None)


def test_the_readme_quotes_the_committed_acehigh_report():
    """The README's verdicts of results/acehigh/report.md are that report's sentences, cut where it says '...'."""
    root = Path(__file__).parent.parent
    readme = (root / "README.md").read_text()
    setup = readme[readme.index("## Set up") : readme.index("Run the tests:")]
    bullets = re.findall(r"^- (\*\*[^*]+\*\*: .*?)(?=^- |^\n)", setup, flags=re.M | re.S)
    report = " ".join((root / "results" / "acehigh" / "report.md").read_text().split())
    verdicts = [line for line in report.split("- ") if line.startswith("**")]
    assert len(bullets) == 5
    for bullet in bullets:
        said = " ".join(bullet.split())
        head, *parts = [p.strip() for p in re.split(r"\.\.\.|\(one cautious against two greedy\)", said)]
        found = [v for v in verdicts if v.startswith(head.rstrip(". "))]
        assert found, head
        assert any(all(p.rstrip(".") in v for p in parts if p.rstrip(".")) for v in found), said


def measures_example() -> dict:
    """The experiment file of docs/experiments.md's section on the question's measures."""
    blocks = re.findall(r"```yaml\n(.*?)```", (DOCS / "experiments.md").read_text(), flags=re.S)
    (block,) = [b for b in blocks if "name: rummy_lengths" in b]
    return yaml.safe_load(block)


def test_the_measures_example_in_experiments_md_is_valid_and_plans_what_it_says():
    experiment = parse_experiment(measures_example(), source="docs/experiments.md")
    assert experiment.measures == ("game_length", "hand_length", "rummy_rate", "skill")
    assert (experiment.margin["game_length"], experiment.margin["hand_length"]) == (1.0, 2.0)
    assert (experiment.margin["rummy_rate"], experiment.margin["order"]) == (0.5, 0.02)
    assert experiment.precision == {"game_length": 0.25, "order": 0.01}


def test_the_measures_errors_quoted_in_experiments_md_are_the_ones_rummysim_gives():
    text = (DOCS / "experiments.md").read_text()
    acehigh = yaml.safe_load((DOCS.parent / "experiments" / "acehigh.yaml").read_text())
    misspelt = measures_example() | {"measures": ["game_lenght"]}
    wrong_unit = measures_example() | {"margin": {"game_length": "1 turn"}}
    share_of_order = measures_example() | {"margin": {"order": "5%"}}
    for source, data in [
        ("experiments/acehigh.yaml", acehigh | {"measures": ["game_length", "hand_length"]}),
        ("experiments/x.yaml", misspelt),
        ("experiments/x.yaml", wrong_unit),
        ("experiments/x.yaml", share_of_order),
    ]:
        with pytest.raises(ConfigError) as error:
            parse_experiment(data, source=source)
        assert f"\n{error.value}\n" in text
