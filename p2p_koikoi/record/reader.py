"""Reading a record file: the header, the signed entries, and the writer's notes.

The reader trusts nothing: each frame is size-checked before it is buffered,
decoded as canonical msgpack and shape-checked; a file cut short (a crash
while writing) reads up to its last whole frame and is marked incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from p2p_koikoi.record.format import FORMAT_VERSION
from p2p_koikoi.wire import FrameDecoder, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.codec import unpack

__all__ = ["Note", "Record", "RecordError", "read_record"]

MAX_RECORD = 64 * 1024 * 1024


class RecordError(Exception):
    """The file is not a readable record (not what a damaged one is: see :attr:`Record.complete`)."""


@dataclass(frozen=True, slots=True)
class Note:
    reason: str
    blame: int | None
    text: str
    evidence: bytes


@dataclass
class Record:
    path: Path
    writer_seat: int
    peer_address: str
    created: int
    software: str
    entries: list[SignedEntry] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    complete: bool = True
    problem: str = ""  # why reading stopped early, when it did


def read_record(path: Path) -> Record:
    try:
        size = path.stat().st_size
        if size > MAX_RECORD:
            raise RecordError(f"{path} is {size} bytes; a record is at most {MAX_RECORD}")
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    decoder = FrameDecoder()
    try:
        decoder.receive_data(data)
        decoder.receive_data(b"")
        first = decoder.next_frame()
    except RemoteProtocolError as exc:
        raise RecordError(f"{path} is not a match record: {exc}") from None
    if first is None:
        raise RecordError(f"{path} is empty")
    header = _header(path, first)
    while True:
        try:
            body = decoder.next_frame()
        except RemoteProtocolError as exc:
            header.complete = False
            header.problem = f"the file ends inside a frame ({exc})"
            break
        if body is None:
            break
        try:
            _frame(header, body)
        except RemoteProtocolError as exc:
            header.complete = False
            header.problem = f"frame {len(header.entries) + len(header.notes) + 2} is unreadable: {exc}"
            break
    return header


def _header(path: Path, body: bytes) -> Record:
    try:
        value = unpack(body, "record header")
    except RemoteProtocolError as exc:
        raise RecordError(f"{path} is not a match record: {exc}") from None
    if not (isinstance(value, list) and len(value) == 6 and value[0] == "record"):
        raise RecordError(f"{path} is not a match record (no record header)")
    _, version, seat, address, created, software = value
    if version != FORMAT_VERSION:
        raise RecordError(f"{path} is a version {version} record; this program reads version {FORMAT_VERSION}")
    if seat not in (0, 1) or not isinstance(address, str) or not isinstance(created, int):
        raise RecordError(f"{path} has a malformed record header")
    return Record(path, seat, address, created, str(software))


def _frame(record: Record, body: bytes) -> None:
    value = unpack(body, "record frame")
    if not isinstance(value, list) or not value:
        raise RemoteProtocolError("bad-frame", "a record frame is a non-empty array")
    if value[0] == "entry" and len(value) == 3 and isinstance(value[1], bytes) and isinstance(value[2], bytes):
        record.entries.append(SignedEntry.parse(value[1], value[2]))
    elif value[0] == "note" and len(value) == 5:
        _, reason, blame, text, evidence = value
        if not (
            isinstance(reason, str) and blame in (-1, 0, 1) and isinstance(text, str) and isinstance(evidence, bytes)
        ):
            raise RemoteProtocolError("bad-frame", "a malformed note")
        record.notes.append(Note(reason, None if blame == -1 else blame, text, evidence))
    else:
        raise RemoteProtocolError("bad-frame", f"unknown record frame {str(value[0])[:20]!r}")
