"""A resume proof as evidence (SPEC.md section 8): what a peer signs while resuming, kept in a record's note.

Resuming, each side signs ``"p2p-koikoi/resume/v1\\0" || match id || the other's nonce || its count (8
bytes, big-endian) || its head`` (the digest of its last entry). The side that finds the peer's copy forked
from its own keeps the peer's signed bytes, then the 64-byte signature, as the ``fork`` note's evidence
(protocol/RECORD.md): anyone holding the record can read the claim back (:meth:`ResumeClaim.parse`), check
it under the peer's key from the match entry (:meth:`ResumeClaim.signed_by`) and against the record's own
entries (:meth:`ResumeClaim.forks_from`). Pure bytes and signatures, no I/O: the net layer signs and checks
proofs live with it, the record layer checks the kept ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2p_koikoi.wire.entry import SignedEntry

__all__ = ["CLAIM_LENGTH", "RESUME_DOMAIN", "ResumeClaim", "proof_bytes"]

RESUME_DOMAIN = b"p2p-koikoi/resume/v1\x00"
CLAIM_LENGTH = len(RESUME_DOMAIN) + 32 + 32 + 8 + 32 + 64  # match id, nonce, count, head, signature


def proof_bytes(match_id: bytes, peer_nonce: bytes, count: int, head: bytes) -> bytes:
    """What a resume proof signs: our count and head in ``match_id``, to whoever chose ``peer_nonce``."""
    return RESUME_DOMAIN + match_id + peer_nonce + count.to_bytes(8, "big") + head


@dataclass(frozen=True, slots=True)
class ResumeClaim:
    """What a peer signed while resuming (its ``resume-proof``): in the match ``match_id`` it holds
    ``count`` entries, the last with digest ``head``; proven to whoever chose ``nonce`` (us)."""

    match_id: bytes
    nonce: bytes
    count: int
    head: bytes
    signature: bytes

    @property
    def signed_bytes(self) -> bytes:
        return proof_bytes(self.match_id, self.nonce, self.count, self.head)

    @property
    def evidence(self) -> bytes:
        """For a record's note: the signed bytes, then the 64-byte signature (as a note keeps an entry)."""
        return self.signed_bytes + self.signature

    @classmethod
    def parse(cls, evidence: bytes) -> ResumeClaim:
        """The claim kept as a note's evidence; :class:`ValueError` if the bytes are not one."""
        if len(evidence) != CLAIM_LENGTH or not evidence.startswith(RESUME_DOMAIN):
            raise ValueError("not a resume proof kept as evidence")
        rest = evidence[len(RESUME_DOMAIN) :]
        match_id, nonce, count, head, signature = rest[:32], rest[32:64], rest[64:72], rest[72:104], rest[104:]
        return cls(match_id, nonce, int.from_bytes(count, "big"), head, signature)

    def signed_by(self, key: bytes) -> bool:
        """Whether the signature verifies under the Ed25519 public key ``key`` (False for a key that is none)."""
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(self.signature, self.signed_bytes)
        except (InvalidSignature, ValueError):
            return False
        return True

    def forks_from(self, entries: Sequence[SignedEntry]) -> bool:
        """Whether the claimed head is not the entry at that position of ``entries`` (a chain that holds it)."""
        return 0 < self.count <= len(entries) and entries[self.count - 1].digest != self.head
