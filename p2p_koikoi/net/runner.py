"""The peer runner: a :class:`MatchSession` on a :class:`FramedChannel`, with a player and a record.

One :class:`_Run` holds the state of a run as attributes; its tasks share one nursery:

- the *receiver* reads frames: entries go to the session (and the record),
  pings get a pong, and a closed or broken connection, or silence past
  ``dead_after`` seconds, ends the run;
- the *pinger* sends a ping every ``keepalive`` seconds, so a live peer is heard
  from (its pongs) even when nobody writes;
- the *silence watch* tells the player "connection lost, retrying (N s)..." once
  nothing was heard for ``quiet_after`` seconds, and "back" when frames come again;
- the *driver* sends what the session wrote, tells the player what happened, and
  asks it for a decision when the session waits for one. It sleeps on one
  re-armed :class:`trio.Event` (``wake``), which the receiver, a lost connection
  and a person's wish to leave set.

Deadlines all come from one :class:`~p2p_koikoi.net.timing.Timing`. Waiting for
the peer, the driver allows the peer's player the match's decision time limit
plus a grace (with no limit, no end), an automatic step ``step_deadline``
seconds, counted across every connection (:class:`~p2p_koikoi.net.timing.FloorClock`).
Then our player is offered the claim of the peer's silence (claim, wait on, or
adjourn; a bot, or a person who answers nothing within ``claim_countdown``,
claims): :meth:`MatchSession.peer_stalled` when the peer's player held a
decision on a live connection, else :meth:`MatchSession.peer_vanished`. Silence
loses: the claim wins the match for us, marked as claimed, and we stay
``claim_linger`` seconds for the peer's answer (its owed entry, or ``here``),
which voids the claim, and play goes on. Our own player has the time limit
too: past it, the runner plays the first legal action for it. A player whose
``choose`` takes a ``deadline`` keyword (a person's table: it shows a countdown,
and knows a decision cut at the deadline was the game's) gets the Trio time by
which it must decide.
If the match ends while the player decides (the peer left, or the connection
broke), the decision is called off, so a person is told at once.

A person may leave at any time: the player raises :class:`PlayerQuit` from
``choose`` (or ``accept_rules``, which declines), or, while the peer holds the
floor, sets its ``quit_requested`` event (see :class:`Leaving`). The runner then
ends the match with :meth:`MatchSession.quit`, whose goodbye forfeits it; with no
decision time limit, leaving while the peer owes the next entry adjourns it
instead (:meth:`MatchSession.adjourn`: nobody wins, and it can be resumed).

A player that shows the table between its decisions may also be
:class:`Watching`: it is handed the seat's view whenever the table it sees has
changed, after the events that changed it.

Records go through :class:`~p2p_koikoi.net.record_sync.RecordSync` (a writer
thread, batched fsync, every entry durable before a secret of ours goes out).
Whatever happens, the record keeps every entry up to the last good one, and a
finding (a cheat, a broken connection) is written into it as a note.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import inspect
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast, runtime_checkable

import trio

from p2p_koikoi.engine import AnyAction, CallStop, MatchContext, Round, RuleSet
from p2p_koikoi.net.countdown import Countdown
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.record_sync import RecordFile, RecordSync
from p2p_koikoi.net.timing import RECONNECTING, FloorClock, Timing
from p2p_koikoi.referee.findings import BadBytes
from p2p_koikoi.session.match_session import MatchSession, SessionEnd, SessionEvent, Waiting
from p2p_koikoi.wire import Frame, Ping, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.frames import Rematch
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "ClaimChoice",
    "Claiming",
    "Held",
    "Leaving",
    "MatchReport",
    "Notice",
    "Player",
    "PlayerQuit",
    "Timing",
    "Watching",
    "run_match",
]

T = TypeVar("T")
Notice = Callable[[str], None]


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


class _Countdown(Protocol):
    """A player's ``choose`` that takes the decision's deadline: the :func:`trio.current_time` by which it
    must be made. When it passes, ``choose`` is cancelled and the runner plays ``default_action(legal)``
    (Shōbu at a decision); the move then comes in ``notify`` as usual (the player knows it was the
    game's: its deadline had passed)."""

    async def __call__(
        self, view: Round, legal: list[AnyAction], context: MatchContext, *, deadline: float | None = None
    ) -> AnyAction: ...


def _countdown(player: Player) -> _Countdown | None:
    """The player's ``choose`` if it takes a ``deadline`` keyword, else None (a bot needs none)."""
    try:
        takes = "deadline" in inspect.signature(player.choose).parameters
    except (TypeError, ValueError):
        return None
    return cast(_Countdown, player.choose) if takes else None


class ClaimChoice(enum.Enum):
    """What the waiting player does about a peer that owes the next entry and stays silent."""

    CLAIM = "claim"  # win the match by the peer's silence (a claim it may still refute)
    WAIT = "wait"  # give it another patience
    ADJOURN = "adjourn"  # leave the match to be taken up later: nobody wins


@runtime_checkable
class Claiming(Protocol):
    """A player who is asked before a claim of the peer's silence (a person at the table): ``offer_claim``
    gets what happened and the Trio time by which to answer (no answer claims)."""

    async def offer_claim(self, text: str, deadline: float) -> ClaimChoice: ...


@dataclass(frozen=True, slots=True)
class MatchReport:
    """How a match run ended, for the command to print: ``ended_by`` is the session's ending from our seat, or
    ``DISCONNECTED`` (the session left to be resumed) or ``UNKNOWN``. ``lost_at`` (a ``DISCONNECTED`` run only)
    is the Trio time bytes last came from the peer: the reconnect grace runs from it."""

    ended_by: SessionEnd
    failure: RemoteProtocolError | None
    text: str
    bytes_sent: int
    bytes_received: int
    entries: int
    lost_at: float | None = None


@dataclass
class Held:
    """Where the runner hands back the connection of a match played out instead of closing it: another match
    may follow on it (SPEC.md section 9), and closing it first would make that impossible."""

    channel: FramedChannel | None = None


async def run_match(
    channel: FramedChannel,
    session: MatchSession,
    player: Player,
    record: RecordFile | None = None,
    *,
    timing: Timing | None = None,
    reconnect: bool = False,
    notice: Notice | None = None,
    floor: FloorClock | None = None,
    keepalive: float | None = None,
    dead_after: float | None = None,
    step_deadline: float | None = None,
    held: Held | None = None,
    resumable: bool = True,
) -> MatchReport:
    """Play until the match ends, or, with ``reconnect``, until the connection is lost: then the
    report says ``disconnected`` and the session is left as it was, to be resumed.

    With ``held``, a match played out leaves the connection open, in ``held.channel``, for the question of
    another match; any other ending closes it as usual.

    ``timing`` defaults to :data:`~p2p_koikoi.net.timing.RECONNECTING` with ``reconnect``, else to
    :class:`Timing` (``keepalive``, ``dead_after`` and ``step_deadline`` override one figure each).
    ``notice`` gets the lines about the connection ("connection lost, retrying (58 s)...", "back").
    ``floor`` carries the time the peer held the floor over from an earlier connection of the match.
    ``resumable=False`` says nobody can take the match up again (a practice match: the bot lives in this
    process), so our player leaving forfeits it even where it would otherwise adjourn.
    """
    base = timing if timing is not None else RECONNECTING if reconnect else Timing()
    given = {"keepalive": keepalive, "dead_after": dead_after, "step_deadline": step_deadline}
    chosen = dataclasses.replace(base, **{k: v for k, v in given.items() if v is not None})
    async with RecordSync.open(record) as records:
        run = _Run(channel, session, player, records, chosen, reconnect, notice, floor or FloorClock())
        run.resumable = resumable
        await run.play()
    if held is not None and run.played_out:
        held.channel = channel
    else:
        await run.close()
    return run.report()


class _Run:
    """One run of a match over one connection (see the module docstring)."""

    def __init__(
        self,
        channel: FramedChannel,
        session: MatchSession,
        player: Player,
        records: RecordSync,
        timing: Timing,
        reconnect: bool,
        notice: Notice | None,
        floor: FloorClock,
    ) -> None:
        self.channel = channel
        self.session = session
        self.player = player
        self.records = records
        self.timing = timing
        self.reconnect = reconnect
        self.notice: Notice = notice if notice is not None else _quiet
        self.wake = trio.Event()  # re-armed by the driver before each look at the session
        self.lost: str | None = None  # why the connection is gone
        self.choosing: trio.CancelScope | None = None  # the player's decision in progress
        self.offered_at: int | None = None  # the owed point a claim offer in progress is about
        self.started = trio.current_time()
        self.silent = False  # the silence was announced
        self.back = trio.Event()  # set when a frame ends an announced silence
        self.floor = floor  # how long the peer has held the floor
        self.shown: object = None  # what a watching player last saw
        self.quit_requested = player.quit_requested if isinstance(player, Leaving) else None
        self.resumable = True  # leaving may adjourn (else it always forfeits)
        self.watching = player if isinstance(player, Watching) else None  # asked once: a costly check
        self.countdown = _countdown(player)

    async def play(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.receiver)
            nursery.start_soon(self.pinger)
            nursery.start_soon(self.silence_watch)
            if self.quit_requested is not None:
                nursery.start_soon(self.quit_watch, self.quit_requested)
            await self.driver()
            while await self.refuted_within(self.timing.claim_linger):
                await self.driver()
            await self.flush()
            nursery.cancel_scope.cancel()
        await self.player.notify(self.session.take_events())
        self.records.push(self.session.chain.entries)

    async def close(self) -> None:
        """After a graceful end, our EOF, then read (and drop) what the peer still sends until its EOF,
        for up to ``linger`` seconds; then close. A lost connection is closed at once."""
        if self.lost is None and self.session.waiting is Waiting.DONE:
            with trio.move_on_after(self.timing.linger), contextlib.suppress(*_CLOSING):
                stream = self.channel.stream
                if isinstance(stream, trio.abc.HalfCloseableStream):
                    await stream.send_eof()
                while await self.channel.receive() is not None:
                    pass
        await self.channel.close()

    @property
    def played_out(self) -> bool:
        """The match ended by its rules (both ``goodbye match-over``) and the connection is still good."""
        session = self.session
        return self.lost is None and session.waiting is Waiting.DONE and session.ended_by is SessionEnd.MATCH_OVER

    def report(self) -> MatchReport:
        session = self.session
        failure = session.failure
        disconnected = self.lost is not None and self.reconnect and session.waiting is not Waiting.DONE
        return MatchReport(
            ended_by=SessionEnd.DISCONNECTED if disconnected else session.ended_by or SessionEnd.UNKNOWN,
            failure=failure,
            text=str(failure) if failure else session.end_text or (self.lost or ""),
            bytes_sent=self.channel.bytes_sent,
            bytes_received=self.channel.bytes_received,
            entries=len(session.chain.entries),
            lost_at=self.heard_at if disconnected else None,
        )

    # ------------------------------------------------------------------ waking the driver

    def poke(self) -> None:
        """Tell the driver the session moved; if the match ended under a decision, call the decision off."""
        self.wake.set()
        if self.choosing is None:
            return
        moved = self.offered_at is not None and self.session.referee.owed_since != self.offered_at
        if self.session.waiting is Waiting.DONE or moved:
            self.choosing.cancel()  # the match ended, or the silent peer wrote after all: nothing to claim

    async def refuted_within(self, seconds: float) -> bool:
        """After our claim of the peer's silence, stay on the connection a while: a peer that is there
        answers at once, which voids the claim, and the match goes on (True)."""
        session = self.session
        end = session.ending
        if self.lost is not None or end is None or not end.claimed or end.seat != session.seat:
            return False
        self.wake = trio.Event()
        with trio.move_on_after(seconds):
            while session.waiting is Waiting.DONE and self.lost is None:
                await self.wake.wait()
                self.wake = trio.Event()
        return session.waiting is not Waiting.DONE

    async def quit_watch(self, quit_requested: trio.Event) -> None:
        await quit_requested.wait()
        self.poke()

    # ------------------------------------------------------------------ the connection

    async def receiver(self) -> None:
        while True:
            try:
                frame = await self.channel.receive(idle=self.timing.dead_after)
            except ConnectionLost as exc:
                self.connection_lost(str(exc))
                return
            except RemoteProtocolError as exc:
                self.fault(exc)
                return
            self.heard()
            if not await self.take(frame):
                return

    async def take(self, frame: Frame | None) -> bool:
        """Handle one frame; False when receiving is over."""
        if frame is None:
            if self.session.waiting is not Waiting.DONE:
                self.connection_lost("the peer closed the connection")
            self.poke()
            return False
        if await self.channel.keepalive(frame):
            return True
        if not isinstance(frame, SignedEntry):
            what = "a rematch frame" if isinstance(frame, Rematch) else "a second hello"  # SPEC.md section 9
            self.fault(RemoteProtocolError(ReasonId.BAD_FRAME, f"{what} in the middle of the match"))
            return False
        if self.session.waiting is Waiting.DONE and not self.session.ending_refutable:
            return False
        return self.take_entry(frame)

    def take_entry(self, signed: SignedEntry) -> bool:
        session = self.session
        try:
            session.receive(signed)
        except RemoteProtocolError as exc:
            self.record_withdrawals()
            self.records.push(session.chain.entries)
            if isinstance(exc, BadBytes):
                self.fault(exc, signed.data + signed.signature)
                return False
            evidence = b"" if _in_chain(session, signed) else signed.data + signed.signature
            self.records.note(exc.reason, exc.blame, str(exc), evidence)
            self.poke()
            return False
        self.record_withdrawals()
        self.records.push(session.chain.entries)
        self.poke()
        return True

    def record_withdrawals(self) -> None:
        """Our entries a crossing goodbye displaced stay in the record, followed by a note withdrawing them."""
        for place in self.session.take_withdrawals():
            self.records.withdraw(place)

    def fault(self, exc: RemoteProtocolError, evidence: bytes = b"") -> None:
        """Bad bytes from the peer (a garbage frame, a codec fault, an entry badly signed or linked): a broken
        connection, never an ending on its own (SPEC.md section 7). The record notes what came; the
        connection closes, and the match waits for the peer as after any drop."""
        self.records.note(exc.reason, exc.blame, str(exc), evidence)
        self.connection_lost(f"the peer sent bad bytes ({exc.reason}): {exc}")

    def connection_lost(self, text: str) -> None:
        """With reconnect, the run ends and the match waits to go on; without, the peer is gone for good:
        a claim of its silence when it owes the next entry (see :meth:`wait_for_peer` when we owe it)."""
        if self.lost is None:
            self.lost = text
            if self.reconnect and not self.silent and self.session.waiting is not Waiting.DONE:
                self.notice(self.retrying())
        if not self.reconnect:
            self.session.peer_vanished(text)
        self.poke()

    async def pinger(self) -> None:
        n = 0
        while True:
            await trio.sleep(self.timing.keepalive)
            n += 1
            try:
                await self.channel.send(Ping(n))
            except ConnectionLost:
                return

    @property
    def heard_at(self) -> float:
        """When bytes last came from the peer (a large frame on a slow link is no silence)."""
        received = self.channel.last_received
        return self.started if received is None else max(self.started, received)

    def heard(self) -> None:
        """A whole frame came: an announced silence is over."""
        if self.silent:
            self.silent = False
            self.back.set()
            self.notice("Connection back.")

    async def silence_watch(self) -> None:
        """Tell the player of a silence within ``quiet_after`` seconds of the last bytes, and of its end."""
        while True:
            await trio.sleep_until(self.heard_at + self.timing.quiet_after)
            if self.lost is not None:
                return  # the run is ending; the connection's loss was told
            if trio.current_time() < self.heard_at + self.timing.quiet_after:
                continue  # bytes came meanwhile
            self.silent = True
            self.back = trio.Event()
            self.notice(self.retrying())
            await self.back.wait()

    def retrying(self) -> Countdown:
        """ "Connection lost, retrying (58 s)...": the seconds left before the match is given up, counting
        down on a screen that redraws (a :class:`Countdown`)."""
        left = (self.timing.reconnect_grace if self.reconnect else self.timing.dead_after) + self.heard_at
        verb = "retrying" if self.reconnect else "waiting"
        return Countdown(f"Connection lost, {verb} ({{seconds}} s)...", left, trio.current_time())

    async def flush(self) -> None:
        """Send what the session wrote; one that reveals a secret waits until the record is on disk."""
        outgoing = self.session.take_outgoing()
        self.record_withdrawals()  # a crossing settled while resuming, before this run began
        self.records.push(self.session.chain.entries)
        for signed in outgoing:
            self.records.before_send(signed)
            try:
                await self.channel.send(signed)
            except ConnectionLost as exc:
                self.connection_lost(str(exc))
                return

    # ------------------------------------------------------------------ the driver

    async def driver(self) -> None:
        session = self.session
        while True:
            self.wake = trio.Event()
            if self.quit_requested is not None and self.quit_requested.is_set():
                self.leave()
            await self.flush()
            events = session.take_events()
            if events:
                await self.player.notify(events)
            self.show_table()
            waiting = session.waiting
            if waiting is Waiting.DONE or (self.lost is not None and self.reconnect):
                return
            if waiting is Waiting.PEER:
                await self.wait_for_peer()
            elif waiting is Waiting.ACCEPT:
                await self.decide_rules()
            else:
                await self.decide_move()

    def leave(self) -> None:
        """Our player leaves. With no decision time limit, while the peer owes the next entry, that adjourns
        the match (nobody wins; it can be taken up again): no limit on thinking must not trap the one who
        waits. Otherwise, or when the match cannot be resumed, leaving forfeits it."""
        session = self.session
        if session.ended_by is not None:
            return
        if self.resumable and not session.turn_limit and session.waiting is Waiting.PEER:
            session.adjourn("adjourned: the player left while the opponent was deciding")
        else:
            session.quit("the player left")

    async def wait_for_peer(self) -> None:
        """Sleep until woken, or, once the peer held the floor past its patience (counted across every
        connection of the match), offer our player the claim of its silence; a peer that is gone for good
        is claimed against at once."""
        session = self.session
        decides = session.peer_decides
        patience = self.timing.peer_patience(session.turn_limit, decides)
        if self.lost is None:
            referee = session.referee
            deadline = self.floor.deadline(
                referee.owed_since, patience, objected=referee.objected, grace=self.timing.turn_grace
            )
            with trio.move_on_at(deadline):
                await self.wake.wait()
                return
        why = "took no protocol step"
        if self.lost is not None:
            why = f"is gone ({self.lost})"
        elif decides:
            why = f"did not decide within {patience:g} s"
        choice = await self.offer_claim(f"the opponent {why}")
        if choice is ClaimChoice.WAIT:
            self.floor.extend(patience)
        elif choice is ClaimChoice.ADJOURN:
            session.adjourn(f"adjourned: the opponent {why}")
        elif decides and self.lost is None:
            session.peer_stalled(f"the opponent {why}")
        else:
            session.peer_vanished(f"the opponent {why}")

    async def offer_claim(self, text: str) -> ClaimChoice:
        """Our player's choice, when the peer owes and is silent: claim the match, wait on, or adjourn. A bot,
        or a person who answers nothing within ``claim_countdown`` seconds, claims."""
        offer = self.player.offer_claim if isinstance(self.player, Claiming) else None
        if offer is None:
            return ClaimChoice.CLAIM
        deadline = trio.current_time() + self.timing.claim_countdown
        self.offered_at = self.session.referee.owed_since
        try:
            choice = await self.ask(lambda: offer(text, deadline), deadline)
        finally:
            moved, self.offered_at = self.session.referee.owed_since != self.offered_at, None
        if moved or self.session.waiting is not Waiting.PEER:
            return ClaimChoice.WAIT  # it wrote after all: the match goes on
        return ClaimChoice.CLAIM if choice is None else choice

    async def ask(self, question: Callable[[], Awaitable[T]], deadline: float = math.inf) -> T | None:
        """The player's answer; None when the deadline passed or the match ended first."""
        with trio.CancelScope(deadline=deadline) as scope:
            self.choosing = scope
            try:
                return await question()
            finally:
                self.choosing = None
        return None

    async def decide_rules(self) -> None:
        session = self.session
        rules = session.rules
        assert rules is not None
        try:
            accepted = await self.ask(lambda: self.player.accept_rules(rules))
        except PlayerQuit as exc:
            session.decline(str(exc) or "the player left")
            return
        if session.waiting is not Waiting.ACCEPT:
            return  # the host left while the player read the rules
        if accepted:
            session.accept()
        else:
            session.decline("the player declined the rules")

    async def decide_move(self) -> None:
        session = self.session
        view, legal, context = session.view(), session.legal_actions(), self.context()
        assert view is not None
        limit = session.turn_limit
        deadline = trio.current_time() + limit if limit else math.inf
        countdown = self.countdown if limit else None
        try:
            if countdown is not None:
                action = await self.ask(lambda: countdown(view, legal, context, deadline=deadline), deadline)
            else:
                action = await self.ask(lambda: self.player.choose(view, legal, context), deadline)
        except PlayerQuit as exc:
            session.quit(str(exc) or "the player left")
            return
        if session.waiting is not Waiting.MOVE:
            return  # the match ended while the player chose
        session.submit(default_action(legal) if action is None else action)  # the time limit passed

    def context(self) -> MatchContext:
        session = self.session
        match = session.match
        points = (match.points[0], match.points[1]) if match is not None else (0, 0)
        assert session.rules is not None
        return MatchContext(session.rules, session.seat, points, session.round_number)

    def show_table(self) -> None:
        """Hand a watching player our seat's view when what it shows has changed."""
        rnd = self.session.round
        if self.watching is None or rnd is None:
            return
        key = (id(rnd), rnd.public_state(), rnd.hands[self.session.seat])
        if key != self.shown:
            self.shown = key
            self.watching.see(rnd.copy())


def default_action(legal: list[AnyAction]) -> AnyAction:
    """What the game plays for a player whose time ran out: Shōbu at a Koi-Koi decision (never a gamble
    nobody chose), else the first legal action."""
    return next((action for action in legal if isinstance(action, CallStop)), legal[0])


_CLOSING = (ConnectionLost, RemoteProtocolError, trio.BrokenResourceError, trio.ClosedResourceError)


def _quiet(_line: str) -> None:
    pass


def _in_chain(session: MatchSession, signed: SignedEntry) -> bool:
    return any(e.data == signed.data for e in session.chain.entries[-3:])
