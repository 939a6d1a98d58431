"""Helpers for the record tests: honest matches played in memory, records as bytes, and tampering tools."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.record.format import FORMAT_VERSION
from p2p_koikoi.record.reader import read_record_bytes
from p2p_koikoi.record.verify import VerifyReport, walk_record
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import SessionPair, deterministic_entropy, pipe_sessions
from p2p_koikoi.wire import Entry, SignedEntry, encode_frame, public_bytes
from p2p_koikoi.wire.codec import pack

Keys = tuple[Ed25519PrivateKey, Ed25519PrivateKey]


@dataclass(frozen=True)
class Played:
    """An honest match: its chain (the host's copy), the players' private keys, and the sessions."""

    entries: tuple[SignedEntry, ...]
    keys: Keys
    pair: SessionPair


def key_pair(label: str) -> Keys:
    seed = deterministic_entropy(label.encode())
    return (Ed25519PrivateKey.from_private_bytes(seed(32)), Ed25519PrivateKey.from_private_bytes(seed(32)))


def play_match(name: str, label: str, rounds: int = 3, keys: Keys | None = None) -> Played:
    """A whole match between two random bots under preset ``name``, reproducible from ``label``."""
    keys = keys or key_pair(label)
    entropy = deterministic_entropy(label.encode())
    nonces = (entropy(32), entropy(32))
    rules = preset(name).with_option("rounds", str(rounds))
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=entropy(32))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=entropy(32))
    pair = SessionPair(host, guest, keys)
    error = pipe_sessions(pair, (RandomAgent(len(label)), RandomAgent(len(label) + 1)))
    assert error is None, error
    return Played(tuple(host.chain.entries), keys, pair)


@functools.cache
def honest(name: str = "lemme", label: str = "") -> Played:
    return play_match(name, label or f"honest {name}")


def record_bytes(entries: list[SignedEntry] | tuple[SignedEntry, ...], *, seat: int = 0, notes: tuple = ()) -> bytes:
    """A record file: the header, the entries, then notes ``(reason, blame, text, evidence)``."""
    out = [encode_frame(pack(["record", FORMAT_VERSION, seat, "", 1_700_000_000, "tests"]))]
    out += [encode_frame(pack(["entry", e.data, e.signature])) for e in entries]
    out += [encode_frame(pack(["note", r, -1 if b is None else b, t, ev])) for r, b, t, ev in notes]
    return b"".join(out)


def verify_bytes(data: bytes, name: str = "match.koikoi") -> VerifyReport:
    return walk_record(read_record_bytes(data, Path(name)))


def verify_entries(entries: list[SignedEntry] | tuple[SignedEntry, ...], **kwargs: object) -> VerifyReport:
    return verify_bytes(record_bytes(entries, **kwargs))  # type: ignore[arg-type]


def resign(
    entries: tuple[SignedEntry, ...] | list[SignedEntry], index: int, keys: Keys, **changes: object
) -> list[SignedEntry]:
    """The chain with entry ``index`` changed (``body``, ``state``, ``author``...) and signed again by its
    author, every later entry re-linked and re-signed: what a player who lied would have produced."""
    out = list(entries[:index])
    head = out[-1].digest if out else entries[0].entry.match_id
    for i in range(index, len(entries)):
        old = entries[i].entry
        fields = {
            "match_id": old.match_id,
            "seq": old.seq,
            "prev": head,
            "author": old.author,
            "kind": old.kind,
            "body": old.body,
            "state": old.state,
        }
        if i == index:
            fields.update(changes)
        entry = Entry(**fields)  # type: ignore[arg-type]
        signed = SignedEntry.sign(entry, keys[entry.author])
        out.append(signed)
        head = signed.digest
    return out


def find(entries: tuple[SignedEntry, ...] | list[SignedEntry], kind: str, *, nth: int = 0, **where: object) -> int:
    """The index of the ``nth`` entry of ``kind`` whose body fields match (``message=0x05``: a deal message kind)."""
    found = 0
    for index, signed in enumerate(entries):
        entry = signed.entry
        if entry.kind != kind:
            continue
        if "message" in where and (kind != "deal" or entry.body[2][0] != where["message"]):
            continue
        if "author" in where and entry.author != where["author"]:
            continue
        if "text" in where and not str(entry.body[1]).startswith(str(where["text"])):
            continue
        if found == nth:
            return index
        found += 1
    raise LookupError(f"no {kind} entry like {where}")


def field_offset(data: bytes, field: int) -> int:
    """The offset of the last byte of field ``field`` of an entry's bytes (a fixed-position msgpack array)."""
    from p2p_koikoi.wire.codec import unpack

    values = unpack(data)
    offset = 1  # the array header: 8 fields fit a fixarray
    for value in values[: field + 1]:
        offset += len(pack(value))
    return offset - 1


def flip_entry(entries: tuple[SignedEntry, ...], index: int, field: int | None, *, at: int | None = None) -> bytes:
    """The record with one bit flipped in entry ``index``: in field ``field`` of its bytes, or (``None``)
    in its signature; ``at`` picks the byte inside the field counting back from its end (default: last)."""
    frames = [encode_frame(pack(["record", FORMAT_VERSION, 0, "", 1_700_000_000, "tests"]))]
    for i, e in enumerate(entries):
        data, signature = bytearray(e.data), bytearray(e.signature)
        if i == index:
            if field is None:
                signature[10] ^= 0x01
            else:
                data[field_offset(e.data, field) - (at or 0)] ^= 0x01
        frames.append(encode_frame(pack(["entry", bytes(data), bytes(signature)])))
    return b"".join(frames)
