"""TCP: the host listens on IPv4 and IPv6 for one guest; the guest dials with happy eyeballs.

A connection that fails the greeting (garbage, a wrong version, silence) is
dropped and the host keeps listening; the first guest that greets properly is
the opponent, and listening stops. So does a guest whose admission proves it at
fault (:class:`~p2p_koikoi.net.door.Conclusive`: a fork shown at resume), which
is no connection to drop: the finding is raised to the caller, to end the match.
The :class:`~p2p_koikoi.net.door.Door` caps how many may wait meanwhile, each
within an absolute deadline, a newcomer to a full door pushing out the oldest
that has not greeted (:mod:`~p2p_koikoi.net.lobby` keeps it), and running out of
file descriptors pauses accepting instead of ending the host.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import trio

from p2p_koikoi.net import DEFAULT_PORT
from p2p_koikoi.net.door import Conclusive, Door, Dropped, Refused
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.net.handshake import Greeting, Guard, NotKoikoi, greet_as_guest, greet_as_host, token_nonce
from p2p_koikoi.net.lobby import Lobby
from p2p_koikoi.net.reach import (
    AllFailed,
    Failed,
    Failure,
    Miss,
    classify_os_error,
    explain,
    happy_eyeballs,
    interleave,
)
from p2p_koikoi.net.transport import transport
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import RemoteProtocolError

__all__ = [
    "ADMISSION_DEADLINE",
    "Address",
    "Conclusive",
    "CouldNotJoin",
    "Dropped",
    "Pin",
    "Refused",
    "dial",
    "dial_any",
    "dial_raw",
    "listen",
    "listen_raw",
    "local_addresses",
    "parse_address",
]

T = TypeVar("T")
ADMISSION_DEADLINE = 310.0  # the greeting (10 s) and a person reading the rules (300 s), pings or not
RESUME_DEADLINE = 30.0


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
        _refuse_ambiguous_ipv6(text)
    if not host:
        raise ValueError(f"{text!r} names no host")
    if all(part.isdigit() for part in host.split(".")) and host.count(".") != 3:
        raise ValueError(f"{host!r} is not a whole IPv4 address: it takes four numbers, like 192.168.1.20")
    if port:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
        return Address(host, int(port))
    return Address(host, default_port)


def _refuse_ambiguous_ipv6(text: str) -> None:
    """``fd77::1:7447`` could be an address or an address and a port: make the person say which."""
    last = text.rsplit(":", 1)[-1]
    if ":" not in text or len(last) < 2 or not last.isdigit() or not 0 < int(last) < 65536:
        return
    try:
        ipaddress.IPv6Address(text.split("%")[0])
    except ValueError:
        return
    head = text[: -len(last) - 1]
    head = head + ":" if head.endswith(":") else head
    raise ValueError(f"{text!r} is ambiguous: write [{head}]:{last} for port {last}, or [{text}] for the address alone")


async def listen(
    key: bytes,
    admit: Callable[[FramedChannel, Greeting, str], Awaitable[T]],
    *,
    port: int,
    bind: str | None = None,
    on_listening: Callable[[list[Address]], Awaitable[None]] | None = None,
    on_dropped: Callable[[Dropped], Awaitable[None]] | None = None,
    greeting_deadline: float = 10.0,
    deadline: float = ADMISSION_DEADLINE,
    guard: Guard | None = None,
    door: Door | None = None,
) -> tuple[FramedChannel, T]:
    """Listen until one guest greets properly and ``admit`` accepts it; return its channel and what
    ``admit`` returned. A guest whose greeting or admission fails (``admit`` raises
    :class:`RemoteProtocolError`, :class:`ConnectionLost` or :class:`Refused`), or does not finish
    both within ``deadline`` seconds in all, is dropped, and the host keeps listening meanwhile.
    An admission that raises :class:`Conclusive` ends the listening: it is raised from here.
    A connection counts as greeted at the door once its hello has passed ``guard``."""

    async def greet_then_admit(channel: FramedChannel, peer: str, greeted: Callable[[], None]) -> T:
        greeting = await greet_as_host(channel, key, greeting_deadline, guard, on_hello=greeted)
        return await admit(channel, greeting, peer)

    lobby = Lobby(greet_then_admit, door if door is not None else Door.for_this_process(), deadline, on_dropped, _peer)
    return await _serve(lobby, port, bind, on_listening)


async def listen_raw(
    admit: Callable[[FramedChannel, str], Awaitable[T]],
    *,
    port: int,
    bind: str | None = None,
    on_listening: Callable[[list[Address]], Awaitable[None]] | None = None,
    on_dropped: Callable[[Dropped], Awaitable[None]] | None = None,
    deadline: float = RESUME_DEADLINE,
    door: Door | None = None,
) -> tuple[FramedChannel, T]:
    """:func:`listen` with the whole admission (greeting included) left to ``admit``: a resuming
    guest starts with ``resume``, not ``hello``. A :class:`Conclusive` finding while admitting (the
    peer's fork, :class:`~p2p_koikoi.net.resume.Fork`) stops the listening and is raised from here,
    unless a guest was admitted first. Nothing here marks a connection greeted, so each stays
    evictable until admitted: a resume is a few round trips, over well within the time a flood
    takes to push out every connection that came after it."""

    async def admit_raw(channel: FramedChannel, peer: str, greeted: Callable[[], None]) -> T:
        return await admit(channel, peer)

    lobby = Lobby(admit_raw, door if door is not None else Door.for_this_process(), deadline, on_dropped, _peer)
    return await _serve(lobby, port, bind, on_listening)


async def _serve(
    lobby: Lobby[T], port: int, bind: str | None, on_listening: Callable[[list[Address]], Awaitable[None]] | None
) -> tuple[FramedChannel, T]:
    opened = await transport().open_listeners(port, bind)
    try:
        if on_listening is not None:
            await on_listening([Address(each.host, each.port) for each in opened])
        return await lobby.run([each.listener for each in opened])
    finally:
        for each in opened:
            await each.listener.aclose()


class CouldNotJoin(ConnectionLost):
    """Every address failed; the message says how, in words a person can act on."""

    def __init__(self, message: str, failures: Sequence[Failure] = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)

    @property
    def busy(self) -> bool:
        """Whether the most telling failure was a host that reset us before greeting: worth a retry."""
        ranked = sorted(self.failures, key=lambda f: list(Miss).index(f.miss))
        return bool(ranked) and ranked[0].miss is Miss.BUSY


@dataclass(frozen=True, slots=True)
class Pin:
    """What the guest expects of the host: its key's fingerprint, and the invite token to prove."""

    fingerprint: str | None = None
    token: bytes | None = None


async def _resolve(addresses: list[Address]) -> list[Address]:
    """Every IP address the names stand for (IP literals stay as they are), interleaved by family."""
    found: list[str] = []
    port = addresses[0].port
    for address in addresses:
        try:
            infos = await trio.socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise CouldNotJoin(
                f"cannot find the host {address.host!r}: {exc.strerror or exc} (check the name)"
            ) from None
        found += [str(info[4][0]) for info in infos if str(info[4][0]) not in found]
    return [Address(host, port) for host in interleave(found)]


async def _connect(address: Address) -> trio.abc.HalfCloseableStream:
    """One TCP connection, failing with a :class:`Failed` that keeps the reason (refused, unreachable)."""
    try:
        return await transport().connect(address.host, address.port)
    except OSError as exc:
        raise Failed(Failure(str(address), classify_os_error(exc), exc.strerror or str(exc))) from None


async def _greet(
    address: Address, key: bytes, pin: Pin, connected: dict[str, float] | None = None
) -> tuple[FramedChannel, Greeting, Address]:
    """Connect and greet; ``connected`` gets when the TCP connection was made (Trio time), by address, so a
    host that accepts and then says nothing is told from one that never answered."""
    channel = FramedChannel(await _connect(address))
    started = trio.current_time()
    if connected is not None:
        connected[str(address)] = started
    nonce = token_nonce(pin.token, pin.fingerprint, key) if pin.token and pin.fingerprint else None
    try:
        greeting = await greet_as_guest(channel, key, nonce=nonce)
        if pin.fingerprint is not None and fingerprint(greeting.peer_key) != pin.fingerprint:
            raise Failed(Failure(str(address), Miss.WRONG_KEY, fingerprint(greeting.peer_key)))
    except NotKoikoi as exc:
        await trio.aclose_forcefully(channel.stream)
        raise Failed(Failure(str(address), Miss.NOT_KOIKOI, str(exc))) from None
    except TimedOut:  # connected, then no greeting came: something is there, and it is silent
        await trio.aclose_forcefully(channel.stream)
        raise Failed(Failure(str(address), Miss.SILENT, str(max(1, round(trio.current_time() - started))))) from None
    except ConnectionLost as exc:
        await trio.aclose_forcefully(channel.stream)
        miss = Miss.BUSY if _was_reset(exc) else Miss.CLOSED
        raise Failed(Failure(str(address), miss, str(exc))) from None
    except RemoteProtocolError as exc:  # a koikoi host, but a wrong version or a bad key
        await trio.aclose_forcefully(channel.stream)
        raise Failed(Failure(str(address), Miss.OTHER, str(exc))) from None
    except BaseException:
        await trio.aclose_forcefully(channel.stream)
        raise
    return channel, greeting, address


_RESET = {errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED}


def _was_reset(exc: BaseException) -> bool:
    """Whether an OS error behind ``exc`` is a reset: the door's "busy" (:func:`_reset`), not a close."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in _RESET:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def dial_any(
    addresses: list[Address], key: bytes, pin: Pin | None = None, *, timeout: float = 15.0
) -> tuple[FramedChannel, Greeting, Address]:
    """Connect and greet the first of ``addresses`` (happy eyeballs) whose host passes ``pin``."""
    pin = pin or Pin()
    targets = await _resolve(addresses)
    by_name = {str(a): a for a in targets}

    async def release(won: tuple[FramedChannel, Greeting, Address]) -> None:
        await trio.aclose_forcefully(won[0].stream)

    connected: dict[str, float] = {}

    async def attempt(name: str) -> tuple[FramedChannel, Greeting, Address]:
        return await _greet(by_name[name], key, pin, connected)

    try:
        return await happy_eyeballs(list(by_name), attempt, timeout, release)
    except AllFailed as exc:
        now = trio.current_time()
        failures = [  # still waiting for the greeting when time ran out: connected, then silent
            Failure(f.target, Miss.SILENT, str(max(1, round(now - connected[f.target]))))
            if f.miss is Miss.TIMED_OUT and f.target in connected
            else f
            for f in exc.failures
        ]
        invited = pin.fingerprint is not None
        raise CouldNotJoin(explain(failures, addresses[0].port, timeout, invited=invited), failures) from None


async def dial_raw(address: Address, *, timeout: float = 15.0) -> FramedChannel:
    """Connect (happy eyeballs over every address the name has), without greeting."""
    targets = {str(a): a for a in await _resolve([address])}

    async def attempt(name: str) -> trio.abc.HalfCloseableStream:
        return await _connect(targets[name])

    async def release(stream: trio.abc.HalfCloseableStream) -> None:
        await trio.aclose_forcefully(stream)

    try:
        stream: trio.abc.HalfCloseableStream = await happy_eyeballs(list(targets), attempt, timeout, release)
    except AllFailed as exc:
        raise CouldNotJoin(explain(exc.failures, address.port, timeout)) from None
    return FramedChannel(stream)


async def dial(address: Address, key: bytes, *, timeout: float = 15.0) -> tuple[FramedChannel, Greeting]:
    """Connect and greet the host."""
    channel, greeting, _ = await dial_any([address], key, timeout=timeout)
    return channel, greeting


def _peer(stream: trio.abc.Stream) -> tuple[str, str]:
    """The peer's host (for the door) and its name (for messages)."""
    found = transport().peer_of(stream)
    if found is None:
        return "unknown", "unknown"
    return found[0], str(Address(*found))


def dialable(address: str) -> bool:
    """Whether another machine could dial ``address``: not loopback, link-local, unspecified or multicast."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def local_addresses() -> list[str]:
    """This machine's addresses others could dial, from its interfaces (no network traffic);
    global ones first (IPv6 before IPv4), then private ones, for the invite code's order."""
    import ifaddr

    found: set[str] = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            if dialable(text):
                found.add(str(ipaddress.ip_address(text)))

    def order(text: str) -> tuple[bool, int, str]:
        ip = ipaddress.ip_address(text)
        return (ip.is_private, -ip.version, text)

    return sorted(found, key=order)
