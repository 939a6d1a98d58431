"""Two homes, each behind an nftables NAT with no UPnP, and a "public" namespace between the two routers
running a real STUN and TURN server (coturn). Used by the hole-punching tests and ``bench/reach.py``.

    a 10.88.1.2 - ra [NAT] 10.88.10.2 - pub 10.88.10.1, 10.88.20.1 (coturn) - 10.88.20.2 [NAT] rb - b 10.88.2.2

Each router drops what comes in unasked (``ct state established,related`` only, silently, as home
routers do: no reset that would close the other side's half-open punch) and masquerades what goes
out: ``masquerade`` keeps a connection's source port where it can and maps one local port the same way
to every destination (endpoint-independent mapping, EIM); ``masquerade fully-random`` picks a new port
for every connection (endpoint-dependent, EDM). The public namespace routes between the routers' WAN
links and knows nothing of the homes, as the internet knows nothing of a home's private network.
Every namespace is made here and removed on the way out; traffic stays inside them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

__all__ = ["STUN", "Mapping", "NatPair", "namespaces_allowed", "nat_pair"]

STUN = ("10.88.10.1", 3478)
TURN_USER, TURN_PASSWORD, TURN_REALM = "koikoi", "hanafuda", "koikoi.test"


class Mapping(Enum):
    EIM = "masquerade"  # endpoint-independent: one local port, one public port, whatever the destination
    EDM = "masquerade fully-random"  # endpoint-dependent ("symmetric"): a new public port per connection


def run(*args: str, stdin: str | None = None) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=20, input=stdin).stdout


def namespaces_allowed() -> str:
    """Why namespaces cannot be used here, or "" when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "nft", "turnserver"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (.ci/run installs it)"
    return ""


@dataclass
class NatPair:
    tag: str
    a: str
    b: str
    pub: str
    routers: tuple[str, str]
    coturn: subprocess.Popen[bytes] | None = None
    made: list[str] = field(default_factory=list)

    def exec(self, ns: str) -> list[str]:
        return ["ip", "netns", "exec", ns]


def _router_rules(lan: str, wan: str, mapping: Mapping) -> str:
    return f"""
table inet nat_pair {{
  chain forward {{ type filter hook forward priority 0; policy drop;
    ct state established,related accept; iifname "{lan}" accept; }}
  chain input {{ type filter hook input priority 0; policy accept;
    iifname "{wan}" ct state established,related accept; iifname "{wan}" meta l4proto icmp accept;
    iifname "{wan}" drop; }}
  chain postrouting {{ type nat hook postrouting priority 100; policy accept;
    oifname "{wan}" meta nfproto ipv4 {mapping.value}; }}
}}
"""


def _link(ns1: str, dev1: str, ns2: str, dev2: str) -> None:
    run("ip", "link", "add", dev1, "netns", ns1, "type", "veth", "peer", "name", dev2, "netns", ns2)


def _address(ns: str, dev: str, cidr: str) -> None:
    run("ip", "-n", ns, "addr", "add", cidr, "dev", dev)
    run("ip", "-n", ns, "link", "set", dev, "up")


@contextmanager
def nat_pair(log: Path, a: Mapping = Mapping.EIM, b: Mapping = Mapping.EIM) -> Iterator[NatPair]:
    """The two homes behind NATs of the given kinds, coturn running in the public namespace."""
    tag = f"kp{os.getpid() % 100000}"
    net = NatPair(tag, f"{tag}a", f"{tag}b", f"{tag}p", (f"{tag}ra", f"{tag}rb"))
    ra, rb = net.routers
    try:
        for ns in (net.a, net.b, net.pub, ra, rb):
            run("ip", "netns", "add", ns)
            net.made.append(ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
        _link(net.a, f"{tag}al", ra, f"{tag}ral")
        _link(ra, f"{tag}raw", net.pub, f"{tag}pa")
        _link(net.b, f"{tag}bl", rb, f"{tag}rbl")
        _link(rb, f"{tag}rbw", net.pub, f"{tag}pb")
        for ns, dev, cidr in (
            (net.a, f"{tag}al", "10.88.1.2/24"),
            (ra, f"{tag}ral", "10.88.1.1/24"),
            (ra, f"{tag}raw", "10.88.10.2/24"),
            (net.pub, f"{tag}pa", "10.88.10.1/24"),
            (net.b, f"{tag}bl", "10.88.2.2/24"),
            (rb, f"{tag}rbl", "10.88.2.1/24"),
            (rb, f"{tag}rbw", "10.88.20.2/24"),
            (net.pub, f"{tag}pb", "10.88.20.1/24"),
        ):
            _address(ns, dev, cidr)
        run("ip", "-n", net.a, "route", "add", "default", "via", "10.88.1.1")
        run("ip", "-n", net.b, "route", "add", "default", "via", "10.88.2.1")
        run("ip", "-n", ra, "route", "add", "default", "via", "10.88.10.1")
        run("ip", "-n", rb, "route", "add", "default", "via", "10.88.20.1")
        for ns in (ra, rb, net.pub):
            run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        run("ip", "netns", "exec", ra, "nft", "-f", "-", stdin=_router_rules(f"{tag}ral", f"{tag}raw", a))
        run("ip", "netns", "exec", rb, "nft", "-f", "-", stdin=_router_rules(f"{tag}rbl", f"{tag}rbw", b))
        net.coturn = _start_coturn(net, log)
        yield net
    finally:
        if net.coturn is not None:
            net.coturn.terminate()
            try:
                net.coturn.wait(timeout=10)
            except subprocess.TimeoutExpired:
                net.coturn.kill()
                net.coturn.wait(timeout=10)
        for ns in net.made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def _start_coturn(net: NatPair, log: Path) -> subprocess.Popen[bytes]:
    """coturn on the public namespace's addresses: STUN for anyone, TURN for one long-term user."""
    command = [
        *net.exec(net.pub),
        "turnserver",
        "-n",
        "--listening-ip=10.88.10.1",
        "--listening-ip=10.88.20.1",
        f"--listening-port={STUN[1]}",
        "--relay-ip=10.88.10.1",
        "--no-tls",
        "--no-dtls",
        "--no-cli",
        "--log-file=stdout",
        "--simple-log",
        "--lt-cred-mech",
        f"--user={TURN_USER}:{TURN_PASSWORD}",
        f"--realm={TURN_REALM}",
        "--allow-loopback-peers",
        "--cli-password=unused",
    ]
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while "Total General servers" not in log.read_text(errors="replace") and process.poll() is None:
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(0.2)
    return process
