"""How fast the terminal table answers, measured on the real program in a pseudo-terminal of 80x24.

- *Keypress to screen*: at a hand prompt, the arrow keys move the cursor; the time from writing a
  key to the terminal until the first byte of the new frame arrives, and until the frame is
  complete (no byte for 20 ms after it; the quiet time is not counted).
- *Bot move appears*: in a whole practice match against the default bot (``strong``, whose
  default level answers within a second), the time from the first frame that says "Bot is
  choosing" to the first frame that shows the bot's card played (its hand one card smaller;
  when the bot had played before such a frame was due, there is nothing to time), and the time
  from our keypress that played a card to the bot's card on the table, our own draw included.
  Measured with ``KOIKOI_PAUSE=0`` (as fast as it goes) and with the default pause (0.5 s: the
  drawn card on show, which a person sees before the bot's move).

    python bench/ui.py [--samples N] [--bot NAME] [--rounds N]

Targets (from the issue): a keypress answered within 50 ms; a bot's move within 1 s. The figures
are printed, not asserted.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
FRAME = b"\x1b[H"
HAND_COUNT = re.compile(r"Bot · (\d) cards? in hand")
OURS_AGAIN = ("k: Koi-Koi", "Enter: continue", "Enter: leave", "Enter: take it")  # our decision comes first


class Terminal:
    """The program on a pseudo-terminal; every byte it writes is kept with the time it arrived."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.fd = master
        self.chunks: list[tuple[float, bytes]] = []
        self.frame = ""  # the text of the newest frame

    def pump(self, timeout: float) -> bool:
        """Read what arrives within ``timeout``; False if nothing did."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:
            return False
        now = time.perf_counter()
        self.chunks.append((now, data))
        tail = b"".join(c for _, c in self.chunks[-8:])
        start = tail.rfind(FRAME)
        if start >= 0:
            self.frame = ANSI.sub(b"", tail[start:]).decode(errors="replace")
        return bool(data)

    def until(self, test: object, timeout: float = 30.0, *, mark: str = "") -> float:
        """Read until ``test(frame)`` holds; return the time it first did. The first frame to show
        ``mark`` on the way is noted in :attr:`marked` (its time, or None)."""
        deadline = time.perf_counter() + timeout
        self.marked: float | None = None
        while time.perf_counter() < deadline:
            if mark and self.marked is None and mark in self.frame:
                self.marked = self.chunks[-1][0]
            if test(self.frame):  # type: ignore[operator]
                return self.chunks[-1][0] if self.chunks else time.perf_counter()
            self.pump(0.05)
        raise TimeoutError(f"the screen never showed what was awaited; it shows:\n{self.frame}")

    def settle(self, quiet: float = 0.15) -> None:
        while self.pump(quiet):
            pass

    def press(self, key: bytes) -> float:
        sent = time.perf_counter()
        os.write(self.fd, key)
        return sent

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self.fd)


def start(bot: str, rounds: int, pause: str) -> Terminal:
    home = tempfile.mkdtemp(prefix="koikoi-bench-")
    env = {**os.environ, "KOIKOI_HOME": home, "KOIKOI_PAUSE": pause, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    args = [sys.executable, "-m", "p2p_koikoi", "play", "--rounds", str(rounds), "--bot", bot]
    return Terminal(args, env)


def keypress_latency(samples: int) -> tuple[list[float], list[float]]:
    term = start("random", 3, "0")
    firsts: list[float] = []
    wholes: list[float] = []
    try:
        term.until(lambda f: "play that card" in f)
        term.settle()
        for i in range(samples):
            before = len(term.chunks)
            sent = term.press(b"\x1b[C" if i % 2 == 0 else b"\x1b[D")
            while len(term.chunks) == before:
                term.pump(1.0)
            firsts.append(term.chunks[before][0] - sent)
            term.settle(0.02)
            wholes.append(term.chunks[-1][0] - sent)
    finally:
        term.close()
    return firsts, wholes


def taking_card(frame: str) -> bytes:
    """The first hand card marked as taking something, else the first card."""
    lines = frame.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("── Your hand") and i + 1 < len(lines):
            found = re.search(r"(\d) \+", lines[i + 1])
            return (found.group(1) if found else "1").encode()
    return b"1"


def bot_hand(frame: str) -> int | None:
    found = HAND_COUNT.search(frame)
    return int(found.group(1)) if found is not None else None


def bot_move_latency(bot: str, rounds: int, pause: str) -> tuple[list[float], list[float]]:
    """Play a whole match. For each bot move: the time from "Bot is choosing" to its card on the
    table (when that frame was shown at all), and from our keypress that played a card to the bot's
    card on the table (our own draw and its pause included)."""
    term = start(bot, rounds, pause)
    waits: list[float] = []
    turns: list[float] = []
    try:
        while True:
            term.until(
                lambda f: (
                    "play that card" in f
                    or "Enter: take it" in f
                    or "k: Koi-Koi" in f
                    or "Enter: continue" in f
                    or "Enter: leave" in f
                    or "Bot is choosing" in f
                ),
                120,
            )
            frame = term.frame
            if "Enter: leave" in frame:
                term.press(b"\r")
                return waits, turns
            if "Bot is choosing" in frame and "play that card" not in frame:
                shown = HAND_COUNT.search(frame)
                begun = term.chunks[-1][0]
                if shown is not None:
                    before = int(shown.group(1))

                    def played(f: str, before: int = before) -> bool:
                        found = HAND_COUNT.search(f)
                        return found is not None and int(found.group(1)) < before

                    # The bot may be deciding Koi-Koi or Shobu instead of playing: then our turn (or
                    # the round's end) comes next and there is no card to time.
                    shown_at = term.until(lambda f: played(f) or "Bot is choosing" not in f, 60)
                    if played(term.frame):
                        waits.append(shown_at - begun)
                else:
                    term.pump(0.05)
                continue
            if "Enter: continue" in frame:
                key = b"\r"
            elif "k: Koi-Koi" in frame:
                key = b"s"
            elif "Enter: take it" in frame:
                key = b"1"
            else:
                key = taking_card(frame)
            old = frame
            sent = term.press(key)
            term.until(lambda f, old=old: f != old, 30)  # type: ignore[misc]
            before = bot_hand(old)
            if key.isdigit() and "play that card" in old and before is not None:

                def answered(f: str, before: int = before) -> bool:
                    count = bot_hand(f)
                    return (count is not None and count < before) or any(k in f for k in OURS_AGAIN)

                shown_at = term.until(answered, 60, mark="Bot is choosing")
                count = bot_hand(term.frame)
                if count is not None and count < before:
                    turns.append(shown_at - sent)
                    if term.marked is not None:
                        waits.append(shown_at - term.marked)
    finally:
        term.close()


def describe(name: str, values: list[float], target: float) -> str:
    if not values:
        return f"{name:<44} no samples"
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    verdict = "within" if p95 <= target * 1000 else "OVER"
    return (
        f"{name:<44} n={len(ms):<3} median {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms  "
        f"max {ms[-1]:7.1f} ms  ({verdict} {target * 1000:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=40, help="keypresses to time")
    parser.add_argument("--bot", default="strong", help="the bot to time (default: strong)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the timed match")
    args = parser.parse_args()
    firsts, wholes = keypress_latency(args.samples)
    print("Terminal table, 80x24, real program in a pseudo-terminal")
    print(describe("keypress -> first byte of the new frame", firsts, 0.05))
    print(describe("keypress -> whole frame written", wholes, 0.05))
    for pause, label in (("0", "KOIKOI_PAUSE=0"), ("0.5", "default pause")):
        waits, turns = bot_move_latency(args.bot, args.rounds, pause)
        print(describe(f"bot move: 'choosing' -> its card ({label})", waits, 1.0))
        print(describe(f"bot move: our key -> its card ({label})", turns, 1.0))


if __name__ == "__main__":
    main()
