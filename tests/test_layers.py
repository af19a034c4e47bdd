"""The import graph keeps DESIGN.md's layers: a module imports only from layers below it.

So no strategy can reach the engine's private state: hiding is part of the graph.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "rummysim"

LAYERS = {
    "errors": 0,
    "compat": 0,
    "cards": 0,
    "seeding": 0,
    "version": 0,
    "timing": 0,
    "rules": 1,
    "melds": 1,
    "arrangement": 1,
    "moves": 1,
    "records": 1,
    "strategies": 2,
    "dealing": 3,
    "engine": 3,
    "game": 4,
    "experiment": 4,
    "runner": 5,
    "tables": 5,
    "benchmarks": 5,
    "analysis": 5,
    "report": 5,
    "replay": 5,
    "terminal": 5,
    "render": 5,
    "session": 5,
    "cli": 6,
    "__main__": 6,
    "__init__": 7,
}


def layer_of(path: Path) -> tuple[str, int]:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    name = parts[0]
    return name, LAYERS[name]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rummysim"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("rummysim"))
    return names


def test_every_module_has_a_layer():
    for path in PACKAGE.rglob("*.py"):
        assert layer_of(path)[0] in LAYERS, path


def test_modules_import_only_from_layers_at_or_below_their_own():
    for path in PACKAGE.rglob("*.py"):
        _, layer = layer_of(path)
        for module in imported_modules(path):
            parts = module.split(".")
            if len(parts) == 1:  # `import rummysim` / `from rummysim import x`
                assert layer == LAYERS["__init__"], f"{path} imports the package root"
                continue
            target = parts[1]
            assert LAYERS[target] <= layer, f"{path.relative_to(PACKAGE)} (layer {layer}) imports {module}"


def test_strategies_cannot_import_the_engine():
    for path in (PACKAGE / "strategies").rglob("*.py"):
        for module in imported_modules(path):
            assert not module.startswith(("rummysim.engine", "rummysim.dealing", "rummysim.game")), path
