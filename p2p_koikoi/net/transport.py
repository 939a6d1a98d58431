"""Where listening and connecting end up: real TCP sockets, unless a test installs another transport.

Every listen and dial of the match's own connection (the first one and every reconnect, host or guest:
:mod:`~p2p_koikoi.net.tcp`) opens its listeners and its connections through :data:`TRANSPORT`. The program
never sets it, so it is TCP (:func:`transport`). A test sets it, for the trio run of one test, to an in-memory network
(``p2p_koikoi.testing.network``): then the whole program above, the door, the greeting, the resume and the
reconnect backoff, runs unchanged on trio's virtual clock, and an outage of a minute and a half costs no
wall time. This is the seam trio itself offers for sockets (``trio.socket.set_custom_socket_factory``),
one level up, at streams, since a fake TCP socket is far more than a test needs.
"""

from __future__ import annotations

import socket
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

import trio

__all__ = ["TRANSPORT", "Opened", "TcpTransport", "Transport", "transport"]


@dataclass(frozen=True, slots=True)
class Opened:
    """A listener, and the host and port it listens on."""

    listener: trio.abc.Listener[trio.abc.Stream]
    host: str
    port: int


class Transport(Protocol):
    """Listeners and connections: what :mod:`~p2p_koikoi.net.tcp` needs of a network."""

    async def open_listeners(self, port: int, host: str | None) -> list[Opened]:
        """Listen on ``port`` (0: any free one) of ``host`` (None: every address); OSError when taken."""
        ...

    async def connect(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        """One connection to ``host``:``port``; OSError (refused, unreachable...) as a socket raises it."""
        ...

    def peer_of(self, stream: trio.abc.Stream) -> tuple[str, int] | None:
        """A stream's peer host and port; None when it cannot tell."""
        ...


class TcpTransport:
    """Real TCP over the machine's sockets: what the program always uses."""

    async def open_listeners(self, port: int, host: str | None) -> list[Opened]:
        listeners = await trio.open_tcp_listeners(port, host=host)
        out = []
        for listener in listeners:
            bound_host, bound_port = listener.socket.getsockname()[:2]
            out.append(Opened(listener, str(bound_host), int(bound_port)))
        return out

    async def connect(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = trio.socket.socket(family, socket.SOCK_STREAM)
        try:
            await sock.connect((host, port))
        except BaseException:
            sock.close()
            raise
        return trio.SocketStream(sock)

    def peer_of(self, stream: trio.abc.Stream) -> tuple[str, int] | None:
        if not isinstance(stream, trio.SocketStream):
            return None
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:
            return None
        return str(host), int(port)


TRANSPORT: ContextVar[Transport | None] = ContextVar("TRANSPORT", default=None)
_TCP = TcpTransport()


def transport() -> Transport:
    """The transport of this trio run: the one a test installed in :data:`TRANSPORT`, else TCP."""
    return TRANSPORT.get() or _TCP
