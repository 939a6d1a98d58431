"""A fork shown at resume is a fork (SPEC.md section 8): the side holding more entries finds that the
peer's signed head is not its own entry at that position. That is a finding the peer signed, not a bad
connection: it comes out as a typed :class:`Fork` blaming the peer, carrying the peer's resume proof as
evidence a third party can check against our record, and a host's listener stops on it instead of
dropping the connection and waiting on.

The forking copies are our own sessions of one match (every byte from one seed), played twice with one
seat deciding otherwise at its first choice: that seat signed two different entries at one seq.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
import trio.testing
from conftest import SHORT_LEMME
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Round
from p2p_koikoi.net.door import Conclusive
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.resume import Fork, ResumeClaim, resume_as_guest, resume_as_host
from p2p_koikoi.net.tcp import Address, Dropped, dial_raw, listen_raw
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.sessions import SessionPair, decide, deterministic_entropy, session_pair
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry

RULES = SHORT_LEMME


@dataclass
class Pick:
    """A bot that always takes the first legal action, or the last: two of them part at the first real choice."""

    last: bool = False
    name: str = "pick"

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        return legal[-1] if self.last else legal[0]


def played(agents: tuple[Pick, Pick], stop: Callable[[SessionPair], bool]) -> SessionPair:
    """The seeded match, entry by entry, until ``stop`` (or its end)."""
    pair = session_pair(RULES, deterministic_entropy(b"resume fork"))
    sessions = pair.sessions
    while not stop(pair):
        progressed = False
        for seat, session in enumerate(sessions):
            for signed in session.take_outgoing():
                sessions[1 - seat].receive(signed)
                progressed = True
                if stop(pair):
                    return pair
        for seat, session in enumerate(sessions):
            progressed = decide(session, agents[seat]) or progressed
        if not progressed:
            break
    return pair


def length(seat: int, n: int) -> Callable[[SessionPair], bool]:
    return lambda pair: len(pair.sessions[seat].chain.entries) >= n


def diverged(seat: int, honest: list[SignedEntry]) -> Callable[[SessionPair], bool]:
    """Stop once ``seat``'s chain ends in an entry the honest run does not hold at that seq."""

    def stop(pair: SessionPair) -> bool:
        entries = pair.sessions[seat].chain.entries
        return bool(entries) and entries[-1].data != honest[len(entries) - 1].data

    return stop


@dataclass
class Forked:
    """The honest side's session, the forking side's (its chain goes on from the entry it signed
    otherwise), and the seq where the two part."""

    honest: MatchSession
    forker: MatchSession
    at: int
    keys: tuple[Ed25519PrivateKey, Ed25519PrivateKey]


HONEST = (Pick(), Pick())


def forking_agents(forker: int) -> tuple[Pick, Pick]:
    return (Pick(last=forker == 0), Pick(last=forker == 1))


def fork_by(forker: int, ahead: int = 3) -> Forked:
    """The forker stops just past the fork; the honest side holds ``ahead`` entries more (or a few more)."""
    honest_run = played(HONEST, lambda pair: False).host.chain.entries
    forking = played(forking_agents(forker), diverged(forker, honest_run))
    forker_session = forking.sessions[forker]
    entries = forker_session.chain.entries
    at = next(i for i, e in enumerate(entries) if e.data != honest_run[i].data)
    assert entries[at].entry.author == forker, "only the seat that chose otherwise forks"
    honest = played(HONEST, length(1 - forker, len(entries) + ahead)).sessions[1 - forker]
    assert len(honest.chain.entries) >= len(entries) + ahead
    return Forked(honest, forker_session, at, forking.keys)


def equal_fork(forker: int) -> Forked:
    """Both copies as long as each other, some entries past the fork."""
    base = fork_by(forker, ahead=0)
    for n in range(base.at + 1, base.at + 60):
        honest = played(HONEST, length(1 - forker, n)).sessions[1 - forker]
        forking = played(forking_agents(forker), length(forker, n)).sessions[forker]
        if len(honest.chain.entries) == len(forking.chain.entries) == n:
            return Forked(honest, forking, base.at, base.keys)
    raise AssertionError("no length both copies stop at")


Outcome = BaseException | None


async def side(channel: FramedChannel, run: Callable[[], Awaitable[None]]) -> Outcome:
    """One side's resume: what it raised (its connection then closed, as a listener closes it), or None."""
    try:
        await run()
    except (RemoteProtocolError, ConnectionLost) as exc:
        await channel.close()
        return exc
    return None


async def resume_pair(host: MatchSession, guest: MatchSession, keys: tuple[Ed25519PrivateKey, ...]) -> list[Outcome]:
    a, b = trio.testing.memory_stream_pair()
    host_channel, guest_channel = FramedChannel(a), FramedChannel(b)
    outcomes: list[Outcome] = [None, None]

    async def host_side() -> None:
        outcomes[0] = await side(host_channel, lambda: resume_as_host(host_channel, host, keys[0]))

    async def guest_side() -> None:
        outcomes[1] = await side(guest_channel, lambda: resume_as_guest(guest_channel, guest, keys[1]))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_side)
            nursery.start_soon(guest_side)
    return outcomes


def noted(tmp: Path, name: str, session: MatchSession, fork: Fork) -> Path:
    """Our record with the fork's note, as the side that found it writes it."""
    record = RecordWriter(tmp, lambda: name, seat=session.seat)
    record.write(session.chain.entries)
    record.note(fork.reason, fork.blame, str(fork), fork.evidence)
    record.close()
    assert record.path is not None
    return record.path


def third_party_check(path: Path) -> int:
    """What someone holding only the record can check of its fork note; the seat it proves at fault."""
    record = read_record(path)
    (note,) = record.notes
    assert note.reason == "fork" and note.blame is not None
    claim = ResumeClaim.parse(note.evidence)
    match = record.entries[0].entry
    keys = match.body[2]
    assert claim.match_id == match.match_id
    assert claim.signed_by(keys[note.blame]), "the blamed seat signed the claim"
    assert not claim.signed_by(keys[1 - note.blame])
    assert claim.forks_from(record.entries), "the head it signed is not the record's entry at that position"
    return int(note.blame)


async def test_a_guest_whose_signed_head_forks_is_caught_by_the_host_and_blamed(tmp_path: Path) -> None:
    forked = fork_by(forker=1)
    count = len(forked.forker.chain.entries)
    before = [e.data for e in forked.honest.chain.entries]
    host_out, guest_out = await resume_pair(forked.honest, forked.forker, forked.keys)
    assert isinstance(host_out, Fork), host_out
    assert isinstance(host_out, Conclusive) and isinstance(host_out, RemoteProtocolError)
    assert (host_out.reason, host_out.blame) == ("fork", 1)
    assert (host_out.claim.count, host_out.claim.head) == (count, forked.forker.chain.head)
    assert host_out.ours == forked.honest.chain.entries[count - 1].digest
    assert f"entry {count - 1}" in str(host_out)
    assert isinstance(guest_out, ConnectionLost), "the forking guest is sent nothing and cut off"
    assert [e.data for e in forked.honest.chain.entries] == before, "nothing of the forked copy joined ours"
    assert third_party_check(noted(tmp_path, "host.koikoi", forked.honest, host_out)) == 1


async def test_a_host_whose_signed_head_forks_is_caught_by_the_guest_and_blamed(tmp_path: Path) -> None:
    forked = fork_by(forker=0)
    host_out, guest_out = await resume_pair(forked.forker, forked.honest, forked.keys)
    assert isinstance(guest_out, Fork), guest_out
    assert (guest_out.reason, guest_out.blame) == ("fork", 0)
    assert guest_out.claim.head == forked.forker.chain.head
    assert isinstance(host_out, ConnectionLost)
    assert third_party_check(noted(tmp_path, "guest.koikoi", forked.honest, guest_out)) == 0


async def test_two_copies_as_long_as_each_other_each_catch_the_other(tmp_path: Path) -> None:
    """Equal counts: both hold more or as many, so both check, and each holds the other's signed head."""
    forked = equal_fork(forker=1)
    assert len(forked.honest.chain.entries) == len(forked.forker.chain.entries) > forked.at + 1
    host_out, guest_out = await resume_pair(forked.honest, forked.forker, forked.keys)
    assert isinstance(host_out, Fork) and host_out.blame == 1
    assert isinstance(guest_out, Fork) and guest_out.blame == 0
    assert third_party_check(noted(tmp_path, "host.koikoi", forked.honest, host_out)) == 1


def test_a_claim_kept_as_evidence_reads_back_and_nothing_else_does() -> None:
    forked = fork_by(forker=1)
    chain = forked.forker.chain
    claim = ResumeClaim(forked.honest.match_id, bytes(range(32)), len(chain.entries), chain.head, b"\x07" * 64)
    assert ResumeClaim.parse(claim.evidence) == claim
    assert not claim.signed_by(forked.forker.keys[1]), "a made-up signature is nobody's"
    assert claim.forks_from(forked.honest.chain.entries)
    assert not claim.forks_from(chain.entries)
    assert not claim.forks_from(chain.entries[:-1]), "a head past our chain shows no fork"
    entry = chain.entries[-1]
    for junk in (b"", entry.data + entry.signature, claim.evidence[:-1], b"x" + claim.evidence[1:]):
        with pytest.raises(ValueError):
            ResumeClaim.parse(junk)


async def test_a_listening_host_stops_on_the_fork_rather_than_drop_it_and_wait() -> None:
    """Over loopback, as the host waits to reconnect: a stranger posing as the guest (the guest's key, but
    a proof it cannot sign) is dropped and the host listens on; the guest's forked head ends the wait,
    raised from the listener as the fork, blaming the guest."""
    forked = fork_by(forker=1)
    host, guest = forked.honest, forked.forker
    dropped: list[Dropped] = []
    port: list[int] = []
    listening = trio.Event()

    async def on_listening(addresses: list[Address]) -> None:
        port.append(addresses[0].port)
        listening.set()

    async def on_dropped(item: Dropped) -> None:
        dropped.append(item)

    async def admit(channel: FramedChannel, peer: str) -> str:
        await resume_as_host(channel, host, forked.keys[0], welcome=True)
        return peer

    async def dial_and_resume(key: Ed25519PrivateKey) -> Outcome:
        channel = await dial_raw(Address("127.0.0.1", port[0]), timeout=5)
        outcome = await side(channel, lambda: resume_as_guest(channel, guest, key))
        await channel.close()
        return outcome

    raised: list[BaseException] = []

    async def host_side() -> None:
        try:
            await listen_raw(admit, port=0, bind="127.0.0.1", on_listening=on_listening, on_dropped=on_dropped)
        except Fork as exc:
            raised.append(exc)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_side)
            await listening.wait()
            stranger = await dial_and_resume(Ed25519PrivateKey.generate())
            while not dropped:
                await trio.sleep(0.01)
            assert not raised, "a proof the guest did not sign ends nothing"
            assert isinstance(stranger, ConnectionLost)
            assert "not signed by its key" in dropped[0].reason
            assert isinstance(await dial_and_resume(forked.keys[1]), ConnectionLost)
    (fork,) = raised
    assert isinstance(fork, Fork) and (fork.reason, fork.blame) == ("fork", 1)
    assert len(dropped) == 1, "the fork is no dropped connection"
