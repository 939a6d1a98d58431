"""The text both codes share, the invite (``kk1:``) and the answer (``kka1:``): a body of bytes, a
4-byte check, base32 after a prefix, and addresses as tagged entries.

Both codes travel through chat programs and are typed back by hand now and then, so both use the same
armour: base32 (RFC 4648 section 6, lower case, no ``=`` padding; either case is read) survives
programs that change letter case, and the check (the first 4 bytes of SHA-256 of a domain tag and the
body) catches a paste cut short or a character changed. The check is no signature: what protects each
side is the key fingerprint the code carries, checked in the greeting.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress

__all__ = [
    "CodeError",
    "Endpoint",
    "check_addresses",
    "check_endpoint",
    "pack_addresses",
    "pack_endpoint",
    "unpack_addresses",
    "unpack_endpoint",
    "unwrap",
    "wrap",
]

Endpoint = tuple[str, int]
"""A public address and TCP port, as a STUN server saw a connection come from (a hole punch's candidate)."""

_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
CHECK_BYTES = 4


class CodeError(ValueError):
    """The text is not a valid code (a typo, a truncated paste, another version)."""


def wrap(prefix: str, domain: bytes, body: bytes) -> str:
    """``body`` with its check, in base32 after ``prefix``."""
    body += hashlib.sha256(domain + body).digest()[:CHECK_BYTES]
    return prefix + base64.b32encode(body).decode().rstrip("=").lower()


def unwrap(text: str, prefix: str, domain: bytes, max_text: int, name: str, error: type[CodeError]) -> bytes:
    """The body of a code, its check verified; ``error`` (with ``name`` in its words) for anything else.
    The length is checked before decoding, so a huge paste costs nothing."""
    text = text.strip()
    if len(text) > max_text:
        raise error(f"the {name} is far too long; copy the one line koikoi printed")
    if not text.lower().startswith(prefix):
        raise error(f"an {name} starts with {prefix}")
    encoded = text[len(prefix) :].upper()
    if not set(encoded) <= _ALPHABET:
        raise error(f"the {name} has characters that do not belong; copy it again")
    try:
        raw = base64.b32decode(encoded + "=" * (-len(encoded) % 8))
    except ValueError:
        raise error(f"the {name} is damaged or cut short; copy the whole line again") from None
    if (
        len(raw) <= CHECK_BYTES
        or hashlib.sha256(domain + raw[:-CHECK_BYTES]).digest()[:CHECK_BYTES] != raw[-CHECK_BYTES:]
    ):
        raise error(f"the {name} is damaged (its check does not match); copy the whole line again")
    return raw[:-CHECK_BYTES]


def pack_addresses(addresses: tuple[str, ...]) -> bytes:
    """Each address as tag ``4`` and 4 bytes, or tag ``6`` and 16 bytes, in order."""
    out = bytearray()
    for address in addresses:
        ip = ipaddress.ip_address(address)
        out += bytes([ip.version]) + ip.packed
    return bytes(out)


def unpack_addresses(body: bytes, name: str, error: type[CodeError]) -> tuple[str, ...]:
    """The tagged entries that fill ``body`` to its end; an unknown tag or a short entry is ``error``."""
    addresses: list[str] = []
    at = 0
    while at < len(body):
        size = {4: 4, 6: 16}.get(body[at], 0)
        if not size or at + 1 + size > len(body):
            raise error(f"the {name} holds a malformed address")
        addresses.append(str(ipaddress.ip_address(body[at + 1 : at + 1 + size])))
        at += 1 + size
    return tuple(addresses)


def check_addresses(addresses: tuple[str, ...], most: int, name: str, error: type[CodeError]) -> None:
    """1 to ``most`` addresses, each one somebody could dial."""
    if not 0 < len(addresses) <= most:
        raise error(f"an {name} holds 1 to {most} addresses, not {len(addresses)}")
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if ip.is_unspecified or ip.is_multicast:
            raise error(f"{address} is not an address anyone can dial")


def check_endpoint(endpoint: Endpoint, name: str, error: type[CodeError]) -> None:
    """A punch candidate somebody could dial: an address as in :func:`check_addresses`, a port 1 to 65535."""
    check_addresses((endpoint[0],), 1, name, error)
    if not 0 < endpoint[1] < 65536:
        raise error(f"the {name}'s punch port {endpoint[1]} is not 1 to 65535")


def pack_endpoint(endpoint: Endpoint) -> bytes:
    """Tag ``4`` or ``6``, the address, then the port (2 bytes, big-endian)."""
    return pack_addresses((endpoint[0],)) + endpoint[1].to_bytes(2, "big")


def unpack_endpoint(body: bytes, at: int, name: str, error: type[CodeError]) -> tuple[Endpoint, int]:
    """The endpoint at ``at`` in ``body``, and where the next field starts."""
    size = {4: 4, 6: 16}.get(body[at] if at < len(body) else 0, 0)
    end = at + 1 + size + 2
    if not size or end > len(body):
        raise error(f"the {name} holds a malformed punch candidate or relayed address")
    (address,) = unpack_addresses(body[at : at + 1 + size], name, error)
    return (address, int.from_bytes(body[end - 2 : end], "big")), end
