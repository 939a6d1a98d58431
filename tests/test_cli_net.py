"""Two real processes play a whole match over loopback TCP, driven through the command line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from p2p_koikoi.record.reader import read_record
from p2p_koikoi.testing import KOIKOI, free_port, join_bot, koikoi_env, spawn_host
from tests.netns_support import no_namespaces

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")


def test_two_processes_play_a_whole_match_over_loopback(tmp_path: Path) -> None:
    port = free_port()
    replays = tmp_path / "replays"
    host = spawn_host(
        tmp_path / "host", port, replays, "--rules", "lemme", "--rounds", "6", "--bot", "greedy", "--seed", "1"
    )
    try:
        guest = join_bot(tmp_path / "guest", port, replays)
        host_out, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in guest.stderr + host_err
    assert "join with: koikoi join" in host_err
    assert re.search(r"fingerprint [0-9a-f]{4}(:[0-9a-f]{4}){7}", host_err)
    records = sorted(replays.glob("*.koikoi"))
    assert [p.name.rsplit("-", 1)[1] for p in records] == ["guest.koikoi", "host.koikoi"]
    assert all("-lemme-" in p.name for p in records)
    guest_record, host_record = (read_record(p) for p in records)
    assert guest_record.complete and host_record.complete
    assert [e.data for e in guest_record.entries] == [e.data for e in host_record.entries]
    assert guest_record.entries[-1].entry.kind == "goodbye"
    for out in (guest.stdout, host_out):
        assert "Record saved:" in out and "koikoi verify" in out


def test_an_invite_only_host_is_joined_with_its_code_and_not_without(tmp_path: Path) -> None:
    port = free_port()
    replays = tmp_path / "replays"
    host = spawn_host(
        tmp_path / "host", port, replays, "--rules", "lemme", "--rounds", "3", "--bot", "greedy", "--invite-only"
    )
    try:
        assert host.stderr is not None
        code = ""
        while not code:
            line = host.stderr.readline()
            assert line, "the host printed no invite code"
            if "koikoi join kk1:" in line:
                code = line.split("koikoi join ")[1].strip()
        guest_cmd = [*KOIKOI, "join", "--bot", "random", "--seed", "2", "--replay-dir", str(replays), "--timeout", "5"]
        stranger = subprocess.run(
            [*guest_cmd, f"127.0.0.1:{port}"],
            env=koikoi_env(tmp_path / "x"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        guest = subprocess.run(
            [*guest_cmd, code], env=koikoi_env(tmp_path / "guest"), capture_output=True, text=True, timeout=120
        )
        _, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert stranger.returncode == 1 and "closed the connection before greeting" in stranger.stderr, stranger.stderr
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0, host_err
    # the first drop (spawn_host's probe) is shown in full; the stranger is in the summary
    assert "Dropped 1 more connection in the last 10 s: refused 1." in host_err, host_err


def run_join(*args: str, home: Path, netns: str | None = None) -> subprocess.CompletedProcess[str]:
    prefix = ["ip", "netns", "exec", netns] if netns else []
    return subprocess.run(
        [*prefix, *KOIKOI, "join", *args, "--bot", "random", "--timeout", "3"],
        env=koikoi_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("fd77::1:7447", "'fd77::1:7447' is ambiguous: write [fd77::1]:7447 for port 7447, or [fd77::1:7447]"),
        ("1.2.3", "'1.2.3' is not a whole IPv4 address"),
        ("kk1:aaaa", "bad invite code: the invite code is damaged"),
    ],
)
def test_addresses_a_person_mistyped_are_explained(tmp_path: Path, target: str, words: str) -> None:
    joined = run_join(target, home=tmp_path)
    assert joined.returncode == 2 and words in joined.stderr, joined.stderr


def test_refused_and_not_koikoi_each_in_their_own_words(tmp_path: Path) -> None:
    import socket
    import threading

    closed = free_port()
    with socket.socket() as web:
        web.bind(("127.0.0.1", 0))
        web.listen()

        def answer_like_a_web_server() -> None:
            conn, _ = web.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

        threading.Thread(target=answer_like_a_web_server, daemon=True).start()
        other = run_join(f"127.0.0.1:{web.getsockname()[1]}", home=tmp_path)
    refused = run_join(f"127.0.0.1:{closed}", home=tmp_path)
    assert other.returncode == 1 and "is not a koikoi host" in other.stderr, other.stderr
    assert "byte frame" not in other.stderr
    assert refused.returncode == 1, refused.stderr
    assert f"127.0.0.1:{closed} refused the connection: nothing listens on port {closed}" in refused.stderr


def test_unreachable_says_no_route(tmp_path: Path) -> None:
    """In a namespace of our own with only loopback, no address outside it has a route: nothing is sent."""
    import os

    name = f"kkunreach{os.getpid()}"
    if os.geteuid() != 0 or subprocess.run(["ip", "netns", "add", name], capture_output=True).returncode:
        no_namespaces()
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)
        joined = run_join("10.77.9.9:7447", home=tmp_path, netns=name)
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)
    assert joined.returncode == 1 and "no route to 10.77.9.9:7447" in joined.stderr, joined.stderr
