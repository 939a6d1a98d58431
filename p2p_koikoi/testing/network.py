"""An in-memory network for tests: listeners and connections as trio memory streams, on the virtual clock.

Installed for one trio run (:func:`memory_network`), it serves every listen and dial the program makes
through :mod:`~p2p_koikoi.net.transport`: the first connection and each reconnect, through the real door,
greeting and resume. Nothing touches a socket, so trio's autojump clock may skip every wait: a reconnect
grace of a minute, backoffs, an outage of a minute and a half. Ports are numbers in this network only.
``down`` refuses every connection, as a host whose link is down looks to a dialler.

>>> import trio, trio.testing
>>> async def main() -> bytes:
...     with memory_network() as net:
...         opened = await net.open_listeners(0, "127.0.0.1")
...         client = await net.connect("127.0.0.1", opened[0].port)
...         server = await opened[0].listener.accept()
...         await client.send_all(b"hello")
...         return bytes(await server.receive_some())
>>> trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
b'hello'
"""

from __future__ import annotations

import errno
import itertools
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import trio
import trio.testing

from p2p_koikoi.net.transport import TRANSPORT, Opened

__all__ = ["MemoryNetwork", "memory_network"]

_FIRST_PORT = 40000


class _Listener(trio.abc.Listener[trio.abc.Stream]):
    """One port's listener: connections arrive on a memory channel."""

    def __init__(self, network: MemoryNetwork, port: int) -> None:
        self.network = network
        self.port = port
        self._send, self._receive = trio.open_memory_channel[trio.abc.Stream](64)

    async def accept(self) -> trio.abc.Stream:
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise trio.ClosedResourceError("the listener is closed") from None

    async def aclose(self) -> None:
        self.network.ports.pop(self.port, None)
        await self._send.aclose()
        await self._receive.aclose()
        await trio.lowlevel.checkpoint()

    def arrive(self, stream: trio.abc.Stream) -> None:
        try:
            self._send.send_nowait(stream)
        except trio.WouldBlock:  # a full backlog refuses, as a socket's does
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused") from None


class MemoryNetwork:
    """Listeners by port, and connections between them as memory stream pairs (see the module)."""

    def __init__(self) -> None:
        self.ports: dict[int, _Listener] = {}
        self.down = False
        self._next = itertools.count(_FIRST_PORT)
        self._peers: weakref.WeakKeyDictionary[trio.abc.Stream, tuple[str, int]] = weakref.WeakKeyDictionary()
        self._callers = itertools.count(50000)

    async def open_listeners(self, port: int, host: str | None) -> list[Opened]:
        await trio.lowlevel.checkpoint()
        port = port or next(p for p in self._next if p not in self.ports)
        if port in self.ports:
            raise OSError(errno.EADDRINUSE, "Address already in use")
        listener = self.ports[port] = _Listener(self, port)
        return [Opened(listener, host or "127.0.0.1", port)]

    async def connect(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        await trio.lowlevel.checkpoint()
        listener = self.ports.get(port)
        if self.down or listener is None:
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        ours, theirs = trio.testing.memory_stream_pair()
        self._peers[theirs] = ("127.0.0.1", next(self._callers))  # its caller, as the listener names it
        listener.arrive(theirs)
        return ours

    def peer_of(self, stream: trio.abc.Stream) -> tuple[str, int] | None:
        return self._peers.get(stream)


@contextmanager
def memory_network() -> Iterator[MemoryNetwork]:
    """Install a :class:`MemoryNetwork` for the rest of this trio run's context (tasks started inside it
    inherit it); the previous transport comes back on leaving."""
    network = MemoryNetwork()
    token = TRANSPORT.set(network)
    try:
        yield network
    finally:
        TRANSPORT.reset(token)
