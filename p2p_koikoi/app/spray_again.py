"""A sprayed match after a drop: the birthday spray again, then the resume.

A match whose connection a birthday spray made (:mod:`p2p_koikoi.net.spray`: exactly one of the two NATs
maps each destination to a new port) cannot be dialled again, nor punched: the side whose NAT maps anew
has no port the other can aim at. So both sides spray again, each in the part it played the first time:
the side behind the endpoint-dependent NAT holds connections open to the other's punch candidate (the
mapping of its STUN port, kept by its NAT as before); the other guesses at the first side's ports from
that STUN port, in rounds, until one meets. Over the first connection that meets, the guest sends
``resume`` first, as it does however the connection was made.

A spray can make several connections at once (several guesses hit). The guest resumes over one at a
time, so the host hears ``resume`` on one connection only and both keep the same one; the others are
closed when it wins. A fork that a resume shows ends the spray and is raised, as on any connection.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.resume import Fork, resume_as_guest, resume_as_host
from p2p_koikoi.net.spray import SPRAY_FOR, open_many, probe_many
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["SPRAY_AGAIN_FOR", "Spray", "spray_again"]

PAUSE = 0.5  # seconds between two rounds of guesses, or two holds of connections that all failed
HOLD_FOR = 4 * SPRAY_FOR  # seconds one hold of connections lasts (40 s: several rounds of the other's guesses)
SPRAY_AGAIN_FOR = 600.0  # the longest a drop is sprayed for (the reconnect grace, 60 s, ends it far sooner)


@dataclass(frozen=True, slots=True)
class Spray:
    """How a sprayed connection was made, from our side: ``peer`` is the other side's punch candidate
    (its STUN mapping); ``guess_from`` is our STUN port when we guessed at its ports (our NAT keeps one
    port), None when we held connections open to ``peer`` (our NAT maps each destination anew)."""

    peer: tuple[str, int]
    guess_from: int | None = None


async def spray_again(spray: Spray, seat: int, session: MatchSession, identity: Ed25519PrivateKey) -> FramedChannel:
    """A connection to the peer made by the spray again, and resumed. Runs until one is, or the caller's
    deadline; a fork the peer's resume proof shows is raised. The spray itself stops after
    :data:`SPRAY_AGAIN_FOR` s even if the caller would wait longer: what it sends is bounded in time."""
    resumer = _Resumer(seat, session, identity)
    until = trio.current_time() + SPRAY_AGAIN_FOR
    while trio.current_time() < until:
        with trio.CancelScope() as resumer.scope:
            try:
                if spray.guess_from is None:
                    return await open_many(spray.peer, resumer.resume, deadline=trio.current_time() + HOLD_FOR)
                return await probe_many(
                    spray.guess_from, spray.peer[0], resumer.resume, deadline=trio.current_time() + SPRAY_FOR
                )
            except OSError:
                pass
        if resumer.fork is not None:
            raise resumer.fork
        await trio.sleep(PAUSE)
    await trio.sleep_forever()
    raise AssertionError("unreachable")


class _Resumer:
    """The resume over each connection the spray makes: one at a time on the guest's side."""

    def __init__(self, seat: int, session: MatchSession, identity: Ed25519PrivateKey) -> None:
        self.seat = seat
        self.session = session
        self.identity = identity
        self.one_at_a_time = trio.Lock()
        self.fork: Fork | None = None
        self.scope = trio.CancelScope()

    async def resume(self, stream: trio.SocketStream) -> FramedChannel:
        channel = FramedChannel(stream)
        try:
            if self.seat == 1:
                async with self.one_at_a_time:
                    await resume_as_guest(channel, self.session, self.identity)
            else:
                await resume_as_host(channel, self.session, self.identity, welcome=True)
        except Fork as fork:
            self.fork = fork
            self.scope.cancel()
            await channel.close()
            raise
        except (ConnectionLost, RemoteProtocolError):
            await trio.aclose_forcefully(stream)
            raise
        return channel
