"""The hash chain of a match: one sequence across both authors, every link checked.

:class:`Chain` appends our own entries (:meth:`Chain.append_local`, which signs)
and the peer's (:meth:`Chain.append_remote`, which checks the signature, then
the match id, the sequence number, the link to the previous entry and the
author the protocol expects, in that order). It keeps every entry, so it can
tell a replayed entry and a fork (two different entries with one sequence
number) from a plain error.
"""

from __future__ import annotations

import hashlib
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.wire.entry import Entry, SignedEntry
from p2p_koikoi.wire.errors import LocalProtocolError, RemoteProtocolError
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["MATCH_ID_DOMAIN", "Chain", "match_id_of"]

MATCH_ID_DOMAIN = b"p2p-koikoi/match-id/v1\x00"


def match_id_of(keys: tuple[bytes, bytes], nonces: tuple[bytes, bytes]) -> bytes:
    """The match id: SHA-256 of the domain, both public keys and both nonces, host's first."""
    return hashlib.sha256(MATCH_ID_DOMAIN + keys[0] + keys[1] + nonces[0] + nonces[1]).digest()


class Chain:
    def __init__(self, match_id: bytes, keys: tuple[bytes, bytes]) -> None:
        self.match_id = match_id
        self.keys = keys
        self.entries: list[SignedEntry] = []
        self.head = match_id

    @property
    def next_seq(self) -> int:
        return len(self.entries)

    def append_local(
        self, author: int, kind: str, body: list[Any], state: bytes, key: Ed25519PrivateKey
    ) -> SignedEntry:
        entry = Entry(self.match_id, self.next_seq, self.head, author, kind, body, state)
        signed = SignedEntry.sign(entry, key)
        self._append(signed)
        return signed

    def append_remote(self, signed: SignedEntry, expected_author: int | None) -> None:
        """Check a received (or read) entry against the chain and take it.

        The signature comes first, as ``koikoi verify`` checks it: only a validly signed entry can
        prove anything (a fork, a replay), and a forged or altered one is simply not signed."""
        signed.verify(self.keys[signed.entry.author])
        self.check_link(signed, expected_author)
        self._append(signed)

    def check_link(self, signed: SignedEntry, expected_author: int | None) -> None:
        entry = signed.entry
        if entry.match_id != self.match_id:
            raise RemoteProtocolError(
                ReasonId.WRONG_MATCH, f"entry {entry.seq} belongs to another match", blame=entry.author
            )
        if entry.seq != self.next_seq:
            if entry.seq < self.next_seq:
                mine = self.entries[entry.seq]
                if mine.data == signed.data:
                    raise RemoteProtocolError(
                        ReasonId.REPLAYED_ENTRY, f"entry {entry.seq} was sent again", blame=entry.author
                    )
                if mine.entry.author == entry.author:
                    raise RemoteProtocolError(
                        ReasonId.FORK,
                        f"seat {entry.author} signed two different entries {entry.seq}",
                        blame=entry.author,
                    )
            raise RemoteProtocolError(
                ReasonId.BAD_SEQ, f"expected entry {self.next_seq}, got entry {entry.seq}", blame=entry.author
            )
        if entry.prev != self.head:
            raise RemoteProtocolError(
                ReasonId.BAD_LINK, f"entry {entry.seq} does not follow entry {entry.seq - 1}", blame=entry.author
            )
        if expected_author is not None and entry.author != expected_author:
            raise RemoteProtocolError(
                ReasonId.OUT_OF_TURN,
                f"entry {entry.seq} is seat {entry.author}'s, but it is seat {expected_author}'s turn",
                blame=entry.author,
            )

    def _append(self, signed: SignedEntry) -> None:
        if signed.entry.seq != self.next_seq:
            raise LocalProtocolError("bad-seq", "entries are appended in order")
        self.entries.append(signed)
        self.head = signed.digest
