"""Real ``koikoi`` processes for tests: their environment, a free port, waiting for a listener."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

KOIKOI = [sys.executable, "-m", "p2p_koikoi"]


def koikoi_env(home: Path) -> dict[str, str]:
    """The environment for a `koikoi` process whose config and data live under ``home``."""
    return {**os.environ, "KOIKOI_HOME": str(home)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, timeout: float = 20.0) -> None:
    """Return once something accepts connections on the loopback ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:g} s")


def spawn_host(home: Path, port: int, replays: Path, *options: str) -> subprocess.Popen[str]:
    """`koikoi host` on the loopback ``port`` in a process of its own, once it listens."""
    process = subprocess.Popen(
        [*KOIKOI, "host", "--port", str(port), "--bind", "127.0.0.1", "--replay-dir", str(replays), *options],
        env=koikoi_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_listening(port)
    except TimeoutError:
        process.kill()
        raise
    return process


def join_bot(
    home: Path, port: int, replays: Path, *options: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`koikoi join` of the loopback ``port`` with the random bot (seed 2) as the guest, to its end."""
    command = [*KOIKOI, "join", f"127.0.0.1:{port}", "--bot", "random", "--seed", "2", "--replay-dir", str(replays)]
    return subprocess.run(
        [*command, *options], env=koikoi_env(home), capture_output=True, text=True, timeout=timeout, check=False
    )
