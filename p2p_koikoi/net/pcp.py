"""PCP, the Port Control Protocol (RFC 6887): the MAP request that asks a router to forward a port.

No maintained Python client exists (the PyPI packages named ``pcp`` are other protocols), and the
exchange is two fixed-layout UDP datagrams, so the messages are built and read here, sans-IO,
exactly as RFC 6887 lays them out (section 7.1 the request header, 7.2 the response header, 11.1
the MAP opcode); :func:`request_mapping` sends one with the retransmission the RFC asks for
(section 8.1.1, shortened: a host waits seconds, not minutes, before saying nothing answered).
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
from dataclasses import dataclass
from enum import IntEnum

__all__ = ["PCP_PORT", "MapReply", "PcpError", "Result", "encode_map", "parse_map_reply", "request_mapping"]

PCP_PORT = 5351
VERSION = 2
OPCODE_MAP = 1
TCP = 6
HEADER = struct.Struct("!BBxxI16s")  # version, R|opcode, reserved, lifetime, client address
MAP = struct.Struct("!12sB3xHH16s")  # nonce, protocol, reserved, internal port, external port, external address
REPLY_HEADER = struct.Struct("!BBxBII12x")  # version, R|opcode, reserved, result, lifetime, epoch, reserved
RETRIES = (0.5, 1.0, 2.0)


class Result(IntEnum):
    """RFC 6887 section 7.4."""

    SUCCESS = 0
    UNSUPP_VERSION = 1
    NOT_AUTHORIZED = 2
    MALFORMED_REQUEST = 3
    UNSUPP_OPCODE = 4
    UNSUPP_OPTION = 5
    MALFORMED_OPTION = 6
    NETWORK_FAILURE = 7
    NO_RESOURCES = 8
    UNSUPP_PROTOCOL = 9
    USER_EX_QUOTA = 10
    CANNOT_PROVIDE_EXTERNAL = 11
    ADDRESS_MISMATCH = 12
    EXCESSIVE_REMOTE_PEERS = 13


class PcpError(Exception):
    """The router answered, and said no."""


@dataclass(frozen=True, slots=True)
class MapReply:
    result: int
    lifetime: int
    nonce: bytes
    external_port: int
    external: str


def _sixteen(address: str) -> bytes:
    """PCP carries every address in 16 bytes: IPv6 as is, IPv4 as ::ffff:a.b.c.d."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv4Address):
        return ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + ip.packed).packed
    return ip.packed


def _address(sixteen: bytes) -> str:
    ip = ipaddress.IPv6Address(sixteen)
    return str(ip.ipv4_mapped) if ip.ipv4_mapped is not None else str(ip)


def encode_map(client: str, port: int, lifetime: int, nonce: bytes) -> bytes:
    """A MAP request for TCP ``port`` on ``client``, the same external port suggested; any external
    address of the client's family suggested (all zeros, or ::ffff:0.0.0.0 for IPv4)."""
    any_external = _sixteen("0.0.0.0") if ":" not in client else bytes(16)
    header = HEADER.pack(VERSION, OPCODE_MAP, lifetime, _sixteen(client))
    return header + MAP.pack(nonce, TCP, port, port, any_external)


def parse_map_reply(data: bytes, nonce: bytes) -> MapReply | None:
    """The router's answer to our MAP request, or None for a datagram that is not one (a stray, an
    answer to someone else's nonce): those are ignored, as RFC 6887 section 8.3 says."""
    if len(data) < REPLY_HEADER.size + MAP.size or len(data) > 1100:
        return None
    version, opcode, result, lifetime, _epoch = REPLY_HEADER.unpack_from(data)
    if version != VERSION or opcode != 0x80 | OPCODE_MAP:
        return None
    got_nonce, protocol, _internal, external_port, external = MAP.unpack_from(data, REPLY_HEADER.size)
    if got_nonce != nonce or protocol != TCP:
        return None
    return MapReply(result, lifetime, got_nonce, external_port, _address(external))


def request_mapping(gateway: str, port: int, lifetime: int, nonce: bytes | None = None) -> MapReply | None:
    """Blocking: send a MAP request to ``gateway`` and wait for its answer; None when nothing
    answered. Raises :class:`PcpError` when the router refused. ``lifetime`` 0 deletes the mapping
    made with the same ``nonce``."""
    nonce = nonce if nonce is not None else secrets.token_bytes(12)
    family = socket.AF_INET6 if ":" in gateway else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.connect((gateway, PCP_PORT))
        client = sock.getsockname()[0]
        request = encode_map(client, port, lifetime, nonce)
        for wait in RETRIES:
            sock.send(request)
            sock.settimeout(wait)
            try:
                while True:
                    reply = parse_map_reply(sock.recv(1100), nonce)
                    if reply is not None:
                        break
            except (TimeoutError, ConnectionRefusedError):
                continue
            if reply.result != Result.SUCCESS:
                known = {result.value: result.name for result in Result}
                raise PcpError(known.get(reply.result, f"result {reply.result}"))
            return reply
    return None
