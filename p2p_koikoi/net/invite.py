"""The invite code ``kk1:...``: one line that tells a guest where a host is and which key it holds.

``koikoi host`` prints it; ``koikoi join CODE`` dials every address in it at once (happy eyeballs)
and accepts only a host whose greeting proves the key with the fingerprint in the code, so a
stranger at one of the addresses (or a router in between) cannot pose as the host even on first
contact. An optional one-time token lets the host admit only guests who hold the code.

The layout is byte-exact and documented with vectors in ``protocol/INVITE.md``:

    flags (1: bit 0 token, bit 1 punch candidate, bit 2 the host's NAT maps each destination anew)
    | port (2, big-endian) | fingerprint (16) | token (12, if flags bit 0)
    | punch candidate (tag 4 + 4 bytes or tag 6 + 16 bytes, then a 2-byte port; if flags bit 1)
    | addresses: tag 4 + 4 bytes, or tag 6 + 16 bytes, repeated | check (4)

``check`` is the first 4 bytes of SHA-256(``CHECK_DOMAIN`` || everything before it): it catches a
code mangled in copying, not an attacker (the fingerprint is what stops an attacker). The whole
is base32 (RFC 4648, lower case, no padding) after the prefix ``kk1:``; base32 survives chat
programs that change letter case.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from p2p_koikoi.net.code_text import (
    CodeError,
    Endpoint,
    check_addresses,
    check_endpoint,
    pack_addresses,
    pack_endpoint,
    unpack_addresses,
    unpack_endpoint,
    unwrap,
    wrap,
)

__all__ = [
    "CHECK_DOMAIN",
    "MAX_ADDRESSES",
    "PREFIX",
    "TOKEN_BYTES",
    "Invite",
    "InviteError",
    "fingerprint_bytes",
    "fingerprint_text",
    "new_token",
    "parse_fingerprint",
]

PREFIX = "kk1:"
CHECK_DOMAIN = b"p2p-koikoi/invite/v1\x00"
TOKEN_BYTES = 12
FINGERPRINT_BYTES = 16
MAX_ADDRESSES = 16
MAX_TEXT = 526  # checked before decoding: the longest valid code (a token, an IPv6 punch candidate, 16 IPv6) is 526
_HAS_TOKEN = 0x01
_HAS_PUNCH = 0x02
_MAPS_ANEW = 0x04  # the host's NAT gives each destination a new public port: the guest sprays (INVITE.md)


class InviteError(CodeError):
    """The text is not a valid invite code (a typo, a truncated paste, another version)."""


def parse_fingerprint(text: str) -> str:
    """A key fingerprint as people type it (with or without colons, any case), in its printed form."""
    return fingerprint_text(fingerprint_bytes(text.strip().lower()))


def new_token() -> bytes:
    return secrets.token_bytes(TOKEN_BYTES)


def fingerprint_bytes(fingerprint: str) -> bytes:
    try:
        raw = bytes.fromhex(fingerprint.replace(":", ""))
    except ValueError:
        raise InviteError(f"{fingerprint!r} is not a key fingerprint") from None
    if len(raw) != FINGERPRINT_BYTES:
        raise InviteError(f"{fingerprint!r} is not a key fingerprint (8 groups of 4 hex digits)")
    return raw


def fingerprint_text(raw: bytes) -> str:
    digest = raw.hex()
    return ":".join(digest[i : i + 4] for i in range(0, 32, 4))


@dataclass(frozen=True, slots=True)
class Invite:
    """Where the host listens (``addresses`` in the order to prefer, one ``port``) and who it is; ``punch``:
    the public endpoint a STUN server saw the host's punching port come from, when it asked one;
    ``maps_anew``: a second STUN server saw another port from it (an endpoint-dependent NAT), so a guest
    whose own NAT keeps one port sprays guesses at the host's address (only with ``punch``)."""

    addresses: tuple[str, ...]
    port: int
    fingerprint: str
    token: bytes | None = None
    punch: Endpoint | None = None
    maps_anew: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise InviteError(f"port {self.port} is not 1 to 65535")
        if self.maps_anew and self.punch is None:
            raise InviteError("an invite says its host's NAT maps anew only beside a punch candidate")
        check_addresses(self.addresses, MAX_ADDRESSES, "invite", InviteError)
        fingerprint_bytes(self.fingerprint)
        if self.token is not None and len(self.token) != TOKEN_BYTES:
            raise InviteError(f"an invite token is {TOKEN_BYTES} bytes")
        if self.punch is not None:
            check_endpoint(self.punch, "invite code", InviteError)

    def format(self) -> str:
        flags = (_HAS_TOKEN if self.token else 0) | (_HAS_PUNCH if self.punch else 0)
        body = bytearray([flags | (_MAPS_ANEW if self.maps_anew else 0)])
        body += self.port.to_bytes(2, "big") + fingerprint_bytes(self.fingerprint)
        if self.token:
            body += self.token
        if self.punch:
            body += pack_endpoint(self.punch)
        return wrap(PREFIX, CHECK_DOMAIN, bytes(body) + pack_addresses(self.addresses))

    @classmethod
    def parse(cls, text: str) -> Invite:
        body = unwrap(text, PREFIX, CHECK_DOMAIN, MAX_TEXT, "invite code", InviteError)
        if len(body) < 1 + 2 + FINGERPRINT_BYTES:
            raise InviteError("the invite code is damaged or cut short; copy the whole line again")
        return cls._unpack(body)

    @classmethod
    def _unpack(cls, body: bytes) -> Invite:
        flags, port, fp = body[0], int.from_bytes(body[1:3], "big"), body[3:19]
        if flags & ~(_HAS_TOKEN | _HAS_PUNCH | _MAPS_ANEW):
            raise InviteError("the invite code uses features this koikoi does not know; update koikoi")
        at, token, punch = 19, None, None
        if flags & _HAS_TOKEN:
            token, at = body[at : at + TOKEN_BYTES], at + TOKEN_BYTES
        if token is not None and len(token) != TOKEN_BYTES:
            raise InviteError("the invite code is cut short")
        if flags & _HAS_PUNCH:
            punch, at = unpack_endpoint(body, at, "invite code", InviteError)
        addresses = unpack_addresses(body[at:], "invite code", InviteError)
        return cls(addresses, port, fingerprint_text(fp), token, punch, bool(flags & _MAPS_ANEW))
