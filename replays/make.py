"""Make the sample matches in this folder again: ``python replays/make.py`` (about half a minute).

- ``<preset>.koikoi``, one per rule preset: two real ``koikoi`` processes, a host and a guest
  played by bots, over loopback TCP, three rounds each; the host's copy of the record is kept.
- ``cheat-stacked-deck.koikoi``: the host is our own session with one step altered: in round 1 it
  re-orders its first deck pass after proving it (stacking the deck). The proof no longer covers the
  deck it sends, so the honest guest refuses that very entry (``bad-shuffle-proof``) before play
  starts, ends the match blaming the host, and notes why (before the proofs, deal v1, this was caught
  only at the round's end, when the host's secret came out). The guest's record is kept (both peers
  run the real runner, in memory).
- ``crash-killed-guest.koikoi``: a real 12-round match whose guest process is killed (SIGKILL)
  in the middle of the match; the guest's record is kept as the crash left it.

Each file is checked with ``koikoi verify`` as it is made. Secrets and keys are fresh every
time, so the files differ from run to run; what they show does not.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, preset
from p2p_koikoi.fairness import DealContext, Deck, FairDeal
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import greet_as_guest, greet_as_host
from p2p_koikoi.net.runner import run_match
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import public_bytes

HERE = Path(__file__).resolve().parent
KOIKOI = [sys.executable, "-m", "p2p_koikoi"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_pair(
    work: Path, rules: str, rounds: int | None, seed: int
) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """A host and a guest ``koikoi`` process, bots on both seats, each with its own home and record folder."""
    port = free_port()
    extra = ["--rounds", str(rounds)] if rounds else []
    listen = ["--port", str(port), "--bind", "127.0.0.1", "--rules", rules, *extra]
    host = subprocess.Popen(
        [*KOIKOI, "host", *listen, "--bot", "greedy", "--seed", str(seed), "--replay-dir", str(work / "host"), "-q"],
        env={**os.environ, "KOIKOI_HOME": str(work / "home-host")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    bot = ["--bot", "greedy", "--seed", str(seed + 1)]
    guest = subprocess.Popen(
        [*KOIKOI, "join", f"127.0.0.1:{port}", *bot, "--replay-dir", str(work / "guest"), "--quiet"],
        env={**os.environ, "KOIKOI_HOME": str(work / "home-guest")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return host, guest


def one_record(folder: Path) -> Path:
    (path,) = sorted(folder.glob("*.koikoi"))
    return path


def preset_sample(name: str, seed: int) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        host, guest = start_pair(work, name, 3, seed)
        guest.communicate(timeout=120)
        host.communicate(timeout=60)
        if host.returncode or guest.returncode:
            raise SystemExit(f"{name}: the match failed (host {host.returncode}, guest {guest.returncode})")
        target = HERE / f"{name}.koikoi"
        shutil.copyfile(one_record(work / "host"), target)
    return target


def crash_sample(seed: int) -> Path:
    """Kill the guest process mid-match, as a power cut would."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        host, guest = start_pair(work, "nintendo", None, seed)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                records = list((work / "guest").glob("*.koikoi"))
                if records and records[0].stat().st_size > 100_000:
                    break
                time.sleep(0.02)
            guest.send_signal(signal.SIGKILL)
            guest.wait(timeout=30)
        finally:
            for process in (guest, host):
                if process.poll() is None:
                    process.kill()
                process.communicate(timeout=30)
        target = HERE / "crash-killed-guest.koikoi"
        shutil.copyfile(one_record(work / "guest"), target)
    return target


def crash_sample_cut_mid_round(seed: int, tries: int = 6) -> Path:
    """The kill lands wherever the match is; the sample shows a round cut short, so kill again until it does."""
    from p2p_koikoi.app.replay import load_replay

    for attempt in range(tries):
        target = crash_sample(seed + attempt)
        if load_replay(target).rounds[-1].played.deal is None:
            return target
    raise SystemExit(f"no kill in {tries} tries cut a round short")


class StackingDeal(FairDeal):
    """Seat 0's side of a deal, with its first deck pass re-ordered after it was computed (and proved)."""

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 1:
            return honest
        points = list(honest.points)
        points[0], points[30] = points[30], points[0]  # the order it wants, not the one it proved
        return Deck(1, tuple(points), honest.proof)


class StackingHost(MatchSession):
    """The host's session, stacking the deck of round 1 (and playing honestly otherwise)."""

    def new_deal(
        self, context: DealContext, seat: int, keys: tuple[bytes, bytes], secret: bytes, **layout: Any
    ) -> FairDeal:
        if context.round == 1 and context.redeal == 0:
            return StackingDeal(context, seat, keys, secret, **layout)
        return super().new_deal(context, seat, keys, secret, **layout)


def cheat_sample() -> Path:
    target = HERE / "cheat-stacked-deck.koikoi"
    target.unlink(missing_ok=True)

    async def main() -> None:
        a, b = trio.testing.memory_stream_pair()
        ca, cb = FramedChannel(a), FramedChannel(b)
        k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
        record = RecordWriter(HERE, lambda: target.name, seat=1)

        async def host() -> None:
            greeting = await greet_as_host(ca, public_bytes(k0))
            session = StackingHost(0, k0, greeting.peer_key, greeting.nonces, rules=preset("lemme"))
            await run_match(ca, session, BotPlayer(RandomAgent(1), 0))

        async def guest() -> None:
            greeting = await greet_as_guest(cb, public_bytes(k1))
            session = MatchSession(1, k1, greeting.peer_key, greeting.nonces)
            await run_match(cb, session, BotPlayer(RandomAgent(2), 1), record)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
        record.close()

    trio.run(main)
    return target


def check(path: Path) -> None:
    done = subprocess.run([*KOIKOI, "verify", str(path)], capture_output=True, text=True, check=False)
    summary = (done.stdout or done.stderr).strip().splitlines()
    size = path.stat().st_size
    print(f"{path.name}: {size // 1024} KB, {len(read_record(path).entries)} entries, verify exit {done.returncode}")
    for line in summary[:3]:
        print(f"    {line}")


def main() -> None:
    made = [preset_sample(name, seed) for seed, name in enumerate(PRESETS, start=1)]
    made.append(cheat_sample())
    made.append(crash_sample_cut_mid_round(99))
    for path in made:
        check(path)


if __name__ == "__main__":
    main()
