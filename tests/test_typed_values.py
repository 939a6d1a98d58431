"""No layer above the engine compares a kind or an ending to a string, nor reads another layer's words.

Event kinds, entry kinds, endings, verdicts, reason ids and a run's end are enums (``EventKind``,
``EntryKind``, ``Ending``, ``Verdict``, ``ReasonId``, ``SessionEnd``...), and session events are classes:
code above the engine compares members (``event.kind is EventKind.PLAY``) or dispatches on the class, never
on the member's word (``event.kind == "play"``), which a typo or a renamed member would silently turn false.
Nor does it look into an event's ``text`` for what happened (``"matches two" in move.text``): the fields say
it. This test keeps it so, the way ``test_layers.py`` keeps the imports: it reads the source, as a grep
would, but by its syntax tree, so a comment or a docstring that quotes such a comparison does not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "p2p_koikoi"

# Below these, the words are the definitions (the engine's own enums, and the wire that parses entry kinds).
BELOW = ("engine",)

# Attributes (``x.kind``) and names (``how``) that hold a kind or an ending.
ATTRIBUTES = {"kind", "how", "verdict", "ended_by", "ending", "termination", "reason", "mode", "method", "step", "rule"}
NAMES = {"how", "verdict", "ended_by", "ending"}

_COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


def _holds_a_kind(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in ATTRIBUTES
    return isinstance(node, ast.Name) and node.id in NAMES


def _words(node: ast.expr) -> bool:
    """A string literal, or a tuple, list or set of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    return False


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "text"


def findings(tree: ast.AST) -> list[tuple[int, str]]:
    """Each comparison of a kind or an ending to words, and each reading of an event's ``text``."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands[:-1], operands[1:], strict=True):
                if not isinstance(op, _COMPARISONS):
                    continue
                if (_holds_a_kind(left) and _words(right)) or (_holds_a_kind(right) and _words(left)):
                    out.append((node.lineno, f"a kind or an ending compared to words: {ast.unparse(node)}"))
                elif isinstance(op, ast.In | ast.NotIn) and _is_text(right) and _words(left):
                    out.append((node.lineno, f"words looked for in another layer's text: {ast.unparse(node)}"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith", "partition", "split")
            and _is_text(node.func.value)
        ):
            out.append((node.lineno, f"another layer's text parsed: {ast.unparse(node)}"))
    return out


def test_no_layer_above_the_engine_compares_kinds_or_endings_to_words() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in BELOW:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [f"p2p_koikoi/{relative}:{line}: {what}" for line, what in findings(tree)]
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_is_for() -> None:
    """A planted comparison of each shape is found; comparing members, and words in a docstring, are not."""
    planted = '''
def f(event, entry, end, report, move, how):
    """event.kind == "play" in a docstring is words, not code."""
    a = event.kind == "play"
    b = entry.kind != "match"
    c = end.how in ("forfeit", "violation")
    d = report.ended_by == "disconnected"
    e = "matches two" in move.text
    g = move.text.startswith("exchanges")
    h = how == "finished"
    fine = event.kind is EventKind.PLAY or end.how in (Ending.FORFEIT, Ending.VIOLATION) or move.seat == 1
'''
    lines = [line for line, _ in findings(ast.parse(planted))]
    assert lines == [4, 5, 6, 7, 8, 9, 10], findings(ast.parse(planted))
