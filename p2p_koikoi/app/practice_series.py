"""Practice matches against the bot on one connection: another each time the person wants one (issue 29).

Practice runs the network path a real match takes, so another match is offered the way a real opponent's
is (SPEC.md section 9): after a match played out both sides answer with ``rematch`` frames, the bot always
yes, within the same 30 s; on both yes the bot greets again with fresh nonces (a new match id), the person's
side offers the same rules and the bot takes them at once. Each match is a record of its own, in the person's
copy only (the bot keeps none, as for the first). The person's no, the timeout or a fault ends the series in
one line (:func:`~p2p_koikoi.app.series.parting_line`), in the result's notes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.netplay import NetMatchResult, admit_guest
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.series import Again, ask_both, greet, part, play_series, series_of, take_same_rules
from p2p_koikoi.bots.base import Agent
from p2p_koikoi.net.door import Refused
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.rematch import Series, Verdict
from p2p_koikoi.net.runner import Held, MatchReport, Player, run_match
from p2p_koikoi.record.writer import RecordWriter, record_name
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["BotSeat", "PersonSeat", "PlayOne"]

PlayOne = Callable[[FramedChannel, MatchSession, Player, RecordWriter, "Held | None"], Awaitable[MatchReport]]
_NOT_BEGUN = (ConnectionLost, RemoteProtocolError, Refused, OSError, trio.BrokenResourceError)


async def _yes(record: Path | None) -> bool:
    return True


@dataclass(frozen=True)
class BotSeat:
    """The bot's side (seat 1): it plays each match and says yes to the next, until the person parts.
    Whatever goes wrong between matches is the person's side's to tell: the bot just stops."""

    identity: Ed25519PrivateKey
    agent: Agent
    name: str

    async def play(self, channel: FramedChannel, session: MatchSession) -> None:
        series = series_of(session)
        while True:
            held = Held()
            await run_match(channel, session, BotPlayer(self.agent, 1), held=held)
            rules = session.rules
            if held.channel is None or rules is None:  # not played out: the runner closed the connection
                return
            greeting = await self._agreed(channel, session.match_id, series)
            if greeting is None:
                await part(channel)
                return
            session = MatchSession(1, self.identity, greeting.peer_key, greeting.nonces, name=self.name)
            try:
                await take_same_rules(channel, session, rules)
            except _NOT_BEGUN:
                with contextlib.suppress(*_NOT_BEGUN):
                    await channel.close()
                return

    @staticmethod
    async def _agreed(channel: FramedChannel, match_id: bytes, series: Series) -> Greeting | None:
        """Our yes and the person's; on both, the next match's greeting (ours first, as the guest's)."""
        if await ask_both(channel, match_id, _yes, None) is not Verdict.AGREED:
            return None
        greeting = await greet(channel, 1, series)
        return None if isinstance(greeting, str) else greeting


@dataclass(frozen=True)
class PersonSeat:
    """The person's side (seat 0, the host of the loopback connection): each match into a record of its own
    (``play_one`` plays it), then, with ``again``, the question of another."""

    identity: Ed25519PrivateKey
    player_for: Callable[[int], Player]
    directory: Path
    play_one: PlayOne
    again: Again | None
    say: Callable[[str], None]
    name: str | None

    async def play(self, channel: FramedChannel, session: MatchSession, result: NetMatchResult) -> NetMatchResult:
        """The first match on ``channel`` and each one after it; the last match's result, holding the others."""
        held = Held() if self.again is not None else None
        await self._one(channel, session, held, result)
        if held is None:
            return result

        async def played(channel: FramedChannel, session: MatchSession, last: NetMatchResult) -> NetMatchResult:
            earlier = [*last.earlier, last]
            result = NetMatchResult(None, None, last.our_fingerprint, last.peer_fingerprint, earlier=earlier)
            await self._one(channel, session, held, result)
            return result

        return await play_series(held, session, result, series_of(session), self._begin, played, self.say)

    async def _begin(
        self, channel: FramedChannel, session: MatchSession, series: Series, record: Path | None
    ) -> MatchSession | Verdict | str:
        """The next match, begun (the same rules offered and accepted); else why not."""
        assert self.again is not None and session.rules is not None  # a match played out had rules
        verdict = await ask_both(channel, session.match_id, self.again, record)
        if verdict is not Verdict.AGREED:
            return verdict
        greeting = await greet(channel, 0, series)
        if isinstance(greeting, str):
            return greeting
        try:
            return await admit_guest(channel, greeting, self.identity, session.rules, session.turn_limit, self.name)
        except _NOT_BEGUN as exc:
            return f"the next match did not begin: {exc}"

    async def _one(
        self, channel: FramedChannel, session: MatchSession, held: Held | None, result: NetMatchResult
    ) -> None:
        started = time.time()

        def name() -> str:
            rules = session.rules
            return record_name(started, session.keys, rules.preset if rules is not None else "unknown", session.seat)

        # No master secret beside the record, unlike host and join: it is kept only to resume after a
        # crash, and the bot, living in this process, cannot be resumed with.
        record = RecordWriter(self.directory, name, seat=0, software=SOFTWARE)
        try:
            result.report = await self.play_one(channel, session, self.player_for(0), record, held)
        finally:
            record.close()
            result.record = record.path
