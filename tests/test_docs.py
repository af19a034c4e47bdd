"""The code in the docs runs as written."""

from __future__ import annotations

import re
from pathlib import Path

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
    """The README's excerpt of results/acehigh/report.md is that report's opening, rewrapped."""
    root = Path(__file__).parent.parent
    readme = (root / "README.md").read_text()
    start = readme.index("# Does playing aces high or low (R9) change who wins?")
    quoted = " ".join(readme[start : readme.index("```", start)].split())
    report = " ".join((root / "results" / "acehigh" / "report.md").read_text().split())
    assert report.startswith(quoted)
