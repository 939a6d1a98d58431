"""The birthday spray: a TCP simultaneous open where one side's NAT maps every destination to a new port.

Behind an endpoint-dependent ("symmetric") NAT, the port a STUN server saw is not the port a punch
leaves from, so the ordinary punch (:mod:`p2p_koikoi.net.punch`) cannot meet it. But if the *other*
NAT is endpoint-independent, the two can still meet by the birthday paradox:

- the endpoint-dependent side (:func:`open_many`) opens :data:`SOCKETS` connections at once, each to
  the other side's punch candidate; its NAT gives each a fresh public port, and each keeps a mapping
  that lets in a SYN from exactly that candidate;
- the endpoint-independent side (:func:`probe_many`), from its one STUN-mapped local port, sends SYNs
  to :data:`PROBES` guessed ports of the first side's public address (all leave from the candidate's
  port, since its NAT maps that local port to one public port whatever the destination).

A guess that hits one of the open ports crosses into that socket, and the two SYNs make one
connection (RFC 9293 section 3.5). With ``n`` sockets among ``R`` ports a NAT draws from, ``m`` guesses
all miss with probability about ``(1 - n/R)^m``: 256 sockets and 1500 guesses over Linux's 64512 ports
miss 0.3 % of the time (1000 guesses: 2 %). Every connection made is handed to ``greet``; the first
greeting that succeeds wins and every other socket is closed. Both loops are bounded in count and in time.
"""

from __future__ import annotations

import errno
import random
import socket
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import trio

from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.stun import bound_socket

__all__ = ["FIRST_PORT", "PROBES", "PROBE_LIFE", "SOCKETS", "SOCKET_LIFE", "SPRAY_FOR", "open_many", "probe_many"]

T = TypeVar("T")
Greet = Callable[[trio.SocketStream], Awaitable[T]]

SOCKETS = 256  # the endpoint-dependent side's open connections (file descriptors: well under a default 1024)
SOCKET_LIFE = 60.0  # each is opened again (a new public port) after this, while the side still waits
PROBES = 1500  # the endpoint-independent side's guesses
PROBE_PACE = 0.004  # between two guesses: 1500 in 6 s, about 250 SYNs a second
PROBE_LIFE = 1.5  # a guess that crossed is answered within a round trip; one unanswered by then missed
SPRAY_FOR = 10.0  # the probing side's whole spray, greetings included
FIRST_PORT = 1024  # Linux's NAT draws from 1024 to 65535 for a source port above 1023
OPEN_PACE = 0.002  # between two of the endpoint-dependent side's connections


class _Race(Generic[T]):
    """The first connection that greets wins; the rest are cancelled (their greetings close them)."""

    def __init__(self, nursery: trio.Nursery, greet: Greet[T]) -> None:
        self.nursery = nursery
        self.greet = greet
        self.won: list[T] = []

    async def offer(self, stream: trio.SocketStream) -> None:
        try:
            result = await self.greet(stream)
        except Exception:
            return  # greet closed it: it reached someone else, or nobody
        if self.won:
            await trio.aclose_forcefully(stream)
            return
        self.won.append(result)
        self.nursery.cancel_scope.cancel()


async def open_many(peer: Endpoint, greet: Greet[T], *, deadline: float, count: int = SOCKETS) -> T:
    """The endpoint-dependent side: ``count`` connections to ``peer`` held open (each opened again after
    :data:`SOCKET_LIFE` s) until one greets or ``deadline`` (Trio time); :class:`OSError` then."""
    family = socket.AF_INET6 if ":" in peer[0] else socket.AF_INET

    async def one(race: _Race[T]) -> None:
        while trio.current_time() < deadline:
            sock = trio.socket.socket(family, socket.SOCK_STREAM)
            with trio.move_on_at(min(deadline, trio.current_time() + SOCKET_LIFE)):
                if await _offered(race, sock, peer):
                    return
                await trio.sleep(1.0)  # refused or unreachable: the host's NAT is not there yet
                continue
            sock.close()

    return await _run(one, greet, count, OPEN_PACE, deadline, "no socket of the spray got through")


async def probe_many(
    local_port: int,
    peer_host: str,
    greet: Greet[T],
    *,
    deadline: float,
    count: int = PROBES,
    rng: random.Random | None = None,
) -> T:
    """The endpoint-independent side: ``count`` guessed ports of ``peer_host``, each tried from
    ``local_port`` for :data:`PROBE_LIFE` s, one every :data:`PROBE_PACE` s, until one greets or
    ``deadline`` (Trio time); :class:`OSError` then."""
    family = socket.AF_INET6 if ":" in peer_host else socket.AF_INET
    ports = iter((rng or random.Random()).sample(range(FIRST_PORT, 65536), count))

    async def one(race: _Race[T]) -> None:
        port = next(ports)
        sock = bound_socket(family, local_port)
        with trio.move_on_at(min(deadline, trio.current_time() + PROBE_LIFE)):
            here = ("::" if family == socket.AF_INET6 else "0.0.0.0", local_port)
            await _offered(race, sock, (peer_host, port), bind=here)
            return
        sock.close()

    return await _run(one, greet, count, PROBE_PACE, deadline, "no guess of the spray got through")


async def _offered(
    race: _Race[T], sock: trio.socket.SocketType, peer: tuple[str, int], *, bind: tuple[str, int] | None = None
) -> bool:
    """Connect ``sock`` to ``peer`` (bound to ``bind`` first, when given) and offer the connection to the
    race; False, the socket closed, when it could not connect (refused, unreachable)."""
    try:
        if bind is not None:
            await sock.bind(bind)
        await sock.connect(peer)
    except OSError:
        sock.close()
        return False
    except BaseException:
        sock.close()
        raise
    await race.offer(trio.SocketStream(sock))
    return True


async def _run(
    one: Callable[[_Race[T]], Awaitable[None]], greet: Greet[T], count: int, pace: float, deadline: float, why: str
) -> T:
    """``count`` of ``one`` started ``pace`` s apart, all ended at ``deadline`` or by the first win."""
    won: list[T] = []
    with trio.move_on_at(deadline):
        async with trio.open_nursery() as nursery:
            race = _Race(nursery, greet)
            won = race.won
            for _ in range(count):
                nursery.start_soon(one, race)
                await trio.sleep(pace)
    if won:
        return won[0]
    raise OSError(errno.ETIMEDOUT, why)
