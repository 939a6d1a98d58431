"""LAN discovery: an IPv6-only LAN (two network namespaces the test creates and removes), and the
loud warning when the key a host proves differs from the fingerprint its announcement showed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from p2p_koikoi.app.netplay import HostOptions, JoinOptions, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.tcp import Address
from tests.netns_support import no_namespaces

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")

ANNOUNCE = """
import sys, trio
from p2p_koikoi.net.lan import announce
async def main():
    item = await announce(7447, ["fd77::1"], "abcd:ef01:2345:6789:abcd:ef01:2345:6789", "lemme rounds=3")
    print("announced", flush=True)
    await trio.sleep(float(sys.argv[1]))
    await item.close()
trio.run(main)
"""
BROWSE = """
import trio
from p2p_koikoi.net.lan import browse
for game in trio.run(browse, 3.0):
    print(game.fingerprint, game.port, ",".join(game.addresses), flush=True)
"""


def ns(name: str, *args: str) -> None:
    subprocess.run(["ip", "-n", name, *args], check=True, capture_output=True, timeout=20)


def test_discovery_on_an_ipv6_only_lan() -> None:
    if os.geteuid() != 0 or subprocess.run(["ip", "netns", "add", "kkv6probe"], capture_output=True).returncode:
        no_namespaces()
    subprocess.run(["ip", "netns", "del", "kkv6probe"], check=False)
    tag = f"kk6{os.getpid() % 10000}"
    a, b = f"{tag}a", f"{tag}b"
    try:
        for name in (a, b):
            subprocess.run(["ip", "netns", "add", name], check=True)
        subprocess.run(
            ["ip", "link", "add", f"{tag}x", "netns", a, "type", "veth", "peer", "name", f"{tag}y", "netns", b],
            check=True,
        )
        # no IPv4 anywhere, and loopback left down, so not even 127.0.0.1 exists
        ns(a, "addr", "add", "fd77::1/64", "dev", f"{tag}x", "nodad")
        ns(b, "addr", "add", "fd77::2/64", "dev", f"{tag}y", "nodad")
        ns(a, "link", "set", f"{tag}x", "up")
        ns(b, "link", "set", f"{tag}y", "up")
        host = subprocess.Popen(
            ["ip", "netns", "exec", a, sys.executable, "-c", ANNOUNCE, "10"], stdout=subprocess.PIPE, text=True
        )
        try:
            assert host.stdout is not None and host.stdout.readline().strip() == "announced"
            found = subprocess.run(
                ["ip", "netns", "exec", b, sys.executable, "-c", BROWSE],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            )
        finally:
            host.kill()
            host.wait(timeout=10)
    finally:
        for name in (a, b):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
    assert "abcd:ef01:2345:6789:abcd:ef01:2345:6789 7447 fd77::1" in found.stdout, (found.stdout, found.stderr)


async def test_a_spoofed_announcement_gets_a_loud_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "host"))
    rules = preset("lemme").with_option("rounds", "3")
    options = HostOptions(rules, 0, "127.0.0.1", 0, tmp_path / "replays", upnp=False)
    port_box: list[int] = []
    said: list[str] = []
    asked: list[str] = []

    def host_say(line: str) -> None:
        if line.startswith("Hosting"):
            port_box.append(int(line.split(" on port ")[1].split(".")[0]))

    async def no(question: str) -> bool:
        asked.append(question)
        return False

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host_match, options, lambda seat: BotPlayer(RandomAgent(1), seat), host_say, no)
        while not port_box:
            await trio.sleep(0.01)
        monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "guest"))
        announced = "0000:1111:2222:3333:4444:5555:6666:7777"  # what a spoofed announcement claimed
        join = JoinOptions((Address("127.0.0.1", port_box[0]),), tmp_path / "replays", 5.0, announced=announced)
        result = await join_match(join, lambda seat: BotPlayer(RandomAgent(2), seat), said.append, no)
        nursery.cancel_scope.cancel()
    assert result.report is None and "not trusted" in result.notes[0]
    assert any("WARNING: the game on the LAN announced fingerprint 0000:1111" in line for line in said), said
    assert asked == ["Play against this key anyway?"]
