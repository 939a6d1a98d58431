"""The one record reader: frames in file order to any visitor; cut files, damaged frames and non-records."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_koikoi.record.reader import (
    Ending,
    FileEnd,
    Header,
    Note,
    RecordError,
    RecordVisitor,
    UnreadableEntry,
    read_record,
    read_record_bytes,
    visit_record,
)
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.wire import SignedEntry, encode_frame
from p2p_koikoi.wire.codec import pack
from tests.record_support import honest, record_bytes


class Calls(RecordVisitor[list[str]]):
    """Writes down every call, to compare two walks."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_record(self, header: Header) -> None:
        self.calls.append(f"header {header.writer_seat}")

    def visit_entry(self, index: int, signed: SignedEntry) -> None:
        self.calls.append(f"entry {index} {signed.entry.seq} {signed.entry.kind}")

    def visit_unreadable_entry(self, unreadable: UnreadableEntry) -> None:
        self.calls.append(f"unreadable {unreadable.index}")

    def visit_note(self, note: Note) -> None:
        self.calls.append(f"note {note.reason}")

    def end_record(self, ending: Ending) -> None:
        self.calls.append(f"end {ending.kind} {ending.entries}")

    def result(self) -> list[str]:
        return self.calls


def test_a_record_written_by_the_writer_reads_back_frame_for_frame(tmp_path: Path) -> None:
    entries = list(honest().entries)
    writer = RecordWriter(tmp_path, lambda: "m.koikoi", seat=1, peer_address="10.0.0.2:7707", software="t")
    writer.sync(entries[:20])
    writer.note("desync", 0, "a note in the middle", b"\x01\x02")
    writer.sync(entries)
    writer.close()
    record = read_record(tmp_path / "m.koikoi")
    assert record.complete and record.problem == ""
    assert (record.writer_seat, record.peer_address, record.software) == (1, "10.0.0.2:7707", "t")
    assert [e.data for e in record.entries] == [e.data for e in entries]
    assert record.notes == [Note("desync", 0, "a note in the middle", b"\x01\x02")]
    # A kept record tells a visitor exactly what reading the file tells it.
    from_file = visit_record(tmp_path / "m.koikoi", Calls())
    assert record.accept(Calls()) == from_file
    assert from_file[21] == "note desync" and from_file[-1] == f"end complete {len(entries)}"


@pytest.mark.parametrize("cut", [1, 2, 3, 4, 5, 40, 500])
def test_a_file_cut_inside_a_frame_reads_up_to_its_last_whole_frame(cut: int) -> None:
    entries = honest().entries[:12]
    whole = record_bytes(entries[:9])
    record = read_record_bytes(record_bytes(entries)[: len(whole) + cut])
    assert not record.complete
    assert record.ending.kind is FileEnd.TRUNCATED and "ends inside" in record.problem
    assert len(record.entries) == 9


@pytest.mark.slow
def test_every_cut_of_a_record_reads_without_raising() -> None:
    data = record_bytes(honest().entries[:12])
    header = len(record_bytes([]))
    for cut in range(header, len(data)):
        record = read_record_bytes(data[:cut])
        assert record.complete == (record.ending.kind is FileEnd.COMPLETE)


def test_a_whole_frame_that_does_not_parse_ends_the_reading_as_corrupt() -> None:
    entries = honest().entries[:5]
    bad = encode_frame(pack(["entry", b"not an entry", bytes(64)]))
    record = read_record_bytes(record_bytes(entries) + bad + record_bytes(entries)[len(record_bytes([])) :])
    assert record.ending.kind is FileEnd.CORRUPT and len(record.entries) == 5
    assert record.unreadable is not None and record.unreadable.data == b"not an entry"
    unknown = encode_frame(pack(["gossip", 1]))
    record = read_record_bytes(record_bytes(entries) + unknown)
    assert record.ending.kind is FileEnd.CORRUPT and "unknown record frame" in record.problem


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "empty"),
        (b"\x00\x00", "not a match record"),
        (b'{"format": "koikoi-transcript/1"}', "not a match record"),
        (encode_frame(pack(["entry", b"x", b"y"])), "no record header"),
        (encode_frame(pack(["record", 9, 0, "", 0, ""])), "version 9"),
    ],
)
def test_what_is_not_a_record_raises_one_clear_error(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "x.koikoi"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=words):
        read_record(path)


def test_a_folder_or_a_missing_file_is_no_record(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="directory"):
        read_record(tmp_path)
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "missing.koikoi")
