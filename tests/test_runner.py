"""The runner's deadlines and its record, on trio memory streams and the autojump clock: a peer that
answers every ping but never decides is claimed against at the time limit plus the grace, not never;
an outage is told within two seconds and its end too; and every entry is on disk before an entry of
ours that reveals a secret is sent, through one writer thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence

import pytest
import trio
import trio.testing
from conftest import SHORT_LEMME
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import AnyAction, MatchContext, Round
from p2p_koikoi.net.countdown import Countdown
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.record_sync import RecordSync, reveals_secret
from p2p_koikoi.net.runner import ClaimChoice, MatchReport, Player, run_match
from p2p_koikoi.net.timing import MAX_RESUMES, RECONNECTING, FloorClock, Timing
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.testing.pairs import Side, match_pair
from p2p_koikoi.wire import Frame, Ping, Pong, SignedEntry, public_bytes

KEYS = (Ed25519PrivateKey.from_private_bytes(b"\x15" * 32), Ed25519PrivateKey.from_private_bytes(b"\x16" * 32))
NONCES = (b"\x17" * 32, b"\x18" * 32)
RULES = SHORT_LEMME


class Quick(BotPlayer):
    """Decides in the Trio thread after ``think`` mock seconds (a bot's worker thread would let the
    autojump clock run on while it thinks)."""

    def __init__(self, seat: int, think: float = 0.0) -> None:
        super().__init__(RandomAgent(seat + 1), seat)
        self.think = think

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        await trio.sleep(self.think)
        return self.agent.choose(view, legal, context)


def sessions(turn_limit: int = 0, host: type[MatchSession] = MatchSession) -> tuple[MatchSession, MatchSession]:
    return (
        host(0, KEYS[0], public_bytes(KEYS[1]), NONCES, rules=RULES, turn_limit=turn_limit, master_secret=b"\1" * 32),
        MatchSession(1, KEYS[1], public_bytes(KEYS[0]), NONCES, master_secret=b"\2" * 32),
    )


# -- the staller ----------------------------------------------------------------------------


class ClaimSpy(MatchSession):
    """Our own session, noting when (and why) the runner claims the peer stalled."""

    claims: list[tuple[float, str]]

    def peer_stalled(self, text: str) -> None:
        self.claims.append((trio.current_time(), text))
        super().peer_stalled(text)


async def stall(channel: FramedChannel, session: MatchSession, decision_due: list[float]) -> None:
    """A peer built from our session that writes every automatic entry and answers every ping, but never
    makes a decision; ``decision_due`` gets the moment its first decision fell due."""
    while True:
        if session.waiting is Waiting.ACCEPT:
            session.accept()
        for signed in session.take_outgoing():
            await channel.send(signed)
        if session.waiting is Waiting.MOVE and not decision_due:
            decision_due.append(trio.current_time())
        frame = await channel.receive()
        if frame is None:
            return
        if isinstance(frame, Ping):
            await channel.send(Pong(frame.n))
        elif isinstance(frame, SignedEntry) and session.waiting is not Waiting.DONE:
            session.receive(frame)


async def test_a_peer_that_never_decides_is_claimed_at_the_limit_plus_the_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    ours, theirs = sessions(turn_limit=30, host=ClaimSpy)
    assert isinstance(ours, ClaimSpy)
    ours.claims = []
    a, b = trio.testing.memory_stream_pair()
    due: list[float] = []
    reports: list[MatchReport] = []

    async def host() -> None:
        reports.append(await run_match(FramedChannel(a), ours, Quick(0)))

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(stall, FramedChannel(b), theirs, due)
    (report,) = reports
    limit_plus_grace = 30 + Timing().turn_grace
    assert due, "the staller never had a decision to make"
    # The staller's program answers the first claim with ``here`` (its player is still deciding), which buys
    # it one more grace; it may object once for each entry it owes, so the second claim stands.
    text = f"the opponent did not decide within {limit_plus_grace:g} s"
    first = due[0] + limit_plus_grace
    assert ours.claims == [(first, text), (first + Timing().turn_grace, text)]
    assert [e.entry.kind for e in ours.chain.entries[-3:]] == ["goodbye", "here", "goodbye"]
    assert report.text == text
    assert ours.ending is not None and ours.ending.claimed and ours.ending.winner == 0
    assert ours.waiting is Waiting.DONE
    # The staller holds the claim too: only its owed move, chained after it, could still void it.
    assert [e.data for e in theirs.chain.entries] == [e.data for e in ours.chain.entries]
    assert theirs.waiting is Waiting.MOVE


async def test_a_staller_that_reconnects_does_not_get_its_time_again(autojump_clock: trio.testing.MockClock) -> None:
    """The staller drops the connection 25 s into its decision and comes back 100 s later: the time it owed
    the decision counts across the drop, connected or not (a seat gone is as silent as one that writes
    nothing), so its patience was spent while it was away and the claim comes as soon as it is back."""
    ours, theirs = sessions(turn_limit=30, host=ClaimSpy)
    assert isinstance(ours, ClaimSpy)
    ours.claims = []
    floor = FloorClock()
    due: list[float] = []
    reports: list[MatchReport] = []

    async def host(stream: trio.abc.Stream) -> None:
        reports.append(await run_match(FramedChannel(stream), ours, Quick(0), reconnect=True, floor=floor))

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            a, b = trio.testing.memory_stream_pair()
            nursery.start_soon(host, a)
            with trio.move_on_after(25 + 1000) as first:
                async with trio.open_nursery() as staller:
                    staller.start_soon(stall, FramedChannel(b), theirs, due)
                    while not due:
                        await trio.sleep(0.5)
                    await trio.sleep_until(due[0] + 25)
                    staller.cancel_scope.cancel()
            assert not first.cancelled_caught
            await b.aclose()
            while not reports:
                await trio.sleep(1)
            await trio.sleep(100)
            a, b = trio.testing.memory_stream_pair()
            back = trio.current_time()
            nursery.start_soon(host, a)
            nursery.start_soon(stall, FramedChannel(b), theirs, due)
    assert reports[0].ended_by is SessionEnd.DISCONNECTED
    limit_plus_grace = 30 + RECONNECTING.turn_grace
    assert due[0] + limit_plus_grace < back
    # Claimed as soon as it is back; its program objects once (``here``), which buys one more grace only.
    assert [when for when, _ in ours.claims] == [back, back + RECONNECTING.turn_grace]


# -- an outage ------------------------------------------------------------------------------


class Link:
    """Two memory stream pairs joined by pumps that hold every byte while the link is down and deliver
    them when it is up again, as TCP does through a short outage."""

    def __init__(self) -> None:
        self.host_end, self._a = trio.testing.memory_stream_pair()
        self._b, self.guest_end = trio.testing.memory_stream_pair()
        self.up = trio.Event()
        self.up.set()

    def down(self) -> None:
        self.up = trio.Event()

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, self._a, self._b)
            nursery.start_soon(self._pump, self._b, self._a)

    async def _pump(self, source: trio.abc.Stream, sink: trio.abc.Stream) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while data := await source.receive_some(65536):
                await self.up.wait()
                await sink.send_all(data)
        await sink.aclose()


async def through_outage(start: float, length: float) -> tuple[list[MatchReport], list[list[tuple[float, str]]]]:
    """A match with reconnect on (no redial here: a run ends ``disconnected``) whose link goes down at
    ``start`` for ``length`` seconds; returns both reports and the notices each side was given."""
    link = Link()
    told: list[list[tuple[float, str]]] = [[], []]

    def side(seat: int, session: MatchSession) -> Side:
        def notice(line: str) -> None:
            told[seat].append((trio.current_time(), line))

        return Side(Quick(seat, think=1), session, run={"reconnect": True, "notice": notice})

    async def outage() -> None:
        await trio.sleep(start)
        link.down()
        await trio.sleep(length)
        link.up.set()

    host, guest = sessions()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(link.run)
        nursery.start_soon(outage)
        played = await match_pair(RULES, (side(0, host), side(1, guest)), streams=(link.host_end, link.guest_end))
        nursery.cancel_scope.cancel()
    return [played.host, played.guest], told


async def test_a_short_outage_is_told_within_two_seconds_and_its_end_too(
    autojump_clock: trio.testing.MockClock,
) -> None:
    start, length = 10.0, 3.0  # the silence (up to a ping interval more) is shorter than giving up
    assert length + RECONNECTING.keepalive < RECONNECTING.dead_after
    reports, told = await through_outage(start, length)
    assert [r.ended_by for r in reports] == [SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER]
    for notices in told:
        (lost, lost_text), (back, back_text) = notices
        assert start < lost <= start + RECONNECTING.quiet_after
        assert lost_text.startswith("Connection lost, retrying (") and lost_text.endswith(" s)...")
        assert (back, back_text) == (start + length, "Connection back.")


async def test_a_long_outage_gives_the_connection_up_and_the_grace_runs_from_the_silence(
    autojump_clock: trio.testing.MockClock,
) -> None:
    start = 10.0
    reports, told = await through_outage(start, 100.0)
    assert [r.ended_by for r in reports] == [SessionEnd.DISCONNECTED, SessionEnd.DISCONNECTED]
    for report, notices in zip(reports, told, strict=True):
        assert report.lost_at is not None and start - RECONNECTING.keepalive <= report.lost_at <= start
        (when, text), *_ = notices
        assert when == report.lost_at + RECONNECTING.quiet_after
        grace = RECONNECTING.reconnect_grace - RECONNECTING.quiet_after
        assert text == f"Connection lost, retrying ({grace:g} s)..."
        # the line counts down to the moment the connection is given up (issue 28 item 13)
        assert isinstance(text, Countdown)
        given_up = report.lost_at + RECONNECTING.reconnect_grace
        assert text.at(given_up - 30) == "Connection lost, retrying (30 s)..."
        assert text.at(given_up) == "Connection lost, retrying (0 s)..."
        assert len(notices) == 1  # told once, not again when the connection is given up


# -- the record: durable before a secret goes out ------------------------------------------


class Ledger:
    """A record that writes nothing but notes, in one shared log, each write and each fsync with how
    many entries it covers, and which threads did them."""

    def __init__(self, log: list[tuple[str, int]], *, fail: bool = False) -> None:
        self.log = log
        self.written = 0
        self.threads: set[int] = set()
        self.fail = fail

    def write(self, entries: Sequence[SignedEntry]) -> None:
        self.threads.add(threading.get_ident())
        if self.fail:
            raise OSError(28, "No space left on device")
        self.written += len(entries)
        self.log.append(("write", self.written))

    def commit(self) -> None:
        self.threads.add(threading.get_ident())
        threading.Event().wait(0.002)  # a disk takes its time
        self.log.append(("commit", self.written))

    def note(self, reason: str, blame: int | None, text: str, evidence: bytes = b"") -> None:
        self.log.append(("note", self.written))


class Watched(FramedChannel):
    """Notes every entry of ours it sends, in the same log: ("send", seq), or ("reveal", seq)."""

    def __init__(self, stream: trio.abc.Stream, log: list[tuple[str, int]], seat: int) -> None:
        super().__init__(stream)
        self.log, self.seat = log, seat

    async def send(self, frame: Frame) -> None:
        if isinstance(frame, SignedEntry) and frame.entry.author == self.seat:
            self.log.append(("reveal" if reveals_secret(frame) else "send", frame.entry.seq))
        await super().send(frame)


async def match_with_ledger(ledger: Ledger, log: list[tuple[str, int]]) -> MatchSession:
    host, guest = sessions()
    a, b = trio.testing.memory_stream_pair()
    players: tuple[Player, Player] = (Quick(0), Quick(1))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_match, Watched(a, log, 0), host, players[0], ledger)
        nursery.start_soon(run_match, FramedChannel(b), guest, players[1])
    return host


def reveals_not_durable(log: list[tuple[str, int]]) -> list[int]:
    """The seq of every Reveal of ours sent before all entries up to it were fsynced."""
    synced, early = 0, []
    for what, n in log:
        if what == "commit":
            synced = n
        elif what == "reveal" and synced < n + 1:
            early.append(n)
    return early


async def test_every_entry_is_on_disk_before_a_secret_of_ours_goes_out() -> None:
    log: list[tuple[str, int]] = []
    ledger = Ledger(log)
    host = await match_with_ledger(ledger, log)
    assert host.ended_by is SessionEnd.MATCH_OVER
    reveals = [n for what, n in log if what == "reveal"]
    assert len(reveals) >= 3, "every round's audit has a Reveal of ours"
    assert reveals_not_durable(log) == []
    assert log[-1] == ("commit", len(host.chain.entries))
    # One writer thread, never the Trio thread, and fewer fsyncs than entries.
    assert len(ledger.threads) == 1 and threading.get_ident() not in ledger.threads
    assert sum(1 for what, _ in log if what == "commit") < len(host.chain.entries)


async def test_the_durability_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the wait before a Reveal, the same log shows secrets sent ahead of the disk."""
    monkeypatch.setattr(RecordSync, "before_send", lambda self, signed: None)
    log: list[tuple[str, int]] = []
    await match_with_ledger(Ledger(log), log)
    assert reveals_not_durable(log)


async def test_a_record_that_cannot_be_written_stops_the_run_with_the_error() -> None:
    log: list[tuple[str, int]] = []
    with pytest.raises(BaseExceptionGroup) as caught:
        await match_with_ledger(Ledger(log, fail=True), log)
    assert caught.group_contains(OSError, match="No space left", depth=None)


async def test_reconnect_cycling_buys_a_staller_nothing(autojump_clock: trio.testing.MockClock) -> None:
    """A staller that drops the connection 2 s into each connection and is back 1 s later, 20 times over,
    as ``play_on`` would take it back each time (``FloorClock.resumed``): the time it owes counts across the
    drops, and after MAX_RESUMES resumes for one owed entry its patience is spent, so the claim comes no
    later than one patience plus the reconnect grace after its decision fell due, and well before the 20
    cycles are over."""
    ours, theirs = sessions(turn_limit=30, host=ClaimSpy)
    assert isinstance(ours, ClaimSpy)
    ours.claims = []
    floor = FloorClock()
    due: list[float] = []
    cycles = 0
    with trio.fail_after(3600):
        for cycles in range(1, 21):  # noqa: B007 - the count is read after the loop
            a, b = trio.testing.memory_stream_pair()
            if ours.waiting is Waiting.PEER and due:
                floor.resumed(ours.referee.owed_since)
            reports: list[MatchReport] = []

            async def host(stream: trio.abc.Stream = a, out: list[MatchReport] = reports) -> None:
                out.append(await run_match(FramedChannel(stream), ours, Quick(0), reconnect=True, floor=floor))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                async with trio.open_nursery() as staller:
                    staller.start_soon(stall, FramedChannel(b), theirs, due)
                    while not due:
                        await trio.sleep(0.5)
                    await trio.sleep(2)  # two seconds into its decision on this connection, it drops
                    staller.cancel_scope.cancel()
                await b.aclose()
            if ours.claims:
                break
            await trio.sleep(1)
    assert due and ours.claims, "the staller was never claimed against"
    patience = 30 + RECONNECTING.turn_grace
    assert ours.claims[0][0] <= due[0] + patience + RECONNECTING.reconnect_grace
    assert 1 < cycles <= MAX_RESUMES + 2, cycles
    assert ours.claims[0][0] < due[0] + patience  # its patience ran out by the resumes, not by the clock


class Offered(Quick):
    """A person who is offered the claim of a silent peer's match and answers nothing."""

    offers: list[float]

    async def offer_claim(self, text: str, deadline: float) -> ClaimChoice:
        self.offers.append(trio.current_time())
        await trio.sleep_until(deadline + 1000)
        raise AssertionError("the offer outlived its deadline")


async def late(channel: FramedChannel, session: MatchSession, delay: float) -> None:
    """A peer that takes ``delay`` seconds over its first decision, then plays on at once."""
    waited = False
    while session.waiting is not Waiting.DONE:
        if session.waiting is Waiting.ACCEPT:
            session.accept()
        for signed in session.take_outgoing():
            await channel.send(signed)
        if session.waiting is Waiting.MOVE:
            if not waited:
                waited = True
                await trio.sleep(delay)
            session.submit(session.legal_actions()[0])
        for signed in session.take_outgoing():
            await channel.send(signed)
        if session.waiting is Waiting.MOVE:
            continue
        frame = await channel.receive()
        if frame is None:
            return
        if isinstance(frame, Ping):
            await channel.send(Pong(frame.n))
        elif isinstance(frame, SignedEntry):
            session.receive(frame)


async def test_the_claim_offer_is_withdrawn_when_the_silent_peer_writes_after_all(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The peer's patience ran out, so our player is offered the claim; the peer moves during the offer's
    countdown: the offer is called off, nothing is claimed, and the match goes on."""
    ours, theirs = sessions(turn_limit=30, host=ClaimSpy)
    assert isinstance(ours, ClaimSpy)
    ours.claims = []
    player = Offered(0)
    player.offers = []
    a, b = trio.testing.memory_stream_pair()
    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: run_match(FramedChannel(a), ours, player, dead_after=10_000))
            patience = 30 + Timing().turn_grace
            await late(FramedChannel(b), theirs, patience + Timing().claim_countdown / 2)
            nursery.cancel_scope.cancel()
    assert player.offers, "the claim was never offered"
    assert ours.claims == []
    assert ours.ending is None or not ours.ending.claimed
