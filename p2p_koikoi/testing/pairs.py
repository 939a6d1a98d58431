"""Two peers playing one whole match through the real runner, over any pair of streams: the harness
every two-peer test shares (memory streams for the autojump clock, a trickle for a slow network).

Both sides greet, the host offers ``rules`` (with ``turn_limit``), and each runs :func:`run_match` with
its player; the result holds both reports and both sessions, so a test reads the chains, the outcome and
what each side was told. A :class:`Side` brings more where a test needs it: a session of its own making, a
tampering channel, a record, a cheater that lingers (``testing.adversary.duel`` is such a pair).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest, greet_as_host
from p2p_koikoi.net.runner import MatchReport, Player, run_match
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import RemoteProtocolError, public_bytes

__all__ = ["PlayedPair", "Side", "match_pair"]


@dataclass
class Side:
    """One side of a pair when a test needs more than its player.

    ``session``: a session the test built (both sides then bring one, and nobody greets: the keys and
    nonces are theirs); ``channel`` wraps the side's stream (a tampering channel); ``run`` holds more of
    :func:`run_match`'s keyword arguments (a record, deadlines, the timing); with ``linger`` the side's
    own troubles are kept in ``errors`` rather than raised, and after its run it keeps the connection up,
    answering keepalives, as a peer that stopped writing but did not hang up."""

    player: Player
    session: MatchSession | None = None
    channel: Callable[[trio.abc.Stream], FramedChannel] = FramedChannel
    run: dict[str, Any] = field(default_factory=dict)
    linger: bool = False
    errors: list[BaseException] = field(default_factory=list)


@dataclass(frozen=True)
class PlayedPair:
    """How a match between two peers ended: each side's report and session (index = seat). A side's
    report is None when the pair stopped at the other's end (``until``) before its own run ended."""

    reports: tuple[MatchReport | None, MatchReport | None]
    sessions: tuple[MatchSession, MatchSession]

    @property
    def host(self) -> MatchReport:
        return _ended(self.reports[0])

    @property
    def guest(self) -> MatchReport:
        return _ended(self.reports[1])


def _ended(report: MatchReport | None) -> MatchReport:
    assert report is not None, "this side's run had not ended when the pair stopped"
    return report


async def _linger(channel: FramedChannel) -> None:
    """Keep the connection up after the run, answering keepalives, until the other side hangs up."""
    while True:
        try:
            frame = await channel.receive()
        except (ConnectionLost, RemoteProtocolError):
            return
        if frame is None:
            return
        await channel.keepalive(frame)


async def _tick(step: float) -> None:
    """A timer always a ``step`` away: the autojump clock then moves at most ``step`` at a time, and never
    leaps past work done in a worker thread (a record written to disk) to a far deadline."""
    while True:
        await trio.sleep(step)


async def match_pair(
    rules: RuleSet,
    players: tuple[Player | Side, Player | Side],
    *,
    streams: tuple[trio.abc.Stream, trio.abc.Stream] | None = None,
    turn_limit: int = 0,
    until: int | None = None,
    tick: float | None = None,
) -> PlayedPair:
    """Play ``players`` (host first; a :class:`Side` where a test needs more) against each other over
    ``streams`` (a memory stream pair by default) until both runs end, or, with ``until``, until that
    seat's run ends (the other is then cancelled). ``tick`` (virtual seconds): see :func:`_tick`, for a
    pair on the autojump clock whose sides wait on threads while no timer of theirs is near."""
    host, guest = (p if isinstance(p, Side) else Side(p) for p in players)
    sides = (host, guest)
    sessions: list[MatchSession | None] = [sides[0].session, sides[1].session]
    assert sessions.count(None) in (0, 2), "both sides bring a session, or neither does"
    ends = streams if streams is not None else trio.testing.memory_stream_pair()
    channels = (sides[0].channel(ends[0]), sides[1].channel(ends[1]))
    reports: list[MatchReport | None] = [None, None]

    async def greeted(seat: int) -> MatchSession:
        channel, key = channels[seat], Ed25519PrivateKey.generate()
        if seat == 0:
            greeting = await greet_as_host(channel, public_bytes(key))
            return MatchSession(0, key, greeting.peer_key, greeting.nonces, rules=rules, turn_limit=turn_limit)
        greeting = await greet_as_guest(channel, public_bytes(key))
        return MatchSession(1, key, greeting.peer_key, greeting.nonces)

    async def play(seat: int, done: trio.CancelScope) -> None:
        side, channel = sides[seat], channels[seat]
        session = sessions[seat]
        if session is None:
            session = sessions[seat] = await greeted(seat)
        try:
            reports[seat] = await run_match(channel, session, side.player, **side.run)
        except Exception as exc:
            if not side.linger:
                raise
            side.errors.append(exc)
        if seat == until:
            done.cancel()
        elif side.linger:
            await _linger(channel)

    async with trio.open_nursery() as nursery:
        if tick is not None:
            nursery.start_soon(_tick, tick)
        async with trio.open_nursery() as pair:
            pair.start_soon(play, 0, nursery.cancel_scope)
            pair.start_soon(play, 1, nursery.cancel_scope)
        nursery.cancel_scope.cancel()  # both ran to their end: the tick stops too
    first, second = sessions
    assert first is not None and second is not None
    return PlayedPair((reports[0], reports[1]), (first, second))
