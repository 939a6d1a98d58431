"""Writing a record as the match happens: append-only; every batch of frames is handed to the OS in
one write as soon as it is written (a killed process loses nothing written), and :meth:`RecordWriter.commit`
fsyncs it. The live runner does both in its own writer thread (``net/record_sync.py``)."""

from __future__ import annotations

import calendar
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from p2p_koikoi.record.format import FORMAT_VERSION, SUFFIX, secret_path, whole_frames_length, withdrawal_note
from p2p_koikoi.record.identity_names import short_fingerprint
from p2p_koikoi.wire import SignedEntry, encode_frame
from p2p_koikoi.wire.codec import pack

__all__ = ["RecordWriter", "record_name"]


def record_name(created: float, keys: tuple[bytes, bytes], rules_name: str, seat: int) -> str:
    """``20261130-184812-<host fp>-<guest fp>-nintendo-host.koikoi``: the date (UTC), both fingerprints,
    the rules, and whose copy it is (both players may keep theirs in one folder)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(created))
    whose = "host" if seat == 0 else "guest"
    return f"{stamp}-{short_fingerprint(keys[0])}-{short_fingerprint(keys[1])}-{rules_name}-{whose}{SUFFIX}"


_NAME_TRIES = 100


def _later_name(name: str) -> str:
    """The name with its date a second later (so the list's order stays the order of play), for a record
    whose name is taken: a guest that declined and joins again within the second, say."""
    try:
        stamp = time.strptime(name[:15], "%Y%m%d-%H%M%S")
    except ValueError:
        stem, dot, suffix = name.rpartition(".")
        return f"{stem}-2{dot}{suffix}" if dot else f"{name}-2"
    later = time.strftime("%Y%m%d-%H%M%S", time.gmtime(calendar.timegm(stamp) + 1))
    return later + name[15:]


def _create(directory: Path, name: str) -> tuple[Path, BinaryIO]:
    """A new record file under ``name``, or, if that (or its secret) is taken, the first later name free."""
    for _ in range(_NAME_TRIES):  # a match begun in the same second as another between the two
        path = directory / name
        if not secret_path(path).exists():
            try:
                return path, open(path, "xb")  # kept open for the whole match
            except FileExistsError:
                pass
        name = _later_name(name)
    return path, open(path, "xb")  # says the name is taken


class RecordWriter:
    """Appends frames to a record file; :meth:`sync` writes the chain entries not yet written.

    The file is created at the first write, under the name ``name()`` gives then: the
    guest learns the rules (part of the name) only from the host's first entry.
    """

    def __init__(
        self,
        directory: Path,
        name: Callable[[], str],
        *,
        seat: int,
        peer_address: str = "",
        software: str = "",
        secret: bytes | None = None,
    ) -> None:
        self.directory = directory
        self._name = name
        self.path: Path | None = None
        self._file: BinaryIO | None = None
        self._header = ["record", FORMAT_VERSION, seat, peer_address, int(time.time()), software]
        self._secret = secret
        self.written = 0
        self._dirty = False

    def _open(self) -> BinaryIO:
        if self._file is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            path, file = _create(self.directory, self._name())
            self.path, self._file = path, file
            file.write(encode_frame(pack(self._header)))
            if self._secret is not None:
                write_secret(secret_path(path), self._secret)
        return self._file

    def _frame(self, value: list[object]) -> None:
        file = self._open()
        file.write(encode_frame(pack(value)))
        file.flush()
        self._dirty = True

    def sync(self, entries: Sequence[SignedEntry]) -> None:
        """Write (and flush to the OS) every entry of ``entries`` past those already written, in order."""
        self.write(entries[self.written :])

    def write(self, entries: Sequence[SignedEntry]) -> None:
        """Append ``entries`` (the chain's next ones) and hand them to the OS in one write."""
        if not entries:
            return
        file = self._open()
        file.write(b"".join(encode_frame(pack(["entry", s.data, s.signature])) for s in entries))
        file.flush()
        self.written += len(entries)
        self._dirty = True

    def commit(self) -> None:
        """fsync what was written (the runner does it in a worker thread, batching entries)."""
        if self._dirty and self._file is not None:
            os.fsync(self._file.fileno())
            self._dirty = False

    def note(self, reason: str, blame: int | None, text: str, evidence: bytes = b"") -> None:
        self._frame(["note", reason[:60], -1 if blame is None else blame, text[:400], evidence[:60_000]])
        self.commit()

    def withdraw(self, place: int) -> None:
        """Our entries from ``place`` on were displaced by a crossing ``goodbye`` (SPEC.md section 6): they
        stay in the file, and a ``withdrawn`` note after them tells a reader to drop them from the chain."""
        self._frame(withdrawal_note(place))
        self.written = place

    @classmethod
    def reopen(cls, path: Path, entries: int, *, secret: bytes | None = None) -> RecordWriter:
        """Append to an existing record whose chain holds ``entries`` entries, after cutting off any half
        frame a crash left at its end."""
        data = path.read_bytes()
        keep = whole_frames_length(data)
        writer = cls(path.parent, lambda: path.name, seat=0)
        writer.path = path
        writer._file = open(path, "r+b")  # noqa: SIM115 - kept open for the whole match
        writer._file.truncate(keep)
        writer._file.seek(keep)
        writer._secret = secret
        writer.written = entries
        return writer

    def forget_secret(self) -> None:
        """The match is over: the master secret is of no more use, so it goes."""
        if self.path is not None:
            secret_path(self.path).unlink(missing_ok=True)

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self.commit()
            self._file.close()


def write_secret(path: Path, secret: bytes) -> None:
    """The master secret beside the record, readable by us alone. A new file only (``O_EXCL``), and
    never through a symbolic link planted at its name (``O_NOFOLLOW``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(secret)
        out.flush()
        os.fsync(out.fileno())
