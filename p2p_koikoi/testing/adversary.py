"""Cheating peers for tests: our own session with one step altered, against the honest program.

A cheater is built in one of two ways, and both produce *validly signed lies*:

- a :class:`~p2p_koikoi.session.match_session.MatchSession` subclass that overrides one of
  its seams (``new_deal`` to deal otherwise, ``_write`` to say something else than the honest
  session would, with ``sends_what_it_breaks`` set so that its own referee lets the lie out),
  so the lie is signed and linked in the cheater's own chain;
- an honest session whose entries a :data:`Tamper` alters in flight: replayed, forked, from
  another match, or re-signed (:func:`forge`) with the cheater's own key or another one.

:func:`duel` plays the honest program (:func:`~p2p_koikoi.net.runner.run_match` writing its
record with :class:`~p2p_koikoi.record.writer.RecordWriter`) against one cheater over a
memory stream pair, and reads the honest side's record back; keys, nonces and secrets come
from a seed, so a duel replays the same game every time. :func:`cheat_as_guest` is the
cheater's half alone, dialling a real ``koikoi host`` over loopback TCP.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.players import BotPlayer, event_lines
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import Phase, RuleSet
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest
from p2p_koikoi.net.runner import MatchReport, run_match
from p2p_koikoi.net.timing import Timing
from p2p_koikoi.record.reader import Record, read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.events import Failed, SessionEvent
from p2p_koikoi.session.match_session import MatchSession, Stage
from p2p_koikoi.testing.pairs import Side, match_pair
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.frames import Frame

__all__ = [
    "Duel",
    "RecordingPlayer",
    "Tamper",
    "TamperingChannel",
    "cheat_as_guest",
    "duel",
    "forge",
    "seeded_key",
    "signing_key",
]

Tamper = Callable[[SignedEntry], Sequence[Frame | bytes]]
"""What goes out in place of an entry: frames, or raw bytes sent as they are (garbage on the wire)."""
"""Given an entry the cheater is about to send, the frames it sends instead, in order."""

SessionFactory = Callable[..., MatchSession]


def seeded_key(label: str) -> Ed25519PrivateKey:
    """A reproducible identity key."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"p2p-koikoi adversary key " + label.encode()).digest())


def signing_key(session: MatchSession) -> Ed25519PrivateKey:
    """The session's own identity key: what a cheater signs its lies with."""
    return session.identity


def forge(signed: SignedEntry, key: Ed25519PrivateKey, **changes: Any) -> SignedEntry:
    """``signed`` with fields of its entry changed, signed again with ``key``: a validly signed lie when
    ``key`` is the author's own."""
    return SignedEntry.sign(dataclasses.replace(signed.entry, **changes), key)


class TamperingChannel(FramedChannel):
    """A framed channel that passes each outgoing entry through ``tamper`` (keepalives go untouched)."""

    def __init__(self, stream: trio.abc.Stream, tamper: Tamper | None) -> None:
        super().__init__(stream)
        self.tamper = tamper

    async def send(self, frame: Frame) -> None:
        if self.tamper is None or not isinstance(frame, SignedEntry):
            await super().send(frame)
            return
        for out in self.tamper(frame):
            if isinstance(out, bytes):
                await self.stream.send_all(out)
            else:
                await super().send(out)


class RecordingPlayer(BotPlayer):
    """A random bot that keeps every session event it was told, and the lines a person would read."""

    def __init__(self, seat: int, seed: int) -> None:
        super().__init__(RandomAgent(seed), seat)
        self.events: list[SessionEvent] = []
        self.lines: list[str] = []

    async def notify(self, events: list[SessionEvent]) -> None:
        self.events.extend(events)
        self.lines.extend(event_lines(events, self.seat))


@dataclass
class Duel:
    """How a duel ended, from the honest side: its report, its session, what it told its player,
    and its record read back from disk."""

    report: MatchReport
    honest: MatchSession
    cheater: MatchSession
    player: RecordingPlayer
    record: Record
    path: Path
    cheater_errors: list[BaseException] = field(default_factory=list)
    seen: list[tuple[int, Stage, Phase | None]] = field(default_factory=list)
    """For every entry the honest side received: its seq, and the honest stage and phase on arrival."""

    @property
    def caught_in(self) -> tuple[Stage, Phase | None]:
        """The honest side's stage (and the round's phase) when the last entry it received arrived."""
        _seq, stage, phase = self.seen[-1]
        return stage, phase

    @property
    def cheater_lie(self) -> SignedEntry:
        """The lie a cheating session signed (its ``lie_entry``)."""
        lie = getattr(self.cheater, "lie_entry", None)
        assert isinstance(lie, SignedEntry), "the cheater told no lie"
        return lie

    @property
    def failure(self) -> RemoteProtocolError:
        failure = self.report.failure
        assert failure is not None, f"the cheat went unnoticed: the match ended by {self.report.ended_by}"
        return failure

    @property
    def failed_lines(self) -> list[str]:
        """The :class:`Failed` events' text: the one line the player reads."""
        return [e.text for e in self.player.events if isinstance(e, Failed)]


async def duel(
    rules: RuleSet,
    directory: Path,
    *,
    cheater_seat: int = 1,
    cheater: SessionFactory = MatchSession,
    tamper: Callable[[MatchSession], Tamper] | None = None,
    seed: str = "duel",
    step_deadline: float = 60.0,
    dead_after: float = 20.0,
    timeout: float = 30.0,
    turn_limit: int = 0,
    timing: Timing | None = None,
) -> Duel:
    """Play the honest program against a cheater over a memory stream pair, and read the record back.

    The pair is :func:`~p2p_koikoi.testing.pairs.match_pair`'s, with sessions built from ``seed`` (no
    greeting), the honest side writing its record, and the cheater's side tampering and lingering.
    ``cheater`` builds the cheater's session (a subclass with one method overridden);
    ``tamper(cheater's session)`` returns the function that alters its entries in flight.
    Raises :class:`trio.TooSlowError` if the honest side has not ended the match after ``timeout``
    seconds (a hang is a failure too).
    """
    keys = (seeded_key(f"{seed}/0"), seeded_key(f"{seed}/1"))
    nonces = (hashlib.sha256(f"{seed}/nonce/0".encode()).digest(), hashlib.sha256(f"{seed}/nonce/1".encode()).digest())
    honest_seat = 1 - cheater_seat

    def build(factory: SessionFactory, seat: int) -> MatchSession:
        options: dict[str, Any] = {"master_secret": hashlib.sha256(f"{seed}/secret/{seat}".encode()).digest()}
        if seat == 0:
            options["rules"] = rules
            options["turn_limit"] = turn_limit
        return factory(seat, keys[seat], public_bytes(keys[1 - seat]), nonces, **options)

    honest = build(MatchSession, honest_seat)
    bad = build(cheater, cheater_seat)
    seen: list[tuple[int, Stage, Phase | None]] = []
    receive = honest.receive

    def watched(signed: SignedEntry) -> None:
        seen.append((signed.entry.seq, honest.stage, honest.round.phase if honest.round is not None else None))
        receive(signed)

    setattr(honest, "receive", watched)  # noqa: B010 - a spy on the instance; the program is unchanged
    record = RecordWriter(directory, lambda: "honest.koikoi", seat=honest_seat)
    player = RecordingPlayer(honest_seat, honest_seat + 1)
    pace: dict[str, Any] = (
        {"timing": timing} if timing is not None else {"step_deadline": step_deadline, "dead_after": dead_after}
    )
    sides = {
        honest_seat: Side(player, honest, run={"record": record, **pace}),
        cheater_seat: Side(  # a cheater that stopped writing keeps its connection up and answers keepalives
            RecordingPlayer(cheater_seat, cheater_seat + 1),
            bad,
            lambda stream: TamperingChannel(stream, tamper(bad) if tamper is not None else None),
            linger=True,
        ),
    }
    try:
        with trio.fail_after(timeout):  # the honest side writes its record in a thread: the clock ticks
            played = await match_pair(rules, (sides[0], sides[1]), until=honest_seat, tick=0.01)
    finally:
        record.close()
    assert record.path is not None
    report = played.reports[honest_seat]
    assert report is not None
    errors = sides[cheater_seat].errors  # the cheater's own troubles are not under test
    return Duel(report, honest, bad, player, read_record(record.path), record.path, errors, seen)


async def cheat_as_guest(
    port: int,
    key: Ed25519PrivateKey,
    *,
    cheater: SessionFactory = MatchSession,
    tamper: Callable[[MatchSession], Tamper] | None = None,
    seed: int = 2,
    host: str = "127.0.0.1",
) -> tuple[MatchSession, MatchReport | None]:
    """Dial a real host over TCP and play as a cheating guest: greet, then run the cheater's match.

    Returns the cheater's session and its report (None when its own runner gave up)."""
    stream = await trio.open_tcp_stream(host, port)
    channel = TamperingChannel(stream, None)
    greeting = await greet_as_guest(channel, public_bytes(key))
    session = cheater(1, key, greeting.peer_key, greeting.nonces)
    if tamper is not None:
        channel.tamper = tamper(session)
    try:
        report = await run_match(channel, session, RecordingPlayer(1, seed), dead_after=math.inf)
    except (ConnectionLost, RemoteProtocolError):
        return session, None
    return session, report
