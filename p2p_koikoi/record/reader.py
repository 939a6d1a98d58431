"""Reading a record file: one reader, many visitors (as python-chess reads game records).

:func:`visit_record` walks the frames of a record (``format.py`` describes them)
and tells a :class:`RecordVisitor` what it finds, in file order: the header,
each signed entry, each note, and how the file ended. Every tool that reads
records is a visitor of this one reader:

- :class:`RecordBuilder` keeps everything as a :class:`Record` (what
  :func:`read_record` returns); :meth:`Record.accept` tells a kept record to
  another visitor, so a file is parsed once and walked as often as needed;
- the referee (``referee.py``) checks every entry, and in turn tells the match
  to the exporter, the replay and the verifier's summary.

The reader trusts nothing: each frame's length is checked before its body is
taken, every body is decoded as canonical msgpack and shape-checked. A file
cut short (a crash while writing) is read up to its last whole frame and ends
``truncated``; a frame that is whole but does not parse ends the reading as
``corrupt``, since nothing after it can be placed in the chain. Only a file
that is not a record at all (no header, unreadable, empty), or a record of
another protocol version (its first entry says which), raises :class:`RecordError`.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from p2p_koikoi.record.format import FORMAT_VERSION, withdrawn_place
from p2p_koikoi.wire import MAX_FRAME, VERSION, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.codec import unpack
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "MAX_RECORD",
    "Ending",
    "Header",
    "Note",
    "Record",
    "RecordBuilder",
    "RecordError",
    "RecordVisitor",
    "UnreadableEntry",
    "read_record",
    "read_record_bytes",
    "visit_record",
    "visit_record_bytes",
]

MAX_RECORD = 64 * 1024 * 1024
_LENGTH = 4
T = TypeVar("T")


class RecordError(Exception):
    """The file is not a readable record (not what a damaged one is: see :class:`Ending`)."""


@dataclass(frozen=True, slots=True)
class Header:
    """The first frame: whose copy this is. Not signed, so nothing in it is trusted."""

    writer_seat: int
    peer_address: str
    created: int
    software: str


@dataclass(frozen=True, slots=True)
class Note:
    """The writer's finding when the match ended badly, with the offending bytes when they
    could not join the chain (``evidence``: entry bytes followed by the 64-byte signature)."""

    reason: str
    blame: int | None
    text: str
    evidence: bytes


@dataclass(frozen=True, slots=True)
class UnreadableEntry:
    """An entry frame whose entry bytes do not parse: kept raw, so a verifier can still ask whose
    signature they carry."""

    index: int
    data: bytes
    signature: bytes
    error: str


class FileEnd(enum.StrEnum):
    """How a record file ends (a ``str``: its value is the word the reports print)."""

    COMPLETE = "complete"
    TRUNCATED = "truncated"  # inside a frame: a crash while writing
    CORRUPT = "corrupt"  # a whole frame that does not parse


@dataclass(frozen=True, slots=True)
class Ending:
    """How the file ended: ``complete``, ``truncated`` (inside a frame: a crash while writing), or
    ``corrupt`` (a whole frame that does not parse). ``entries`` counts the entries read before."""

    kind: FileEnd
    entries: int
    problem: str = ""

    @property
    def complete(self) -> bool:
        return self.kind is FileEnd.COMPLETE


class RecordVisitor(ABC, Generic[T]):
    """Receives a record's frames in file order; :meth:`result` is what the walk returns."""

    def begin_record(self, header: Header) -> None:
        """The header was read."""

    def visit_entry(self, index: int, signed: SignedEntry) -> None:
        """Entry ``index`` of the file (counting entry frames from 0), parsed but unchecked."""

    def visit_unreadable_entry(self, unreadable: UnreadableEntry) -> None:
        """An entry frame whose entry bytes do not parse; the reading stops after it."""

    def visit_note(self, note: Note) -> None:
        """A note of the writer."""

    def end_record(self, ending: Ending) -> None:
        """The reading is over."""

    @abstractmethod
    def result(self) -> T:
        """What the visit built: every visitor says what it returns."""


@dataclass
class Record:
    """Everything in a record file, in order."""

    path: Path
    writer_seat: int
    peer_address: str
    created: int
    software: str
    entries: list[SignedEntry] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    items: list[SignedEntry | Note] = field(default_factory=list)  # entries and notes in file order
    withdrawn: list[SignedEntry] = field(default_factory=list)  # entries a ``withdrawn`` note took back
    unreadable: UnreadableEntry | None = None
    ending: Ending = field(default_factory=lambda: Ending(FileEnd.COMPLETE, 0))

    @property
    def header(self) -> Header:
        return Header(self.writer_seat, self.peer_address, self.created, self.software)

    @property
    def complete(self) -> bool:
        """True when the file ends on a frame boundary after frames that all parse."""
        return self.ending.complete

    @property
    def problem(self) -> str:
        """Why the reading stopped early, when it did."""
        return self.ending.problem

    def accept(self, visitor: RecordVisitor[T]) -> T:
        """Tell this record to ``visitor``, as :func:`visit_record` would from the file."""
        visitor.begin_record(self.header)
        index = 0
        for item in self.items:
            if isinstance(item, Note):
                visitor.visit_note(item)
            else:
                visitor.visit_entry(index, item)
                index += 1
        if self.unreadable is not None:
            visitor.visit_unreadable_entry(self.unreadable)
        visitor.end_record(self.ending)
        return visitor.result()


class RecordBuilder(RecordVisitor[Record]):
    """Keeps a whole record in memory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.record: Record | None = None

    def begin_record(self, header: Header) -> None:
        self.record = Record(self.path, header.writer_seat, header.peer_address, header.created, header.software)

    def _kept(self) -> Record:
        assert self.record is not None, "begin_record comes first"
        return self.record

    def visit_entry(self, index: int, signed: SignedEntry) -> None:
        record = self._kept()
        record.entries.append(signed)
        record.items.append(signed)

    def visit_unreadable_entry(self, unreadable: UnreadableEntry) -> None:
        self._kept().unreadable = unreadable

    def visit_note(self, note: Note) -> None:
        record = self._kept()
        place = withdrawn_place(note.reason, note.evidence)
        if place is not None:  # the writer's entries from there on were displaced by a crossing goodbye
            gone = record.entries[place:]
            record.withdrawn.extend(gone)
            del record.entries[place:]
            record.items = [item for item in record.items if not any(item is g for g in gone)]
        record.notes.append(note)
        record.items.append(note)

    def end_record(self, ending: Ending) -> None:
        self._kept().ending = ending

    def result(self) -> Record:
        return self._kept()


def read_record(path: Path) -> Record:
    """The whole record at ``path``; raises :class:`RecordError` if it is not a record at all."""
    return visit_record(path, RecordBuilder(path))


def read_record_bytes(data: bytes, path: Path = Path("<bytes>")) -> Record:
    return visit_record_bytes(data, RecordBuilder(path), str(path))


def visit_record(path: Path, visitor: RecordVisitor[T]) -> T:
    """Walk the record at ``path`` with ``visitor`` and return its result."""
    try:
        size = path.stat().st_size
        if size > MAX_RECORD:
            raise RecordError(f"{path} is {size} bytes; a record is at most {MAX_RECORD}")
        if path.is_dir():
            raise RecordError(f"{path} is a directory, not a record")
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    return visit_record_bytes(data, visitor, str(path))


def visit_record_bytes(data: bytes, visitor: RecordVisitor[T], name: str = "the record") -> T:
    """Walk a record held in memory."""
    if not data:
        raise RecordError(f"{name} is empty")
    frames = _Frames(data)
    first = frames.next()
    if not isinstance(first, bytes):
        why = first.problem if first is not None else "no frame"
        raise RecordError(f"{name} is not a match record: {why}")
    header = _header(name, first)
    _same_version(name, header, frames.data[frames.offset :])
    visitor.begin_record(header)
    entries = 0
    ending: Ending | None = None
    while ending is None:
        body = frames.next()
        if body is None:
            ending = Ending(FileEnd.COMPLETE, entries)
        elif isinstance(body, Ending):
            ending = Ending(body.kind, entries, body.problem)
        else:
            try:
                entries, ending = _frame(visitor, body, entries, frames.count)
            except RemoteProtocolError as exc:
                ending = Ending(FileEnd.CORRUPT, entries, f"frame {frames.count} does not parse: {exc}")
    visitor.end_record(ending)
    return visitor.result()


class _Frames:
    """The frames of a byte string, with the wire's framing (a 4-byte big-endian length, then the body)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0
        self.count = 0  # frames taken so far; frame 1 is the header

    def next(self) -> bytes | Ending | None:
        """The next frame's body, ``None`` at the end, or an :class:`Ending` saying why no frame follows."""
        data, offset = self.data, self.offset
        if offset == len(data):
            return None
        number = self.count + 1
        if len(data) - offset < _LENGTH:
            return Ending(FileEnd.TRUNCATED, 0, f"the file ends inside the length of frame {number}")
        length = int.from_bytes(data[offset : offset + _LENGTH], "big")
        if not 0 < length <= MAX_FRAME:
            return Ending(
                FileEnd.CORRUPT, 0, f"frame {number} announces {length} bytes (a frame holds 1 to {MAX_FRAME})"
            )
        end = offset + _LENGTH + length
        if end > len(data):
            have = len(data) - offset - _LENGTH
            return Ending(FileEnd.TRUNCATED, 0, f"the file ends inside frame {number} ({have} of its {length} bytes)")
        self.offset = end
        self.count = number
        return data[offset + _LENGTH : end]


def _header(name: str, body: bytes) -> Header:
    try:
        value = unpack(body, "record header")
    except RemoteProtocolError as exc:
        raise RecordError(f"{name} is not a match record: {exc}") from None
    if not (isinstance(value, list) and len(value) == 6 and value[0] == "record"):
        raise RecordError(f"{name} is not a match record (no record header)")
    _, version, seat, address, created, software = value
    if version != FORMAT_VERSION:
        raise RecordError(f"{name} is a version {version!r} record; this program reads version {FORMAT_VERSION}")
    if seat not in (0, 1) or not isinstance(address, str) or not isinstance(created, int):
        raise RecordError(f"{name} has a malformed record header")
    return Header(seat, address, created, str(software))


def _same_version(name: str, header: Header, rest: bytes) -> None:
    """Refuse, in one line, a record whose first entry is of another protocol version: its rules are not ours
    to check (a version 2 record is verified by a version 2 program). Any later entry of another version is
    damage, which the verifier reports (``unreadable-entry``)."""
    try:
        length = int.from_bytes(rest[:_LENGTH], "big")
        value = unpack(rest[_LENGTH : _LENGTH + length], "record frame")
        framed = isinstance(value, list) and len(value) == 3 and value[0] == "entry" and isinstance(value[1], bytes)
        entry = unpack(value[1], "entry") if framed else None
    except RemoteProtocolError:
        return  # the reading proper says what is wrong with it
    version = entry[0] if isinstance(entry, list) and len(entry) == 8 else VERSION
    if isinstance(version, int) and not isinstance(version, bool) and version != VERSION:
        software = header.software.removeprefix("p2p-koikoi/")
        shown = software.isascii() and software.replace(".", "").isalnum() and len(software) <= 20
        made_by = f" (koikoi {software})" if shown else ""
        raise RecordError(
            f"{name} was made by protocol version {version}{made_by}; this koikoi verifies version {VERSION} records"
        )


def _frame(visitor: RecordVisitor[T], body: bytes, entries: int, number: int) -> tuple[int, Ending | None]:
    """Tell one frame to the visitor; returns the entries read so far, and an ending if this frame ends it."""
    value = unpack(body, "record frame")
    if not isinstance(value, list) or not value:
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a record frame is a non-empty array")
    if value[0] == "entry" and len(value) == 3 and isinstance(value[1], bytes) and isinstance(value[2], bytes):
        try:
            signed = SignedEntry.parse(value[1], value[2])
        except RemoteProtocolError as exc:
            visitor.visit_unreadable_entry(UnreadableEntry(entries, value[1], value[2], f"{exc.reason}: {exc}"))
            return entries, Ending(FileEnd.CORRUPT, entries, f"entry {entries} (frame {number}) does not parse: {exc}")
        visitor.visit_entry(entries, signed)
        return entries + 1, None
    if value[0] == "note" and len(value) == 5:
        _, reason, blame, text, evidence = value
        if not (
            isinstance(reason, str) and blame in (-1, 0, 1) and isinstance(text, str) and isinstance(evidence, bytes)
        ):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a malformed note")
        place = withdrawn_place(reason, evidence)
        if place is not None and place > entries:
            raise RemoteProtocolError(
                ReasonId.BAD_FRAME, f"a note withdraws entries from {place} on, but {entries} were read"
            )
        visitor.visit_note(Note(reason, None if blame == -1 else blame, text, evidence))
        return (entries if place is None else place), None
    raise RemoteProtocolError(ReasonId.BAD_FRAME, f"unknown record frame {str(value[0])[:20]!r}")
