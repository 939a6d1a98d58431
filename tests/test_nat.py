"""A home router made of network namespaces: nftables masquerade and a real miniupnpd (UPnP IGD and
NAT-PMP), a home namespace for the host and an outside one for the guest. Every namespace, link and
table is created by the fixture and removed afterwards; traffic stays inside them.

miniupnpd refuses to map ports while its external address is private, and the only addresses these
tests may use are private ones inside their own namespaces; so the tests go as far as that allows:
discovery, the mapping request reaching the router, the refusal and its one-line message, and the
message when no router answers at all.
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

from p2p_koikoi.testing import KOIKOI, koikoi_env

PORT = 7447
HOST_OPTIONS = ["--bot", "random", "--rules", "lemme", "--rounds", "3", "--replay-dir"]


def run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=20)


@dataclass
class Router:
    home: str
    router: str
    outside: str
    log: Path
    miniupnpd: subprocess.Popen[bytes] | None = None

    def start_miniupnpd(self, tmp: Path) -> None:
        conf = tmp / "miniupnpd.conf"
        conf.write_text(
            f"ext_ifname={self.router}-w\nlistening_ip={self.router}-l\nenable_natpmp=yes\nenable_upnp=yes\n"
            "secure_mode=yes\nsystem_uptime=yes\nuuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07b\n"
            "allow 1024-65535 10.77.1.0/24 1024-65535\ndeny 0-65535 0.0.0.0/0 0-65535\n"
        )
        self.miniupnpd = subprocess.Popen(
            ["ip", "netns", "exec", self.router, "miniupnpd", "-d", "-f", str(conf)],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while "Listening for NAT-PMP" not in self.log.read_text(errors="replace"):
            assert time.monotonic() < deadline, self.log.read_text(errors="replace")
            time.sleep(0.05)

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


@pytest.fixture
def router(tmp_path: Path) -> Iterator[Router]:
    reason = _namespaces_allowed()
    if reason:
        pytest.skip(reason)
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
        for ns, dev, address in (
            (net.home, f"{r}-h", "10.77.1.2/24"),
            (r, f"{r}-l", "10.77.1.1/24"),
            (r, f"{r}-w", "10.77.2.1/24"),
            (net.outside, f"{r}-o", "10.77.2.2/24"),
        ):
            run("ip", "-n", ns, "addr", "add", address, "dev", dev)
            run("ip", "-n", ns, "link", "set", dev, "up")
        run("ip", "-n", net.home, "route", "add", "default", "via", "10.77.1.1")
        run("ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        run("ip", "netns", "exec", r, "nft", "add", "table", "ip", "kknat")
        run(
            "ip",
            "netns",
            "exec",
            r,
            "nft",
            "add",
            "chain",
            "ip",
            "kknat",
            "post",
            "{ type nat hook postrouting priority 100; }",
        )
        run("ip", "netns", "exec", r, "nft", "add", "rule", "ip", "kknat", "post", "oifname", f"{r}-w", "masquerade")
        yield net
    finally:
        net.stop()
        for ns in (net.home, net.router, net.outside):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
    assert not {net.home, net.router, net.outside} & set(
        subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout.split()
    )


def host_in_home(net: Router, tmp: Path) -> tuple[subprocess.Popen[str], list[str]]:
    """``koikoi host`` in the home namespace; returns it and its lines up to the invite code."""
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
    while not any("koikoi join kk1:" in line for line in lines):
        assert time.monotonic() < deadline, lines
        line = host.stderr.readline()
        assert line, (lines, host.wait(timeout=5))
        lines.append(line.strip())
    return host, lines


def test_the_router_is_found_and_its_refusal_is_one_line(router: Router, tmp_path: Path) -> None:
    router.start_miniupnpd(tmp_path)
    host, lines = host_in_home(router, tmp_path)
    try:
        said = [line for line in lines if "router" in line]
        assert said == [
            f"the router would not map TCP {PORT} (UPnP: Action Failed; NAT-PMP: There was a network failure. "
            "The gateway may not have an IP address.): forward it yourself, or play over IPv6 or a LAN"
        ], lines
        log = router.log.read_text(errors="replace")
        assert "SSDP M-SEARCH from 10.77.1.2" in log  # discovery reached the router
        assert "AddPortMapping" in log  # and so did the mapping request
        code = next(line for line in lines if "kk1:" in line).split("koikoi join ")[1]
        guest = subprocess.run(
            ["ip", "netns", "exec", router.outside, *KOIKOI, "join", code, "--bot", "random", "--timeout", "3"],
            env=koikoi_env(tmp_path / "guest"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        host.kill()
        host.wait(timeout=10)
    # The code holds only the host's private address, which the outside cannot route to.
    assert guest.returncode == 1
    assert "Traceback" not in guest.stderr
    assert "10.77.1.2:7447" in guest.stderr, guest.stderr


def test_with_no_router_service_the_host_says_so_in_one_line(router: Router, tmp_path: Path) -> None:
    host, lines = host_in_home(router, tmp_path)
    host.kill()
    host.wait(timeout=10)
    said = [line for line in lines if "router" in line]
    assert said == [f"no router offered port mapping: forward TCP {PORT} yourself, or play over IPv6 or a LAN"], lines
