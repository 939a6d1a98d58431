"""Fingerprints of identity keys, as people read them."""

from __future__ import annotations

import hashlib

__all__ = ["fingerprint", "short_fingerprint"]


def fingerprint(key: bytes) -> str:
    """SHA-256 of the 32-byte public key, as 8 groups of 4 hex digits (the first 128 bits)."""
    digest = hashlib.sha256(b"p2p-koikoi/fingerprint/v1\x00" + key).hexdigest()[:32]
    return ":".join(digest[i : i + 4] for i in range(0, 32, 4))


def short_fingerprint(key: bytes) -> str:
    return fingerprint(key).replace(":", "")[:8]
