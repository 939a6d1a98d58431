"""Frame bodies: the handshake greeting, keepalives, and entries.

Every frame body is a msgpack array whose first item names it:

- ``["hello", version, public key (32), nonce (32), software]``: the first frame
  each side sends; not signed, because the first two entries of the chain sign
  both keys and both nonces;
- ``["ping", n]`` and ``["pong", n]``: keepalives, outside the chain;
- ``["entry", entry bytes, signature (64)]``: a signed entry of the chain;
- ``["resume", version, public key, match id, entries held, head digest, nonce]`` and
  ``["resume-proof", signature]``: reconnecting to a match in progress (SPEC.md, section 8);
- ``["rematch", finished match id (32), "yes" | "no"]``: after a match played out, whether this side
  plays another on the same connection (SPEC.md, section 9).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.wire.codec import pack, unpack
from p2p_koikoi.wire.entry import VERSION, SignedEntry
from p2p_koikoi.wire.errors import RemoteProtocolError
from p2p_koikoi.wire.framing import encode_frame
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "Answer",
    "Frame",
    "Hello",
    "Ping",
    "Pong",
    "Rematch",
    "Resume",
    "ResumeProof",
    "encode",
    "parse_frame",
]


@dataclass(frozen=True, slots=True)
class Hello:
    version: int
    key: bytes
    nonce: bytes
    software: str


@dataclass(frozen=True, slots=True)
class Ping:
    n: int


@dataclass(frozen=True, slots=True)
class Pong:
    n: int


@dataclass(frozen=True, slots=True)
class Resume:
    version: int
    key: bytes
    match_id: bytes
    count: int
    head: bytes
    nonce: bytes


@dataclass(frozen=True, slots=True)
class ResumeProof:
    signature: bytes


class Answer(enum.StrEnum):
    """A side's answer to another match; a ``str``, so the wire's text is the member's value."""

    YES = "yes"
    NO = "no"


@dataclass(frozen=True, slots=True)
class Rematch:
    """Another match on this connection, or not: ``match_id`` names the match just played out, so an answer
    cannot be carried over to another series, and a frame of one match's end is never read in another's."""

    match_id: bytes
    answer: Answer


Frame = Hello | Ping | Pong | SignedEntry | Resume | ResumeProof | Rematch


def encode(frame: Frame) -> bytes:
    """The whole frame, length prefix included."""
    if isinstance(frame, Hello):
        body = pack(["hello", frame.version, frame.key, frame.nonce, frame.software])
    elif isinstance(frame, Ping):
        body = pack(["ping", frame.n])
    elif isinstance(frame, Pong):
        body = pack(["pong", frame.n])
    elif isinstance(frame, Resume):
        body = pack(["resume", frame.version, frame.key, frame.match_id, frame.count, frame.head, frame.nonce])
    elif isinstance(frame, ResumeProof):
        body = pack(["resume-proof", frame.signature])
    elif isinstance(frame, Rematch):
        body = pack(["rematch", frame.match_id, frame.answer.value])
    else:
        body = pack(["entry", frame.data, frame.signature])
    return encode_frame(body)


def _small_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31


def parse_frame(body: bytes) -> Frame:
    """Decode a frame body, checking its shape; raise :class:`RemoteProtocolError` on anything else."""
    value = unpack(body, "frame")
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a frame is an array that starts with its name")
    name, args = value[0], value[1:]
    if name == "hello":
        if len(args) != 4:
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a hello frame has 4 fields")
        version, key, nonce, software = args
        if not _small_int(version):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "the hello's version is not a small whole number")
        if version != VERSION:
            raise RemoteProtocolError(
                ReasonId.BAD_VERSION, f"the peer speaks protocol version {version}; we speak {VERSION}"
            )
        if not (isinstance(key, bytes) and len(key) == 32 and isinstance(nonce, bytes) and len(nonce) == 32):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "the hello's key and nonce are 32 bytes each")
        if not (isinstance(software, str) and len(software) <= 100 and software.isprintable()):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "the hello's software name is malformed")
        return Hello(version, key, nonce, software)
    if name in ("ping", "pong"):
        if len(args) != 1 or not _small_int(args[0]):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, f"a {name} frame holds one small whole number")
        return Ping(args[0]) if name == "ping" else Pong(args[0])
    if name == "resume":
        if len(args) != 6:
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a resume frame has 6 fields")
        version, key, match_id, count, head, nonce = args
        if version != VERSION or isinstance(version, bool):
            raise RemoteProtocolError(ReasonId.BAD_VERSION, f"the peer resumes with protocol version {version!r}")
        fields = (key, match_id, head, nonce)
        if not all(isinstance(f, bytes) and len(f) == 32 for f in fields) or not _small_int(count):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a resume frame's keys, ids and digests are 32 bytes")
        return Resume(version, key, match_id, count, head, nonce)
    if name == "resume-proof":
        if len(args) != 1 or not isinstance(args[0], bytes) or len(args[0]) != 64:
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a resume proof is a 64-byte signature")
        return ResumeProof(args[0])
    if name == "rematch":
        return _rematch(args)
    if name == "entry":
        if len(args) != 2 or not isinstance(args[0], bytes) or not isinstance(args[1], bytes):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "an entry frame holds the entry bytes and the signature")
        return SignedEntry.parse(args[0], args[1])
    raise RemoteProtocolError(ReasonId.BAD_FRAME, f"unknown frame {name[:40]!r}")


def _rematch(args: list[object]) -> Rematch:
    if len(args) != 2 or not (isinstance(args[0], bytes) and len(args[0]) == 32):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a rematch frame holds the 32-byte match id and an answer")
    if args[1] not in (Answer.YES.value, Answer.NO.value):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a rematch frame answers yes or no")
    return Rematch(args[0], Answer(args[1]))
