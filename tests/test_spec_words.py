"""protocol/ against the code, where the words state a fact that only the code decides: the version numbers,
each stated once; the state hash, recomputed from SPEC.md section 3's words over the sample records and
over matches with a tied dealer draw, a redeal and both answers to a Gaji; the codec's limits; TCP_NODELAY;
the order of the checks within one entry (RECORD.md sections 4.1 to 4.3), by tampering with entries; how a
damaged record reads (RECORD.md section 2); the report (RECORD.md section 4.6); and one definition for
every reason id the code can name (RECORD.md section 4.7, DEAL.md section 11, TRANSCRIPT.md section 3).

Each test names the finding of ``SPEC-FINDINGS.md`` (issue 25) it holds closed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from p2p_koikoi.fairness.derive import PROTOCOL_VERSION, DealContext
from p2p_koikoi.record.format import FORMAT_VERSION
from p2p_koikoi.wire import VERSION

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "protocol"
REPLAYS = ROOT / "replays"


def page(name: str) -> str:
    return (PROTOCOL / name).read_text()


def section(text: str, start: str, end: str) -> str:
    """The text from the heading ``start`` up to the heading ``end`` (or the end of the page)."""
    body = text.split(start, 1)[1]
    return body.split(end, 1)[0] if end in body else body


# Labels of matches between random bots (tests/record_support.py) that show what no sample shows.
TIE = ("rulebook", "tie and redeal 0")  # the first dealer draw is a tie: a second draw
REDEAL = ("rulebook", "tie and redeal 124")  # round 1's first table is four pairs: dealt again
HIKI = ("rulebook", "gaji 23")  # a Gaji play onto a month of three, answered hiki CARD
NO_HIKI = ("rulebook", "gaji 31")  # ... answered no-hiki


# ---------------------------------------------------------------------------------- versions (#1, #8)


def test_the_protocol_version_is_stated_once_in_spec_md() -> None:
    """SPEC.md's title states the protocol version; the code speaks it; no other page states it again."""
    spec = page("SPEC.md")
    title = re.fullmatch(r"# The p2p-koikoi wire protocol, version (\d+)", spec.splitlines()[0])
    assert title is not None, "SPEC.md's title states the protocol version"
    assert int(title.group(1)) == VERSION
    assert [int(n) for n in re.findall(r"(?i)\bversion[ =]+`?(\d+)", spec)].count(VERSION) == 1
    for path in sorted(PROTOCOL.glob("*.md")):
        if path.name == "SPEC.md":
            continue
        stated = re.findall(r"(?i)protocol version `?(\d+)|version=(\d+)", path.read_text())
        assert str(VERSION) not in {n for pair in stated for n in pair}, f"{path.name} states the version again"


def test_the_deal_context_version_byte_is_stated_once_in_deal_md() -> None:
    deal = page("DEAL.md")
    assert "context = u8(version) || u8(purpose)" in deal
    stated = re.findall(r"The version byte of the context \(section 2\) is `(\d+)`", deal)
    assert stated == [str(PROTOCOL_VERSION)]
    assert DealContext(b"match").to_bytes()[0] == PROTOCOL_VERSION
    for path in sorted((PROTOCOL / "vectors").glob("deal-*.json")):
        context = json.loads(path.read_text()).get("context")
        if context is not None:
            assert bytes.fromhex(context["bytes"])[0] == PROTOCOL_VERSION, path.name


def test_the_record_format_version_is_the_header_s() -> None:
    record = page("RECORD.md")
    assert re.findall(r'`\["record", (\d+),', record) == [str(FORMAT_VERSION)]
    assert "[version, match_id, seq, prev, author, kind, body, state]" in record
