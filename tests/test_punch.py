"""Hole punching through two real NATs (issue 26 item 3): host and guest each behind an nftables masquerade
with no UPnP, coturn in the "public" namespace between them (:mod:`tests.nat_pair`). Neither can be
reached: the guest's dial fails, it answers with its STUN candidate, the host's player pastes the answer,
and both connect at once from their STUN ports (a TCP simultaneous open); a whole match is played over
the punched connection and both records verify. Endpoint-independent mapping on both sides (EIM x EIM)
lets the punch through; the STUN client itself is checked against coturn."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_koikoi.testing import KOIKOI
from tests.nat_pair import STUN, TURN_PASSWORD, TURN_USER, Mapping, NatPair, Side
from tests.punch_support import (
    RULES,
    both_ended_well,
    common_options,
    cut_and_mended,
    homes_behind,
    punched_match,
)
from tests.verify_support import each_record_verifies

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")

RELAY = ["--relay", f"turn:10.88.20.1:{STUN[1]}", "--relay-user", TURN_USER, "--relay-password", TURN_PASSWORD]


@pytest.fixture
def eim_pair(tmp_path: Path) -> Iterator[NatPair]:
    yield from homes_behind(tmp_path, Mapping.EIM, Mapping.EIM)


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
    common = common_options(tmp_path)
    sides = punched_match(eim_pair, tmp_path, [*RULES, *common], ["--timeout", "3", *common])
    said, host_err = both_ended_well(sides), sides.host_err
    assert "Traceback" not in said + host_err
    assert "Could not reach the host: " in said
    assert "punching from 10.88.20.2:" in said, said  # the guest's candidate, from coturn
    assert "The punch to the host at 10.88.10.2:" in said, said
    assert "and punching to 10.88.20.2:" in host_err, host_err
    assert "Guest 10.88.20.2:" in host_err, host_err  # seated over the punched connection
    each_record_verifies(tmp_path / "replays")


@pytest.fixture
def edm_pair(tmp_path: Path) -> Iterator[NatPair]:
    yield from homes_behind(tmp_path, Mapping.EDM, Mapping.EDM)


def test_two_symmetric_nats_fall_back_to_the_relay(edm_pair: NatPair, tmp_path: Path) -> None:
    """EDM x EDM (``masquerade fully-random`` on both routers): no direct rung can work, so the guest also
    allocates a relayed address on coturn (TURN over TCP, RFC 6062) and lets the host's public address in;
    the host dials it as any address in the answer, and the whole match goes through the relay."""
    common = common_options(tmp_path)
    sides = punched_match(edm_pair, tmp_path, [*RULES, *common], ["--timeout", "3", *common, *RELAY])
    said, host_err = both_ended_well(sides), sides.host_err
    assert "Traceback" not in said + host_err
    assert "The host came through the relay at 10.88.10.1:" in said, said
    assert "Guest 10.88.10.1:" in host_err, host_err  # seated through the relay's address
    each_record_verifies(tmp_path / "replays")


def test_a_punched_match_cut_mid_way_is_punched_again(eim_pair: NatPair, tmp_path: Path) -> None:
    """EIM x EIM, punched; mid-match the host's router resets the connection (an nftables reject for a
    moment): both sides punch again from the same ports, resume, and the match is played out."""
    cut_and_mended(eim_pair, tmp_path, [])


@pytest.fixture
def cgnat_pair(tmp_path: Path) -> Iterator[NatPair]:
    yield from homes_behind(tmp_path, Side(Mapping.EIM, cgnat=True), Mapping.EIM)


def test_a_punched_match_behind_a_carrier_nat_cut_mid_way_is_punched_again(cgnat_pair: NatPair, tmp_path: Path) -> None:
    """The host behind its home router and a carrier's NAT (CGNAT x EIM); mid-match the home router resets
    the connection. The reset leaves the home routers' entries for the old connection closing for 10 s,
    and the carrier keeps an entry from the first SYNs of the punch again: a punch that opened a new
    socket (a new initial sequence number) every few seconds was refused by that entry for its whole life,
    past the reconnect grace. One socket's SYNs, retransmitted, get through once the closing entries go."""
    cut_and_mended(cgnat_pair, tmp_path, [])


def test_a_relayed_match_cut_mid_way_is_relayed_again(edm_pair: NatPair, tmp_path: Path) -> None:
    """EDM x EDM, relayed; mid-match the host's router resets the host's connection to the relay for a
    moment (the relay then closes the guest's side too): the host dials the relayed address again, the
    guest accepts the connection the relay announces, they resume, and the match is played out."""
    said = cut_and_mended(edm_pair, tmp_path, RELAY)
    assert "The host came through the relay" in said, said
