"""The Fiat-Shamir transcript of a deck-pass proof, and the prover's derived nonces.

Why a transcript: a non-interactive proof is only as sound as the hash that
stands in for the verifier. Its challenges must depend on everything the
proof is about, or a proof made for one statement could be replayed for
another. The transcript is one SHA-512 stream of length-prefixed *frames*::

    frame(label, data) = u32be(len(label)) || label || u32be(len(data)) || data

It starts with ``frame(PROOF_DOMAIN, kind)`` (``shuffle`` or ``lock``), then
the statement: the binding of the deal context and the author's identity key
(match id, round, redeal, purpose, protocol version, author), the pass
number, every input and every output point, and the author's public
commitments. A challenge is ``reduce(SHA-512(stream || frame(label, extra)))``
and does not change the stream; the prover's messages are appended as frames
between challenges. Lengths make the encoding injective, so two different
statements never hash alike (a Merlin-style transcript built from SHA-512
only: no primitive of our own).

Why derived nonces: our entries must be byte-identical when a restored
session recomputes them, so the prover draws no randomness. Its nonces come
from HKDF-SHA-512 keyed by the deal secret, with the digest of the statement
in ``info`` (as RFC 6979 and Ed25519 derive theirs): the same secret never
uses the same nonces for two different statements, which would reveal the
witness.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.derive import HKDF_SALT

__all__ = ["LABEL_PROOF_NONCES", "PROOF_DOMAIN", "Transcript", "frame", "proof_nonces"]

PROOF_DOMAIN = b"p2p-koikoi/deal/v2/proof"
LABEL_PROOF_NONCES = b"p2p-koikoi/deal/v2/proof-nonces"
_MAX_HKDF = 255 * 64


def frame(label: bytes, data: bytes) -> bytes:
    """One length-prefixed frame of the transcript."""
    return len(label).to_bytes(4, "big") + label + len(data).to_bytes(4, "big") + data


class Transcript:
    """A running SHA-512 over frames; challenges are drawn from copies of it."""

    def __init__(self, kind: bytes) -> None:
        self._hash = hashlib.sha512()
        self.append(PROOF_DOMAIN, kind)

    def append(self, label: bytes, data: bytes) -> None:
        self._hash.update(frame(label, data))

    def digest(self) -> bytes:
        """The SHA-512 of the stream so far (the statement digest, for nonces)."""
        return self._hash.copy().digest()

    def challenge(self, label: bytes, extra: bytes = b"") -> bytes:
        """``reduce(SHA-512(stream || frame(label, extra)))``; the stream is unchanged."""
        branch = self._hash.copy()
        branch.update(frame(label, extra))
        return group.scalar_from_wide(branch.digest())

    def challenges(self, label: bytes, count: int) -> list[bytes]:
        """``count`` challenges, the ``i``-th with ``extra = u32be(i)``."""
        return [self.challenge(label, i.to_bytes(4, "big")) for i in range(count)]


def proof_nonces(secret: bytes, statement: bytes, count: int) -> list[bytes]:
    """``count`` nonce scalars: HKDF-SHA-512(secret, salt, LABEL || 0x00 || statement digest).

    Each nonce is 64 output bytes reduced modulo ``L``.
    """
    length = 64 * count
    if not 0 < length <= _MAX_HKDF:
        raise ValueError("too many nonces for one HKDF output")
    kdf = HKDF(algorithm=hashes.SHA512(), length=length, salt=HKDF_SALT, info=LABEL_PROOF_NONCES + b"\x00" + statement)
    stream = kdf.derive(secret)
    return [group.scalar_from_wide(stream[64 * i : 64 * i + 64]) for i in range(count)]
