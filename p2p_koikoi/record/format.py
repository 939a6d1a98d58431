"""The match record file: the signed entries of the chain, exactly as sent, in frames.

A record is a sequence of frames with the wire's framing (a 4-byte big-endian
length, then a canonical msgpack array):

- first, ``["record", 1, writer seat, peer address, created (Unix seconds), software]``:
  who wrote this copy (either player keeps one), and the address the guest
  dialled (for ``koikoi resume``); not signed, and nothing in it is trusted by
  ``koikoi verify``;
- then ``["entry", entry bytes, signature]`` for every entry of the chain, in
  order: the exact signed bytes, so a record verifies without either program;
- and ``["note", reason, blamed seat or -1, text, evidence bytes]`` frames the
  writer adds when the match ended badly: its finding in words and, when the
  offending bytes could not join the chain (a bad signature, say), those bytes.

Every frame is flushed and fsynced as it is written, so a crash loses at most
the frame being written; a reader stops at the last whole frame and says the
record is incomplete.

``protocol/RECORD.md`` specifies the file and every rule of its verification.
"""

from __future__ import annotations

import os
from pathlib import Path

from p2p_koikoi.wire.reasons import ReasonId

FORMAT_VERSION = 1
SUFFIX = ".koikoi"


def whole_frames_length(data: bytes) -> int:
    """How many leading bytes of ``data`` are whole frames (a crash may leave half a frame at the end)."""
    position = 0
    while position + 4 <= len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        if length == 0 or position + 4 + length > len(data):
            break
        position += 4 + length
    return position


WITHDRAWN = ReasonId.WITHDRAWN  # the reason of the note that withdraws the entries before it from a place on


def withdrawal_note(place: int) -> list[object]:
    """The note frame that withdraws every entry from chain position ``place`` on (RECORD.md section 2)."""
    text = f"entries from {place} on crossed the other seat's goodbye and were withdrawn"
    return ["note", WITHDRAWN, -1, text, place.to_bytes(4, "big")]


def withdrawn_place(reason: str, evidence: bytes) -> int | None:
    """The place a ``withdrawn`` note names, or None for any other note."""
    if reason != WITHDRAWN or len(evidence) != 4:
        return None
    return int.from_bytes(evidence, "big")


def read_secret(path: Path) -> bytes:
    """Read a master secret's file, never through a symlink."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as file:
        return file.read(33)


def secret_path(record: Path) -> Path:
    """Where our master secret of a match in progress is kept, beside our record (mode 0600)."""
    return record.with_name(record.name + ".secret")
