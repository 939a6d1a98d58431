"""Keys from the terminal: raw bytes decoded into key names, read in a worker thread.

The terminal is put in cbreak mode (no line editing, no echo; Ctrl-C still interrupts)
with termios, and a thread waits on it with ``select`` and hands each key to the Trio
loop, which therefore never blocks on the keyboard and keeps answering the peer's
keepalives. Key names: ``1``-``9``, letters (lower case), ``up``, ``down``, ``left``,
``right``, ``enter``, ``space``, ``esc``, ``tab``, ``backspace``.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import threading
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["KeyDecoder", "KeyReader", "cbreak"]

_SEQUENCES = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
}
_SINGLE = {b"\r": "enter", b"\n": "enter", b" ": "space", b"\t": "tab", b"\x7f": "backspace", b"\x08": "backspace"}
ESC_WAIT = 0.03  # seconds to wait for the rest of an escape sequence before taking ESC alone


class KeyDecoder:
    """Bytes in, key names out; keeps a partial escape sequence until the rest arrives."""

    def __init__(self) -> None:
        self._pending = b""

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def feed(self, data: bytes) -> list[str]:
        buffer = self._pending + data
        self._pending = b""
        keys: list[str] = []
        i = 0
        while i < len(buffer):
            if buffer[i : i + 1] == b"\x1b":
                rest = buffer[i:]
                if len(rest) == 1 or (len(rest) == 2 and rest[1:2] in b"[O"):
                    self._pending = rest  # wait for more (or take it as Esc on a timeout)
                    break
                if rest[1:2] in b"[O":
                    end = 2
                    while end < len(rest) and not 0x40 <= rest[end] <= 0x7E:
                        end += 1
                    if end == len(rest):
                        self._pending = rest
                        break
                    name = _SEQUENCES.get(rest[: end + 1])
                    if name is not None:
                        keys.append(name)
                    i += end + 1
                    continue
                keys.append("esc")
                i += 1
                continue
            byte = buffer[i : i + 1]
            name = _SINGLE.get(byte)
            if name is None and byte.isascii() and byte.decode().isprintable():
                name = byte.decode().lower()
            if name is not None:
                keys.append(name)
            i += 1
        return keys

    def flush(self) -> list[str]:
        """The wait ran out: a lone ESC (or a cut sequence) is the Esc key."""
        if not self._pending:
            return []
        self._pending = b""
        return ["esc"]


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """The terminal on ``fd`` without line editing or echo, restored afterwards whatever happens."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class KeyReader:
    """A daemon thread that reads keys from ``fd`` and calls ``deliver`` (from the thread) with each.

    ``deliver`` must be thread-safe: the table passes a function that hands the key to the Trio
    loop with ``trio.from_thread.run_sync``.
    """

    def __init__(self, deliver: Callable[[str], None], fd: int | None = None) -> None:
        self._deliver = deliver
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="koikoi-keys", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    def _run(self) -> None:
        decoder = KeyDecoder()
        while not self._stop.is_set():
            timeout = ESC_WAIT if decoder.pending else 0.1
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                keys = decoder.flush()
            else:
                try:
                    data = os.read(self._fd, 64)
                except OSError:
                    return
                if not data:
                    return  # the terminal is gone
                keys = decoder.feed(data)
            for key in keys:
                try:
                    self._deliver(key)
                except RuntimeError:
                    return  # the Trio loop has finished
