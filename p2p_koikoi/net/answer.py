"""The answer code ``kka1:...``: the line a guest that could not reach its host sends back, so the host dials it.

A match is reachable when either side is. When every address in the invite code fails, the guest
listens instead (its own port mapping, IPv6, its LAN) and prints this code; the host pastes it and
dials those addresses. The greeting is the same as ever, whoever dialled: the guest sends its
``hello`` first (proving the invite's token, if any) and accepts only the key the invite named, and
the host accepts only the key this code names. So an answer code pasted by mistake, or a stranger
at one of its addresses, gets nobody into a match.

The layout is byte-exact, documented with vectors in ``protocol/INVITE.md`` and
``protocol/vectors/answer-codes.json``:

    flags (1: bit 1, a punch candidate; bit 2, a relayed address; bit 3, spray to me) | port (2, big-endian)
    | guest fingerprint (16) | host fingerprint (16)
    | punch candidate (tag 4 + 4 bytes or tag 6 + 16 bytes, then a 2-byte port; if flags bit 1)
    | relayed address (the same layout; if flags bit 2)
    | addresses: tag 4 + 4 bytes, or tag 6 + 16 bytes, repeated | check (4)

The host's fingerprint is there so that a host handed an answer to someone else's invite says so at
once instead of dialling a stranger. The armour (base32, the check) is the invite's
(:mod:`p2p_koikoi.net.code_text`), under its own domain tag, so neither code can be read as the other.
"""

from __future__ import annotations

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
from p2p_koikoi.net.invite import FINGERPRINT_BYTES, MAX_ADDRESSES, fingerprint_bytes, fingerprint_text

__all__ = ["CHECK_DOMAIN", "MAX_TEXT", "PREFIX", "Answer", "AnswerError"]

PREFIX = "kka1:"
CHECK_DOMAIN = b"p2p-koikoi/answer/v1\x00"
MAX_TEXT = 564  # checked before decoding: the longest valid code (IPv6 punch and relay, 16 IPv6) is 564
_FIXED = 1 + 2 + 2 * FINGERPRINT_BYTES
_HAS_PUNCH = 0x02
_HAS_RELAY = 0x04
_SPRAY = 0x08  # the guest's NAT maps each destination to a new port: the host sprays (net/spray.py)


class AnswerError(CodeError):
    """The text is not a valid answer code (a typo, a truncated paste, another version)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """Where the guest listens (``addresses`` in the order to prefer, one ``port``), who it is, and
    whose invite it answers (``host``, a fingerprint); ``punch``: the guest's public endpoint for a hole
    punch, when it asked a STUN server."""

    addresses: tuple[str, ...]
    port: int
    guest: str
    host: str
    punch: Endpoint | None = None
    relay: Endpoint | None = None  # the guest's relayed address on a TURN server, for the host to dial
    spray: bool = False  # the guest's NAT is endpoint-dependent: its punch candidate's port is not the punch's

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise AnswerError(f"port {self.port} is not 1 to 65535")
        check_addresses(self.addresses, MAX_ADDRESSES, "answer", AnswerError)
        fingerprint_bytes(self.guest)
        fingerprint_bytes(self.host)
        if self.punch is not None:
            check_endpoint(self.punch, "answer code", AnswerError)
        if self.relay is not None:
            check_endpoint(self.relay, "answer code", AnswerError)
        if self.spray and self.punch is None:
            raise AnswerError("a spray needs the guest's public address: its punch candidate")

    def format(self) -> str:
        flags = (_HAS_PUNCH if self.punch else 0) | (_HAS_RELAY if self.relay else 0) | (_SPRAY if self.spray else 0)
        body = bytes([flags]) + self.port.to_bytes(2, "big")
        body += fingerprint_bytes(self.guest) + fingerprint_bytes(self.host)
        body += pack_endpoint(self.punch) if self.punch else b""
        body += pack_endpoint(self.relay) if self.relay else b""
        return wrap(PREFIX, CHECK_DOMAIN, body + pack_addresses(self.addresses))

    @classmethod
    def parse(cls, text: str) -> Answer:
        """The answer in ``text``; :class:`AnswerError` in words a person can act on for anything else."""
        body = unwrap(text, PREFIX, CHECK_DOMAIN, MAX_TEXT, "answer code", AnswerError)
        if len(body) < _FIXED:
            raise AnswerError("the answer code is damaged or cut short; copy the whole line again")
        if body[0] & ~(_HAS_PUNCH | _HAS_RELAY | _SPRAY):
            raise AnswerError("the answer code uses features this koikoi does not know; update koikoi")
        port = int.from_bytes(body[1:3], "big")
        guest, host = body[3 : 3 + FINGERPRINT_BYTES], body[3 + FINGERPRINT_BYTES : _FIXED]
        at, punch, relay = _FIXED, None, None
        if body[0] & _HAS_PUNCH:
            punch, at = unpack_endpoint(body, at, "answer code", AnswerError)
        if body[0] & _HAS_RELAY:
            relay, at = unpack_endpoint(body, at, "answer code", AnswerError)
        addresses = unpack_addresses(body[at:], "answer code", AnswerError)
        spray = bool(body[0] & _SPRAY)
        if spray and punch is None:
            raise AnswerError("the answer code asks for a spray without a punch candidate; copy the whole line again")
        return cls(addresses, port, fingerprint_text(guest), fingerprint_text(host), punch, relay, spray)
