"""Signed, hash-chained entries: the messages of a match, and its record.

An entry is a fixed-position msgpack array::

    [version, match_id, seq, prev, author, kind, body, state]

- ``version``: :data:`VERSION`;
- ``match_id``: 32 bytes, derived in the handshake; every entry is bound to it;
- ``seq``: 0, 1, 2, ... across both authors: one chain, not two;
- ``prev``: the :attr:`SignedEntry.digest` of entry ``seq - 1`` (for seq 0, the match id);
- ``author``: the seat that signed it, 0 (the host) or 1 (the guest);
- ``kind`` and ``body``: the message (see :mod:`p2p_koikoi.wire.schema`);
- ``state``: 16 bytes, a hash of the public state as the author saw it when it
  wrote the entry, so a desync is caught at the first entry that differs.

The author signs ``SIGN_DOMAIN || entry bytes`` with Ed25519. On the wire and in
the record an entry travels as the exact entry bytes and the 64-byte
signature; the digest that the next entry's ``prev`` names is
``SHA-256(entry bytes || signature)``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2p_koikoi.wire.bodies import Body, parse_body
from p2p_koikoi.wire.codec import pack, unpack
from p2p_koikoi.wire.errors import LocalProtocolError, RemoteProtocolError
from p2p_koikoi.wire.reasons import ReasonId
from p2p_koikoi.wire.schema import check_body

__all__ = ["SIGN_DOMAIN", "VERSION", "Entry", "SignedEntry", "public_bytes"]

VERSION = 3
SIGN_DOMAIN = b"p2p-koikoi/entry/v1\x00"
STATE_BYTES = 16
MAX_SEQ = 2**31


def public_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True, slots=True)
class Entry:
    match_id: bytes
    seq: int
    prev: bytes
    author: int
    kind: str
    body: list[Any]
    state: bytes
    version: int = VERSION

    @property
    def content(self) -> Body:
        """The body as its value type (:mod:`p2p_koikoi.wire.bodies`), read by name, not by position;
        :class:`RemoteProtocolError` for a body that does not fit its kind (a decoded entry always fits)."""
        return parse_body(self.kind, self.body)

    def encode(self) -> bytes:
        return pack([self.version, self.match_id, self.seq, self.prev, self.author, self.kind, self.body, self.state])

    @classmethod
    def decode(cls, data: bytes) -> Entry:
        """Parse and check the shape of an entry (not its signature, nor its place in the chain)."""
        value = unpack(data, "entry")
        if not isinstance(value, list) or len(value) != 8:
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "an entry is an array of 8 fields")
        version, match_id, seq, prev, author, kind, body, state = value
        if version != VERSION or isinstance(version, bool):
            raise RemoteProtocolError(
                ReasonId.BAD_VERSION, f"the entry is for protocol version {version!r}; we speak {VERSION}"
            )
        if not (isinstance(match_id, bytes) and len(match_id) == 32):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "the match id is not 32 bytes")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq < MAX_SEQ):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "the sequence number is not a small whole number")
        if not (isinstance(prev, bytes) and len(prev) == 32):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "the previous-entry hash is not 32 bytes")
        if author not in (0, 1) or isinstance(author, bool):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "the author is not seat 0 or 1")
        if not (isinstance(state, bytes) and len(state) == STATE_BYTES):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, f"the state hash is not {STATE_BYTES} bytes")
        if not isinstance(kind, str) or not isinstance(body, list):
            raise RemoteProtocolError(ReasonId.BAD_ENTRY, "the kind is not a string or the body not an array")
        check_body(kind, body)
        return cls(match_id, seq, prev, author, kind, body, state, version)


@dataclass(frozen=True, slots=True)
class SignedEntry:
    """An entry as it travels and is stored: exact bytes, signature, and the decoded entry."""

    data: bytes
    signature: bytes
    entry: Entry

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.data + self.signature).digest()

    @classmethod
    def sign(cls, entry: Entry, key: Ed25519PrivateKey) -> SignedEntry:
        data = entry.encode()
        if len(data) > 60_000:
            raise LocalProtocolError("entry-too-large", f"an entry of {len(data)} bytes will not fit a frame")
        return cls(data, key.sign(SIGN_DOMAIN + data), entry)

    @classmethod
    def parse(cls, data: bytes, signature: bytes) -> SignedEntry:
        """Decode an entry received or read; :meth:`verify` checks the signature."""
        if not (isinstance(signature, bytes) and len(signature) == 64):
            raise RemoteProtocolError(ReasonId.BAD_SIGNATURE, "a signature is 64 bytes")
        return cls(data, signature, Entry.decode(data))

    def verify(self, public_key: bytes) -> None:
        """Check the signature against the author's 32-byte public key."""
        try:
            Ed25519PublicKey.from_public_bytes(public_key).verify(self.signature, SIGN_DOMAIN + self.data)
        except (InvalidSignature, ValueError):
            raise RemoteProtocolError(
                ReasonId.BAD_SIGNATURE,
                f"entry {self.entry.seq} is not signed by seat {self.entry.author}'s key",
                blame=self.entry.author,
            ) from None
