"""Hole punching through two real NATs (issue 26 item 3): host and guest each behind an nftables masquerade
with no UPnP, coturn in the "public" namespace between them (:mod:`tests.nat_pair`). Neither can be
reached: the guest's dial fails, it answers with its STUN candidate, the host's player pastes the answer,
and both connect at once from their STUN ports (a TCP simultaneous open); a whole match is played over
the punched connection and both records verify. Endpoint-independent mapping on both sides (EIM x EIM)
lets the punch through; the STUN client itself is checked against coturn."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_koikoi.testing import KOIKOI, koikoi_env
from p2p_koikoi.testing.processes import rest_of_output, stderr_lines_until
from tests.nat_pair import STUN, TURN_PASSWORD, TURN_USER, Mapping, NatPair, namespaces_allowed, nat_pair
from tests.netns_support import no_namespaces

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")

STUN_AT = f"{STUN[0]}:{STUN[1]}"
RULES = ["--rules", "lemme", "--rounds", "3"]


@pytest.fixture
def eim_pair(tmp_path: Path) -> Iterator[NatPair]:
    reason = namespaces_allowed()
    if reason:
        no_namespaces(reason)
    with nat_pair(tmp_path / "coturn.log", Mapping.EIM, Mapping.EIM) as net:
        yield net
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout.split()
    assert not set(net.made) & set(left)


def spawn_host(net: NatPair, home: Path, args: list[str]) -> subprocess.Popen[str]:
    """``koikoi host`` on port 7447 in home A, its three streams piped (the answer code goes to its stdin)."""
    return subprocess.Popen(
        [*net.exec(net.a), *KOIKOI, "host", "--port", "7447", *args],
        env=koikoi_env(home / "host"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def spawn_guest(net: NatPair, home: Path, code: str, args: list[str]) -> subprocess.Popen[str]:
    """``koikoi join CODE`` in home B, its output piped."""
    return subprocess.Popen(
        [*net.exec(net.b), *KOIKOI, "join", code, *args],
        env=koikoi_env(home / "guest"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_stun_client_learns_its_public_endpoint_from_coturn(eim_pair: NatPair) -> None:
    probe = (
        "import trio\nfrom p2p_koikoi.net.stun import tcp_mapping\n"
        "async def main():\n"
        f"    m, s = await tcp_mapping({STUN!r}, 0)\n"
        "    print(m.host, m.port, m.local_port)\n"
        "trio.run(main)\n"
    )
    out = subprocess.run(
        [*eim_pair.exec(eim_pair.a), *KOIKOI[:1], "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    host, port, local = out.stdout.split()
    assert host == "10.88.10.2"  # the router's public side, not our private 10.88.1.2
    assert port == local  # masquerade kept the port: one local port, one public port


def test_a_whole_match_over_a_hole_punched_through_two_nats(eim_pair: NatPair, tmp_path: Path) -> None:
    net = eim_pair
    replays = str(tmp_path / "replays")
    common = ["--bot", "random", "--no-upnp", "--stun", STUN_AT, "--replay-dir", replays]
    host = spawn_host(net, tmp_path, [*RULES, *common])
    guest: subprocess.Popen[str] | None = None
    try:
        assert host.stdin is not None
        host_lines = stderr_lines_until(host, "punching from 10.88.10.2:")
        code = next(line for line in host_lines if "kk1:" in line).split("koikoi join ")[1]
        guest = spawn_guest(net, tmp_path, code, ["--timeout", "3", *common])
        guest_lines = stderr_lines_until(guest, "  kka1:")
        host.stdin.write(guest_lines[-1].strip() + "\n")
        host.stdin.flush()
        guest_err = rest_of_output(guest, 120)[1]
        host_err = rest_of_output(host, 60)[1]
    finally:
        for process in (host, guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    said = "\n".join(guest_lines) + guest_err
    assert guest.returncode == 0, said
    assert host.returncode == 0, host_err
    assert "Traceback" not in said + host_err
    assert "Could not reach the host: " in said
    assert "punching from 10.88.20.2:" in said, said  # the guest's candidate, from coturn
    assert "The punch to the host at 10.88.10.2:" in said, said
    assert "and punching to 10.88.20.2:" in host_err, host_err
    assert "Guest 10.88.20.2:" in host_err, host_err  # seated over the punched connection
    records = sorted((tmp_path / "replays").glob("*.koikoi"))
    assert len(records) == 2
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


@pytest.fixture
def edm_pair(tmp_path: Path) -> Iterator[NatPair]:
    reason = namespaces_allowed()
    if reason:
        no_namespaces(reason)
    with nat_pair(tmp_path / "coturn.log", Mapping.EDM, Mapping.EDM) as net:
        yield net


def test_two_symmetric_nats_fall_back_to_the_relay(edm_pair: NatPair, tmp_path: Path) -> None:
    """EDM x EDM (``masquerade fully-random`` on both routers): no direct rung can work, so the guest also
    allocates a relayed address on coturn (TURN over TCP, RFC 6062) and lets the host's public address in;
    the host dials it as any address in the answer, and the whole match goes through the relay."""
    net = edm_pair
    replays = str(tmp_path / "replays")
    common = ["--bot", "random", "--no-upnp", "--stun", STUN_AT, "--replay-dir", replays]
    relay = ["--relay", f"turn:10.88.20.1:{STUN[1]}", "--relay-user", TURN_USER, "--relay-password", TURN_PASSWORD]
    host = spawn_host(net, tmp_path, [*RULES, *common])
    guest: subprocess.Popen[str] | None = None
    try:
        assert host.stdin is not None
        host_lines = stderr_lines_until(host, "punching from 10.88.10.2:")
        code = next(line for line in host_lines if "kk1:" in line).split("koikoi join ")[1]
        guest = spawn_guest(net, tmp_path, code, ["--timeout", "3", *common, *relay])
        guest_lines = stderr_lines_until(guest, "  kka1:")
        host.stdin.write(guest_lines[-1].strip() + "\n")
        host.stdin.flush()
        guest_err = rest_of_output(guest, 120)[1]
        host_err = rest_of_output(host, 60)[1]
    finally:
        for process in (host, guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    said = "\n".join(guest_lines) + guest_err
    assert guest.returncode == 0, said
    assert host.returncode == 0, host_err
    assert "Traceback" not in said + host_err
    assert "The host came through the relay at 10.88.10.1:" in said, said
    assert "Guest 10.88.10.1:" in host_err, host_err  # seated through the relay's address
    records = sorted((tmp_path / "replays").glob("*.koikoi"))
    assert len(records) == 2
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_punched_match_cut_mid_way_is_punched_again(eim_pair: NatPair, tmp_path: Path) -> None:
    """EIM x EIM, punched; mid-match the host's router resets the connection (an nftables reject for a
    moment): both sides punch again from the same ports, resume, and the match is played out."""
    net = eim_pair
    replays = str(tmp_path / "replays")
    common = ["--bot", "random", "--no-upnp", "--stun", STUN_AT, "--replay-dir", replays]
    host = spawn_host(net, tmp_path, ["--rules", "nintendo", *common])
    guest: subprocess.Popen[str] | None = None
    cut = ["ip", "netns", "exec", net.routers[0], "nft"]
    try:
        assert host.stdin is not None
        host_lines = stderr_lines_until(host, "punching from 10.88.10.2:")
        code = next(line for line in host_lines if "kk1:" in line).split("koikoi join ")[1]
        guest = spawn_guest(net, tmp_path, code, ["--timeout", "3", *common])
        guest_lines = stderr_lines_until(guest, "  kka1:")
        host.stdin.write(guest_lines[-1].strip() + "\n")
        host.stdin.flush()
        host_lines += stderr_lines_until(host, "accepted the rules")
        time.sleep(0.3)
        subprocess.run([*cut, "insert rule inet nat_pair forward meta l4proto tcp reject with tcp reset"], check=True)
        time.sleep(0.5)
        subprocess.run([*cut, "flush chain inet nat_pair forward"], check=True)
        rules = "add rule inet nat_pair forward ct state established,related accept; "
        rules += f'add rule inet nat_pair forward iifname "{net.tag}ral" accept'
        subprocess.run([*cut, "-f", "-"], input=rules, text=True, check=True)
        guest_err = rest_of_output(guest, 180)[1]
        host_err = rest_of_output(host, 60)[1]
    finally:
        for process in (host, guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    said = "\n".join(guest_lines) + guest_err
    assert guest.returncode == 0, said
    assert host.returncode == 0, "\n".join(host_lines) + host_err
    for side in (said, host_err):  # the cut was felt, and mended, on both sides
        assert "Connection lost" in side and "Connection back; the match goes on." in side, side
    records = sorted((tmp_path / "replays").glob("*.koikoi"))
    assert len(records) == 2
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_relayed_match_cut_mid_way_is_relayed_again(edm_pair: NatPair, tmp_path: Path) -> None:
    """EDM x EDM, relayed; mid-match the host's router resets the host's connection to the relay for a
    moment (the relay then closes the guest's side too): the host dials the relayed address again, the
    guest accepts the connection the relay announces, they resume, and the match is played out."""
    net = edm_pair
    replays = str(tmp_path / "replays")
    common = ["--bot", "random", "--no-upnp", "--stun", STUN_AT, "--replay-dir", replays]
    relay = ["--relay", f"turn:10.88.20.1:{STUN[1]}", "--relay-user", TURN_USER, "--relay-password", TURN_PASSWORD]
    host = spawn_host(net, tmp_path, ["--rules", "nintendo", *common])
    guest: subprocess.Popen[str] | None = None
    cut = ["ip", "netns", "exec", net.routers[0], "nft"]
    try:
        assert host.stdin is not None
        host_lines = stderr_lines_until(host, "punching from 10.88.10.2:")
        code = next(line for line in host_lines if "kk1:" in line).split("koikoi join ")[1]
        guest = spawn_guest(net, tmp_path, code, ["--timeout", "3", *common, *relay])
        guest_lines = stderr_lines_until(guest, "  kka1:")
        host.stdin.write(guest_lines[-1].strip() + "\n")
        host.stdin.flush()
        host_lines += stderr_lines_until(host, "accepted the rules")
        time.sleep(0.3)
        subprocess.run([*cut, "insert rule inet nat_pair forward meta l4proto tcp reject with tcp reset"], check=True)
        time.sleep(0.5)
        subprocess.run([*cut, "flush chain inet nat_pair forward"], check=True)
        rules = "add rule inet nat_pair forward ct state established,related accept; "
        rules += f'add rule inet nat_pair forward iifname "{net.tag}ral" accept'
        subprocess.run([*cut, "-f", "-"], input=rules, text=True, check=True)
        guest_err = rest_of_output(guest, 180)[1]
        host_err = rest_of_output(host, 60)[1]
    finally:
        for process in (host, guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    said = "\n".join(guest_lines) + guest_err
    assert guest.returncode == 0, said
    assert host.returncode == 0, "\n".join(host_lines) + host_err
    assert "The host came through the relay" in said, said
    for side in (said, host_err):  # the cut was felt, and mended, on both sides
        assert "Connection lost" in side and "Connection back; the match goes on." in side, side
    records = sorted((tmp_path / "replays").glob("*.koikoi"))
    assert len(records) == 2
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr
