"""The birthday spray (issue 26 item 3): the host's NAT is endpoint-independent (``masquerade``), the
guest's endpoint-dependent (``masquerade fully-random``: a new public port per destination), no relay
given. The guest's dial fails; it asks two STUN addresses from one local port, sees two public ports,
and says so in its answer code (flags bit 3). It opens 256 connections to the host's punch candidate;
the host, given the answer, sends SYNs from its STUN port to 1000 guessed ports of the guest's public
address; a guess that hits one of the 256 makes a simultaneous open. A whole match is played over it,
and both records verify. The spray's sockets and SYNs stay inside the namespaces the test made."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_koikoi.net.answer import Answer
from p2p_koikoi.testing import KOIKOI
from p2p_koikoi.testing.processes import rest_of_output, stderr_lines_until
from tests.nat_pair import STUN, Mapping, NatPair, namespaces_allowed, nat_pair
from tests.netns_support import no_namespaces
from tests.test_punch import RULES, spawn_guest, spawn_host

pytestmark = pytest.mark.xdist_group("netns")

TWO_STUN = f"{STUN[0]}:{STUN[1]},10.88.20.1:{STUN[1]}"  # one coturn, two addresses: two destinations


@pytest.fixture
def eim_edm_pair(tmp_path: Path) -> Iterator[NatPair]:
    reason = namespaces_allowed()
    if reason:
        no_namespaces(reason)
    with nat_pair(tmp_path / "coturn.log", Mapping.EIM, Mapping.EDM) as net:
        yield net
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout.split()
    assert not set(net.made) & set(left)


def test_a_whole_match_over_a_birthday_spray(eim_edm_pair: NatPair, tmp_path: Path) -> None:
    net = eim_edm_pair
    replays = str(tmp_path / "replays")
    common = ["--bot", "random", "--no-upnp", "--stun", TWO_STUN, "--replay-dir", replays]
    host = spawn_host(net, tmp_path, [*RULES, *common])
    guest: subprocess.Popen[str] | None = None
    try:
        assert host.stdin is not None
        host_lines = stderr_lines_until(host, "punching from 10.88.10.2:")
        code = next(line for line in host_lines if "kk1:" in line).split("koikoi join ")[1]
        guest = spawn_guest(net, tmp_path, code, ["--timeout", "3", *common])
        guest_lines = stderr_lines_until(guest, "  kka1:")
        answer = Answer.parse(guest_lines[-1].strip())
        assert answer.spray and answer.relay is None  # flags bit 3: two STUN addresses saw two ports
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
    assert "The spray to the host at 10.88.10.2:" in said, said
    assert "and spraying to 10.88.20.2" in host_err, host_err
    assert "Guest 10.88.20.2:" in host_err, host_err  # seated over a sprayed connection
    records = sorted((tmp_path / "replays").glob("*.koikoi"))
    assert len(records) == 2
    for record in records:
        verified = subprocess.run([*KOIKOI, "verify", str(record)], capture_output=True, text=True, check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_stun_takes_several_servers_separated_by_commas() -> None:
    """A second STUN server is what lets a guest tell that its NAT maps each destination to a new port."""
    from p2p_koikoi.cli.netopts import stun_servers

    assert stun_servers("10.88.10.1:3478, 10.88.20.1") == (("10.88.10.1", 3478), ("10.88.20.1", 3478))
    assert stun_servers("none") == ()
