"""The peer runner: a :class:`MatchSession` on a :class:`FramedChannel`, with a player and a record.

Three tasks share one nursery:

- the *receiver* reads frames: entries go to the session (and the record),
  pings get a pong, and silence past ``dead_after`` seconds (or a closed or
  broken connection) ends the match as the peer's;
- the *pinger* sends a ping every ``keepalive`` seconds, so an idle but healthy
  peer is never taken for a dead one;
- the *driver* sends what the session wrote, tells the player what happened,
  and asks it for a decision when the session waits for one (within the turn
  limit, if the match has one). Waiting for the peer, it allows the peer's
  player its turn limit (plus a grace) and an automatic step ``step_deadline``
  seconds; past that the peer has forfeited. If the match ends while the
  player decides (the peer left, or the connection broke), the decision is
  called off, so a person is told at once instead of after their move.

A person may leave at any time: the player raises :class:`PlayerQuit` from
``choose`` (or ``accept_rules``, which declines), or, while the peer holds the
floor, sets its ``quit_requested`` event (see :class:`Leaving`). The runner then
ends the match with :meth:`MatchSession.quit`, whose goodbye forfeits it, tells
the peer, and goes into the record like any other entry.

A player that shows the table between its decisions (a person's screen) may
also implement :class:`Watching`: the runner then hands it the seat's view
whenever the table it sees has changed, after the events that changed it, so
it can show the deal and the opponent's turn before it is asked anything.

Whatever happens, the record keeps every entry up to the last good one, and a
finding (a cheat, a broken connection) is written into it as a note.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import trio

from p2p_koikoi.engine import AnyAction, MatchContext, Round, RuleSet
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession, SessionEvent, Waiting
from p2p_koikoi.wire import Ping, Pong, RemoteProtocolError, SignedEntry

__all__ = ["Leaving", "MatchReport", "Player", "PlayerQuit", "Watching", "run_match"]


class Player(Protocol):
    """Who decides for our seat: a person at the table or a bot."""

    async def accept_rules(self, rules: RuleSet) -> bool: ...

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction: ...

    async def notify(self, events: list[SessionEvent]) -> None: ...


class PlayerQuit(Exception):
    """Raised by a player's ``choose`` or ``accept_rules`` to leave the match; the message says why."""


@runtime_checkable
class Leaving(Protocol):
    """A player who can ask to leave while the peer holds the floor (a person at the table), by
    setting this event; the runner watches it and quits the match for them."""

    quit_requested: trio.Event


@runtime_checkable
class Watching(Protocol):
    """A player who watches the table between decisions: ``see`` gets each new view of our seat
    (a copy), after the ``notify`` of the events that led to it."""

    def see(self, view: Round) -> None: ...


@dataclass(frozen=True, slots=True)
class MatchReport:
    """How a match run ended, for the command to print."""

    ended_by: str
    failure: RemoteProtocolError | None
    text: str
    bytes_sent: int
    bytes_received: int
    entries: int


async def run_match(
    channel: FramedChannel,
    session: MatchSession,
    player: Player,
    record: RecordWriter | None = None,
    *,
    keepalive: float = 5.0,
    dead_after: float = 20.0,
    step_deadline: float = 60.0,
    reconnect: bool = False,
) -> MatchReport:
    """Play until the match ends, or, with ``reconnect``, until the connection is lost: then the
    report says ``disconnected`` and the session is left as it was, to be resumed."""
    wake_send, wake_receive = trio.open_memory_channel[None](math.inf)
    lost: list[str] = []

    def connection_lost(text: str) -> None:
        lost.append(text)
        if not reconnect:
            session.peer_vanished(text)
        wake()

    quit_requested = player.quit_requested if isinstance(player, Leaving) else None
    choosing: list[trio.CancelScope] = []  # the player's decision in progress, if any

    def wake() -> None:
        """Tell the driver the session moved; if the match ended under a decision, call the decision off."""
        wake_send.send_nowait(None)
        if session.waiting is Waiting.DONE:
            for scope in choosing:
                scope.cancel()

    dirty_send, dirty_receive = trio.open_memory_channel[None](math.inf)

    def sync_record() -> None:
        """Write new entries now (flushed: a killed process loses nothing) and have them fsynced soon."""
        if record is not None and record.written < len(session.chain.entries):
            record.sync(session.chain.entries)
            dirty_send.send_nowait(None)

    async def committer() -> None:
        """fsync in a worker thread, batching what piled up meanwhile, so sending never waits on the disk.
        (A crash can still lose the newest of our entries from our copy; the peer holds them, and a
        resumed match takes them back from it, so nothing is re-signed differently.)"""
        assert record is not None
        while True:
            await dirty_receive.receive()
            while True:
                try:
                    dirty_receive.receive_nowait()
                except trio.WouldBlock:
                    break
            await trio.to_thread.run_sync(record.commit)

    async def receiver() -> None:
        while True:
            try:
                frame = await channel.receive(idle=dead_after)
            except ConnectionLost as exc:
                connection_lost(str(exc))
                return
            except RemoteProtocolError as exc:
                _note_failure(exc, b"")
                wake()
                return
            if frame is None:
                if session.waiting is not Waiting.DONE:
                    connection_lost("the peer closed the connection")
                else:
                    wake()
                return
            if isinstance(frame, Ping):
                with contextlib.suppress(ConnectionLost):
                    await channel.send(Pong(frame.n))
                continue
            if isinstance(frame, Pong):
                continue
            if not isinstance(frame, SignedEntry):
                _note_failure(RemoteProtocolError("bad-frame", "a second hello in the match"), b"")
                wake()
                return
            if session.waiting is Waiting.DONE:
                return
            try:
                session.receive(frame)
            except RemoteProtocolError as exc:
                sync_record()
                if record is not None and not _in_chain(session, frame):
                    record.note(exc.reason, exc.blame, str(exc), frame.data + frame.signature)
                elif record is not None:
                    record.note(exc.reason, exc.blame, str(exc))
                wake()
                return
            sync_record()
            wake()

    def _note_failure(exc: RemoteProtocolError, evidence: bytes) -> None:
        if session.failure is None and session.waiting is not Waiting.DONE:
            session.failure = exc
            session.peer_vanished(str(exc))
        if record is not None:
            record.note(exc.reason, exc.blame, str(exc), evidence)

    async def pinger() -> None:
        n = 0
        while True:
            await trio.sleep(keepalive)
            n += 1
            try:
                await channel.send(Ping(n))
            except ConnectionLost:
                return

    async def flush() -> None:
        outgoing = session.take_outgoing()
        sync_record()
        for signed in outgoing:
            try:
                await channel.send(signed)
            except ConnectionLost as exc:
                connection_lost(str(exc))
                return

    async def decide() -> None:
        waiting = session.waiting
        if waiting is Waiting.ACCEPT:
            assert session.rules is not None
            accepted = False
            with trio.CancelScope() as asking:
                choosing.append(asking)
                try:
                    accepted = await player.accept_rules(session.rules)
                except PlayerQuit as exc:
                    session.decline(str(exc) or "the player left")
                    return
                finally:
                    choosing.remove(asking)
            if session.waiting is not Waiting.ACCEPT:
                return  # the host left while the player read the rules
            if accepted:
                session.accept()
            else:
                session.decline("the player declined the rules")
            return
        view = session.view()
        assert view is not None
        legal = session.legal_actions()
        match = session.match
        points = (match.points[0], match.points[1]) if match is not None else (0, 0)
        assert session.rules is not None
        context = MatchContext(session.rules, session.seat, points, session.round_number)
        limit = session.turn_limit or math.inf
        action = legal[0]  # played for the player if the turn limit passes
        with trio.CancelScope() as asking:
            choosing.append(asking)
            try:
                with trio.move_on_after(limit):
                    action = await player.choose(view, legal, context)
            except PlayerQuit as exc:
                session.quit(str(exc) or "the player left")
                return
            finally:
                choosing.remove(asking)
        if session.waiting is Waiting.MOVE:  # not if the match ended while the player chose
            session.submit(action)

    async def peer_or_quit() -> None:
        """Wait for a wake-up from the receiver, or for the player to ask to leave."""
        if quit_requested is None:
            await wake_receive.receive()
            return
        async with trio.open_nursery() as race:

            async def first(wait: Callable[[], Awaitable[object]]) -> None:
                await wait()
                race.cancel_scope.cancel()

            race.start_soon(first, wake_receive.receive)
            race.start_soon(first, quit_requested.wait)

    watching = player if isinstance(player, Watching) else None
    shown: list[object] = [None]

    def show_table() -> None:
        """Hand a watching player our seat's view when what it shows has changed."""
        rnd = session.round
        if watching is None or rnd is None:
            return
        key = (id(rnd), rnd.public_state(), rnd.hands[session.seat])
        if key != shown[0]:
            shown[0] = key
            watching.see(rnd.copy())

    async def driver() -> None:
        while True:
            if quit_requested is not None and quit_requested.is_set():
                session.quit("the player left")
            await flush()
            events = session.take_events()
            if events:
                await player.notify(events)
            show_table()
            waiting = session.waiting
            if waiting is Waiting.DONE or (lost and reconnect):
                return
            if waiting is Waiting.PEER:
                patience = _patience(session, step_deadline)
                with trio.move_on_after(patience) as scope:
                    await peer_or_quit()
                if scope.cancelled_caught:
                    what = "decide" if session.peer_decides else "take its protocol step"
                    session.peer_vanished(f"the peer did not {what} within {patience:g} s")
                    continue
                while True:  # take every wake-up queued, then look again
                    try:
                        wake_receive.receive_nowait()
                    except trio.WouldBlock:
                        break
                continue
            await decide()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(receiver)
        nursery.start_soon(pinger)
        if record is not None:
            nursery.start_soon(committer)
        await driver()
        await flush()
        nursery.cancel_scope.cancel()
    await player.notify(session.take_events())
    if record is not None:
        record.sync(session.chain.entries)
        record.commit()
    await channel.close()
    failure = session.failure
    text = str(failure) if failure else session.end_text or (lost[0] if lost else "")
    disconnected = bool(lost) and reconnect and session.waiting is not Waiting.DONE
    return MatchReport(
        ended_by="disconnected" if disconnected else session.ended_by or "unknown",
        failure=failure,
        text=text,
        bytes_sent=channel.bytes_sent,
        bytes_received=channel.bytes_received,
        entries=len(session.chain.entries),
    )


TURN_GRACE = 10.0


def _patience(session: MatchSession, step_deadline: float) -> float:
    """How long to wait for the peer's next entry: its player's turn limit (plus a grace for the
    network) when a person or bot decides, no limit when the match has none, and ``step_deadline``
    for an automatic step (keys, a secret), so a peer that stalls instead of revealing forfeits."""
    if session.peer_decides:
        return session.turn_limit + TURN_GRACE if session.turn_limit else math.inf
    return step_deadline


def _in_chain(session: MatchSession, signed: SignedEntry) -> bool:
    return any(e.data == signed.data for e in session.chain.entries[-3:])
