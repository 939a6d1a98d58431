"""Keeping a match going across dropped connections: reconnect, resume, play on.

When the connection breaks (or goes silent), the guest dials the host again,
backing off between tries, and the host listens again on its port; both run the
resume handshake and the match continues where it stopped. The player hears of
it as it happens: "connection lost, retrying (58 s)..." within two seconds of
the silence, then "connection back". A peer that does not come back within the
grace (counted from the last bytes heard) leaves the match abandoned: our signed
``goodbye`` says so, the record keeps everything, and the private secret beside
it stays, so ``koikoi resume`` can take the match up again later. Every ending
that cannot be resumed removes the secret.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.resume import resume_as_guest, resume_as_host
from p2p_koikoi.net.runner import MatchReport, Player, run_match
from p2p_koikoi.net.tcp import Address, Dropped, dial_raw, listen_raw
from p2p_koikoi.net.timing import RECONNECTING, FloorClock, Timing
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.referee import Ending
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["GRACE", "Reconnect", "can_resume", "play_on"]

GRACE = RECONNECTING.reconnect_grace
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True, slots=True)
class Reconnect:
    """How to find the peer again: the guest dials ``address``; the host listens on ``port``."""

    seat: int
    address: Address | None = None
    port: int = 0
    bind: str | None = None
    grace: float = GRACE

    @property
    def timing(self) -> Timing:
        return dataclasses.replace(RECONNECTING, reconnect_grace=self.grace)


def can_resume(session: MatchSession) -> bool:
    """Whether ``koikoi resume`` can still take this match up: unfinished, or abandoned (a claim that a
    peer vanished or stalled, which proves nothing and so ends nothing for good)."""
    if session.waiting is not Waiting.DONE:
        return True
    return session.ending is not None and session.ending.how is Ending.ABANDONED


async def _guest_again(plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey) -> FramedChannel:
    assert plan.address is not None
    attempt = 0
    while True:
        try:
            channel = await dial_raw(plan.address, timeout=5)
            await resume_as_guest(channel, session, identity)
            return channel
        except ConnectionLost:
            await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1


async def _host_again(
    plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey, say: Callable[[str], None]
) -> FramedChannel:
    async def admit(channel: FramedChannel, peer: str) -> str:
        await resume_as_host(channel, session, identity)
        return peer

    async def dropped(item: Dropped) -> None:
        say(f"Dropped a connection from {item.peer}: {item.reason}")

    while True:
        try:
            channel, _ = await listen_raw(admit, port=plan.port, bind=plan.bind, on_dropped=dropped)
            return channel
        except OSError:  # the old socket may linger a moment; try again
            await trio.sleep(0.5)


async def _come_back(
    plan: Reconnect,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    say: Callable[[str], None],
    lost_at: float | None,
) -> FramedChannel | None:
    """A new connection to the peer, resumed; None when the grace ran out first. The grace runs from
    ``lost_at`` (when the peer was last heard), or from now after a crash (``koikoi resume``)."""
    if lost_at is None:
        say(f"Waiting for the opponent to come back (up to {plan.grace:g} s)...")
        lost_at = trio.current_time()
    with trio.move_on_at(lost_at + plan.grace if plan.grace > 0 else math.inf):
        if plan.seat == 1:
            return await _guest_again(plan, session, identity)
        return await _host_again(plan, session, identity, say)
    return None


async def play_on(
    channel: FramedChannel | None,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    record: RecordWriter | None,
    plan: Reconnect,
    say: Callable[[str], None],
) -> MatchReport:
    """Play the match to its end, reconnecting within ``plan.grace`` seconds whenever the connection drops.

    ``channel`` None means: reconnect first (``koikoi resume`` after a crash).
    """
    lost_at: float | None = None
    sent = received = 0  # over every connection of this run, for the closing line

    def counted(report: MatchReport) -> MatchReport:
        return dataclasses.replace(
            report, bytes_sent=sent + report.bytes_sent, bytes_received=received + report.bytes_received
        )

    floor = FloorClock()  # a peer that reconnects does not get its decision time again
    while True:
        if channel is None:
            channel = await _come_back(plan, session, identity, say, lost_at)
            if channel is None:
                return counted(await _abandon(session, player, record, plan))
            say("Connection back; the match goes on.")
        try:
            report = await run_match(
                channel, session, player, record, reconnect=True, notice=say, floor=floor, timing=plan.timing
            )
        except RemoteProtocolError as exc:  # a resume that could not be joined (a fork, another match)
            session.peer_vanished(str(exc))
            raise
        if report.ended_by != "disconnected" or session.waiting is Waiting.DONE:
            if record is not None and not can_resume(session):
                record.forget_secret()
            return counted(report)
        lost_at = report.lost_at
        sent, received = sent + report.bytes_sent, received + report.bytes_received
        channel = None


async def _abandon(session: MatchSession, player: Player, record: RecordWriter | None, plan: Reconnect) -> MatchReport:
    """The peer did not come back in time: our signed claim ends the run; the match stays resumable, so
    the secret beside the record stays too."""
    session.peer_vanished(f"the opponent did not come back within {plan.grace:g} s")
    if record is not None:
        record.sync(session.chain.entries)
        record.commit()
    await player.notify(session.take_events())
    return MatchReport("peer-vanished", None, session.end_text, 0, 0, len(session.chain.entries))
