"""TCP: the host listens on IPv4 and IPv6 for one guest; the guest dials with happy eyeballs.

A connection that fails the greeting (garbage, a wrong version, silence) is
dropped and the host keeps listening; the first guest that greets properly is
the opponent, and listening stops.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import trio

from p2p_koikoi.net import DEFAULT_PORT
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting, greet_as_guest, greet_as_host
from p2p_koikoi.wire import RemoteProtocolError

__all__ = [
    "Address",
    "Dropped",
    "Refused",
    "dial",
    "dial_raw",
    "listen",
    "listen_raw",
    "local_addresses",
    "parse_address",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> Address:
    """``host``, ``host:port``, ``[v6]:port`` or a bare IPv6 address."""
    text = text.strip()
    if not text:
        raise ValueError("an empty address")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise ValueError(f"{text!r}: an IPv6 address in brackets needs the closing ]")
        port = rest[1:] if rest.startswith(":") else ""
        if rest and not rest.startswith(":"):
            raise ValueError(f"{text!r}: expected :PORT after the ]")
    elif text.count(":") == 1:
        host, port = text.split(":")
    else:
        host, port = text, ""
    if not host:
        raise ValueError(f"{text!r} names no host")
    if port:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
        return Address(host, int(port))
    return Address(host, default_port)


class Refused(Exception):
    """The host turned a guest away (an untrusted key, declined rules); keep listening."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """A connection the host dropped during the greeting, and why."""

    peer: str
    reason: str


async def listen(
    key: bytes,
    admit: Callable[[FramedChannel, Greeting, str], Awaitable[T]],
    *,
    port: int,
    bind: str | None = None,
    on_listening: Callable[[list[Address]], Awaitable[None]] | None = None,
    on_dropped: Callable[[Dropped], Awaitable[None]] | None = None,
    greeting_deadline: float = 10.0,
) -> tuple[FramedChannel, T]:
    """Listen until one guest greets properly and ``admit`` accepts it; return its channel and what
    ``admit`` returned. A guest whose greeting or admission fails (``admit`` raises
    :class:`RemoteProtocolError`, :class:`ConnectionLost` or :class:`Refused`) is dropped, and the
    host keeps listening meanwhile."""

    async def greet_then_admit(channel: FramedChannel, peer: str) -> T:
        greeting = await greet_as_host(channel, key, greeting_deadline)
        return await admit(channel, greeting, peer)

    return await listen_raw(greet_then_admit, port=port, bind=bind, on_listening=on_listening, on_dropped=on_dropped)


async def listen_raw(
    admit: Callable[[FramedChannel, str], Awaitable[T]],
    *,
    port: int,
    bind: str | None = None,
    on_listening: Callable[[list[Address]], Awaitable[None]] | None = None,
    on_dropped: Callable[[Dropped], Awaitable[None]] | None = None,
) -> tuple[FramedChannel, T]:
    """:func:`listen` with the whole admission (greeting included) left to ``admit``: a resuming
    guest starts with ``resume``, not ``hello``."""
    listeners = await trio.open_tcp_listeners(port, host=bind)
    try:
        addresses = [Address(*listener.socket.getsockname()[:2]) for listener in listeners]
        if on_listening is not None:
            await on_listening(addresses)
        found: list[tuple[FramedChannel, T]] = []
        async with trio.open_nursery() as nursery:

            async def try_guest(stream: trio.SocketStream) -> None:
                peer = _peer_name(stream)
                channel = FramedChannel(stream)
                try:
                    admitted = await admit(channel, peer)
                except (RemoteProtocolError, ConnectionLost, Refused) as exc:
                    await trio.aclose_forcefully(stream)
                    if on_dropped is not None:
                        await on_dropped(Dropped(peer, str(exc)))
                    return
                if found:
                    await trio.aclose_forcefully(stream)
                    return
                found.append((channel, admitted))
                nursery.cancel_scope.cancel()

            async def accept_loop(listener: trio.SocketListener) -> None:
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(try_guest, stream)

            for listener in listeners:
                nursery.start_soon(accept_loop, listener)
        return found[0]
    finally:
        for listener in listeners:
            await listener.aclose()


async def dial_raw(address: Address, *, timeout: float = 15.0) -> FramedChannel:
    """Connect (happy eyeballs over every address the name has), without greeting."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(address.host, address.port, happy_eyeballs_delay=0.25)
    except trio.TooSlowError:
        raise ConnectionLost(f"could not reach {address} within {timeout:g} s") from None
    except OSError as exc:
        raise ConnectionLost(f"could not connect to {address}: {exc.strerror or exc}") from None
    return FramedChannel(stream)


async def dial(address: Address, key: bytes, *, timeout: float = 15.0) -> tuple[FramedChannel, Greeting]:
    """Connect and greet the host."""
    channel = await dial_raw(address, timeout=timeout)
    try:
        greeting = await greet_as_guest(channel, key)
    except BaseException:
        await trio.aclose_forcefully(channel.stream)
        raise
    return channel, greeting


def _peer_name(stream: trio.SocketStream) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "unknown"
    return str(Address(host, port))


def local_addresses() -> list[str]:
    """This machine's addresses others could dial (best effort, no network traffic)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]))
    except OSError:
        pass
    for family, probe in ((socket.AF_INET, ("192.0.2.1", 9)), (socket.AF_INET6, ("2001:db8::1", 9))):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect(probe)  # no packet is sent for UDP connect; it picks the outgoing address
                found.add(s.getsockname()[0])
        except OSError:
            pass
    return sorted(a for a in found if not a.startswith(("127.", "::1", "fe80")))
