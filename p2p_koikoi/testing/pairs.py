"""Two peers playing one whole match through the real runner, over any pair of streams: the harness
every two-peer test shares (memory streams for the autojump clock, a trickle for a slow network).

Both sides greet, the host offers ``rules`` (with ``turn_limit``), and each runs :func:`run_match` with
its player; the result holds both reports and both sessions, so a test reads the chains, the outcome and
what each side was told.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest, greet_as_host
from p2p_koikoi.net.runner import MatchReport, Player, run_match
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import public_bytes

__all__ = ["PlayedPair", "match_pair"]


@dataclass(frozen=True)
class PlayedPair:
    """How a match between two peers ended: each side's report and session (index = seat)."""

    reports: tuple[MatchReport, MatchReport]
    sessions: tuple[MatchSession, MatchSession]

    @property
    def host(self) -> MatchReport:
        return self.reports[0]

    @property
    def guest(self) -> MatchReport:
        return self.reports[1]


async def match_pair(
    rules: RuleSet,
    players: tuple[Player, Player],
    *,
    streams: tuple[trio.abc.Stream, trio.abc.Stream] | None = None,
    turn_limit: int = 0,
) -> PlayedPair:
    """Play ``players`` (host first) against each other over ``streams`` (a memory stream pair by
    default) until both runs end."""
    a, b = streams if streams is not None else trio.testing.memory_stream_pair()
    channels = (FramedChannel(a), FramedChannel(b))
    keys = (Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate())
    reports: dict[int, MatchReport] = {}
    sessions: dict[int, MatchSession] = {}

    async def side(seat: int) -> None:
        channel, key = channels[seat], keys[seat]
        if seat == 0:
            greeting = await greet_as_host(channel, public_bytes(key))
            session = MatchSession(0, key, greeting.peer_key, greeting.nonces, rules=rules, turn_limit=turn_limit)
        else:
            greeting = await greet_as_guest(channel, public_bytes(key))
            session = MatchSession(1, key, greeting.peer_key, greeting.nonces)
        sessions[seat] = session
        reports[seat] = await run_match(channel, session, players[seat])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, 0)
        nursery.start_soon(side, 1)
    return PlayedPair((reports[0], reports[1]), (sessions[0], sessions[1]))
