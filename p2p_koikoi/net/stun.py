"""Our public TCP endpoint, as a STUN server sees it (RFC 8489 Binding over TCP), from a given local port.

Hole punching needs the address and port the NAT gives a connection *from one local port*, so the
punch can later leave from that same port (:mod:`p2p_koikoi.net.punch`). So the Binding request goes
over TCP, from a socket bound to that port with ``SO_REUSEADDR`` and ``SO_REUSEPORT`` (the punch binds
the same port again while this connection may still be open). STUN over TCP has no framing of its
own (RFC 8489 section 6.2.2): the 20-byte header carries the body's length.

The messages are aioice's (``aioice.stun``: encoding, parsing, the XOR of XOR-MAPPED-ADDRESS, the
FINGERPRINT check), a maintained implementation; what is ours is only the socket and the checks of
the answer (our transaction id, a success, an address).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

import trio

__all__ = ["StunError", "bound_socket", "tcp_mapping"]

HEADER = 20
MOST = 1024  # a Binding response is far smaller; a server that sends more is not answering us


class StunError(Exception):
    """The STUN server could not be reached, or did not answer with our mapping."""


@dataclass(frozen=True, slots=True)
class Mapping:
    """Where the STUN server saw us come from (``host``, ``port``), and the local port that maps there."""

    host: str
    port: int
    local_port: int


def bound_socket(family: int, local_port: int) -> trio.socket.SocketType:
    """A TCP socket on ``local_port`` that other sockets may share (the STUN query's, the punch's)."""
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


async def _receive_exactly(stream: trio.SocketStream, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        if not chunk:
            raise StunError("the STUN server closed the connection before answering")
        data += chunk
    return data


async def tcp_mapping(
    server: tuple[str, int], local_port: int = 0, *, timeout: float = 3.0
) -> tuple[Mapping, trio.SocketStream]:
    """Ask ``server`` (an IP address and port) where our TCP connection from ``local_port`` (0: any)
    comes from; the mapping, and the connection, still open, so that the NAT keeps the mapping until the
    caller closes it."""
    from aioice import stun  # here, not above: aioice brings dnspython and mDNS (70 ms), and only a punch asks

    family = socket.AF_INET6 if ":" in server[0] else socket.AF_INET
    sock = bound_socket(family, local_port)
    stream: trio.SocketStream | None = None
    try:
        with trio.fail_after(timeout):
            await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", local_port))
            await sock.connect(server)
            stream = trio.SocketStream(sock)
            request = stun.Message(message_method=stun.Method.BINDING, message_class=stun.Class.REQUEST)
            await stream.send_all(bytes(request))
            header = await _receive_exactly(stream, HEADER)
            (length,) = struct.unpack("!H", header[2:4])
            if length > MOST:
                raise StunError("the STUN server's answer is far too long")
            answer = stun.parse_message(header + await _receive_exactly(stream, length))
    except trio.TooSlowError:
        sock.close()
        raise StunError(f"the STUN server {server[0]}:{server[1]} did not answer within {timeout:g} s") from None
    except (OSError, ValueError) as exc:
        sock.close()
        raise StunError(f"the STUN server {server[0]}:{server[1]} failed: {exc}") from None
    except BaseException:
        sock.close()
        raise
    if answer.transaction_id != request.transaction_id or answer.message_class != stun.Class.RESPONSE:
        await stream.aclose()
        raise StunError("the STUN server did not answer our request with a success")
    mapped = answer.attributes.get("XOR-MAPPED-ADDRESS") or answer.attributes.get("MAPPED-ADDRESS")
    if mapped is None:
        await stream.aclose()
        raise StunError("the STUN server's answer holds no mapped address")
    return Mapping(str(mapped[0]), int(mapped[1]), int(sock.getsockname()[1])), stream
