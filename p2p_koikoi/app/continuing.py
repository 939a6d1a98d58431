"""Keeping a match going across dropped connections: reconnect, resume, play on.

When the connection breaks (or goes silent), the guest dials the host again,
backing off between tries, and the host listens again on its port; both run the
resume handshake and the match continues where it stopped. The player hears of
it as it happens: "connection lost, retrying (58 s)..." within two seconds of
the silence, then "connection back". A peer that does not come back within the
grace (counted from the last bytes heard, and no longer than its patience when it
owes the next entry) loses by its silence (SPEC.md section 6): we write what we
owe (the game's move for a decision), then our signed claim of its silence wins
the match, marked as claimed, and we wait one more grace for its answer (its owed
entry, or ``here``), which voids the claim, and play goes on. The private secret
beside the record stays only while the match can go on (unfinished, or adjourned:
``koikoi resume`` takes it up again); every other ending, a win by our own claim
included, removes it.

A peer whose signed resume proof shows its copy forked from ours (:class:`~p2p_koikoi.net.resume.Fork`)
ends the match as its violation: no goodbye is written (the proof is the peer's own signature), a note
in the record keeps that proof as evidence, and the secret goes (:func:`settle_fork`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.spray_again import Spray, spray_again
from p2p_koikoi.net.countdown import Countdown
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.punch import simultaneous_open
from p2p_koikoi.net.resume import Fork, resume_as_guest, resume_as_host
from p2p_koikoi.net.runner import Held, MatchReport, Player, default_action, run_match
from p2p_koikoi.net.tcp import Address, Dropped, dial_raw, listen_raw
from p2p_koikoi.net.timing import RECONNECTING, FloorClock, Timing
from p2p_koikoi.net.turn import Allocation, TurnError
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession, SessionEnd, Waiting
from p2p_koikoi.wire import RemoteProtocolError
from p2p_koikoi.wire.bodies import EntryKind

__all__ = ["GRACE", "Reconnect", "can_resume", "never_started", "play_on", "settle_fork", "started"]

GRACE = RECONNECTING.reconnect_grace
RESUME_FLOOR = 5.0  # seconds a peer past its patience still gets to come back and answer a claim
_ALONE_MOVES = 16  # the most decisions in a row one seat can owe (a play, a take, a Koi-Koi call, ...)
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)
ONE_SOCKET = 40.0  # seconds a punch again holds one socket (one initial sequence number): see _punch_again


@dataclass(frozen=True, slots=True)
class Reconnect:
    """How to find the peer again: the guest dials ``address``; the host listens on ``port``. When the host
    dialled the guest in the first place (the reverse connection), it is so again: the host dials ``back``
    (the addresses of the guest's answer code) and the guest, ``reverse``, listens on ``port``. A connection
    a hole punch made is punched again, from both sides at once (``punch``), and made no other way: two
    ways at once could resume two connections, each side keeping another. A sprayed one is sprayed again
    (``spray``, :mod:`p2p_koikoi.app.spray_again`), and made no other way either. A relayed one is relayed again:
    the host dials the relayed address (its ``back``), the guest accepts on its allocation (``relay``)."""

    seat: int
    address: Address | None = None
    port: int = 0
    bind: str | None = None
    grace: float = GRACE
    back: tuple[Address, ...] = ()
    reverse: bool = False
    punch: tuple[int, tuple[str, int]] | None = None  # a punched connection: our STUN port, the peer's candidate
    relay: Allocation | None = None  # a relayed connection, the guest's side: the allocation to accept on
    spray: Spray | None = None  # a sprayed connection: sprayed again, each side as the first time

    @property
    def timing(self) -> Timing:
        return dataclasses.replace(RECONNECTING, reconnect_grace=self.grace)


def settle_fork(fork: Fork, session: MatchSession, record: RecordWriter | None) -> MatchReport:
    """End the match on a fork the peer's resume proof shows: the peer's violation, found outside any
    entry. The record gets what the chain holds, then a note with the peer's signed proof as evidence
    (for a third party to check against the record with the peer's key), and the secret goes: a forked
    match is over for good. The player is yet to be told (``session.take_events()``)."""
    session.caught_outside(fork)
    if record is not None:
        record.sync(session.chain.entries)
        record.note(fork.reason, fork.blame, str(fork), fork.evidence)
        record.forget_secret()
    return MatchReport(SessionEnd.VIOLATION, fork, str(fork), 0, 0, len(session.chain.entries))


def started(session: MatchSession) -> bool:
    """Whether the match began: the guest accepted the host's rules (the chain's second entry). Before
    that there is nothing to take up again: the host holds no record of it, and offers the guest a new one."""
    entries = session.chain.entries
    return len(entries) >= 2 and entries[1].entry.kind == EntryKind.ACCEPT


def can_resume(session: MatchSession) -> bool:
    """Whether ``koikoi resume`` can still take this match up: begun (the rules accepted) and unfinished, or
    adjourned (either player may take it up again, at any time). A claim of silence is not: once its answer
    did not come in time, the claimant's match is over."""
    return started(session) and (session.waiting is not Waiting.DONE or session.resumable)


def never_started(session: MatchSession, record: RecordWriter | None, reason: str) -> None:
    """The run stops before the guest accepted the rules (Ctrl-C at the rules box, the host gone, a cancelled
    run): the match never began. It is declined if it still can be (our signed ``decline``, for ``reason``,
    goes into the record; the connection is gone or going, so the host may never see it, and needs not: it
    keeps no record of a match not accepted), and the record keeps no secret: it is plainly a declined
    match, never one to resume or to rejoin (``netplay._play`` then removes it: no match, no record)."""
    if started(session):
        return
    if session.waiting is Waiting.ACCEPT:
        session.decline(reason)
    if record is not None:
        with contextlib.suppress(OSError):  # on the way out of an error: what can be written is
            record.sync(session.chain.entries)
            record.commit()
        record.forget_secret()


async def _guest_again(plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey) -> FramedChannel:
    assert plan.address is not None
    attempt = 0
    while True:
        try:
            channel = await dial_raw(plan.address, timeout=5)
            try:
                await resume_as_guest(channel, session, identity)
            except Fork:  # the host forked: it is told nothing more
                await channel.close()
                raise
            return channel
        except ConnectionLost:
            await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1


async def _host_again(
    plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey, say: Callable[[str], None]
) -> FramedChannel:
    """The host after a drop: it listens on its port again for the guest, which sends ``resume`` first."""
    return await _listen_again(plan, say, lambda channel: resume_as_host(channel, session, identity, welcome=True))


async def _listen_again(
    plan: Reconnect, say: Callable[[str], None], resume: Callable[[FramedChannel], Awaitable[object]]
) -> FramedChannel:
    """Listen on the plan's port until a connection ``resume`` accepts (it raises for any other: the door
    drops that one and says so, and listening goes on); the old socket may hold the port a moment."""

    async def admit(channel: FramedChannel, peer: str) -> str:
        await resume(channel)
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
    give_up_at: float,
) -> FramedChannel | None:
    """A new connection to the peer, resumed; None when ``give_up_at`` (Trio time) came first."""
    if give_up_at == math.inf:
        say("Waiting for the opponent to come back...")
    else:
        say(Countdown("Waiting for the opponent to come back ({seconds} s left)...", give_up_at, trio.current_time()))
    with trio.move_on_at(give_up_at):
        if plan.spray is not None:
            return await spray_again(plan.spray, plan.seat, session, identity)
        if plan.punch is not None:
            return await _punch_again(plan.punch, plan.seat, session, identity)
        if plan.relay is not None:
            return await _relayed_again(plan.relay, session, identity)
        if plan.seat == 1 and plan.reverse:
            return await _guest_listens_again(plan, session, identity, say)
        if plan.seat == 1:
            return await _guest_again(plan, session, identity)
        if plan.back:
            return await _host_dials_again(plan, session, identity)
        return await _host_again(plan, session, identity, say)
    return None


async def _punch_again(
    punch: tuple[int, tuple[str, int]], seat: int, session: MatchSession, identity: Ed25519PrivateKey
) -> FramedChannel:
    """A punched match after a drop: both sides punch again from the same local ports to the same
    candidates (the NATs map them as before), and resume; the guest sends ``resume`` first.

    Each try holds one socket for :data:`ONE_SOCKET` s, its SYN retransmitted by the kernel, rather than
    a new socket every few seconds as the first punch does: the four addresses and ports are those of
    the connection that broke, a reset leaves each NAT's entry for it closing (10 s on Linux), and a NAT
    that meanwhile made an entry from the new SYNs (a carrier's, in front of a home router) refuses SYNs
    with another initial sequence number for that entry's whole life, longer than the reconnect grace.
    Measured (``bench/reach.py --cut``): back 11.9 s after a reset at the home router behind a carrier's
    NAT, where new sockets never got back; 11.9 s for two home NATs (10.6 s with new sockets)."""
    local_port, peer = punch
    attempt = 0
    while True:
        try:
            until = trio.current_time() + ONE_SOCKET
            stream = await simultaneous_open(local_port, peer, deadline=until, attempt=ONE_SOCKET)
        except OSError:
            await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1
            continue
        channel = FramedChannel(stream)
        if seat == 1:
            resumed = await _resumed(channel, lambda c: resume_as_guest(c, session, identity))
        else:
            resumed = await _resumed(channel, lambda c: resume_as_host(c, session, identity, welcome=True))
        if resumed is not None:
            return resumed


async def _relayed_again(relay: Allocation, session: MatchSession, identity: Ed25519PrivateKey) -> FramedChannel:
    """A relayed match's guest after a drop: the host dials the relayed address again (it is among the
    addresses it dials back); the guest accepts the connection the server announces, and resumes."""
    while True:
        try:
            stream, _peer = await relay.accept()
        except TurnError:  # the relay is gone: nothing to wait for but the end of the grace
            await trio.sleep_forever()
            raise
        channel = FramedChannel(stream)
        resumed = await _resumed(channel, lambda c: resume_as_guest(c, session, identity))
        if resumed is not None:
            return resumed


async def _guest_listens_again(
    plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey, say: Callable[[str], None]
) -> FramedChannel:
    """The reverse connection's guest after a drop: it listens on its port, as when the host first dialled
    it, and resumes with whoever proves to be the host (the resume checks the keys the match holds)."""
    return await _listen_again(plan, say, lambda channel: resume_as_guest(channel, session, identity))


async def _host_dials_again(plan: Reconnect, session: MatchSession, identity: Ed25519PrivateKey) -> FramedChannel:
    """The reverse connection's host after a drop: it dials the guest's answer-code addresses again, backing
    off, and resumes; the guest sends ``resume`` first, as it does whoever dialled."""
    attempt = 0
    while True:
        for address in plan.back:
            try:
                channel = await dial_raw(address, timeout=5)
            except ConnectionLost:
                continue
            resumed = await _resumed(channel, lambda c: resume_as_host(c, session, identity, welcome=True))
            if resumed is not None:
                return resumed
        await trio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
        attempt += 1


async def _resumed(
    channel: FramedChannel, resume: Callable[[FramedChannel], Awaitable[object]]
) -> FramedChannel | None:
    """``channel`` once ``resume`` took it up; None when it broke or lied (it is dropped, and the caller
    tries again). A fork the peer's proof shows ends the match: it is raised, and the peer told nothing."""
    try:
        await resume(channel)
    except Fork:
        await channel.close()
        raise
    except (ConnectionLost, RemoteProtocolError):
        await trio.aclose_forcefully(channel.stream)
        return None
    return channel


def _give_up_at(plan: Reconnect, session: MatchSession, floor: FloorClock, lost_at: float | None) -> float:
    """When to stop waiting for the peer: the reconnect grace from when it was last heard (from now after a
    crash), and no later than the end of its patience when it owes the next entry: that patience counts
    across every drop and resume, so dropping the connection again and again buys it nothing."""
    start = trio.current_time() if lost_at is None else lost_at
    give_up = start + plan.grace if plan.grace > 0 else math.inf
    if session.waiting is Waiting.PEER:
        patience = plan.timing.peer_patience(session.turn_limit, session.peer_decides)
        give_up = min(give_up, max(floor.deadline(session.referee.owed_since, patience), start + RESUME_FLOOR))
    return give_up


async def play_on(
    channel: FramedChannel | None,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    record: RecordWriter | None,
    plan: Reconnect,
    say: Callable[[str], None],
    held: Held | None = None,
) -> MatchReport:
    """Play the match to its end, reconnecting within ``plan.grace`` seconds whenever the connection drops.
    With ``held``, the connection of a match played out is handed back there, open (see :func:`run_match`).

    ``channel`` None means: reconnect first (``koikoi resume`` after a crash). A guest whose run stops before
    it accepted the rules, however it stops (Ctrl-C, the host gone), leaves a declined record with no
    secret (:func:`never_started`).
    """
    try:
        return await _play_on(channel, session, identity, player, record, plan, say, held)
    except BaseException:
        never_started(session, record, "the player left before accepting the rules")
        raise


async def _play_on(
    channel: FramedChannel | None,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    record: RecordWriter | None,
    plan: Reconnect,
    say: Callable[[str], None],
    held: Held | None,
) -> MatchReport:
    lost_at: float | None = None
    sent = received = 0  # over every connection of this run, for the closing line

    def counted(report: MatchReport) -> MatchReport:
        return dataclasses.replace(
            report, bytes_sent=sent + report.bytes_sent, bytes_received=received + report.bytes_received
        )

    floor = FloorClock()  # a peer that reconnects does not get its decision time again
    claimed_at: float | None = None  # when we claimed the gone peer's silence: it may still come back and answer
    while True:
        if channel is None:
            give_up_at = _give_up_at(plan, session, floor, lost_at) if claimed_at is None else claimed_at + plan.grace
            try:
                channel = await _come_back(plan, session, identity, say, give_up_at)
            except Fork as fork:  # the peer came back with a copy that forks from ours, and signed it
                report = settle_fork(fork, session, record)
                await player.notify(session.take_events())
                return counted(report)
            if channel is None and claimed_at is None:
                report = await _give_up(session, player, record, plan)
                if _our_claim_stands(session) and plan.grace > 0:
                    claimed_at = trio.current_time()
                    say(f"The match is yours by the opponent's silence (claimed); it has {plan.grace:g} s to answer.")
                    continue
                return counted(_closed(report, session, record))
            if channel is None:
                return counted(_closed(report, session, record))
            if session.waiting is Waiting.PEER:
                floor.resumed(session.referee.owed_since)
            say("Connection back; the match goes on.")
        try:
            report = await run_match(
                channel, session, player, record, reconnect=True, notice=say, floor=floor, timing=plan.timing, held=held
            )
        except RemoteProtocolError as exc:  # a resume that could not be joined (a fork, another match)
            session.peer_vanished(str(exc))
            raise
        if report.ended_by is not SessionEnd.DISCONNECTED or session.waiting is Waiting.DONE:
            if record is not None and not can_resume(session):
                record.forget_secret()
            return counted(report)
        if not started(session):  # no accepted match: the host keeps nothing of it, nor do we
            never_started(session, record, "the host was gone before the rules were accepted")
            raise ConnectionLost("the connection closed before the match began")
        lost_at = report.lost_at
        sent, received = sent + report.bytes_sent, received + report.bytes_received
        channel = None


def _our_claim_stands(session: MatchSession) -> bool:
    end = session.ending
    return end is not None and end.claimed and end.seat == session.seat and session.ending_refutable


def _closed(report: MatchReport, session: MatchSession, record: RecordWriter | None) -> MatchReport:
    """The run is over for good: the secret goes unless the match can be taken up again (adjourned)."""
    if record is not None and not can_resume(session):
        record.forget_secret()
    return report


async def _give_up(session: MatchSession, player: Player, record: RecordWriter | None, plan: Reconnect) -> MatchReport:
    """The peer did not come back in time. Silence loses (SPEC.md section 6): what we owe is written first
    (the game's move for a decision, as when a time limit runs out), then our signed claim of the peer's
    silence wins the match for us, marked as claimed. A guest that had not accepted the rules declines."""
    text = f"the opponent did not come back within {plan.grace:g} s"
    if session.waiting is Waiting.ACCEPT:
        session.decline("the host was gone before the rules were accepted")
    for _ in range(_ALONE_MOVES):
        if session.waiting is not Waiting.MOVE:
            break
        session.submit(default_action(session.legal_actions()))
    session.peer_vanished(text)
    if record is not None:
        record.sync(session.chain.entries)
        record.commit()
    await player.notify(session.take_events())
    ended = session.ended_by or SessionEnd.DISCONNECTED
    return MatchReport(ended, None, session.end_text, 0, 0, len(session.chain.entries))
