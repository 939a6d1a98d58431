"""Commitments: a player binds itself to its secret before the deal starts.

``commitment = SHA-512(COMMIT_DOMAIN || 0x00 || binding || secret)[0:32]``
where ``binding`` (see :mod:`p2p_koikoi.fairness.derive`) covers the protocol
version, the purpose, the match id, the round, the redeal and the committer's
identity key. The secret is 32 uniformly random bytes, so the commitment hides
it; SHA-512 makes it binding. Because the identity key is inside, a player
cannot copy the other's commitment and later open it as its own.
"""

from __future__ import annotations

import hmac

from cryptography.hazmat.primitives import hashes

from p2p_koikoi.fairness.derive import SECRET_BYTES, DealContext, binding

__all__ = ["COMMIT_BYTES", "COMMIT_DOMAIN", "commitment", "opens"]

COMMIT_DOMAIN = b"p2p-koikoi/deal/v1/commit"
COMMIT_BYTES = 32


def commitment(context: DealContext, identity: bytes, secret: bytes) -> bytes:
    """The 32-byte commitment to ``secret`` in ``context`` by ``identity``."""
    if len(secret) != SECRET_BYTES:
        raise ValueError("a secret is exactly 32 bytes")
    digest = hashes.Hash(hashes.SHA512())
    digest.update(COMMIT_DOMAIN + b"\x00" + binding(context, identity) + secret)
    return digest.finalize()[:COMMIT_BYTES]


def opens(context: DealContext, identity: bytes, secret: bytes, committed: bytes) -> bool:
    """True if ``secret`` opens the commitment ``committed``."""
    if len(secret) != SECRET_BYTES:
        return False
    return hmac.compare_digest(commitment(context, identity, secret), committed)
