"""Real ``koikoi`` processes for tests: their environment, a free port, waiting for a listener."""

from __future__ import annotations

import concurrent.futures
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

KOIKOI = [sys.executable, "-m", "p2p_koikoi"]


def koikoi_env(home: Path) -> dict[str, str]:
    """The environment for a `koikoi` process whose config and data live under ``home``; it asks no public
    STUN server (``KOIKOI_STUN=none``): a test that punches names its own server with ``--stun``."""
    return {**os.environ, "KOIKOI_HOME": str(home), "KOIKOI_STUN": "none"}


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


@dataclass(frozen=True)
class PtyRun:
    """How a program run in a terminal of its own ended: its exit code (None if it was still running at
    the deadline and had to be killed), everything the terminal showed, and whether the key was sent."""

    code: int | None
    shown: str
    acted: bool


def run_in_pty(
    command: list[str],
    env: dict[str, str],
    *,
    until: bytes,
    answer: bytes | None = None,
    then: tuple[tuple[bytes, bytes | None], ...] = (),
    timeout: float = 60,
) -> PtyRun:
    """Run ``command`` in a pseudo-terminal; once ``until`` is on its screen, send SIGINT (what Ctrl-C
    sends) or type ``answer``; then each step of ``then`` the same way, its text looked for in what the
    screen shows after the step before; then wait, up to ``timeout`` seconds in all, for it to end.
    ``acted`` is True once every step was taken."""
    import pty
    import select
    import signal

    steps = [(until, answer), *then]
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program, in a terminal of its own
        os.execvpe(command[0], command, env)
    shown, since = b"", 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the child is gone and its terminal with it
                    break
                if not chunk:
                    break
                shown += chunk
            if steps and steps[0][0] in shown[since:]:
                time.sleep(0.3)  # the prompt is up and waiting for a key
                text = steps.pop(0)[1]
                if text is None:
                    os.kill(pid, signal.SIGINT)
                else:
                    os.write(fd, text)
                since = len(shown)
        return PtyRun(_ended_by(pid, deadline), shown.decode(errors="replace"), not steps)
    finally:
        os.close(fd)


def _ended_by(pid: int, deadline: float) -> int | None:
    """The child's exit code once it ends, or None (and the child killed) if it outlives ``deadline``."""
    import signal

    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.05)


def stderr_lines_until(process: subprocess.Popen[str], words: str, seconds: float = 60) -> list[str]:
    """Standard error lines of ``process`` up to the first that holds ``words``, bounded by its end and in
    time even while it writes nothing (the read waits in a thread; the process is killed at the deadline,
    so a changed line fails the test at once instead of hanging it). Read the rest with
    :func:`rest_of_output`, never ``communicate``: that reads the raw pipe and loses what this file's
    buffer already holds."""
    stderr = process.stderr
    assert stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + seconds
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        while not lines or words not in lines[-1]:
            reading = pool.submit(stderr.readline)
            try:
                line = reading.result(timeout=max(0.0, deadline - time.monotonic()))
            except concurrent.futures.TimeoutError:
                process.kill()  # ends the blocked read, so the pool can close
                raise AssertionError(f"no line with {words!r} within {seconds:g} s: {lines}") from None
            assert line, (lines, process.poll())
            lines.append(line.rstrip("\n"))
    return lines


def rest_of_output(process: subprocess.Popen[str], seconds: float) -> tuple[str, str]:
    """What ``process`` still writes to its piped stdout and stderr until it ends, read through the same
    buffered files as :func:`stderr_lines_until` (both at once, so neither pipe fills); killed after
    ``seconds``, which fails the test with what was read."""
    pipes = [pipe for pipe in (process.stdout, process.stderr)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        reads = [pool.submit(pipe.read) if pipe is not None else None for pipe in pipes]
        try:
            texts = [read.result(timeout=seconds) if read is not None else "" for read in reads]
        except concurrent.futures.TimeoutError:
            process.kill()
            raise AssertionError(f"the process did not end within {seconds:g} s") from None
    process.wait(timeout=10)
    return texts[0], texts[1]
