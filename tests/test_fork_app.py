"""A fork shown at resume ends the match in the app, never in a traceback: the side that finds it (the one
holding more entries) settles the match as the peer's violation, keeps the peer's signed resume proof in a
note of its record, deletes the secret (a forked match is over for good) and says so in one line.

Covered: a host waiting to reconnect (``play_on`` listening), a guest reconnecting (``play_on`` dialling),
a restarted host whose guest rejoins with ``koikoi join`` (``host_match``, in process and as the command),
and a guest that rejoins a restarted host (``join_match``). The forked copies are built as in
``tests/test_resume_fork.py``: one seeded match played twice, one seat choosing otherwise.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from p2p_koikoi.app.continuing import Reconnect, play_on
from p2p_koikoi.app.netplay import HostOptions, JoinOptions, NetMatchResult, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.cli.netopts import print_result
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.resume import Fork, ResumeClaim, resume_as_guest, resume_as_host
from p2p_koikoi.net.runner import MatchReport
from p2p_koikoi.net.tcp import Address, dial, dial_raw, listen, listen_raw
from p2p_koikoi.record.format import secret_path
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.verify import walk_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env, spawn_host
from p2p_koikoi.wire import RemoteProtocolError, public_bytes
from tests.test_resume_fork import RULES, Forked, fork_by

WHOSE = ("host", "guest")


def _record(directory: Path, session: MatchSession, peer_address: str = "") -> Path:
    """Our record of the match so far, with the secret beside it, as a match under way keeps it."""
    name = f"20261201-120000-fork-{WHOSE[session.seat]}.koikoi"
    secret = session.master_secret
    writer = RecordWriter(directory, lambda: name, seat=session.seat, peer_address=peer_address, secret=secret)
    writer.write(session.chain.entries)
    writer.close()
    assert writer.path is not None and secret_path(writer.path).exists()
    return writer.path


def _home(tmp: Path, whose: str, key: Ed25519PrivateKey) -> Path:
    """A ``KOIKOI_HOME`` whose identity is ``key``."""
    home = tmp / whose
    (home / "config").mkdir(parents=True)
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    (home / "config" / "identity.pem").write_bytes(pem)
    return home


def _settled(path: Path, blame: int, entries: int) -> None:
    """The record of a match ended on a fork: the chain as it stood, one note with the peer's signed
    proof (checkable by a third party), no goodbye, the secret gone; and ``koikoi verify``'s walk gives
    one result without crashing."""
    assert not secret_path(path).exists(), "a forked match is over for good: its secret goes"
    record = read_record(path)
    assert len(record.entries) == entries
    assert record.entries[-1].entry.kind != "goodbye", "no goodbye: the proof is the peer's own signature"
    (note,) = record.notes
    assert (note.reason, note.blame) == ("fork", blame)
    assert "forked from ours" in note.text
    claim = ResumeClaim.parse(note.evidence)
    keys = record.entries[0].entry.body[2]
    assert claim.match_id == record.entries[0].entry.match_id
    assert claim.signed_by(bytes(keys[blame])) and not claim.signed_by(bytes(keys[1 - blame]))
    assert claim.forks_from(record.entries)
    report = walk_record(record)
    assert report.verdict in ("incomplete", "failed"), report.verdict
    assert [n.note.reason for n in report.notes] == ["fork"]


def _violation(report: MatchReport | None, blame: int) -> Fork:
    assert report is not None
    assert report.ended_by is SessionEnd.VIOLATION, report
    assert isinstance(report.failure, Fork) and report.failure.blame == blame
    assert report.text == str(report.failure) and "forked from ours" in report.text
    return report.failure


async def _until_it_listens(port: int, key: Ed25519PrivateKey | None = None) -> FramedChannel:
    """A connection to ``port`` once something listens there; greeted with ``key``'s hello if given."""
    address = Address("127.0.0.1", port)
    for _ in range(500):
        try:
            if key is None:
                return await dial_raw(address, timeout=2)
            channel, _ = await dial(address, public_bytes(key), timeout=2)
            return channel
        except ConnectionLost:
            await trio.sleep(0.02)
    raise AssertionError(f"nothing listens on {port}")


async def _resumes_as_guest(channel: FramedChannel, session: MatchSession, key: Ed25519PrivateKey) -> BaseException:
    """The forking guest's side: what its resume ended in (the host that caught it hangs up)."""
    try:
        await resume_as_guest(channel, session, key)
    except (RemoteProtocolError, ConnectionLost) as exc:
        return exc
    finally:
        await channel.close()
    raise AssertionError("the forked copy was joined")


def _bot(seat: int, said: list[str]) -> BotPlayer:
    return BotPlayer(RandomAgent(seat + 1), seat, said.append)


async def test_a_host_waiting_to_reconnect_ends_the_match_when_the_guest_comes_back_forked(tmp_path: Path) -> None:
    """The connection dropped; the guest comes back with a copy that forks from the host's: the host's
    ``play_on`` returns the guest's violation rather than raise out of the listener."""
    forked = fork_by(forker=1)
    host = forked.honest
    path = _record(tmp_path, host)
    port = free_port()
    said: list[str] = []
    guest_out: list[BaseException] = []
    record = RecordWriter.reopen(path, len(host.chain.entries), secret=host.master_secret)

    async def forking_guest() -> None:
        guest_out.append(await _resumes_as_guest(await _until_it_listens(port), forked.forker, forked.keys[1]))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forking_guest)
            plan = Reconnect(0, port=port, bind="127.0.0.1", grace=20)
            report = await play_on(None, host, forked.keys[0], _bot(0, said), record, plan, said.append)
    record.close()
    fork = _violation(report, blame=1)
    assert report.entries == len(host.chain.entries)
    assert host.waiting is Waiting.DONE and host.ended_by is SessionEnd.VIOLATION
    assert isinstance(guest_out[0], ConnectionLost), "the forking guest is told nothing and cut off"
    assert any("to blame" in line for line in said), said
    _settled(path, blame=1, entries=len(host.chain.entries))
    assert ResumeClaim.parse(read_record(path).notes[0].evidence) == fork.claim


async def test_a_guest_reconnecting_ends_the_match_when_the_host_it_finds_forked(tmp_path: Path) -> None:
    """The guest holds more entries than a host whose copy forked: its ``play_on`` (dialling again)
    returns the host's violation, and dials no more."""
    forked = fork_by(forker=0)
    guest = forked.honest
    path = _record(tmp_path, guest)
    said: list[str] = []
    host_out: list[BaseException] = []
    ports: list[int] = []
    listening = trio.Event()

    async def on_listening(addresses: list[Address]) -> None:
        ports.append(addresses[0].port)
        listening.set()

    async def admit(channel: FramedChannel, peer: str) -> None:
        try:
            await resume_as_host(channel, forked.forker, forked.keys[0], welcome=True)
        except (RemoteProtocolError, ConnectionLost) as exc:
            host_out.append(exc)
            raise

    async def forking_host() -> None:
        await listen_raw(admit, port=0, bind="127.0.0.1", on_listening=on_listening)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forking_host)
            await listening.wait()
            record = RecordWriter.reopen(path, len(guest.chain.entries), secret=guest.master_secret)
            plan = Reconnect(1, address=Address("127.0.0.1", ports[0]), grace=20)
            report = await play_on(None, guest, forked.keys[1], _bot(1, said), record, plan, said.append)
            record.close()
            while not host_out:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    _violation(report, blame=0)
    assert isinstance(host_out[0], ConnectionLost), "the forking host is cut off"
    assert len(host_out) == 1, "the guest dials no more once the host is caught"
    _settled(path, blame=0, entries=len(guest.chain.entries))


async def _host_match_against(
    tmp_path: Path, forked: Forked, guest: Callable[[int], Awaitable[None]], monkeypatch: pytest.MonkeyPatch
) -> tuple[NetMatchResult, Path, list[str]]:
    """``host_match`` restarted over the host's record of the match, and ``guest`` knocking on its port."""
    replays = tmp_path / "replays"
    path = _record(replays, forked.honest, ":0")
    monkeypatch.setenv("KOIKOI_HOME", str(_home(tmp_path, "host", forked.keys[0])))
    port = free_port()
    options = HostOptions(RULES, port, "127.0.0.1", replay_dir=replays, upnp=False)
    said: list[str] = []

    result: list[NetMatchResult] = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:

            async def hosting() -> None:
                result.append(await host_match(options, lambda seat: _bot(seat, said), said.append))

            nursery.start_soon(hosting)
            await guest(port)
    return result[0], path, said


async def test_a_restarted_host_settles_a_guest_that_rejoins_with_a_forked_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``koikoi host`` holds the unfinished match; the guest greets afresh and resumes from a copy that
    forks: the host stops listening, settles the match as the guest's violation and reports it (one line,
    exit code 1), where it used to drop the guest and wait on (and a listener's fork to end in a traceback)."""
    forked = fork_by(forker=1)
    guest_out: list[BaseException] = []

    async def forking_guest(port: int) -> None:
        channel = await _until_it_listens(port, forked.keys[1])
        guest_out.append(await _resumes_as_guest(channel, forked.forker, forked.keys[1]))

    result, path, said = await _host_match_against(tmp_path, forked, forking_guest, monkeypatch)
    _violation(result.report, blame=1)
    assert result.record == path
    assert isinstance(guest_out[0], ConnectionLost)
    assert any("forks from ours" in line for line in said), said
    assert any("to blame" in line for line in said), said
    # the rebuilt host wrote at once what it owed, if anything: the record holds the chain as it stood
    _settled(path, blame=1, entries=result.report.entries if result.report else -1)
    assert sorted(path.parent.glob("*.koikoi")) == [path], "no new match was begun"
    assert print_result(result) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("koikoi: the match did not finish: the peer signed"), err


async def test_a_guest_that_rejoins_a_host_with_a_forked_copy_settles_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``koikoi join`` finds its unfinished match with this host and resumes it; the host's signed head
    forks from the guest's copy (the guest holding more): the host's violation, not a traceback."""
    forked = fork_by(forker=0)
    replays = tmp_path / "replays"
    path = _record(replays, forked.honest, "127.0.0.1:1")
    monkeypatch.setenv("KOIKOI_HOME", str(_home(tmp_path, "guest", forked.keys[1])))
    host_out: list[BaseException] = []
    ports: list[int] = []
    listening = trio.Event()

    async def on_listening(addresses: list[Address]) -> None:
        ports.append(addresses[0].port)
        listening.set()

    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> None:
        try:
            await resume_as_host(channel, forked.forker, forked.keys[0])
        except (RemoteProtocolError, ConnectionLost) as exc:
            host_out.append(exc)
            raise

    async def yes(question: str) -> bool:
        return True

    said: list[str] = []
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            key = public_bytes(forked.keys[0])
            nursery.start_soon(lambda: listen(key, admit, port=0, bind="127.0.0.1", on_listening=on_listening))
            await listening.wait()
            options = JoinOptions((Address("127.0.0.1", ports[0]),), replays)
            result = await join_match(options, lambda seat: _bot(seat, said), said.append, yes)
            while not host_out:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    _violation(result.report, blame=0)
    assert result.record == path
    assert isinstance(host_out[0], ConnectionLost)
    assert any("to blame" in line for line in said), said
    _settled(path, blame=0, entries=len(forked.honest.chain.entries))


def test_koikoi_host_ends_on_a_forked_rejoin_with_one_line_and_exit_code_1(tmp_path: Path) -> None:
    """The command itself: a restarted ``koikoi host`` whose guest rejoins forked prints why in one line
    on stderr, exits 1, and leaves a record ``koikoi verify`` reads without a traceback."""
    forked = fork_by(forker=1)
    replays = tmp_path / "replays"
    path = _record(replays, forked.honest, ":0")
    home = _home(tmp_path, "host", forked.keys[0])
    port = free_port()
    host = spawn_host(home, port, replays, "--bot", "random", "--seed", "1", "-q", "--no-upnp")
    try:

        async def forking_guest() -> BaseException:
            channel, _ = await dial(Address("127.0.0.1", port), public_bytes(forked.keys[1]), timeout=10)
            return await _resumes_as_guest(channel, forked.forker, forked.keys[1])

        assert isinstance(trio.run(forking_guest), ConnectionLost)
        _, err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert host.returncode == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("koikoi: the match did not finish: the peer signed"), err
    assert not secret_path(path).exists()
    verify = [*KOIKOI, "verify", "--json", str(path)]
    done = subprocess.run(verify, capture_output=True, text=True, timeout=120, env=koikoi_env(home))
    assert "Traceback" not in done.stderr, done.stderr
    (report,) = json.loads(done.stdout)
    assert not report["ok"] and report["verdict"] in ("incomplete", "failed"), report
    assert [(n["reason"], n["blame"]) for n in report["notes"]] == [("fork", 1)]
