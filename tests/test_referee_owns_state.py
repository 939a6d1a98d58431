"""Only the referee writes its state (h11's rule 1; issue 24, item 10): no module assigns to an attribute
of a referee from outside, whether as ``referee.x = ...`` or ``self.referee.x = ...``. The endings rules are
a pure function (``referee/endings.py``) whose decision the referee alone applies."""

from __future__ import annotations

import ast
from pathlib import Path

import p2p_koikoi
from p2p_koikoi.referee.endings import ENDING_RULES, Goodbye, rule_goodbye
from p2p_koikoi.referee.events import Claim

PACKAGE = Path(p2p_koikoi.__file__).parent
REFEREE = PACKAGE / "referee" / "referee.py"


def _names_a_referee(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "referee"
    return isinstance(node, ast.Attribute) and node.attr == "referee"


def _writes(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and _names_a_referee(part.value):
                    lines.append(node.lineno)
    return lines


def test_no_module_but_the_referee_writes_a_referees_state() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REFEREE:
            continue
        for line in _writes(ast.parse(path.read_text(), str(path))):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert offenders == []


def test_the_scan_finds_a_planted_write() -> None:
    assert _writes(ast.parse("self.referee.finding = None\nreferee.end = x\n")) == [1, 2]


def test_every_rule_of_the_endings_table_is_reachable_and_first_match_wins() -> None:
    """Each row of the table is what ``rule_goodbye`` returns for some goodbye, so no row is dead."""
    seen = set()
    for author in (0, 1):
        for claim in Claim:
            for reason in ("", "bad-signature", "not-a-card"):
                for owed in (None, 0, 1):
                    for flags in range(16):
                        caught, counted, before, adjourned = (bool(flags & bit) for bit in (1, 2, 4, 8))
                        goodbye = Goodbye(author, claim, reason, owed, caught, counted, before, adjourned)
                        seen.add(rule_goodbye(goodbye).name)
    assert seen == {rule.name for rule in ENDING_RULES}
