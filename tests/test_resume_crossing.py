"""A claim that crossed the accused's entries in flight, settled when the two resume (SPEC.md sections 6, 8).

The link dies with the accused seat's entry on the way: the claimant W holds ``[.., claim@n]``, the
accused O holds ``[.., E@n]`` (the same count, other heads), or ``[.., E@n, claim_O@n+1]`` when O gave up
in turn. Two honest copies, not a fork: at resume each side shows the other its entries from the place
where the copies part, O takes the claim at n (withdrawing its own entries from there) and writes them
again after it, which refutes the claim, and W takes them in the run. The match then plays to its end on
one chain. A copy that really forked (one seat signed two entries at one seq) is still a :class:`Fork`.

Both sessions are our own, seeded, over trio memory streams; play goes on with ``pipe_sessions``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
import trio.testing
from conftest import SHORT_NINTENDO
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import MatchContext, Phase
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.resume import Fork, ResumeClaim, resume_as_guest, resume_as_host
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.referee import Ending
from p2p_koikoi.session.match_session import MatchSession, SessionEnd, Waiting
from p2p_koikoi.testing import SessionPair, deterministic_entropy, pipe_sessions, session_pair
from p2p_koikoi.wire import VERSION, Entry, RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.entry import STATE_BYTES
from p2p_koikoi.wire.frames import Frame, Resume, ResumeProof
from tests.record_support import verify_entries
from tests.stepping import play_until

RULES = SHORT_NINTENDO
AGENTS = (RandomAgent(1), RandomAgent(2))
LABEL = b"outage"


# ---------------------------------------------------------------- the match up to the lost link


def owes_its_second_move(seat: int) -> Callable[[SessionPair], bool]:
    def stop(pair: SessionPair) -> bool:
        session = pair.sessions[seat]
        moves = sum(1 for e in session.chain.entries if e.entry.kind == "move" and e.entry.author == seat)
        rnd = session.round
        return moves >= 1 and session.waiting is Waiting.MOVE and rnd is not None and rnd.phase is Phase.PLAY

    return stop


def move(session: MatchSession) -> None:
    view = session.view()
    assert view is not None and session.rules is not None and session.match is not None
    context = MatchContext(session.rules, session.seat, tuple(session.match.points), session.round_number)
    session.submit(AGENTS[session.seat].choose(view, session.legal_actions(), context))


@dataclass
class Outage:
    """The two sessions after the link died; ``accused`` owed entry ``place`` and wrote ``moved`` for it,
    which never arrived; the other seat claimed its silence with ``claim`` (lost in flight too)."""

    pair: SessionPair
    accused: int
    place: int
    moved: list[SignedEntry]
    claim: SignedEntry

    @property
    def claimant(self) -> MatchSession:
        return self.pair.sessions[1 - self.accused]

    @property
    def accused_session(self) -> MatchSession:
        return self.pair.sessions[self.accused]


def outage(accused: int, *, gave_up: bool) -> Outage:
    """The accused moves, the link dies with the move in flight, and the other claims its silence; with
    ``gave_up`` the accused, which now waits for the other, claims the other's silence in turn."""
    pair = session_pair(RULES, deterministic_entropy(LABEL))
    play_until(pair, owes_its_second_move(accused), AGENTS)
    o, w = pair.sessions[accused], pair.sessions[1 - accused]
    place = len(o.chain.entries)
    assert len(w.chain.entries) == place
    move(o)
    moved = o.take_outgoing()  # lost in flight
    assert moved and all(e.entry.author == accused for e in moved)
    assert w.peer_vanished("no word from the opponent")
    (claim,) = w.take_outgoing()  # lost in flight too
    assert (claim.entry.seq, claim.entry.kind) == (place, "goodbye")
    if gave_up:
        assert o.peer_vanished("no word from the opponent")
        o.take_outgoing()
        assert o.chain.entries[-1].entry.kind == "goodbye"
    assert w.waiting is Waiting.DONE and w.ending_refutable, "the claimant stopped on its claim"
    assert (o.waiting is Waiting.DONE) is gave_up
    return Outage(pair, accused, place, moved, claim)


# ---------------------------------------------------------------- the resume, over memory streams


Outcome = BaseException | None


async def resume(pair: SessionPair) -> list[Outcome]:
    """The real handshake, host and guest at once; what each raised (its channel then closed), or None."""
    a, b = trio.testing.memory_stream_pair()
    channels = (FramedChannel(a), FramedChannel(b))
    outcomes: list[Outcome] = [None, None]

    async def side(seat: int) -> None:
        channel = channels[seat]
        try:
            if seat == 0:
                await resume_as_host(channel, pair.host, pair.keys[0], deadline=5)
            else:
                await resume_as_guest(channel, pair.guest, pair.keys[1], deadline=5)
        except (RemoteProtocolError, ConnectionLost) as exc:
            outcomes[seat] = exc
            await channel.close()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(side, 0)
            nursery.start_soon(side, 1)
    return outcomes


def assert_one_finished_chain(pair: SessionPair) -> list[SignedEntry]:
    assert pipe_sessions(pair, AGENTS) is None
    for session in pair.sessions:
        assert session.ended_by is SessionEnd.MATCH_OVER
    host, guest = (s.chain.entries for s in pair.sessions)
    assert [e.data for e in host] == [e.data for e in guest], "one chain on both sides"
    report = verify_entries(host)
    assert report.verdict == "verified"
    assert report.ending is not None and report.ending.how is Ending.FINISHED and not report.ending.claimed
    return host


def assert_claim_refuted_by(chain: list[SignedEntry], out: Outage) -> None:
    """The claim sits at its place, followed by the accused's entries written again: the same bytes but
    for their place in the chain."""
    assert chain[out.place].data == out.claim.data
    again = chain[out.place + 1 : out.place + 1 + len(out.moved)]
    assert [e.entry.author for e in again] == [out.accused] * len(out.moved)
    assert [(e.entry.kind, e.entry.body) for e in again] == [(e.entry.kind, e.entry.body) for e in out.moved]


# ---------------------------------------------------------------- crossings


@pytest.mark.parametrize("accused", [1, 0], ids=["guest-accused", "host-accused"])
@pytest.mark.parametrize("gave_up", [False, True], ids=["move-in-flight", "move-and-own-claim"])
async def test_a_claim_that_crossed_the_accused_entries_is_settled_at_resume(accused: int, gave_up: bool) -> None:
    out = outage(accused, gave_up=gave_up)
    w, o = out.claimant, out.accused_session
    counts = (len(w.chain.entries), len(o.chain.entries))
    assert counts == (out.place + 1, out.place + 1 + gave_up), "equal counts, or the accused one ahead"
    assert w.chain.head != o.chain.head

    outcomes = await resume(out.pair)
    assert outcomes == [None, None], outcomes

    # the accused took the claim at its place and wrote its move again after it, for the run to send
    assert o.take_withdrawals() == [out.place]
    assert o.chain.entries[out.place].data == out.claim.data
    assert_claim_refuted_by(o.chain.entries, out)
    assert [e.data for e in o.outgoing] == [e.data for e in o.chain.entries[out.place + 1 :]]
    # the claimant took nothing yet: the refutation comes in the run
    assert w.take_withdrawals() == []
    assert len(w.chain.entries) == out.place + 1 and w.chain.entries[-1].data == out.claim.data
    assert not w.outgoing, "its claim went in the exchange and is not sent twice"

    chain = assert_one_finished_chain(out.pair)
    assert_claim_refuted_by(chain, out)


@pytest.mark.parametrize("gave_up", [False, True], ids=["move-in-flight", "move-and-own-claim"])
async def test_both_copies_restored_from_their_records_settle_the_crossing(gave_up: bool) -> None:
    """``koikoi resume`` on both sides after a crash: each rebuilt from its record (a claim at its end is
    open again), the crossing settles the same way."""
    out = outage(1, gave_up=gave_up)
    keys = out.pair.keys
    restored = [
        MatchSession.restore(seat, keys[seat], list(session.chain.entries), session.master_secret)
        for seat, session in enumerate(out.pair.sessions)
    ]
    pair = SessionPair(restored[0], restored[1], keys)
    assert await resume(pair) == [None, None]
    assert pair.guest.take_withdrawals() == [out.place]
    chain = assert_one_finished_chain(pair)
    assert_claim_refuted_by(chain, out)


async def test_the_accused_record_keeps_its_withdrawn_entries_under_a_note(tmp_path: Path) -> None:
    """What the run must write after such a resume (note each of ``take_withdrawals`` before pushing the
    chain): a reader drops the withdrawn entries and finds the settled chain."""
    out = outage(1, gave_up=True)
    o = out.accused_session
    record = RecordWriter(tmp_path, lambda: "guest.koikoi", seat=1)
    record.write(o.chain.entries)
    assert await resume(out.pair) == [None, None]
    for place in o.take_withdrawals():
        record.withdraw(place)
    record.sync(o.chain.entries)
    record.close()
    assert record.path is not None
    read = read_record(record.path)
    assert [e.data for e in read.entries] == [e.data for e in o.chain.entries]
    assert [e.entry.seq for e in read.withdrawn] == [out.place, out.place + 1]


async def test_the_accused_copy_after_a_crossing_restores_from_its_record() -> None:
    """Catching up a claim against us writes no ``here`` of its own: the record's next entry is our answer."""
    out = outage(1, gave_up=False)
    assert await resume(out.pair) == [None, None]
    o = out.accused_session
    again = MatchSession.restore(1, out.pair.keys[1], list(o.chain.entries), o.master_secret)
    assert [e.data for e in again.chain.entries] == [e.data for e in o.chain.entries]


# ---------------------------------------------------------------- a claim that crossed nothing


@pytest.mark.parametrize("lost", [True, False], ids=["claim-lost-in-flight", "claim-still-in-the-outbox"])
async def test_a_session_stopped_on_its_own_claim_resumes_and_sends_it(lost: bool) -> None:
    """The guest was still deciding when the host claimed its silence: the host's session is done (its claim
    refutable), and resuming sends the claim as an entry the guest lacks, once, even when it is still in
    the host's outbox (written while the guest was gone); the guest answers it."""
    pair = session_pair(RULES, deterministic_entropy(LABEL))
    play_until(pair, owes_its_second_move(1), AGENTS)
    host, guest = pair.sessions
    assert host.peer_vanished("the opponent was gone")
    assert host.waiting is Waiting.DONE and host.ending_refutable
    claim = host.chain.entries[-1]
    if lost:
        host.take_outgoing()
    else:
        assert [e.data for e in host.outgoing] == [claim.data]

    assert await resume(pair) == [None, None]
    assert guest.chain.entries[claim.entry.seq].data == claim.data, "the guest took the claim in the exchange"
    assert guest.chain.entries[-1].entry.author == 1, "and answered it at once"
    assert not host.outgoing, "the claim is not sent twice"
    chain = assert_one_finished_chain(pair)
    place = claim.entry.seq
    assert chain[place].data == claim.data and chain[place + 1].entry.author == 1, "the guest answered it"


# ---------------------------------------------------------------- forks


@pytest.mark.parametrize("twin_claims", [False, True], ids=["host-longer", "as-long"])
async def test_one_seat_signing_two_entries_at_one_seq_is_still_a_fork(twin_claims: bool) -> None:
    """The guest moves and the host takes the move (and writes on); a second copy of the guest, restored from
    the same record and secret, moves otherwise at that seq. The host holds more: its entries from the
    twin's head on are not all its own, so no crossing explains it, and it raises at once. When the twin
    also claimed the host's silence the copies are as long as each other: the heads are shown, they do
    not follow one ``prev``, and each side raises. Either way the host blames the guest, with the guest's
    signed head as evidence."""
    pair = session_pair(RULES, deterministic_entropy(LABEL))
    play_until(pair, owes_its_second_move(1), AGENTS)
    host, guest = pair.sessions
    place = len(guest.chain.entries)
    twin = MatchSession.restore(1, pair.keys[1], list(guest.chain.entries), guest.master_secret)
    legal = guest.legal_actions()
    assert len(legal) > 1
    guest.submit(legal[0])
    for signed in guest.take_outgoing():
        host.receive(signed)
    host.take_outgoing()
    twin.submit(legal[-1])
    if twin_claims:
        assert twin.peer_vanished("no word from the opponent")
    twin.take_outgoing()
    assert host.chain.entries[place].entry.author == twin.chain.entries[place].entry.author == 1
    assert host.chain.entries[place].data != twin.chain.entries[place].data
    assert (len(host.chain.entries) == len(twin.chain.entries)) is twin_claims
    before = [e.data for e in host.chain.entries]

    outcomes = await resume(SessionPair(host, twin, pair.keys))
    fork = outcomes[0]
    assert isinstance(fork, Fork) and (fork.reason, fork.blame) == ("fork", 1), outcomes
    assert fork.claim.signed_by(public_bytes(pair.keys[1]))
    assert fork.claim.forks_from(host.chain.entries), "a third party can check it against the host's record"
    assert ResumeClaim.parse(fork.evidence) == fork.claim
    assert [e.data for e in host.chain.entries] == before and host.take_withdrawals() == []
    if twin_claims:
        assert isinstance(outcomes[1], Fork) and outcomes[1].blame == 0
    else:
        assert isinstance(outcomes[1], ConnectionLost), "the forking copy is sent nothing"


def forged(session_key: Ed25519PrivateKey, match_id: bytes, seq: int, prev: bytes, author: int) -> SignedEntry:
    entry = Entry(match_id, seq, prev, author, "here", ["I am here"], bytes(STATE_BYTES))
    return SignedEntry.sign(entry, session_key)


async def fake_host(
    channel: FramedChannel, key: Ed25519PrivateKey, guest: MatchSession, branch: list[SignedEntry]
) -> Frame | None:
    """A host that resumes holding ``branch`` from the guest's head place on, and shows it."""
    theirs = await channel.receive()
    assert isinstance(theirs, Resume)
    count, head = branch[-1].entry.seq + 1, branch[-1].digest
    await channel.send(Resume(VERSION, guest.keys[0], guest.match_id, count, head, secrets.token_bytes(32)))
    proof = b"p2p-koikoi/resume/v1\x00" + guest.match_id + theirs.nonce + count.to_bytes(8, "big") + head
    await channel.send(ResumeProof(key.sign(proof)))
    assert isinstance(await channel.receive(), ResumeProof)
    for signed in branch:
        await channel.send(signed)
    return await channel.receive()


@pytest.mark.parametrize("shape", ["our-entry-after-its-own", "its-entry-after-a-move-of-ours", "not-its-head"])
async def test_a_longer_copy_that_does_not_line_up_is_a_fork_or_a_fault(shape: str) -> None:
    """The guest is the claimant and holds fewer entries; the host shows entries from the guest's head place
    on that no crossing explains: a fork, blaming the host (an honest peer never writes out of turn), or,
    when they do not even end in the head the host signed, bad bytes (a connection fault)."""
    out = outage(0, gave_up=False)
    guest = out.claimant
    assert guest.seat == 1
    keys = out.pair.keys
    match_id, place = guest.match_id, out.place
    prev = out.claim.entry.prev
    if shape == "our-entry-after-its-own":
        first = forged(keys[0], match_id, place, prev, 0)
        branch = [first, forged(keys[1], match_id, place + 1, first.digest, 1)]
    elif shape == "its-entry-after-a-move-of-ours":  # our head is no goodbye: no crossing explains it
        entries = guest.chain.entries
        k = max(i for i in range(1, place + 1) if entries[i - 1].entry.author == 1)
        assert entries[k - 1].entry.kind != "goodbye"
        guest = MatchSession.restore(1, keys[1], list(entries[:k]), guest.master_secret)
        first = forged(keys[0], match_id, k - 1, entries[k - 1].entry.prev, 0)
        branch = [first, forged(keys[0], match_id, k, first.digest, 0)]
    else:
        first = forged(keys[0], match_id, place, prev, 0)
        branch = [first, forged(keys[0], match_id, place + 1, b"\x00" * 32, 0)]
    a, b = trio.testing.memory_stream_pair()
    host_channel, guest_channel = FramedChannel(a), FramedChannel(b)
    raised: list[RemoteProtocolError] = []

    async def guest_side() -> None:
        try:
            await resume_as_guest(guest_channel, guest, keys[1], deadline=5)
        except RemoteProtocolError as exc:
            raised.append(exc)
        await guest_channel.close()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(guest_side)
            shown = await fake_host(host_channel, keys[0], guest, branch)
    assert isinstance(shown, SignedEntry) and shown.data == guest.chain.entries[-1].data, "it showed its head"
    (exc,) = raised
    if shape == "not-its-head":
        assert not isinstance(exc, Fork) and exc.reason == "bad-link"
    else:
        assert isinstance(exc, Fork) and (exc.reason, exc.blame) == ("fork", 0)
        assert exc.at == len(guest.chain.entries) - 1
