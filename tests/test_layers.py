"""Imports point one way, down the layers (README, Design): a module may import its own layer and the
layers above it in this list, never one below. A test, so an upward import fails the build."""

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


def _imported_layers(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
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
