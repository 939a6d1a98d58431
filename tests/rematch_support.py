"""A series of matches on one connection through the host and join use cases (issue 29 item 1), as the
rematch tests play it; this module holds no test itself. A real ``host_match`` and ``join_match`` in one
process over loopback TCP, each with a key of its own, bots at the tables (the host's ``RandomAgent(7)``,
the guest's ``RandomAgent(8)`` unless the test gives its own player), Lemme's rules over three rounds, and
each player's answer about another match given by the test."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app import netplay
from p2p_koikoi.app.netplay import HostOptions, JoinOptions, NetMatchResult, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.series import Again
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.tcp import Address

__all__ = ["play_series"]


async def _no(question: str) -> bool:
    """Neither side confirms anything it is asked."""
    return False


async def play_series(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    host_says: Again,
    guest_says: Again,
    guest_player: Callable[[int], BotPlayer] | None = None,
) -> tuple[NetMatchResult, NetMatchResult, Path]:
    """Host and guest play until the series ends (within 120 s): their results and the replays folder."""
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "home"))
    keys = iter([Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()])
    monkeypatch.setattr(netplay, "load_identity", lambda: next(keys))  # the host's key, then the guest's
    replays = tmp_path / "replays"
    options = HostOptions(preset("lemme").with_option("rounds", "3"), 0, "127.0.0.1", 0, replays, upnp=False)
    ports: list[int] = []
    listening = trio.Event()

    def host_say(line: str) -> None:
        found = re.search(r"on port (\d+)", line)
        if found and not ports:
            ports.append(int(found.group(1)))
            listening.set()

    results: dict[int, NetMatchResult] = {}

    async def host() -> None:
        player = lambda seat: BotPlayer(RandomAgent(7), seat)  # noqa: E731 - a new player for each match
        results[0] = await host_match(options, player, host_say, _no, host_says)

    async def guest() -> None:
        await listening.wait()
        join = JoinOptions((Address("127.0.0.1", ports[0]),), replays)
        player = guest_player or (lambda seat: BotPlayer(RandomAgent(8), seat))
        results[1] = await join_match(join, player, lambda line: None, _no, guest_says)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
    return results[0], results[1], replays
