"""The STUN messages a TURN client over TCP needs (RFC 8489 framing, RFC 8656 Allocate and
CreatePermission, RFC 6062 ConnectionAttempt and ConnectionBind), as bytes in and bytes out (sans-IO).

aioice's STUN module (:mod:`p2p_koikoi.net.stun` uses it) knows neither RFC 6062's methods nor its
CONNECTION-ID attribute and refuses to parse a message with a method it does not know, so the few
messages here are laid out by hand. The primitives are the standard library's: HMAC-SHA1 for
MESSAGE-INTEGRITY (RFC 8489 section 14.5), CRC-32 for FINGERPRINT (section 14.7), MD5 for the
long-term credential's key (section 9.2.2); the XOR of addresses is aioice's.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["Attr", "Kind", "Message", "Method", "TurnMessageError", "long_term_key"]

COOKIE = 0x2112A442
HEADER = 20
FINGERPRINT_XOR = 0x5354554E


class TurnMessageError(ValueError):
    """Bytes that are not the STUN message they should be."""


class Method(IntEnum):
    ALLOCATE = 0x003
    REFRESH = 0x004
    CREATE_PERMISSION = 0x008
    CONNECT = 0x00A
    CONNECTION_BIND = 0x00B
    CONNECTION_ATTEMPT = 0x00C


class Kind(IntEnum):
    """The message class, as its two bits sit in the message type (RFC 8489 section 5)."""

    REQUEST = 0x000
    INDICATION = 0x010
    SUCCESS = 0x100
    ERROR = 0x110


class Attr(IntEnum):
    USERNAME = 0x0006
    MESSAGE_INTEGRITY = 0x0008
    ERROR_CODE = 0x0009
    LIFETIME = 0x000D
    XOR_PEER_ADDRESS = 0x0012
    REALM = 0x0014
    NONCE = 0x0015
    XOR_RELAYED_ADDRESS = 0x0016
    REQUESTED_TRANSPORT = 0x0019
    XOR_MAPPED_ADDRESS = 0x0020
    CONNECTION_ID = 0x002A
    FINGERPRINT = 0x8028


def long_term_key(user: str, realm: str, password: str) -> bytes:
    """RFC 8489 section 9.2.2: MD5(username ":" realm ":" password), the key MESSAGE-INTEGRITY uses."""
    return hashlib.md5(f"{user}:{realm}:{password}".encode(), usedforsecurity=False).digest()


def _type(method: Method, kind: Kind) -> int:
    m = int(method)
    return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | int(kind)


def _split(message_type: int) -> tuple[int, int]:
    kind = message_type & 0x0110
    m = message_type & ~0x0110
    method = (m & 0x000F) | ((m & 0x00E0) >> 1) | ((m & 0x3E00) >> 2)
    return method, kind


def _attribute(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + bytes(-len(value) % 4)


@dataclass
class Message:
    method: Method
    kind: Kind
    transaction: bytes = field(default_factory=lambda: secrets.token_bytes(12))
    attributes: dict[int, bytes] = field(default_factory=dict)

    def address(self, attr: Attr) -> tuple[str, int] | None:
        value = self.attributes.get(attr)
        if value is None:
            return None
        from aioice.stun import unpack_xor_address  # here: aioice's import costs 70 ms, paid when a relay is used

        host, port = unpack_xor_address(value, self.transaction)
        return str(host), int(port)

    def put_address(self, attr: Attr, address: tuple[str, int]) -> None:
        from aioice.stun import pack_xor_address

        self.attributes[attr] = pack_xor_address(address, self.transaction)

    @property
    def error(self) -> tuple[int, str] | None:
        value = self.attributes.get(Attr.ERROR_CODE)
        if value is None or len(value) < 4:
            return None
        return value[2] * 100 + value[3], value[4:].decode(errors="replace")

    def encode(self, key: bytes | None = None) -> bytes:
        """The message's bytes; with ``key``, MESSAGE-INTEGRITY and FINGERPRINT after the attributes."""
        body = b"".join(_attribute(k, v) for k, v in self.attributes.items())
        head = struct.pack("!HHI", _type(self.method, self.kind), 0, COOKIE) + self.transaction
        if key is not None:
            sized = struct.pack("!HHI", _type(self.method, self.kind), len(body) + 24, COOKIE) + self.transaction
            body += _attribute(Attr.MESSAGE_INTEGRITY, hmac.new(key, sized + body, hashlib.sha1).digest())
        sized = head[:2] + struct.pack("!H", len(body) + 8) + head[4:]
        crc = (binascii.crc32(sized + body) ^ FINGERPRINT_XOR) & 0xFFFFFFFF
        body += _attribute(Attr.FINGERPRINT, struct.pack("!I", crc))
        return head[:2] + struct.pack("!H", len(body)) + head[4:] + body

    @classmethod
    def decode(cls, data: bytes) -> Message:
        """A whole message (header and body); attributes after MESSAGE-INTEGRITY other than FINGERPRINT
        are ignored, as RFC 8489 section 14.5 says."""
        if len(data) < HEADER:
            raise TurnMessageError("shorter than a STUN header")
        message_type, length, cookie = struct.unpack("!HHI", data[:8])
        if cookie != COOKIE or len(data) != HEADER + length or message_type & 0xC000:
            raise TurnMessageError("not a STUN message")
        method, kind = _split(message_type)
        try:
            message = cls(Method(method), Kind(kind), data[8:20])
        except ValueError:
            raise TurnMessageError(f"a STUN method this client does not use ({method:#x})") from None
        at, sealed = HEADER, False
        while at + 4 <= len(data):
            attr, size = struct.unpack("!HH", data[at : at + 4])
            if not sealed or attr == Attr.FINGERPRINT:
                message.attributes[attr] = data[at + 4 : at + 4 + size]
            sealed = sealed or attr == Attr.MESSAGE_INTEGRITY
            at += 4 + size + (-size % 4)
        return message
