"""A series of matches on one connection through the host and join use cases (issue 29 item 1), as the
rematch tests play it; this module holds no test itself. A real ``host_match`` and ``join_match`` in one
process over loopback TCP, each with a key of its own, bots at the tables (the host's ``RandomAgent(7)``,
the guest's ``RandomAgent(8)`` unless the test gives its own player), Lemme's rules over three rounds, and
each player's answer about another match given by the test. With ``guest_leaves_after``, the guest's first
``join_match`` is cut off after that many moves of its own (as a killed process would be: its record left
unfinished, its secret kept) and it joins again, taking the match up where it left it (or, with
``by_resume``, takes it up with ``koikoi resume``'s use case on its record)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app import netplay, resume
from p2p_koikoi.app.netplay import HostOptions, JoinOptions, NetMatchResult, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.series import Again
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.tcp import Address, CouldNotJoin
from p2p_koikoi.net.transport import TRANSPORT, TcpTransport

__all__ = ["play_series"]


class _Leaving(BotPlayer):
    """A bot that plays ``moves`` moves of its own, then lets the test know, and is cut off there."""

    def __init__(self, seat: int, moves: int, gone: trio.Event) -> None:
        super().__init__(RandomAgent(8), seat)
        self.moves, self.gone = moves, gone

    async def choose(self, *args: Any, **kwargs: Any) -> Any:
        if self.moves == 0:
            self.gone.set()
            await trio.sleep_forever()
        self.moves -= 1
        return await super().choose(*args, **kwargs)


class _Kept(TcpTransport):
    """TCP that keeps every connection it opens, so a test can close them as a killed process's would be."""

    def __init__(self) -> None:
        self.streams: list[trio.SocketStream] = []

    async def connect(self, host: str, port: int) -> trio.abc.HalfCloseableStream:
        stream = await super().connect(host, port)
        assert isinstance(stream, trio.SocketStream)
        self.streams.append(stream)
        return stream


async def _cut_off(join: JoinOptions, moves: int) -> None:
    """The guest's first ``join_match``, cancelled once it has made ``moves`` moves, and its connection
    closed as the kernel closes a killed process's (a cancelled task alone would leave the socket open,
    and the host would see a silence, not a drop)."""
    gone, kept = trio.Event(), _Kept()
    async with trio.open_nursery() as nursery:

        async def first() -> None:
            TRANSPORT.set(kept)
            await join_match(join, lambda seat: _Leaving(seat, moves, gone), lambda line: None, _no)

        nursery.start_soon(first)
        await gone.wait()
        nursery.cancel_scope.cancel()
    for stream in kept.streams:
        stream.socket.close()


async def _join_again(join: JoinOptions, player: Callable[[int], BotPlayer], again: Again) -> NetMatchResult:
    """``join_match`` again, as a player runs ``koikoi join`` again: refused while the host, which has seen
    the drop, is still opening its port again (a moment), it is run again, for up to 10 s."""
    with trio.fail_after(10):
        while True:
            try:
                return await join_match(join, player, lambda line: None, _no, again)
            except CouldNotJoin as exc:
                if "refused" not in str(exc):
                    raise
            await trio.sleep(0.05)


async def _no(question: str) -> bool:
    """Neither side confirms anything it is asked."""
    return False


async def play_series(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    host_says: Again,
    guest_says: Again,
    guest_player: Callable[[int], BotPlayer] | None = None,
    guest_leaves_after: int | None = None,
    by_resume: bool = False,
) -> tuple[NetMatchResult, NetMatchResult, Path]:
    """Host and guest play until the series ends (within 120 s): their results and the replays folder."""
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "home"))
    host_key, guest_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    keys = iter([host_key])
    monkeypatch.setattr(netplay, "load_identity", lambda: next(keys, guest_key))  # the host's key, then the guest's
    monkeypatch.setattr(resume, "load_identity", lambda: guest_key)
    replays = tmp_path / "replays"
    options = HostOptions(preset("lemme").with_option("rounds", "3"), 0, "127.0.0.1", 0, replays, upnp=False)
    ports: list[int] = []
    listening = trio.Event()
    host_lost = trio.Event()  # the host has seen the guest go and listens (or is about to) for it again

    def host_say(line: str) -> None:
        if line.startswith("Waiting for the opponent to come back"):
            host_lost.set()
        found = re.search(r"on port (\d+)", line)
        if found and not ports:
            ports.append(int(found.group(1)))
            listening.set()

    results: dict[int, NetMatchResult] = {}

    async def host() -> None:
        player = lambda seat: BotPlayer(RandomAgent(7), seat)  # noqa: E731 - a new player for each match
        results[0] = await host_match(options, player, host_say, host_says)

    async def guest() -> None:
        await listening.wait()
        join = JoinOptions((Address("127.0.0.1", ports[0]),), replays)
        player = guest_player or (lambda seat: BotPlayer(RandomAgent(8), seat))
        if guest_leaves_after is not None:
            await _cut_off(join, guest_leaves_after)
            await host_lost.wait()
            if by_resume:
                (record,) = replays.glob("*-guest.koikoi")
                results[1] = await resume.resume_match(record, None, player, lambda line: None, again=guest_says)
            else:
                results[1] = await _join_again(join, player, guest_says)
            return
        results[1] = await join_match(join, player, lambda line: None, _no, guest_says)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
    return results[0], results[1], replays
