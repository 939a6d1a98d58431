"""The host's listening side: accept, keep the :class:`~p2p_koikoi.net.door.Door`, admit one guest.

Each connection's admission runs in a cancel scope of its own, which the door's eviction cancels:
a newcomer to a full door pushes out the oldest connection that has not greeted (the door's
docstring argues why), and the pushed-out connection is reset. So is a connection the door turns
away. A reset (TCP RST) is how the door says "busy": a guest tells it from the orderly close of a
refusal and knocks again (:mod:`p2p_koikoi.net.knock`, SPEC.md section 2). The first guest admitted
ends the listening; so does an admission that proves the peer at fault (:class:`Conclusive`).

Any ``trio.abc.Listener`` will do, so the policy is tested on memory streams too.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import struct
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

import trio

from p2p_koikoi.net.door import Conclusive, Door, DropKind, Dropped, Refused, Ticket, address_key
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.net.handshake import NotKoikoi
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["FD_PAUSE", "Admit", "Lobby", "reset"]

T = TypeVar("T")
FD_PAUSE = 0.5  # how long accepting pauses when the process is out of file descriptors
_OUT_OF_FILES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}

Admit = Callable[[FramedChannel, str, Callable[[], None]], Awaitable[T]]
"""Admit one connection: its channel, its peer's name, and ``greeted``, to call once its hello has
passed the guard (it raises when the door has no greeted slot for it)."""


def _drop_kind(exc: Exception) -> DropKind:
    if isinstance(exc, NotKoikoi):
        return DropKind.NOT_KOIKOI
    if isinstance(exc, Refused):
        return DropKind.REFUSED
    if isinstance(exc, TimedOut):
        return DropKind.TOO_SLOW
    if isinstance(exc, ConnectionLost):
        return DropKind.LEFT
    return DropKind.BROKE_PROTOCOL


class _TurnedAway(Exception):
    """The door had no room for this connection after all (raised where it greets)."""

    def __init__(self, kind: DropKind) -> None:
        super().__init__(kind.value)
        self.kind = kind


async def reset(stream: trio.abc.Stream) -> None:
    """Close abortively (TCP RST, SO_LINGER 0) where the stream is a socket: the door's "busy"."""
    if isinstance(stream, trio.SocketStream):
        with contextlib.suppress(OSError):
            stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    await trio.aclose_forcefully(stream)


class Lobby(Generic[T]):
    """One listening session: who is at the door, and the guest admitted (or the finding raised)."""

    def __init__(
        self,
        admit: Admit[T],
        door: Door,
        deadline: float,
        on_dropped: Callable[[Dropped], Awaitable[None]] | None,
        peer_of: Callable[[trio.abc.Stream], tuple[str, str]],
    ) -> None:
        """``peer_of`` gives a stream's peer host (for the door) and its name (for messages)."""
        self.admit = admit
        self.door = door
        self.deadline = deadline
        self.on_dropped = on_dropped
        self.peer_of = peer_of
        self.found: list[tuple[FramedChannel, T]] = []
        self.settled: list[Conclusive] = []  # an admission that ended the match instead
        self.scopes: dict[Ticket, trio.CancelScope] = {}

    async def run(self, listeners: Sequence[trio.abc.Listener[trio.abc.Stream]]) -> tuple[FramedChannel, T]:
        """Accept on every listener until a guest is admitted; return its channel and admission."""
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(self._accept_loop, listener, nursery)
        if self.settled:
            raise self.settled[0]
        return self.found[0]

    async def _drop(self, peer: str, reason: str, kind: DropKind) -> None:
        if self.on_dropped is not None:
            await self.on_dropped(Dropped(peer, reason, kind))

    async def _accept_loop(self, listener: trio.abc.Listener[trio.abc.Stream], nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in _OUT_OF_FILES:
                    raise
                await self._drop("?", f"out of file descriptors; pausing {FD_PAUSE:g} s", DropKind.NO_FILES)
                await trio.sleep(FD_PAUSE)
                continue
            await self._enter(stream, nursery)

    async def _enter(self, stream: trio.abc.Stream, nursery: trio.Nursery) -> None:
        """Let the newcomer in (pushing out whom the door says) or turn it away."""
        peer_host, peer = self.peer_of(stream)
        entered = self.door.enter(address_key(peer_host))
        if isinstance(entered, DropKind):
            await reset(stream)
            return await self._drop(peer, entered.value, entered)
        if entered.evicted is not None:
            self.scopes.pop(entered.evicted).cancel()
        scope = self.scopes[entered.ticket] = trio.CancelScope()
        nursery.start_soon(self._guest, stream, peer, entered.ticket, scope, nursery)

    async def _guest(
        self, stream: trio.abc.Stream, peer: str, ticket: Ticket, scope: trio.CancelScope, nursery: trio.Nursery
    ) -> None:
        channel = FramedChannel(stream)
        with scope:
            try:
                with trio.fail_after(self.deadline):
                    admitted = await self.admit(channel, peer, lambda: self._greet(ticket))
            except Exception as exc:
                return await self._failed(stream, peer, exc, nursery)
            finally:
                self.scopes.pop(ticket, None)
                self.door.leave(ticket)
            if self.found or self.settled:
                return await trio.aclose_forcefully(stream)
            self.found.append((channel, admitted))
            nursery.cancel_scope.cancel()
            return
        await reset(stream)  # pushed out by a newcomer while it had not greeted
        await self._drop(peer, "pushed out by a newer connection before it greeted", DropKind.EVICTED)

    def _greet(self, ticket: Ticket) -> None:
        refused = self.door.greet(ticket)
        if refused is not None:
            raise _TurnedAway(refused)

    async def _failed(self, stream: trio.abc.Stream, peer: str, exc: Exception, nursery: trio.Nursery) -> None:
        """Drop a connection whose admission failed; raise what is no failure of the guest's."""
        if isinstance(exc, Conclusive):  # before RemoteProtocolError: a fork is one too, but no garbage
            await trio.aclose_forcefully(stream)
            if not self.found and not self.settled:
                self.settled.append(exc)
                nursery.cancel_scope.cancel()
        elif isinstance(exc, _TurnedAway):
            await reset(stream)
            await self._drop(peer, exc.kind.value, exc.kind)
        elif isinstance(exc, trio.TooSlowError):
            await trio.aclose_forcefully(stream)
            await self._drop(peer, f"not admitted within {self.deadline:g} s", DropKind.TOO_SLOW)
        elif isinstance(exc, RemoteProtocolError | ConnectionLost | Refused):
            await trio.aclose_forcefully(stream)
            await self._drop(peer, str(exc), _drop_kind(exc))
        else:
            raise exc
