"""The typed entry bodies carry exactly the wire's lists: every body of every sample record and of the wire
vectors reads into its value type and back to the same list, so the bytes cannot change."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_koikoi.wire import RemoteProtocolError
from p2p_koikoi.wire.bodies import EntryKind, HikiReply, MoveBody, NotAHikiReply, parse_body
from p2p_koikoi.wire.schema import KINDS
from tests.record_support import honest

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def test_every_kind_the_schema_knows_has_its_value_type() -> None:
    assert {str(kind) for kind in EntryKind} == set(KINDS)


@pytest.mark.parametrize("name", ["lemme", "rulebook", "nintendo"])
def test_every_body_of_a_match_reads_and_writes_back_the_same(name: str) -> None:
    entries = honest(name).entries
    kinds = set()
    for signed in entries:
        entry = signed.entry
        body = parse_body(entry.kind, entry.body)
        assert entry.kind == body.KIND and body.to_list() == entry.body
        kinds.add(entry.kind)
    assert {"match", "accept", "deal", "move", "result", "goodbye"} <= kinds


def test_every_body_of_the_sample_records_reads_back_the_same() -> None:
    from p2p_koikoi.record.reader import read_record

    seen = set()
    for path in sorted(REPLAYS.glob("*.koikoi")):
        for signed in read_record(path).entries:
            entry = signed.entry
            assert parse_body(entry.kind, entry.body).to_list() == entry.body, (path.name, entry.seq)
            seen.add(entry.kind)
    assert {"here", "decline", "goodbye", "move"} <= seen


def test_a_body_that_does_not_fit_is_refused_as_the_wire_refuses_it() -> None:
    with pytest.raises(RemoteProtocolError) as info:
        MoveBody.from_list([1, "pass", None])
    assert info.value.reason == "bad-body"
    with pytest.raises(RemoteProtocolError) as info:
        parse_body("shuffle", [])
    assert info.value.reason == "bad-kind"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("hiki", True), ("hiki pine-crane extra", True), ("hikI pine-crane", True), ("hiki Pine-Crane", False)],
)
def test_a_hiki_reply_in_other_words_is_refused(text: str, canonical: bool) -> None:
    with pytest.raises(NotAHikiReply) as info:
        HikiReply.parse(text)
    assert info.value.canonical is canonical


def test_a_hiki_reply_reads_back_as_it_was_written() -> None:
    for text in ("no-hiki", "hiki pine-crane", "hiki willow-lightning"):
        assert HikiReply.parse(text).format() == text
