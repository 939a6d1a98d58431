"""Which Ed25519 public keys a player may use.

A small-order key (the identity ``01 00…00`` among them) accepts the signature
(R = identity, S = 0) on *every* message, so a player holding one could deny
anything it signed; a non-canonical encoding gives one key two spellings. Both
are refused at the greeting, on resume and by ``koikoi verify``. The check is
libsodium's ``crypto_core_ed25519_is_valid_point`` (through PyNaCl): canonical,
on the curve, not of small order, and in the prime-order subgroup.
"""

from __future__ import annotations

from nacl.bindings import crypto_core_ed25519_is_valid_point

__all__ = ["check_public_key"]


def check_public_key(key: object) -> str | None:
    """Why ``key`` may not be a player's key, in words, or None if it may."""
    if not isinstance(key, bytes) or len(key) != 32:
        return "is not 32 bytes"
    if not crypto_core_ed25519_is_valid_point(key):
        return "is not a valid Ed25519 key (small order, not canonical, or off the curve)"
    return None
