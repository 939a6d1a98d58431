"""Imports point one way, down the layers (README, Design): a module may import its own layer and the
layers before it in this list, never one after. A test, so an upward import fails the build.

The order is the real one: ``ui`` comes after ``app`` because the table and the plain lines import the
app's value types (a match's context, its words); ``cli`` wires both. Relative imports (``from ..app
import x``) are resolved against the module's own package, so they are held to the same order."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "p2p_koikoi"
LAYERS = ("engine", "fairness", "wire", "referee", "record", "session", "net", "bots", "app", "ui", "cli", "testing")
# Top-level modules of the package that sit at a layer of their own.
MODULE_LAYERS = {"__init__": "engine", "__main__": "cli"}


def _layer_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    head = relative.parts[0]
    return MODULE_LAYERS.get(Path(head).stem, head) if len(relative.parts) == 1 else head


def _absolute(node: ast.ImportFrom, package: list[str]) -> list[str]:
    """The modules an ``import from`` names, a relative one resolved against ``package`` (the importing
    module's package, as dotted parts): level 1 is the package itself, each level more one parent up."""
    if node.level == 0:
        return [node.module] if node.module else []
    base = package[: len(package) - (node.level - 1)]
    if node.module:
        return [".".join([*base, node.module])]
    return [".".join([*base, alias.name]) for alias in node.names]


def _imported_layers(path: Path, source: str | None = None) -> set[str]:
    found: set[str] = set()
    package = ["p2p_koikoi", *path.relative_to(PACKAGE).parts[:-1]]
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            names = _absolute(node, package)
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "p2p_koikoi" and len(parts) > 1:
                found.add(MODULE_LAYERS.get(parts[1], parts[1]))
    return found


def _rank(layer: str) -> int:
    return LAYERS.index(layer)


def test_every_layer_imports_only_its_own_and_the_layers_above_it() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = _layer_of(path)
        for imported in _imported_layers(path):
            if _rank(imported) > _rank(layer):
                upward.append(f"{path.relative_to(PACKAGE)} ({layer}) imports {imported}")
    assert not upward, "imports that point up the layers:\n" + "\n".join(upward)


def test_the_layer_list_names_every_package() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), packages - set(LAYERS)


def test_a_relative_upward_import_is_seen() -> None:
    """The check itself: an upward import written relatively, as a planted one was, is reported."""
    engine_module = PACKAGE / "engine" / "cards.py"
    assert "app" in _imported_layers(engine_module, "from ..app import words\n")
    assert "app" in _imported_layers(engine_module, "from ..app.words import tell\n")
    assert "engine" in _imported_layers(engine_module, "from . import rules\n")
    assert "ui" in _imported_layers(PACKAGE / "app" / "players.py", "from ..ui.table import Table\n")
