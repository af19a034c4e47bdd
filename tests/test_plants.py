"""Planted bugs, each shown to fail the differential and oracle tests (issue 21, part 5).

A plant is a small change to one rule or one bot, made where the bug would live:

- in the rules core (`rummysim.core`): the function is patched in Python, where the
  reference engine calls it; the compiled kernels, read from the cache, keep the true
  rule. The oracle's test of that function fails (tests/test_core.py), and so do the
  engines at the stock's edges (tests/edges.py).
- in the compiled loop and in a compiled bot: a text substitution in a copy of the
  package, compiled afresh in a subprocess (minutes each, so marked slow), which then
  plays the edges, the default grid of tests/test_compiled.py and both fuzz tests and
  prints which of them found a difference.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_core
from edges import EDGES, first_difference

import rummysim
import rummysim.core as core

# -- plants in the rules core ---------------------------------------------------------------------


def plant_in_core(monkeypatch: pytest.MonkeyPatch, name: str, planted: Callable[..., Any]) -> list[str]:
    """Replace a core function by `planted` in `rummysim.core` and wherever the Python side imported it.

    The compiled modules are left alone: their kernels are compiled already and keep the
    true rule, so the engines now play different rules. Return the modules patched.
    """
    original = getattr(core, name)
    patched = []
    for module_name, module in list(sys.modules.items()):
        on_the_python_side = module_name.startswith("rummysim") and not module_name.startswith("rummysim.compiled")
        if on_the_python_side and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, planted)
            patched.append(module_name)
    return patched


def _stall_below_three(original):
    return lambda pile_size, n_rebuilds, limit: pile_size >= 3 and original(pile_size, n_rebuilds, limit)


def _one_more(original):
    return lambda values, winner: original(values, winner) + 1


CORE_PLANTS = {
    "R10.2 the hand stalls when the discard pile holds fewer than 3 cards": (
        "may_rebuild", _stall_below_three, test_core.test_R10_1_R10_2_may_rebuild,
    ),
    "R12.3 a blocked hand's winner scores one point more": (
        "block_points", _one_more, test_core.test_R12_3_block_winner_and_block_points,
    ),
}  # fmt: skip


@pytest.mark.parametrize("plant", list(CORE_PLANTS))
def test_a_plant_in_the_core_fails_the_oracle_and_the_edges(plant, monkeypatch):
    name, make, oracle_test = CORE_PLANTS[plant]
    patched = plant_in_core(monkeypatch, name, make(getattr(core, name)))
    assert any(m in patched for m in ("rummysim.engine", "rummysim.ending")), patched  # the reference engine plays it
    with pytest.raises(AssertionError):
        oracle_test()
    assert first_difference(EDGES) is not None, f"{plant}: the edges do not catch it"


# -- plants in the compiled engine, compiled afresh ----------------------------------------------
PACKAGE = Path(rummysim.__file__).parent
TESTS = Path(__file__).parent

PROBE = """
import json, sys
sys.path.insert(1, {tests!r})
import rummysim
assert rummysim.__file__.startswith({root!r}), rummysim.__file__
import test_compiled, test_differential
from edges import EDGES, first_difference


def fails(test):
    try:
        test()
    except AssertionError as error:
        return (str(error).splitlines() or ["failed"])[0][:300]
    return None


found = {{
    "edges": first_difference(EDGES),
    "default_grid": first_difference(test_compiled.DEFAULT_GRID, seeds=(7,), games=4),
    "fields_fuzz": fails(test_differential.test_the_engines_agree_on_rules_drawn_from_every_field),
    "old_fuzz": fails(test_compiled.test_the_engines_agree_on_any_rules_and_lineup),
}}
print(json.dumps(found))
"""


def planted_copy(tmp_path: Path, module: str, old: str, new: str) -> Path:
    """Copy the package to `tmp_path` with `old` replaced by `new` in `module`; return the folder to import it from."""
    root = tmp_path / "planted"
    shutil.copytree(PACKAGE, root / "rummysim", ignore=shutil.ignore_patterns("__pycache__"))
    path = root / "rummysim" / module
    text = path.read_text()
    assert text.count(old) == 1, f"{module}: the text to replace is not there once; update the plant"
    path.write_text(text.replace(old, new))
    return root


def probe(tmp_path: Path, root: Path) -> dict[str, str | None]:
    """Compile the planted copy in a subprocess and return, per set of tests, the first difference it found."""
    script = root / "probe.py"
    script.write_text(PROBE.format(tests=str(TESTS), root=str(root)))
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("RUMMYSIM_COMPILED", None)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=root, env=env, capture_output=True, text=True, timeout=3600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(found, indent=1))  # which tests caught the plant (pytest -s or -rP shows it)
    return found


@pytest.mark.slow
def test_the_issues_plant_in_the_compiled_loop_is_caught_by_the_edges_only(tmp_path):
    """Issue 21's own plant: the compiled engine stalls when the discard pile holds fewer than 3 cards (R10.2).

    The default grid plays the R3.2 deals, whose pile is never that short when the stock
    runs out: it passes. The edges deal so that the first stock holds 1 card and catch it.
    """
    root = planted_copy(
        tmp_path,
        "compiled/turn.py",
        "    if not may_rebuild(h.counts[PILE], h.counts[REBUILDS],",
        "    if h.counts[PILE] < 3 or not may_rebuild(h.counts[PILE], h.counts[REBUILDS],",
    )
    found = probe(tmp_path, root)
    assert found["edges"] is not None
    assert found["default_grid"] is None


BOT_PLANTS = {
    "greedy breaks a tie the other way when every card is in a meld": (
        "(value == best_key and card_points >= best_points)",
        "(value == best_key and card_points > best_points)",
    ),
    "uniform offers 'stop' first among its plays, not last": (
        "choice = pick(h, seat, k + 1)\n            if choice == k:",
        "choice = pick(h, seat, k + 1) - 1\n            if choice < 0:",
    ),
}
"""Plants in the compiled bots (rummysim/compiled/policies.py): the text replaced and its replacement."""


@pytest.mark.slow
@pytest.mark.parametrize("plant", list(BOT_PLANTS))
def test_a_plant_in_a_compiled_bot_is_caught_by_the_edges(tmp_path, plant):
    root = planted_copy(tmp_path, "compiled/policies.py", *BOT_PLANTS[plant])
    found = probe(tmp_path, root)
    assert found["edges"] is not None
