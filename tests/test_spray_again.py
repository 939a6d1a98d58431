"""A sprayed match after a drop resumes over one connection of the many a spray makes, and a fork the
peer shows then ends it (:mod:`p2p_koikoi.app.spray_again`).

Over real loopback TCP: the guest sprays again as its NAT maps anew (256 connections held open to the
host's candidate), and here every one of them gets through, the most connections a spray can make at
once. The host resumes whichever connection hears ``resume``, as its side of the spray does. Both must
keep the same one, or each would close the other's and the match would drop again. The whole-match test,
through real NATs, is ``tests/test_spray.py``.
"""

from __future__ import annotations

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.spray_again import Spray, spray_again
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.resume import Fork, resume_as_host
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire.frames import Ping
from tests.test_resume_fork import HONEST, fork_by, length, played

GATHER = 8  # connections the host lets in before it answers any: the spray's many, all at once


class _Host:
    """The host's side of a spray made again: every connection that comes in is offered the resume once
    :data:`GATHER` are in; the first that completes it is kept, and the host stops listening."""

    def __init__(self, session: MatchSession, identity: Ed25519PrivateKey) -> None:
        self.session = session
        self.identity = identity
        self.kept: list[FramedChannel] = []
        self.connections = 0
        self.gathered = trio.Event()

    async def serve(self, listener: trio.SocketListener, done: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            while not done.is_set():
                stream = await listener.accept()
                self.connections += 1
                if self.connections >= GATHER:
                    self.gathered.set()
                nursery.start_soon(self._one, stream, done, nursery.cancel_scope)

    async def _one(self, stream: trio.SocketStream, done: trio.Event, scope: trio.CancelScope) -> None:
        channel = FramedChannel(stream)
        await self.gathered.wait()
        try:
            await resume_as_host(channel, self.session, self.identity, deadline=5, welcome=True)
        except Exception:
            await trio.aclose_forcefully(stream)
            return
        self.kept.append(channel)
        done.set()
        scope.cancel()


async def _sprayed_again(host: MatchSession, guest: MatchSession, keys: tuple[Ed25519PrivateKey, ...]) -> object:
    """The guest sprays again at the host on loopback; what ``spray_again`` returned or raised, and the host."""
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    served = _Host(host, keys[0])
    outcome: list[object] = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            done = trio.Event()
            nursery.start_soon(served.serve, listener, done)
            try:
                outcome.append(await spray_again(Spray(("127.0.0.1", port)), 1, guest, keys[1]))
            except Fork as fork:
                outcome.append(fork)
            done.set()
            nursery.cancel_scope.cancel()
    await listener.aclose()
    return outcome[0], served


async def test_of_the_many_connections_a_spray_makes_both_sides_keep_the_same_one() -> None:
    pair = played(HONEST, length(1, 12))
    got, served = await _sprayed_again(pair.host, pair.guest, pair.keys)
    assert isinstance(got, FramedChannel), got
    assert served.connections >= GATHER, "the spray made too few connections to choose between"
    assert len(served.kept) == 1, "the host resumed more than one connection"
    await got.send(Ping(7))  # what the guest sends on the connection it kept, the host reads on its own
    with trio.fail_after(5):
        assert await served.kept[0].receive() == Ping(7)
    await got.close()
    await served.kept[0].close()


async def test_a_host_that_forks_at_the_spray_again_is_caught_and_the_spray_ends() -> None:
    """The race behind the spray passes over a connection that failed and goes on; a fork is not such a
    failure: it is raised at once, blaming the host, rather than sprayed at until the grace runs out."""
    forked = fork_by(forker=0)
    got, _served = await _sprayed_again(forked.forker, forked.honest, forked.keys)
    assert isinstance(got, Fork), got
    assert (got.reason, got.blame) == ("fork", 0)
