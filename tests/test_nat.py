"""A home router made of network namespaces: nftables (IPv4 masquerade, a forward chain that drops
unsolicited inbound traffic) and a real miniupnpd (UPnP IGD v1/v2 with IPv6 firewall control, and
NAT-PMP/PCP), a home namespace for the host and an outside one for the guest. Every namespace,
link and table is created by the fixture and removed afterwards; traffic stays inside them.

miniupnpd refuses to map IPv4 ports while its external address is private, and the only addresses
these tests may use are private ones inside their own namespaces; so for IPv4 the tests go as far
as that allows: discovery, the request reaching the router, the refusal and its one-line message.
IPv6 needs no public address: the host opens a pinhole in the router's firewall, the guest joins
through it with the invite code, the match finishes, both records verify, and the pinhole is gone
afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2p_koikoi.net.pcp import encode_map, parse_map_reply
from p2p_koikoi.testing import KOIKOI, koikoi_env
from p2p_koikoi.testing.processes import stderr_lines_until
from tests.netns_support import no_namespaces
from tests.punch_support import answered_back
from tests.verify_support import each_record_verifies

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")

PORT = 7447
HOST_OPTIONS = ["--bot", "random", "--rules", "lemme", "--rounds", "3", "--replay-dir"]


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=20).stdout


@dataclass
class Router:
    home: str
    router: str
    outside: str
    log: Path
    miniupnpd: subprocess.Popen[bytes] | None = None

    def start_miniupnpd(self, tmp: Path) -> None:
        r = self.router
        conf = tmp / "miniupnpd.conf"
        conf.write_text(
            f"ext_ifname={r}-w\next_ifname6={r}-w\nlistening_ip={r}-l\nenable_natpmp=yes\nenable_upnp=yes\n"
            "secure_mode=yes\nsystem_uptime=yes\nforce_igd_desc_v1=no\nuuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07b\n"
            "allow 1024-65535 10.77.1.0/24 1024-65535\ndeny 0-65535 0.0.0.0/0 0-65535\n"
        )
        self.miniupnpd = subprocess.Popen(
            ["ip", "netns", "exec", r, "miniupnpd", "-d", "-f", str(conf)],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while "Listening for NAT-PMP" not in self.log.read_text(errors="replace"):
            assert time.monotonic() < deadline, self.log.read_text(errors="replace")
            time.sleep(0.05)

    def pinholes(self) -> str:
        return run("ip", "netns", "exec", self.router, "nft", "list", "chain", "inet", "filter", "miniupnpd")

    def stop(self) -> None:
        if self.miniupnpd is not None:
            self.miniupnpd.terminate()
            self.miniupnpd.wait(timeout=10)
            self.miniupnpd = None


def _namespaces_allowed() -> str:
    if os.geteuid() != 0:
        return "network namespaces need root"
    probe = f"kkprobe{os.getpid()}"
    result = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return f"network namespaces are not allowed here: {result.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], check=False)
    return ""


def firewall(r: str) -> str:
    """The router's nftables: drop inbound unless asked for, masquerade IPv4, and the chains miniupnpd fills."""
    return f"""
table inet filter {{
  chain forward {{ type filter hook forward priority 0; policy drop;
    ct state established,related accept; iifname "{r}-l" accept; jump miniupnpd; }}
  chain miniupnpd {{ }}
  chain prerouting {{ type nat hook prerouting priority -100; policy accept; jump prerouting_miniupnpd; }}
  chain postrouting {{ type nat hook postrouting priority 100; policy accept;
    oifname "{r}-w" meta nfproto ipv4 masquerade; jump postrouting_miniupnpd; }}
  chain prerouting_miniupnpd {{ }}
  chain postrouting_miniupnpd {{ }}
}}
"""


@pytest.fixture
def router(tmp_path: Path) -> Iterator[Router]:
    reason = _namespaces_allowed()
    if reason:
        no_namespaces(reason)
    for tool in ("miniupnpd", "nft"):
        assert shutil.which(tool), f"{tool} is missing: .ci/run installs it"
    tag = f"kk{os.getpid() % 100000}"
    net = Router(f"{tag}h", f"{tag}r", f"{tag}o", tmp_path / "miniupnpd.log")
    r = net.router
    try:
        for ns in (net.home, net.router, net.outside):
            run("ip", "netns", "add", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "link", "add", f"{r}-h", "netns", net.home, "type", "veth", "peer", "name", f"{r}-l", "netns", r)
        run("ip", "link", "add", f"{r}-o", "netns", net.outside, "type", "veth", "peer", "name", f"{r}-w", "netns", r)
        for ns, dev, four, six in (
            (net.home, f"{r}-h", "10.77.1.2/24", "fd77:1::2/64"),
            (r, f"{r}-l", "10.77.1.1/24", "fd77:1::1/64"),
            (r, f"{r}-w", "10.77.2.1/24", "fd77:2::1/64"),
            (net.outside, f"{r}-o", "10.77.2.2/24", "fd77:2::2/64"),
        ):
            run("ip", "-n", ns, "addr", "add", four, "dev", dev)
            run("ip", "-n", ns, "addr", "add", six, "dev", dev, "nodad")
            run("ip", "-n", ns, "link", "set", dev, "up")
        run("ip", "-n", net.home, "route", "add", "default", "via", "10.77.1.1")
        run("ip", "-n", net.home, "-6", "route", "add", "default", "via", "fd77:1::1")
        run("ip", "-n", net.outside, "-6", "route", "add", "default", "via", "fd77:2::1")
        run("ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        run("ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
        subprocess.run(["ip", "netns", "exec", r, "nft", "-f", "-"], input=firewall(r), text=True, check=True)
        _until_no_address_is_tentative(net.home, r, net.outside)
        yield net
    finally:
        net.stop()
        for ns in (net.home, net.router, net.outside):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
    left = run("ip", "netns", "list").split()
    assert not {net.home, net.router, net.outside} & set(left)


def _until_no_address_is_tentative(*namespaces: str) -> None:
    """Wait (at most 10 s) for duplicate address detection to end on every link-local address: a link
    still tentative cannot join ff02::c or send from fe80::, so the router's IPv6 SSDP, and with it the
    pinhole, came and went with how busy the machine was (the addresses we add have nodad; these cannot)."""
    deadline = time.monotonic() + 10
    for ns in namespaces:
        while run("ip", "-n", ns, "-6", "addr", "show", "tentative").strip():
            assert time.monotonic() < deadline, run("ip", "-n", ns, "-6", "addr", "show")
            time.sleep(0.05)


def host_in_home(net: Router, tmp: Path) -> tuple[subprocess.Popen[str], list[str]]:
    """``koikoi host`` in the home namespace; returns it and its lines up to the invite code and the line
    that says what the router did (which comes after the code: the code does not wait for the router)."""
    host = subprocess.Popen(
        ["ip", "netns", "exec", net.home, *KOIKOI, "host", "--port", str(PORT), *HOST_OPTIONS, str(tmp / "replays")],
        env=koikoi_env(tmp / "host"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert host.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while not any("koikoi join kk1:" in line for line in lines) or not any("router" in line for line in lines):
        assert time.monotonic() < deadline, lines
        line = host.stderr.readline()
        assert line, (lines, host.wait(timeout=5))
        lines.append(line.strip())
    return host, lines


def guest_outside(net: Router, tmp: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            net.outside,
            *KOIKOI,
            "join",
            code,
            "--bot",
            "random",
            "--timeout",
            "5",
            "--replay-dir",
            str(tmp / "replays"),
        ],
        env=koikoi_env(tmp / "guest"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_guest_joins_through_the_router_with_the_invite_code(router: Router, tmp_path: Path) -> None:
    router.start_miniupnpd(tmp_path)
    host, lines = host_in_home(router, tmp_path)
    try:
        said = [line for line in lines if "router" in line]
        assert said == [
            f"opened TCP {PORT} to [fd77:1::2] in your router's IPv6 firewall; "
            f"the router would not map TCP {PORT} (UPnP: Action Failed; PCP: NO_RESOURCES; "
            "NAT-PMP: There was a network failure. "
            "The gateway may not have an IP address.): forward it yourself, or play over IPv6 or a LAN"
        ], lines
        assert "dport 7447" in router.pinholes()
        log = router.log.read_text(errors="replace")
        assert "SSDP M-SEARCH from 10.77.1.2" in log  # IPv4 discovery reached the router
        assert "AddPortMapping" in log  # and so did the refused IPv4 mapping,
        assert "PCP MAP: failed to add mapping TCP 7447->10.77.1.2:7447" in log  # our PCP request, read right
        code = next(line for line in lines if "kk1:" in line).split("koikoi join ")[1]
        guest = guest_outside(router, tmp_path, code)
        host.communicate(timeout=60)
    finally:
        host.kill()
        host.wait(timeout=10)
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0
    assert "Connected to [fd77:1::2]:7447" in guest.stderr
    each_record_verifies(tmp_path / "replays")
    assert "dport 7447" not in router.pinholes()  # the host removed its pinhole on the way out


def test_without_the_pinhole_the_firewall_keeps_the_guest_out(router: Router, tmp_path: Path) -> None:
    """The control for the test above: the router's firewall really drops what nobody asked for."""
    host, lines = host_in_home(router, tmp_path)  # no miniupnpd: nothing is opened
    outside, replays = ["ip", "netns", "exec", router.outside, *KOIKOI], str(tmp_path / "replays")
    guest: subprocess.Popen[str] | None = None
    try:
        code = next(line for line in lines if "kk1:" in line).split("koikoi join ")[1]
        guest = subprocess.Popen(  # it cannot get in: it offers to be dialled instead (the reverse connection)
            [*outside, "join", code, "--bot", "random", "--timeout", "5", "--no-upnp", "--replay-dir", replays],
            env=koikoi_env(tmp_path / "guest"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        guest_said = "\n".join(stderr_lines_until(guest, "  kka1:"))
    finally:
        for process in (host, guest):
            if process is not None:
                process.kill()
                process.wait(timeout=10)
    said = [line for line in lines if "router" in line]
    assert said == [f"no router offered port mapping: forward TCP {PORT} yourself, or play over IPv6 or a LAN"], lines
    invite = next(i for i, line in enumerate(lines) if "koikoi join kk1:" in line)
    assert invite < lines.index(said[0]), "the code is printed at once, not after the router gave up"
    assert sum("kk1:" in line for line in lines) == 1, "no router mapped anything: no second code"
    assert "Traceback" not in guest_said
    assert "Could not reach the host: [fd77:1::2]:7447 did not answer within 5 s" in guest_said, guest_said
    assert "behind a router or firewall" in guest_said


# -- PCP messages, byte for byte (RFC 6887 sections 7.1, 7.2 and 11.1) -----------------------------

NONCE = bytes(range(1, 13))


def test_a_pcp_map_request_is_laid_out_as_rfc_6887_says() -> None:
    request = encode_map("10.77.1.2", 7447, 600, NONCE)
    assert request.hex() == (
        "02"
        "01"
        "0000"
        "00000258"  # version 2, MAP, reserved, lifetime 600
        "00000000000000000000ffff0a4d0102"  # client 10.77.1.2 as ::ffff:10.77.1.2
        "0102030405060708090a0b0c"
        "06"
        "000000"  # nonce, TCP, reserved
        "1d17"
        "1d17"  # internal port 7447, suggested external port 7447
        "00000000000000000000ffff00000000"  # any IPv4 external address
    )
    assert encode_map("fd77:1::2", 7447, 600, NONCE)[-16:] == bytes(16)


def reply(result: int, nonce: bytes = NONCE, opcode: int = 0x81) -> bytes:
    header = bytes([2, opcode, 0, result]) + (600).to_bytes(4, "big") + (1234).to_bytes(4, "big") + bytes(12)
    external = bytes(10) + b"\xff\xff" + bytes([203, 0, 113, 7])
    return header + nonce + bytes([6, 0, 0, 0]) + (7447).to_bytes(2, "big") * 2 + external


def test_a_pcp_reply_is_read_and_strays_are_ignored() -> None:
    got = parse_map_reply(reply(0), NONCE)
    assert got is not None and (got.result, got.external, got.external_port, got.lifetime) == (
        0,
        "203.0.113.7",
        7447,
        600,
    )
    assert parse_map_reply(reply(8), NONCE).result == 8  # type: ignore[union-attr]
    assert parse_map_reply(reply(0, nonce=bytes(12)), NONCE) is None  # someone else's answer
    assert parse_map_reply(reply(0, opcode=0x01), NONCE) is None  # a request, not a response
    assert parse_map_reply(reply(0)[:40], NONCE) is None  # cut short


# -- the reverse connection (issue 26 item 2): the host cannot be reached, the guest can ------------------


def test_an_unreachable_host_dials_the_guest_back_with_its_answer_code(router: Router, tmp_path: Path) -> None:
    """The host sits behind the NAT with no UPnP (its IPv4 is masqueraded, its IPv6 firewalled); the guest
    outside is reachable. The guest's dial fails, it prints an answer code, the host's player pastes it
    (here: the test writes it to the host's input), the host dials out through its NAT (the guest listens
    on IPv4 only, so the connection crosses the masquerade), and a whole match is played; both records
    verify."""
    replays = str(tmp_path / "replays")
    outside = ["ip", "netns", "exec", router.outside, *KOIKOI]
    listening = ["--bot", "random", "--timeout", "5", "--no-upnp", "--bind", "10.77.2.2", "--replay-dir", replays]
    host = subprocess.Popen(
        ["ip", "netns", "exec", router.home, *KOIKOI, "host", "--port", str(PORT), "--no-upnp", *HOST_OPTIONS, replays],
        env=koikoi_env(tmp_path / "host"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with answered_back(host, "koikoi join kk1:") as sides:
        assert any("paste it here and press Enter" in line for line in stderr_lines_until(host, "paste it here")), (
            sides.host_lines
        )
        guest = subprocess.Popen(
            [*outside, "join", sides.invite, *listening],
            env=koikoi_env(tmp_path / "guest"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        sides.join(guest)
        sides.paste()
        sides.finish()
    guest_lines, guest_err, host_err = sides.guest_lines, sides.guest_err, sides.host_err
    assert guest.returncode == 0, guest_lines + guest_err.splitlines()
    assert host.returncode == 0, host_err
    said = "\n".join(guest_lines)
    assert "Could not reach the host: [fd77:1::2]:7447 did not answer within 5 s" in said, said
    assert "Traceback" not in guest_err + host_err
    assert "Dialling the guest back at 10.77.2.2:7447..." in host_err, host_err
    assert "Guest 10.77.2.2:7447 accepted the rules" in host_err, host_err  # over IPv4, through the masquerade
    each_record_verifies(tmp_path / "replays")
