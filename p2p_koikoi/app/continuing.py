"""Keeping a match going across dropped connections: reconnect, resume, play on.

When the connection breaks (or goes silent), the guest dials the host again,
backing off between tries, and the host listens again on its port; both run the
resume handshake and the match continues where it stopped. A peer that does
not come back within the grace period has forfeited: our signed ``goodbye``
says so and the record keeps everything.
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
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["GRACE", "Reconnect", "play_on"]

GRACE = 60.0
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True, slots=True)
class Reconnect:
    """How to find the peer again: the guest dials ``address``; the host listens on ``port``."""

    seat: int
    address: Address | None = None
    port: int = 0
    bind: str | None = None
    grace: float = GRACE


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
    sent = received = 0  # over every connection of this run, for the closing line

    def counted(report: MatchReport) -> MatchReport:
        return dataclasses.replace(
            report, bytes_sent=sent + report.bytes_sent, bytes_received=received + report.bytes_received
        )

    while True:
        if channel is None:
            say(f"Waiting for the opponent to come back (up to {plan.grace:g} s)...")
            with trio.move_on_after(plan.grace if plan.grace > 0 else math.inf):
                if plan.seat == 1:
                    channel = await _guest_again(plan, session, identity)
                else:
                    channel = await _host_again(plan, session, identity, say)
            if channel is None:
                session.peer_vanished(f"the opponent did not come back within {plan.grace:g} s")
                if record is not None:
                    record.sync(session.chain.entries)
                    record.commit()
                await player.notify(session.take_events())
                return counted(MatchReport("peer-vanished", None, session.end_text, 0, 0, len(session.chain.entries)))
            say("Reconnected; the match goes on.")
        try:
            report = await run_match(channel, session, player, record, reconnect=True)
        except RemoteProtocolError as exc:  # a resume that could not be joined (a fork, another match)
            session.peer_vanished(str(exc))
            raise
        if report.ended_by != "disconnected" or session.waiting is Waiting.DONE:
            if record is not None and session.waiting is Waiting.DONE:
                record.forget_secret()
            return counted(report)
        say(f"Connection lost ({report.text}); reconnecting for up to {plan.grace:g} s...")
        sent, received = sent + report.bytes_sent, received + report.bytes_received
        channel = None
