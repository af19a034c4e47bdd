"""The import graph keeps the layers of the README's table: a module imports only from layers below it.

The README's table is the one statement of the layers: this test reads it, checks that
every module of the package is in it, that every import goes to a lower layer, and that
each module's layer is what its imports say (one more than the highest layer it
imports). So no strategy can reach the engine's private state, and the analysis,
rendering and replay depend on no bot: hiding is part of the graph. Within a package too,
no module imports itself through others: the graph of modules has no cycle, counting the
imports inside functions and ``TYPE_CHECKING`` blocks, which only hide one.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "rummysim"


def readme_layers() -> dict[str, int]:
    """Return each module's layer as the README's Layout table gives it."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Layout") :]
    layers = {}
    for line in section.splitlines():
        row = re.match(r"^\| (\d+) \| (.+?) \|", line)
        if row:
            modules = re.sub(r"\([^)]*\)", "", row.group(2))  # a package's submodules, in brackets
            for name in re.findall(r"`([\w]+)/?`", modules):
                layers[name] = int(row.group(1))
    return layers


LAYERS = readme_layers()


def unit_of(path: Path) -> str:
    """Return the module a file belongs to: its own name, or its package's."""
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rummysim"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("rummysim"))
    return names


def imports_of(unit: str) -> set[str]:
    """Return the other modules a module (or package) imports, lazily or not."""
    files = [PACKAGE / f"{unit}.py"] if (PACKAGE / f"{unit}.py").exists() else list((PACKAGE / unit).rglob("*.py"))
    targets = set()
    for path in files:
        for module in imported_modules(path):
            parts = module.split(".")
            if len(parts) > 1 and parts[1] != unit:
                targets.add(parts[1])
    return targets


@cache
def depth(unit: str) -> int:
    below = [depth(target) for target in imports_of(unit)]
    return 1 + max(below) if below else 0


def test_the_readme_lists_every_module_once():
    units = {unit_of(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert set(LAYERS) == units


def test_modules_import_only_from_layers_below_their_own():
    for unit, layer in LAYERS.items():
        for target in imports_of(unit):
            assert LAYERS[target] < layer, f"{unit} (layer {layer}) imports {target} (layer {LAYERS[target]})"


def test_each_modules_layer_is_what_its_imports_say():
    assert {unit: depth(unit) for unit in LAYERS} == LAYERS


def test_only_the_package_root_imports_the_package_root():
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__init__.py" and path.parent == PACKAGE:
            continue
        assert "rummysim" not in imported_modules(path), f"{path} imports the package root"


def test_strategies_cannot_import_the_engine():
    for path in (PACKAGE / "strategies").rglob("*.py"):
        for module in imported_modules(path):
            assert not module.startswith(("rummysim.engine", "rummysim.dealing", "rummysim.game")), path


def test_analysis_render_dealing_and_replay_depend_on_no_bot_and_replay_not_on_the_runner():
    for unit in ("analysis", "render", "dealing", "report", "replay"):
        assert "strategies" not in imports_of(unit), unit
    assert "runner" not in imports_of("replay")


def module_of(path: Path) -> str:
    """Return a file's dotted module name: ``rummysim.analysis.skill``, ``rummysim.analysis`` for its package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_of(path): path for path in PACKAGE.rglob("*.py")}


def modules_imported(tree: ast.AST, *, package: str) -> set[str]:
    """Return the rummysim modules a parsed file imports anywhere in it; `package` is the file's own package.

    ``from a.b import c`` imports the module ``a.b.c`` if there is one, else ``a.b``; a relative
    import is resolved from `package`.
    """
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}".rstrip(".")
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names)
    return found & MODULES.keys()


def import_graph() -> dict[str, set[str]]:
    """Return each module of the package with the other modules it imports."""
    graph = {}
    for module, path in MODULES.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        graph[module] = modules_imported(ast.parse(path.read_text()), package=package) - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return a cycle for each edge back to a module still open in a depth-first search: none if there is no cycle."""
    found: list[list[str]] = []
    path: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> None:
        path.append(module)
        for target in sorted(graph[module]):
            if target in path:
                found.append([*path[path.index(target) :], target])
            elif target not in done:
                visit(target)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module)
    return found


def test_no_module_imports_itself_through_others():
    found = [" -> ".join(cycle) for cycle in cycles(import_graph())]
    assert not found, f"import cycles: {'; '.join(found)}"


def test_the_cycle_check_sees_hidden_imports_and_finds_cycles():
    hidden = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from rummysim.analysis import Analysis
def build():
    from rummysim.strategies import registry
    from .base import Strategy
"""
    found = modules_imported(ast.parse(hidden), package="rummysim.strategies")
    assert found == {"rummysim.analysis", "rummysim.strategies.registry", "rummysim.strategies.base"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []
