"""Our unfinished matches: find the one we hold with a peer, rebuild it, and append to its record again.

A match can still be taken up while the master secret sits beside its record (``FILE.secret``: it is
deleted on every final ending). ``koikoi resume FILE`` takes one up by name; ``koikoi host`` and
``koikoi join`` look here first, so a guest that comes back with a plain ``koikoi join`` after a crash
goes on with the match it left (the first dealer already drawn, the rounds already played) instead of
starting a new one (SPEC.md, section 8, "Rejoining"). Both sides decide from their own records; the
resume handshake then proves it is the same match on both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.engine import RuleSet
from p2p_koikoi.engine.match import Match
from p2p_koikoi.net.runner import Player
from p2p_koikoi.record.format import read_secret, secret_path
from p2p_koikoi.record.reader import Header, Record, RecordError, RecordVisitor, read_record, visit_record_bytes
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import MAX_FRAME, LocalProtocolError, RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.bodies import EntryKind, MatchBody

__all__ = [
    "CatchingUp",
    "Restored",
    "ResumeError",
    "Unfinished",
    "find_unfinished",
    "put_back",
    "restore_match",
    "tell_so_far",
    "unfinished_with",
]

_LENGTH = 4


class ResumeError(Exception):
    """The record cannot be resumed (over, not ours, no secret beside it)."""


@runtime_checkable
class CatchingUp(Protocol):
    """A player with a screen, told the match so far (rounds, points, dealer) when it is resumed, since
    the events before the crash are not told again."""

    def caught_up(self, match: Match, rules: RuleSet | None) -> None: ...


def find_unfinished(replay_dir: Path, my_key: bytes, peer_key: bytes) -> Path | None:
    """Our record of an unfinished match with ``peer_key``: a record in ``replay_dir`` with its secret
    beside it, written from the seat our key holds in its ``match`` entry, the peer's key in the other, and
    the rules accepted (a match whose guest never accepted them never began: the host holds nothing of it).
    The most recently written one when there are several; only each record's first three frames are read."""
    if not replay_dir.is_dir():
        return None
    found: list[tuple[float, Path]] = []
    for path in replay_dir.glob("*.koikoi"):
        if secret_path(path).is_file() and _between(path, my_key, peer_key):
            found.append((path.stat().st_mtime, path))
    return max(found)[1] if found else None


def _between(path: Path, my_key: bytes, peer_key: bytes) -> bool:
    opening = _opening(path)
    if opening is None:
        return False
    seat, first, second = opening
    entry = first.entry
    if entry.kind != EntryKind.MATCH or second.entry.kind != EntryKind.ACCEPT:
        return False
    body = entry.content
    assert isinstance(body, MatchBody)
    return body.keys[seat] == my_key and body.keys[1 - seat] == peer_key


class _Opening(RecordVisitor["tuple[int, SignedEntry, SignedEntry] | None"]):
    """The writer's seat from the header and the first two entries, nothing more."""

    def __init__(self) -> None:
        self.seat = -1
        self.entries: list[SignedEntry] = []

    def begin_record(self, header: Header) -> None:
        self.seat = header.writer_seat

    def visit_entry(self, index: int, signed: SignedEntry) -> None:
        if index < 2:
            self.entries.append(signed)

    def result(self) -> tuple[int, SignedEntry, SignedEntry] | None:
        return (self.seat, self.entries[0], self.entries[1]) if len(self.entries) == 2 else None


def _opening(path: Path) -> tuple[int, SignedEntry, SignedEntry] | None:
    """The header and entries 0 and 1 of a record, read frame by frame from the file's start (the reader's
    own parsing; a file that is no record, or is cut before its second entry, holds no match begun)."""
    data = b""
    try:
        with path.open("rb") as file:
            for _ in range(3):
                prefix = file.read(_LENGTH)
                length = int.from_bytes(prefix, "big")
                if len(prefix) < _LENGTH or not 0 < length <= MAX_FRAME:
                    return None
                body = file.read(length)
                if len(body) < length:
                    return None
                data += prefix + body
    except OSError:
        return None
    try:
        return visit_record_bytes(data, _Opening(), str(path))
    except RecordError:
        return None


@dataclass(frozen=True, slots=True)
class Unfinished:
    """An unfinished match rebuilt from our record: the session, the record as read, and how many of the
    record's entries the rebuilt chain keeps (the record is appended to after those, so whatever the
    chain holds beyond them, written at the rebuild or exchanged by a resume, is written too), and how many
    entries the chain held when rebuilt."""

    path: Path
    session: MatchSession
    record: Record
    kept: int
    held: int

    @property
    def untouched(self) -> bool:
        """Nothing taken in since the rebuild (a failed resume may have added entries)."""
        return len(self.session.chain.entries) == self.held

    def reopen(self) -> RecordWriter:
        """The record, to append to (a half frame a crash left at its end cut off)."""
        return RecordWriter.reopen(self.path, self.kept, secret=self.session.master_secret)


def restore_match(path: Path, identity: Ed25519PrivateKey) -> Unfinished:
    """Our side of the unfinished match recorded at ``path``, rebuilt from the record and its secret
    (:meth:`MatchSession.restore`); :class:`ResumeError` says in one line why it cannot be."""
    try:
        record = read_record(path)
    except RecordError as exc:
        raise ResumeError(str(exc)) from None
    if not record.entries:
        raise ResumeError(f"{path} holds no entries: there is nothing to resume")
    if len(record.entries) < 2 or record.entries[1].entry.kind != EntryKind.ACCEPT:
        raise ResumeError(
            f"the match in {path} never began (the rules were not accepted): there is nothing to resume;"
            " start a new one with koikoi join"
        )
    secret_file = secret_path(path)
    if not secret_file.exists():
        raise ResumeError(f"no {secret_file.name} beside the record: the match is over, or the record was moved")
    try:
        session = MatchSession.restore(record.writer_seat, identity, record.entries, read_secret(secret_file))
    except (LocalProtocolError, RemoteProtocolError) as exc:
        raise ResumeError(f"cannot rebuild the match from {path}: {exc}") from None
    except OSError as exc:
        raise ResumeError(f"cannot read {secret_file}: {exc.strerror or exc}") from None
    if session.waiting is Waiting.DONE:
        raise ResumeError(f"the match in {path} is over ({session.ended_by}); nothing to resume")
    return Unfinished(path, session, record, _kept(record, session), len(session.chain.entries))


def _kept(record: Record, session: MatchSession) -> int:
    """How many of the record's entries the rebuilt chain holds as they are, from which the writer appends:
    all of them (a claim stays in the chain, our own too, since no seat takes its claim back). The entries
    the rebuilt side wrote at once (an automatic step it owed, its answer to a claim of its silence the
    record ends with) follow them; the record still lacks those and gets them when the writer syncs."""
    kept = 0
    for written, held in zip(record.entries, session.chain.entries, strict=False):
        if written.data != held.data:
            break
        kept += 1
    return kept


def tell_so_far(player: Player, session: MatchSession) -> None:
    """A screen is shown the match so far: the events before the break are not told again."""
    if isinstance(player, CatchingUp) and session.match is not None:
        player.caught_up(session.match, session.rules)


Restored = dict[Path, "Unfinished | ResumeError"]


def unfinished_with(
    directory: Path,
    identity: Ed25519PrivateKey,
    peer_key: bytes,
    say: Callable[[str], None],
    restored: Restored | None = None,
) -> Unfinished | None:
    """Our unfinished match with ``peer_key``, rebuilt from its record, if any; one we cannot take up
    again (over after all, damaged) is said and passed over.

    Rebuilding replays the whole record (tenths of a second for a long match: ``bench/rejoin.py``), and
    anyone who knows the guest's public key may knock again and again, so a host keeps what it rebuilt
    in ``restored``: an attempt takes it out (two at once never share one) and :func:`put_back`
    returns it untouched."""
    path = find_unfinished(directory, public_bytes(identity), peer_key)
    if path is None:
        return None
    restored = restored if restored is not None else {}
    kept = restored.pop(path, None)
    if isinstance(kept, ResumeError):
        restored[path] = kept  # said when first found
        return None
    if kept is not None:
        return kept
    try:
        return restore_match(path, identity)
    except ResumeError as exc:
        say(f"Not resuming {path.name}: {exc}")
        restored[path] = exc
        return None


def put_back(restored: Restored, unfinished: Unfinished) -> None:
    """After a failed attempt: the rebuilt match is kept for the next unless the attempt added to its
    chain (entries a guest sent before failing)."""
    if unfinished.untouched:
        restored[unfinished.path] = unfinished
