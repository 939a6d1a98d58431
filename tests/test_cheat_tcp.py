"""Cheaters against the real program over loopback TCP: ``koikoi host --bot random`` in its own
process (its own ``KOIKOI_HOME``), and a cheating guest dialling it from this one.

One attack of each family (the deal, a move, the messages), and the forged goodbye that used to hang
the honest side. The host must end the match with one line naming the cheat and the seat to blame,
exit 1, and leave a record whose last entries prove it; ``koikoi verify`` on that record agrees.

Three attacks end with the cheater gone for good: the host then waits out the reconnect grace, claims, and
waits out one more grace for an answer (12 s of waiting at :data:`SCALE`, against 2 s of play). Those
three are played in turn by one module fixture (:func:`gone_for_good`), each cheater once the last one's
connection is gone, so that the hosts wait out their graces side by side, not one after another.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio
from test_cheat_deal import WrongLockKey
from test_cheat_moves import FalseTeshi
from test_cheat_support import Liar, at_move, fork, note_entry, verify_record

from p2p_koikoi.record.reader import Record, read_record
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.adversary import Tamper, cheat_as_guest, forge, seeded_key
from p2p_koikoi.wire import Entry, SignedEntry, public_bytes
from p2p_koikoi.wire.frames import Frame

GUEST = 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class HostRun:
    code: int
    stdout: str
    stderr: str
    record: Record
    path: Path
    cheater: MatchSession


SCALE = "0.1"  # KOIKOI_TIMING_SCALE: the host's deadlines a tenth as long (a 6 s grace, a 6 s step deadline)


@dataclass
class Hosting:
    """A ``koikoi host`` process, the port it listens on, and the folder it keeps its record in."""

    process: subprocess.Popen[str]
    port: int
    replays: Path


def start_host(tmp_path: Path, turn_limit: int) -> Hosting:
    """``koikoi host`` with a bot, its deadlines scaled by :data:`SCALE`, in a process of its own."""
    port = free_port()
    replays = tmp_path / "replays"
    host = subprocess.Popen(
        [
            *(sys.executable, "-m", "p2p_koikoi", "host", "--port", str(port), "--bind", "127.0.0.1", "--no-upnp"),
            *("--rules", "nintendo", "--bot", "random", "--seed", "1", "--replay-dir", str(replays)),
            *("--turn-limit", str(turn_limit)),
        ],
        env={**os.environ, "KOIKOI_HOME": str(tmp_path / "host-home"), "KOIKOI_TIMING_SCALE": SCALE},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return Hosting(host, port, replays)


async def cheat(
    port: int,
    cheater: Callable[..., MatchSession] = MatchSession,
    tamper: Callable[[MatchSession], Tamper] | None = None,
) -> MatchSession:
    """Dial the host as the cheater (once it listens) and play until the cheater's connection is gone."""
    with trio.fail_after(60):
        while True:
            try:
                session, _report = await cheat_as_guest(port, seeded_key("tcp cheater"), cheater=cheater, tamper=tamper)
                return session
            except OSError:  # not listening yet
                await trio.sleep(0.1)


def host_ended(hosting: Hosting, cheater: MatchSession) -> HostRun:
    """Wait for the host to end (the cheater's part is over), and read its record."""
    host = hosting.process
    try:
        stdout, stderr = host.communicate(timeout=60)
    finally:
        host.kill()
    (path,) = hosting.replays.glob("*-host.koikoi")
    return HostRun(host.returncode, stdout, stderr, read_record(path), path, cheater)


async def against_the_host(
    tmp_path: Path,
    *,
    cheater: Callable[..., MatchSession] = MatchSession,
    tamper: Callable[[MatchSession], Tamper] | None = None,
    turn_limit: int = 90,
) -> HostRun:
    """Start ``koikoi host``, dial it as the cheater, play until the host gives up, and read its record."""
    hosting = start_host(tmp_path, turn_limit)
    try:
        session = await cheat(hosting.port, cheater, tamper)
    except BaseException:
        hosting.process.kill()
        raise
    return await trio.to_thread.run_sync(host_ended, hosting, session)


def assert_host_caught(run: HostRun, reason: str, *, offending: SignedEntry | None, in_chain: bool = True) -> None:
    """The host process named the cheat in one line, exited 1, and its record proves it; verify agrees."""
    assert run.code == 1, run.stderr
    assert "Traceback" not in run.stderr
    (line,) = [x for x in run.stderr.splitlines() if x.startswith("koikoi: the match did not finish:")]
    assert re.search(r"^Check it with: .*koikoi verify ", run.stdout, re.MULTILINE)
    record = run.record
    goodbye = record.entries[-1].entry
    assert (goodbye.kind, goodbye.author, goodbye.body[0]) == ("goodbye", 0, f"violation:{reason}")
    assert goodbye.body[1] in line
    assert [(n.reason, n.blame) for n in record.notes] == [(reason, GUEST)]
    if in_chain:
        assert offending is not None and record.entries[-2].data == offending.data
    else:
        assert offending is not None and note_entry(record.notes[0]).data == offending.data
    verdict = verify_record(run.path)
    assert (verdict.code, verdict.verdict, verdict.reason, verdict.blame) == (1, "failed", reason, GUEST)
    assert verdict.output["notes"][0]["agrees"] is True


def lie_of(session: MatchSession) -> SignedEntry:
    assert isinstance(session, Liar) and session.lie_entry is not None
    return session.lie_entry


async def test_a_wrong_lock_key_against_the_real_host(tmp_path: Path) -> None:
    """The deal: a wrong key for a table position, caught by the host on that very entry."""
    run = await against_the_host(tmp_path, cheater=WrongLockKey)
    assert_host_caught(run, "wrong-key", offending=lie_of(run.cheater))


async def test_a_false_teshi_against_the_real_host(tmp_path: Path) -> None:
    """A move: a Teshi claim showing four cards that are not four of a month."""
    run = await against_the_host(tmp_path, cheater=FalseTeshi)
    assert_host_caught(run, "illegal-move:false-hand-yaku", offending=lie_of(run.cheater))


def assert_host_won_by_silence(run: HostRun, first_note: str | None = None) -> None:
    """The host process won: exit 0, no traceback, and its record verifies as the host's win by the
    cheating guest's silence, marked as claimed (bad bytes end nothing; the guest then was gone)."""
    assert run.code == 0, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    record = run.record
    goodbye = record.entries[-1].entry
    assert (goodbye.kind, goodbye.author, goodbye.body[0]) in {("goodbye", 0, "peer-gone"), ("goodbye", 0, "stalled")}
    if first_note is not None:
        assert [(n.reason, n.blame) for n in record.notes][:1] == [(first_note, GUEST)]
    verdict = verify_record(run.path)
    assert (verdict.code, verdict.verdict) == (0, "verified"), verdict.output
    ending = verdict.output["ending"]
    assert (ending["how"], ending["winner"], ending["claimed"]) == ("silence", 0, True), ending


@dataclass
class Attack:
    """What a cheater that ends up gone for good does (``tamper``, against a host with ``turn_limit``),
    what it sent that the host's record must keep, and (once played) the host's run."""

    tamper: Callable[[MatchSession], Tamper]
    turn_limit: int = 90
    sent: list[Frame] = field(default_factory=list)
    forked: list[SignedEntry] = field(default_factory=list)
    run: HostRun | None = None


GONE = pytest.mark.xdist_group("cheat_tcp_gone")  # the tests of one fixture run by one worker, which makes it once


@pytest.fixture(scope="module")
def gone_for_good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Attack]:
    """Each attack against a host of its own, one cheater at a time (each plays once the last one's
    connection is gone); then each host's end, after the graces they wait out side by side."""
    attacks = {"fork": forking(), "goodbye": forging_a_goodbye(), "claim": claiming_the_hosts_silence()}
    hosts: dict[str, tuple[Hosting, MatchSession]] = {}
    started: list[Hosting] = []
    try:
        for name, attack in attacks.items():
            hosting = start_host(tmp_path_factory.mktemp(name), attack.turn_limit)
            started.append(hosting)
            hosts[name] = hosting, trio.run(cheat, hosting.port, MatchSession, attack.tamper)
        for name, (hosting, session) in hosts.items():
            attacks[name].run = host_ended(hosting, session)
    finally:
        for hosting in started:
            hosting.process.kill()
    return attacks


def forking() -> Attack:
    """At the cheater's second move, a second entry, validly signed, with the seq of one already taken."""
    forked: list[SignedEntry] = []
    twins: list[Frame] = []

    def keep(act: Callable[[MatchSession, SignedEntry], Sequence[Frame]]) -> Callable[..., Sequence[Frame]]:
        def wrapped(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
            out = act(session, signed)
            twins.extend(out[1:])
            return out

        return wrapped

    return Attack(at_move(2, keep(fork(forked))), sent=twins, forked=forked)


@GONE
def test_a_fork_against_the_real_host(gone_for_good: dict[str, Attack]) -> None:
    """The messages: a second entry, validly signed, with the seq of one already taken. It cannot join the
    chain, so it ends nothing: the host notes it (both signed entries are the proof), drops the connection,
    and the guest, gone for good, loses by its silence."""
    attack = gone_for_good["fork"]
    run, twins, forked = attack.run, attack.sent, attack.forked
    assert run is not None
    (twin,) = twins
    assert isinstance(twin, SignedEntry)
    assert_host_won_by_silence(run, "fork")
    assert note_entry(run.record.notes[0]).data == twin.data
    assert run.record.entries[forked[0].entry.seq].data == forked[0].data


def forging_a_goodbye() -> Attack:
    """At the cheater's second move, a goodbye signed with another key."""
    sent: list[Frame] = []

    def goodbye(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        sent.append(forge(signed, seeded_key("someone else"), kind="goodbye", body=["quit", "bye", None]))
        return sent

    return Attack(at_move(2, goodbye), sent=sent)


@GONE
def test_a_forged_goodbye_against_the_real_host(gone_for_good: dict[str, Attack]) -> None:
    """A goodbye signed with another key, in the middle of the round: once, the host waited for the
    guest's next move forever; then it ended the match as disputed; now it is a broken connection, noted
    with its bytes, and the guest, gone, loses by its silence."""
    attack = gone_for_good["goodbye"]
    run, sent = attack.run, attack.sent
    assert run is not None and isinstance(sent[0], SignedEntry)
    assert_host_won_by_silence(run, "bad-signature")
    assert note_entry(run.record.notes[0]).data == sent[0].data
    assert public_bytes(seeded_key("tcp cheater")) == run.record.entries[0].entry.body[2][1]


def silent_from_move(number: int) -> Callable[[MatchSession], Tamper]:
    """The guest sends nothing from its ``number``-th move on, though its connection stays up."""

    def build(session: MatchSession) -> Tamper:
        moves = 0

        def tamper(signed: SignedEntry) -> Sequence[Frame]:
            nonlocal moves
            moves += signed.entry.kind == "move"
            return [] if moves >= number else [signed]

        return tamper

    return build


async def test_a_guest_that_falls_silent_at_its_move_loses_to_the_real_host(tmp_path: Path) -> None:
    """Silence at a decision, connection up: the host claims at the turn limit plus the grace (scaled)."""
    run = await against_the_host(tmp_path, tamper=silent_from_move(3), turn_limit=1)
    assert_host_won_by_silence(run)


async def test_an_integrity_accusation_against_the_real_host_is_the_liars_forfeit(tmp_path: Path) -> None:
    """``violation:bad-signature`` instead of a move: no evidence can exist for it, so it is the guest's forfeit."""

    def accuse(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        entry = signed.entry
        body = ["violation:bad-signature", "your move was not signed", None]
        lie = Entry(entry.match_id, entry.seq, entry.prev, entry.author, "goodbye", body, entry.state)
        return [SignedEntry.sign(lie, seeded_key("tcp cheater"))]

    run = await against_the_host(tmp_path, tamper=at_move(2, accuse))
    assert run.code == 0, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    verdict = verify_record(run.path)
    ending = verdict.output["ending"]
    assert (ending["how"], ending["winner"]) == ("forfeit", 0), verdict.output
    assert (verdict.reason, verdict.blame) == ("baseless-accusation", GUEST)


def claiming_the_hosts_silence() -> Attack:
    """Right after its second move, the cheater claims the host went silent; after its next move, it sends
    nothing more (its connection stays up), against a host with a turn limit of 1 s."""

    def claim(session: MatchSession, signed: SignedEntry) -> Sequence[Frame]:
        entry = signed.entry
        body = ["peer-gone", "the host vanished", None]
        lie = Entry(entry.match_id, entry.seq + 1, signed.digest, entry.author, "goodbye", body, entry.state)
        return [signed, SignedEntry.sign(lie, seeded_key("tcp cheater"))]

    moves = 0

    def build(session: MatchSession) -> Tamper:
        inner = at_move(2, claim)(session)

        def tamper(signed: SignedEntry) -> Sequence[Frame]:
            nonlocal moves
            if moves >= 2:
                return []
            moves += signed.entry.kind == "move"
            return inner(signed)

        return tamper

    return Attack(build, turn_limit=1)


@GONE
def test_a_false_claim_of_the_hosts_silence_is_refuted_by_the_real_host(gone_for_good: dict[str, Attack]) -> None:
    """Right after its move, the guest claims the host went silent; the host answers (its entry chained
    after the claim, which refutes it), and the guest, now silent, loses by its silence."""
    run = gone_for_good["claim"].run
    assert run is not None
    assert_host_won_by_silence(run)
    claims = [i for i, e in enumerate(run.record.entries) if e.entry.kind == "goodbye" and e.entry.author == GUEST]
    assert claims and run.record.entries[claims[0] + 1].entry.author == 0
