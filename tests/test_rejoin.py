"""Rejoining: a guest that drops out and simply runs ``koikoi join`` again goes on with the match it
left (same first dealer, one match), whether the host is still waiting for it or was restarted too."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.netplay import JoinOptions, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.unfinished import Restored, ResumeError, find_unfinished, put_back, restore_match, unfinished_with
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.tcp import Address, Refused, dial, listen
from p2p_koikoi.record.format import secret_path
from p2p_koikoi.record.reader import RecordError, read_record
from p2p_koikoi.record.writer import write_secret
from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env, spawn_host, wait_listening
from p2p_koikoi.wire import VERSION, SignedEntry, public_bytes
from p2p_koikoi.wire.frames import Frame, Resume, ResumeProof
from tests.record_support import honest, record_bytes

HOSTING = ("--bot", "random", "--seed", "1", "--rounds", "3", "-q")
"""The first host's options: a bot, and three rounds (the preset's twelve would only make the match played
on after the rejoin, and its verification, longer: what is checked is that it goes on, and finishes)."""


def _join(port: int, replays: Path, *extra: str) -> list[str]:
    return [
        *KOIKOI,
        "join",
        f"127.0.0.1:{port}",
        "--bot",
        "random",
        "--seed",
        "2",
        "--replay-dir",
        str(replays),
        *extra,
    ]


def _entries(path: Path) -> list[SignedEntry]:
    try:
        return read_record(path).entries
    except RecordError:  # created a moment ago, its header not written yet
        return []


def _first_round_dealt(replays: Path, whose: str, timeout: float = 60.0) -> Path:
    """Our record once round 1 is being dealt: the first dealer is known by then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in replays.glob(f"*-{whose}.koikoi"):
            if any(e.entry.kind == "deal" and e.entry.body[0] == 1 for e in _entries(path)):
                return path
        time.sleep(0.01)
    raise TimeoutError(f"no {whose} record reached round 1 within {timeout:g} s")


def _killed_mid_match(process: subprocess.Popen[str], replays: Path, whose: str) -> tuple[Path, list[bytes]]:
    record = _first_round_dealt(replays, whose)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    return record, [e.data for e in read_record(record).entries]


def _verified(*paths: Path) -> list[dict[str, object]]:
    """``koikoi verify --json`` of the files, in one process (two copies of one match are then also
    compared with each other): each report, every one of them ok."""
    command = [*KOIKOI, "verify", "--json", *map(str, paths)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    reports = json.loads(done.stdout)
    assert len(reports) == len(paths) and all(report["ok"] for report in reports), reports
    return [dict(report) for report in reports]


def _one_match_goes_on(replays: Path, before: list[bytes]) -> None:
    """One record a side, the same entries in both, the entries from before the drop their start, the
    match finished and verified, with the first dealer the draw before the drop made."""
    (host_file,) = replays.glob("*-host.koikoi")
    (guest_file,) = replays.glob("*-guest.koikoi")
    host_record, guest_record = read_record(host_file), read_record(guest_file)
    assert [e.data for e in host_record.entries] == [e.data for e in guest_record.entries]
    assert [e.data for e in guest_record.entries[: len(before)]] == before
    assert guest_record.entries[-1].entry.body[0] == "match-over"
    reports = _verified(host_file, guest_file)
    assert reports[0].get("first_dealer") == reports[1].get("first_dealer") is not None, reports
    assert not secret_path(host_file).exists() and not secret_path(guest_file).exists()


def test_a_guest_killed_after_the_first_dealer_rejoins_with_koikoi_join(tmp_path: Path) -> None:
    """The host is still waiting to reconnect when the killed guest runs `koikoi join` afresh; someone
    else who joins meanwhile is turned away."""
    port = free_port()
    replays = tmp_path / "replays"
    guest_env = koikoi_env(tmp_path / "guest")
    host = spawn_host(tmp_path / "host", port, replays, *HOSTING)
    try:
        guest = subprocess.Popen(
            _join(port, replays, "-q"), env=guest_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        _, before = _killed_mid_match(guest, replays, "guest")
        stranger_env = koikoi_env(tmp_path / "x")
        stranger = subprocess.run(
            _join(port, tmp_path / "elsewhere"), env=stranger_env, capture_output=True, text=True, timeout=60
        )
        again = subprocess.run(_join(port, replays), env=guest_env, capture_output=True, text=True, timeout=180)
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert again.returncode == 0, again.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in again.stderr + host_err
    assert "You have an unfinished match with this host" in again.stderr
    assert stranger.returncode == 1 and "Traceback" not in stranger.stderr, "another key is turned away"
    _one_match_goes_on(replays, before)


def _copies(directory: Path, entries: int) -> tuple[Path, Path, bytes, bytes]:
    """Both players' copies of the first ``entries`` entries of an honest match, side by side in one
    folder (as when both play on one machine), no secret beside either yet."""
    played = honest()
    directory.mkdir()
    paths = []
    for seat, whose in enumerate(("host", "guest")):
        path = directory / f"20261201-120000-match-{whose}.koikoi"
        path.write_bytes(record_bytes(played.entries[:entries], seat=seat))
        paths.append(path)
    host_key, guest_key = (public_bytes(key) for key in played.keys)
    return paths[0], paths[1], host_key, guest_key


def test_find_unfinished_wants_the_secret_our_seat_and_the_peer(tmp_path: Path) -> None:
    host_file, guest_file, host_key, guest_key = _copies(tmp_path / "replays", 6)
    replays = host_file.parent
    assert find_unfinished(replays, host_key, guest_key) is None, "no secret: the match is over"
    assert find_unfinished(tmp_path / "nowhere", host_key, guest_key) is None
    write_secret(secret_path(host_file), bytes(32))
    assert find_unfinished(replays, host_key, guest_key) == host_file
    # the guest's copy has no secret, and the host's copy is not written from the guest's seat
    assert find_unfinished(replays, guest_key, host_key) is None
    stranger = public_bytes(Ed25519PrivateKey.generate())
    assert find_unfinished(replays, host_key, stranger) is None, "another peer's key"
    assert find_unfinished(replays, stranger, guest_key) is None, "not our key"
    write_secret(secret_path(guest_file), bytes(32))
    assert find_unfinished(replays, guest_key, host_key) == guest_file


def test_find_unfinished_passes_over_files_that_hold_no_match(tmp_path: Path) -> None:
    host_file, _, host_key, guest_key = _copies(tmp_path / "replays", 2)  # the match entry and the accept
    replays = host_file.parent
    full = host_file.read_bytes()
    for name, data in {"cut": full[:-10], "junk": b"\x00\x00\x00\x05hello", "empty": b""}.items():
        path = replays / f"{name}.koikoi"
        path.write_bytes(data)
        write_secret(secret_path(path), bytes(32))
    assert find_unfinished(replays, host_key, guest_key) is None
    write_secret(secret_path(host_file), bytes(32))
    assert find_unfinished(replays, host_key, guest_key) == host_file


def test_a_match_that_is_over_is_not_taken_up_even_with_its_secret_left(tmp_path: Path) -> None:
    played = honest()
    host_file, _, host_key, guest_key = _copies(tmp_path / "replays", len(played.entries))
    write_secret(secret_path(host_file), played.pair.host.master_secret)
    assert find_unfinished(host_file.parent, host_key, guest_key) == host_file
    with pytest.raises(ResumeError, match="is over"):
        restore_match(host_file, played.keys[0])


def _both_killed_mid_match(tmp_path: Path, port: int, replays: Path) -> list[bytes]:
    """A match between two processes, both killed hard once round 1 is dealt; the guest's entries then."""
    host = spawn_host(tmp_path / "host", port, replays, *HOSTING)
    try:
        guest = subprocess.Popen(
            _join(port, replays, "-q"),
            env=koikoi_env(tmp_path / "guest"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _, before = _killed_mid_match(guest, replays, "guest")
    finally:
        host.kill()
        host.communicate(timeout=10)
    return before


def _host_logged(home: Path, port: int, replays: Path, log: Path) -> subprocess.Popen[str]:
    """`koikoi host` with a bot, telling all it does into ``log`` (a pipe nobody reads could fill up)."""
    command = ["host", "--port", str(port), "--bind", "127.0.0.1", "--replay-dir", str(replays), "--bot", "random"]
    with log.open("w") as out:
        host = subprocess.Popen(
            [*KOIKOI, *command, "--seed", "1"],
            env=koikoi_env(home),
            stdout=subprocess.DEVNULL,
            stderr=out,
            text=True,
        )
    wait_listening(port)
    return host


async def _impostor(port: int, first: SignedEntry) -> Frame | None:
    """Someone who knows the guest's public key and the match id (not its private key) asks to resume:
    it cannot sign the proof, and sends 64 zero bytes instead; returns what the host sends then."""
    guest_key = bytes(first.entry.body[2][1])
    channel, _ = await dial(Address("127.0.0.1", port), guest_key)
    await channel.send(Resume(VERSION, guest_key, first.entry.match_id, 1, first.digest, bytes(32)))
    answers = [await channel.receive(), await channel.receive()]
    assert [type(a) for a in answers] == [Resume, ResumeProof], answers
    await channel.send(ResumeProof(bytes(64)))
    with trio.fail_after(15):
        return await channel.receive()


def test_a_restarted_host_takes_up_the_match_with_the_guest_that_joins_again(tmp_path: Path) -> None:
    """Both crashed: `koikoi host` and `koikoi join` again, on another port, go on with the same match.
    An impostor that knocks first with the guest's public key is turned away, and the match still goes on."""
    replays = tmp_path / "replays"
    before = _both_killed_mid_match(tmp_path, free_port(), replays)
    port = free_port()
    log = tmp_path / "host.log"
    host = _host_logged(tmp_path / "host", port, replays, log)
    try:
        (guest_file,) = replays.glob("*-guest.koikoi")
        assert trio.run(_impostor, port, read_record(guest_file).entries[0]) is None, "the host hangs up"
        again = subprocess.run(
            _join(port, replays), env=koikoi_env(tmp_path / "guest"), capture_output=True, text=True, timeout=180
        )
        host.wait(timeout=60)
    finally:
        host.kill()
    host_err = log.read_text()
    assert again.returncode == 0, again.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in again.stderr + host_err
    (host_file,) = replays.glob("*-host.koikoi")
    assert f"has an unfinished match with you ({host_file.name}): taking it up again" in host_err
    assert "did not resume it (the peer's resume proof is not signed by its key)" in host_err
    assert "You have an unfinished match with this host" in again.stderr
    _one_match_goes_on(replays, before)


def _one_side_forgot(tmp_path: Path, whose: str) -> tuple[subprocess.CompletedProcess[str], str, Path, Path]:
    """Both crash mid-match; ``whose`` secret goes; the host starts again and the guest joins again, the
    host still waiting after. Returns the join, the host's log and the host's and guest's records."""
    replays = tmp_path / "replays"
    _both_killed_mid_match(tmp_path, free_port(), replays)
    (host_file,) = replays.glob("*-host.koikoi")
    (guest_file,) = replays.glob("*-guest.koikoi")
    secret_path(host_file if whose == "host" else guest_file).unlink()
    port = free_port()
    log = tmp_path / "host.log"
    host = _host_logged(tmp_path / "host", port, replays, log)
    try:
        again = subprocess.run(
            _join(port, replays), env=koikoi_env(tmp_path / "guest"), capture_output=True, text=True, timeout=60
        )
        time.sleep(0.5)
        assert host.poll() is None, "the host goes on waiting"
    finally:
        host.kill()
        host.wait(timeout=10)
    host_err = log.read_text()
    assert again.returncode == 1, again.stderr
    assert "Traceback" not in again.stderr + host_err
    assert sorted(replays.glob("*.koikoi")) == sorted([host_file, guest_file]), "no new match was begun"
    return again, host_err, host_file, guest_file


def test_a_guest_whose_host_holds_no_such_match_stops_and_says_how_to_go_on(tmp_path: Path) -> None:
    """The host started afresh (its secret gone): it offers a new match, which the guest, holding an
    unfinished one with it, does not take; the host is not fooled into anything and goes on waiting."""
    again, host_err, _, guest_file = _one_side_forgot(tmp_path, "host")
    last = again.stderr.strip().splitlines()[-1]
    assert "the host has no unfinished match with you" in last, again.stderr
    assert f"koikoi resume {guest_file}" in last and f"delete {secret_path(guest_file)}" in last
    assert secret_path(guest_file).exists()
    assert "it resumes a match we do not hold unfinished" in host_err


def test_a_host_holding_an_unfinished_match_offers_that_guest_no_new_one(tmp_path: Path) -> None:
    """The guest lost its secret (or plays from another folder): the host waits for its resume, drops
    it without, and goes on waiting; no second match begins."""
    again, host_err, host_file, _ = _one_side_forgot(tmp_path, "guest")
    assert f"to start afresh instead, delete {secret_path(host_file)}" in host_err
    last = again.stderr.strip().splitlines()[-1]
    assert "without offering a match" in last and "koikoi resume" in last, again.stderr
    assert secret_path(host_file).exists()


def test_a_host_rebuilds_an_unfinished_match_once_however_often_it_is_knocked_for(tmp_path: Path) -> None:
    played = honest()
    host_file, _, _, guest_key = _copies(tmp_path / "replays", 8)
    write_secret(secret_path(host_file), played.pair.host.master_secret)
    restored: Restored = {}
    said: list[str] = []
    first = unfinished_with(host_file.parent, played.keys[0], guest_key, said.append, restored)
    assert first is not None and first.kept == 8 and len(first.session.chain.entries) == 9 and not said
    second = unfinished_with(host_file.parent, played.keys[0], guest_key, said.append, restored)
    assert second is not None and second is not first, "an attempt under way keeps its own"
    put_back(restored, first)
    assert unfinished_with(host_file.parent, played.keys[0], guest_key, said.append, restored) is first
    first.session.catch_up(played.entries[9])  # a failed attempt that took in an entry is not kept
    put_back(restored, first)
    assert restored == {}


def test_the_entry_a_rebuilt_side_writes_at_once_reaches_its_record(tmp_path: Path) -> None:
    """Rebuilt after 8 entries, the host owes the next deal step and writes it at once: the reopened
    record gets it, and the chain has no gap."""
    played = honest()
    host_file, _, _, _ = _copies(tmp_path / "replays", 8)
    write_secret(secret_path(host_file), played.pair.host.master_secret)
    unfinished = restore_match(host_file, played.keys[0])
    assert len(unfinished.session.chain.entries) == 9 and unfinished.kept == 8
    writer = unfinished.reopen()
    writer.sync(unfinished.session.chain.entries)
    writer.close()
    assert [e.data for e in read_record(host_file).entries] == [e.data for e in played.entries[:9]]


def test_a_record_that_cannot_be_taken_up_is_said_once_and_passed_over(tmp_path: Path) -> None:
    played = honest()
    host_file, _, _, guest_key = _copies(tmp_path / "replays", 8)
    write_secret(secret_path(host_file), bytes(32))  # not the secret this record was written with
    restored: Restored = {}
    said: list[str] = []
    for _ in range(3):
        assert unfinished_with(host_file.parent, played.keys[0], guest_key, said.append, restored) is None
    assert len(said) == 1 and said[0].startswith(f"Not resuming {host_file.name}: cannot rebuild"), said


async def test_a_guest_offered_no_match_stops_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that greets and hangs up without offering a match (as one holding an unfinished match with
    a guest that does not resume it): the guest stops with one line, it does not try to resume a match
    that never began, and keeps no record."""
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "guest"))
    host_key = Ed25519PrivateKey.generate()
    ports: list[int] = []

    async def hang_up(channel: FramedChannel, greeting: Greeting, peer: str) -> None:
        raise Refused("it holds an unfinished match with us")

    async def serve(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async def listening(addresses: list[Address]) -> None:
            ports.append(addresses[0].port)
            task_status.started()

        await listen(public_bytes(host_key), hang_up, port=0, bind="127.0.0.1", on_listening=listening)

    async def yes(question: str) -> bool:
        return True

    replays = tmp_path / "replays"
    async with trio.open_nursery() as nursery:
        await nursery.start(serve)
        options = JoinOptions((Address("127.0.0.1", ports[0]),), replays)
        player = BotPlayer(RandomAgent(1), 1)
        with trio.fail_after(30), pytest.raises(ConnectionLost, match=r"without offering a match.*koikoi resume"):
            await join_match(options, lambda seat: player, lambda line: None, yes)
        nursery.cancel_scope.cancel()
    assert not list(replays.glob("*")), "no record of a match that never began"
