"""protocol/SPEC.md against the referee: the stage names, the slot tables and every reason id the code can
name. The spec is the contract, so a table that can drift is checked here."""

from __future__ import annotations

import re
from pathlib import Path

from p2p_koikoi.fairness import Deck, Reason
from p2p_koikoi.referee.endings import ENDING_RULES, INTEGRITY_REASONS, Loser
from p2p_koikoi.referee.events import Ending
from p2p_koikoi.referee.table import (
    AUDIT_SLOTS,
    COIN_SLOTS,
    DEALER_DRAW_SLOTS,
    HAND_SLOTS,
    OPENING_SLOTS,
    Slot,
    Stage,
)
from p2p_koikoi.wire.reasons import FAMILIES, ReasonId

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "protocol" / "SPEC.md").read_text()


def _words(slots: tuple[Slot, ...]) -> str:
    return ", ".join(f"Deck {n}" if kind is Deck else kind.__name__ for kind, n in slots)


def test_the_slot_tables_in_the_spec_are_the_referees() -> None:
    block = SPEC.split("<!-- slots:")[1].split("<!-- end slots -->")[0]
    expected = {
        "coin flip": COIN_SLOTS,
        "opening (SETUP)": OPENING_SLOTS,
        "dealer draw": DEALER_DRAW_SLOTS,
        "hands": HAND_SLOTS,
        "audit": AUDIT_SLOTS,
    }
    for name, slots in expected.items():
        assert f"- {name}: {_words(slots)}\n" in block, name


def test_every_stage_is_named_in_the_state_hash_and_the_table() -> None:
    for stage in Stage:
        if stage is Stage.OVER:
            continue
        assert f"`{stage.value}`" in SPEC, stage
        assert f"| {stage.name} |" in SPEC or f"| {stage.name}," in SPEC, stage


def reason_ids_in_code() -> set[str]:
    found: set[str] = {str(reason) for reason in Reason}
    patterns = (
        r'_fail\([^,]+, "([a-z:-]+)"',
        r'RemoteProtocolError\(\s*"([a-z:-]+)"',
        r'Finding\(.*?, "([a-z:-]+)"',
    )
    for path in (ROOT / "p2p_koikoi").rglob("*.py"):
        text = path.read_text()
        for pattern in patterns:
            found.update(re.findall(pattern, text))
        if path.name != "reasons.py":  # the members the code names (their definitions are not a use)
            members = (ReasonId[name] for name in re.findall(r"\bReasonId\.([A-Z_]+)\b", text))
            found.update(str(member) for member in members if member not in FAMILIES)  # a family: its detail
    return {f for f in found if not f.endswith(":")}


def test_every_reason_id_the_code_can_name_is_in_the_spec() -> None:
    assert {"after-end", "bad-key", "not-a-card", "baseless-accusation", "corrupt-frame"} <= reason_ids_in_code()
    section = SPEC.split("## 6.")[1].split("## 7.")[0]
    listed = set(re.findall(r"`([a-z][a-z:-]*[a-z])`", section))
    missing = sorted(r for r in reason_ids_in_code() if r not in listed and not r.startswith("unconfirmed:"))
    assert not missing, f"reason ids the code can name but SPEC.md section 6 does not list: {missing}"


# ------------------------------------------------------------------------------------------- endings

_LOSER_WORDS = {
    Loser.OTHER: "the other seat",
    Loser.WRITER: "the writer",
    Loser.OWED: "the seat that owed the next entry",
    Loser.COUNT: "as the count decided",
    Loser.NOBODY: "nobody",
    Loser.EVIDENCE: "the accused if the evidence proves it at fault; else the writer, and the ending is "
    "**forfeit** (`baseless-accusation`)",
}
_ENDINGS_BEGIN = "<!-- endings: generated from ENDING_RULES in p2p_koikoi/referee/endings.py by "
_ENDINGS_BEGIN += "`python tests/test_spec_tables.py`; tests/test_spec_tables.py checks it -->\n"
_ENDINGS_END = "<!-- end endings -->"
_INTEGRITY_BEGIN = "<!-- integrity ids: INTEGRITY_REASONS in p2p_koikoi/referee/endings.py -->"
_INTEGRITY_END = "<!-- end integrity ids -->"


def endings_table() -> str:
    """SPEC.md section 6's endings table, row for row from the referee's own ``ENDING_RULES``."""
    lines = [
        "| # | rule | when | ending | who loses |",
        "| --- | --- | --- | --- | --- |",
    ]
    for number, rule in enumerate(ENDING_RULES, 1):
        lines.append(f"| {number} | `{rule.name}` | {rule.when} | **{rule.ending}** | {_LOSER_WORDS[rule.loser]} |")
    return "\n".join(lines) + "\n"


def _between(text: str, begin: str, end: str) -> str:
    assert text.count(begin) == 1 and text.count(end) == 1, (begin, end)
    return text.split(begin)[1].split(end)[0]


def test_the_endings_table_in_the_spec_is_the_referees() -> None:
    """SPEC.md section 6 prints ENDING_RULES, in order: a rule changed in the code fails here until the
    table is generated again (``python tests/test_spec_tables.py`` prints it)."""
    section = SPEC.split("## 6.")[1].split("## 7.")[0]
    assert _between(section, _ENDINGS_BEGIN, _ENDINGS_END) == endings_table()


def test_the_integrity_ids_in_the_spec_are_the_referees() -> None:
    """The ids whose accusation is its writer's forfeit (no evidence can exist) are INTEGRITY_REASONS."""
    section = SPEC.split("## 6.")[1].split("## 7.")[0]
    listed = re.findall(r"`([a-z][a-z-]*)`", _between(section, _INTEGRITY_BEGIN, _INTEGRITY_END))
    assert len(listed) == len(set(listed))
    assert set(listed) == set(INTEGRITY_REASONS)


# The four pages that state the endings: SPEC.md section 6 is the one source, the others refer to it.
_ENDING_PAGES = ("SPEC.md", "RECORD.md", "DEAL.md", "COVERAGE.md")


def _page(name: str) -> str:
    return (ROOT / "protocol" / name).read_text()


def test_the_pages_name_only_endings_the_referee_has() -> None:
    """Every ending the pages name (``ending `x` ``) is an :class:`Ending`, and RECORD.md section 4.5's
    table has a row for every ending the referee can rule, and for no other."""
    names = {str(ending) for ending in Ending}
    for name in _ENDING_PAGES:
        text = _page(name)
        for found in re.findall(r"\bending[s]? (?:is |are |)`([a-z-]+)`", text):
            assert found in names, (name, found)
    record = _page("RECORD.md").split("### 4.5")[1].split("### 4.6")[0]
    table = re.findall(r"^\| `([a-z-]+)` \| ", record.split("| ending (`how`) |")[1].split("\n\n")[0], re.M)
    ruled = names - {"abandoned", "disputed"}  # version 2's endings: no referee rules them any more
    assert set(table) == ruled, sorted(set(table) ^ ruled)
    assert {rule.ending.value for rule in ENDING_RULES} <= set(table)


def test_no_page_leaves_a_silent_seat_abandoned() -> None:
    """Version 3: a silent seat loses. ``abandoned`` (version 2's nobody-wins claim) may appear only in a
    line that says it is version 2's, or for a deal (a deal cut short is audited all the same)."""
    for name in (*_ENDING_PAGES, "../README.md"):
        for line in _page(name).splitlines():
            if re.search(r"(?i)\babandon", line):
                assert "version 2" in line.lower() or "abandoned deal" in line, (name, line)


def test_every_page_says_a_silent_staller_loses_as_spec_md_says() -> None:
    """One source for what staying silent costs (issue 24, item 7; finding #30): SPEC.md section 6 states
    it; DEAL.md section 11 and COVERAGE.md refer to it and say nothing else of it."""
    spec = SPEC.split("## 6.")[1].split("## 7.")[0]
    assert "### Silence instead of a Reveal\n" in spec
    deal = _page("DEAL.md").split("## 11.")[1].split("## 12.")[0]
    coverage = _page("COVERAGE.md")
    for text in (deal, coverage):
        assert 'SPEC.md section 6, "Silence instead of a Reveal"' in text
        assert not re.search(r"(?i)forfeit(s|ed)? the match", text)


if __name__ == "__main__":  # print the endings table, to paste between the markers of SPEC.md section 6
    print(endings_table(), end="")
