"""Two real processes play a whole match over loopback TCP, driven through the command line."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from p2p_koikoi.record.reader import read_record


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_processes_play_a_whole_match_over_loopback(tmp_path: Path) -> None:
    port = free_port()
    replays = tmp_path / "replays"
    env_host = {**os.environ, "KOIKOI_HOME": str(tmp_path / "host")}
    env_guest = {**os.environ, "KOIKOI_HOME": str(tmp_path / "guest")}
    command = [sys.executable, "-m", "p2p_koikoi"]
    host = subprocess.Popen(
        [
            *command,
            "host",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--rules",
            "lemme",
            "--rounds",
            "6",
            "--bot",
            "greedy",
            "--seed",
            "1",
            "--replay-dir",
            str(replays),
        ],
        env=env_host,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        guest = subprocess.run(
            [*command, "join", f"127.0.0.1:{port}", "--bot", "random", "--seed", "2", "--replay-dir", str(replays)],
            env=env_guest,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
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
