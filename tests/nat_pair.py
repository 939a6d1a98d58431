"""Two homes, each behind an nftables NAT with no UPnP, and a "public" namespace between the two routers
running a real STUN and TURN server (coturn). Used by the hole-punching tests and ``bench/reach.py``.

    a 10.88.1.2 - ra [NAT] 10.88.10.2 - pub 10.88.10.1, 10.88.20.1 (coturn) - 10.88.20.2 [NAT] rb - b 10.88.2.2

Each router drops what comes in unasked (``ct state established,related`` only, silently, as home
routers do: no reset that would close the other side's half-open punch) and masquerades what goes
out: ``masquerade`` keeps a connection's source port where it can and maps one local port the same way
to every destination (endpoint-independent mapping, EIM); ``masquerade fully-random`` picks a new port
for every connection (endpoint-dependent, EDM). The public namespace routes between the routers' WAN
links and knows nothing of the homes, as the internet knows nothing of a home's private network. A
side may have a carrier-grade NAT stacked behind its router (:class:`Side`: ``cgnat``, the router's WAN
then in 100.64.0.0/10), and its router may drop every UDP packet going out (``udp_blocked``).
The two links to the public namespace (each home's way onto the "internet") hold every frame for
``LINK_DELAY_MS`` each way (``tests/delay_link.py``: TAP devices and a small forwarder in user space,
since this kernel may have no netem), so that a punch's simultaneous sends cross as slowly as they
would between two real homes. Every namespace is made here and removed on the way out; traffic stays
inside them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

__all__ = ["STUN", "Mapping", "NatPair", "Side", "namespaces_allowed", "nat_pair"]

STUN = ("10.88.10.1", 3478)
LINK_DELAY_MS = 5.0  # each way, on each home's link to the public namespace: 20 ms between the two homes
DELAY_LINK = Path(__file__).resolve().parent / "delay_link.py"
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
    six: list[str] = field(default_factory=list)  # the public namespace's IPv6 addresses, when a side has IPv6
    delay_ms: float = LINK_DELAY_MS
    wires: list[subprocess.Popen[str]] = field(default_factory=list)  # the delayed links' forwarders

    def exec(self, ns: str) -> list[str]:
        return ["ip", "netns", "exec", ns]

    def cut(self, router: str, seconds: float = 0.5) -> None:
        """``router`` resets every TCP connection it forwards for ``seconds`` (an nftables reject at the head
        of its forward chain), then forwards as before: the rule is taken out again by its handle."""
        nft = [*self.exec(router), "nft"]
        rule = ["inet", "nat_pair", "forward", "meta", "l4proto", "tcp", "reject", "with", "tcp", "reset"]
        echoed = run(*nft, "--echo", "--handle", "insert", "rule", *rule)
        handle = echoed.rsplit("# handle", 1)[1].split()[0]
        time.sleep(seconds)
        run(*nft, "delete", "rule", "inet", "nat_pair", "forward", "handle", handle)


def _router_rules(lan: str, wan: str, mapping: Mapping, udp_blocked: bool = False) -> str:
    udp = f'iifname "{lan}" meta l4proto udp drop;' if udp_blocked else ""
    return f"""
table inet nat_pair {{
  chain forward {{ type filter hook forward priority 0; policy drop;
    ct state established,related accept; {udp} iifname "{lan}" accept; }}
  chain input {{ type filter hook input priority 0; policy accept;
    iifname "{wan}" ct state established,related accept; iifname "{wan}" meta l4proto {{ icmp, ipv6-icmp }} accept;
    iifname "{wan}" drop; }}
  chain postrouting {{ type nat hook postrouting priority 100; policy accept;
    oifname "{wan}" meta nfproto ipv4 {mapping.value}; }}
}}
"""


def _link(ns1: str, dev1: str, ns2: str, dev2: str) -> None:
    run("ip", "link", "add", dev1, "netns", ns1, "type", "veth", "peer", "name", dev2, "netns", ns2)


def _delayed_link(net: NatPair, ns1: str, dev1: str, ns2: str, dev2: str) -> None:
    """A link like :func:`_link` whose frames wait ``net.delay_ms`` each way (no delay: a plain veth)."""
    if net.delay_ms <= 0:
        _link(ns1, dev1, ns2, dev2)
        return
    if not os.access("/dev/net/tun", os.R_OK | os.W_OK):  # no TAP devices here: a plain link, and said so
        print(f"nat_pair: /dev/net/tun is missing, so {dev1}-{dev2} has no delay", file=sys.stderr)
        net.delay_ms = 0
        _link(ns1, dev1, ns2, dev2)
        return
    command = [sys.executable, str(DELAY_LINK), "--delay-ms", str(net.delay_ms), dev1, ns1, dev2, ns2]
    wire = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    net.wires.append(wire)
    assert wire.stdout is not None
    if wire.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the delayed link {dev1}-{dev2} did not come up (exit {wire.wait(timeout=10)})")


def _stop_wires(net: NatPair) -> None:
    """Each forwarder ends when its standard input closes; one that does not is killed."""
    for wire in net.wires:
        if wire.stdin is not None:
            wire.stdin.close()
        try:
            wire.wait(timeout=5)
        except subprocess.TimeoutExpired:
            wire.kill()
            wire.wait(timeout=5)


def _address(ns: str, dev: str, cidr: str) -> None:
    run("ip", "-n", ns, "addr", "add", cidr, "dev", dev, *(["nodad"] if ":" in cidr else []))
    run("ip", "-n", ns, "link", "set", dev, "up")


def _namespace(net: NatPair, ns: str) -> None:
    run("ip", "netns", "add", ns)
    net.made.append(ns)
    run("ip", "-n", ns, "link", "set", "lo", "up")


def _side(net: NatPair, letter: str, side: Side, home: str, router: str) -> None:
    """One home (10.88.N.2 behind its router 10.88.N.1), the router's WAN on the public link 10.88.W.0/24,
    or, with ``side.cgnat``, on the carrier's network 100.64.N.0/24 behind a second NAT (the carrier's,
    endpoint-independent as RFC 6888 asks) whose WAN is on the public link."""
    tag, n = net.tag, {"a": 1, "b": 2}[letter]
    w = n * 10
    _link(home, f"{tag}{letter}l", router, f"{tag}r{letter}l")
    if side.ipv6_only:  # the home has no IPv4 at all; its prefix is routed to it, as IPv6 prefixes are
        _address(home, f"{tag}{letter}l", f"fd88:{n}::2/64")
        _address(router, f"{tag}r{letter}l", f"fd88:{n}::1/64")
        run("ip", "-n", home, "-6", "route", "add", "default", "via", f"fd88:{n}::1")
    else:
        _address(home, f"{tag}{letter}l", f"10.88.{n}.2/24")
        _address(router, f"{tag}r{letter}l", f"10.88.{n}.1/24")
        run("ip", "-n", home, "route", "add", "default", "via", f"10.88.{n}.1")
    edge = router
    if side.cgnat:
        carrier = f"{tag}c{letter}"
        _namespace(net, carrier)
        _link(router, f"{tag}r{letter}w", carrier, f"{tag}c{letter}l")
        _address(router, f"{tag}r{letter}w", f"100.64.{n}.2/24")
        _address(carrier, f"{tag}c{letter}l", f"100.64.{n}.1/24")
        run("ip", "-n", router, "route", "add", "default", "via", f"100.64.{n}.1")
        rules = _router_rules(f"{tag}c{letter}l", f"{tag}c{letter}w", Mapping.EIM)
        edge = carrier
    _delayed_link(net, edge, f"{tag}{'c' if side.cgnat else 'r'}{letter}w", net.pub, f"{tag}p{letter}")
    _address(edge, f"{tag}{'c' if side.cgnat else 'r'}{letter}w", f"10.88.{w}.2/24")
    _address(net.pub, f"{tag}p{letter}", f"10.88.{w}.1/24")
    run("ip", "-n", edge, "route", "add", "default", "via", f"10.88.{w}.1")
    for ns in {router, edge}:
        run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1")
    if side.ipv6_only:
        _address(edge, f"{tag}r{letter}w", f"fd88:{w}::2/64")
        _address(net.pub, f"{tag}p{letter}", f"fd88:{w}::1/64")
        net.six.append(f"fd88:{w}::1")
        run("ip", "-n", edge, "-6", "route", "add", "default", "via", f"fd88:{w}::1")
        run("ip", "-n", net.pub, "-6", "route", "add", f"fd88:{n}::/64", "via", f"fd88:{w}::2")
        for ns in (edge, net.pub):
            run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
    home_rules = _router_rules(f"{tag}r{letter}l", f"{tag}r{letter}w", side.mapping, side.udp_blocked)
    run("ip", "netns", "exec", router, "nft", "-f", "-", stdin=home_rules)
    if side.cgnat:
        run("ip", "netns", "exec", edge, "nft", "-f", "-", stdin=rules)


@dataclass(frozen=True)
class Side:
    """One home's way out: its router's mapping, a carrier-grade NAT stacked behind it, UDP dropped."""

    mapping: Mapping = Mapping.EIM
    cgnat: bool = False
    udp_blocked: bool = False
    ipv6_only: bool = False  # the home has only IPv6 (no NAT: its router's firewall keeps strangers out)


@contextmanager
def nat_pair(
    log: Path, a: Mapping | Side = Mapping.EIM, b: Mapping | Side = Mapping.EIM, delay_ms: float = LINK_DELAY_MS
) -> Iterator[NatPair]:
    """The two homes behind NATs of the given kinds, coturn running in the public namespace, each home's
    link to it delayed by ``delay_ms`` each way (0: plain veth links)."""
    sa, sb = (side if isinstance(side, Side) else Side(side) for side in (a, b))
    tag = f"kp{os.getpid() % 100000}"
    net = NatPair(tag, f"{tag}a", f"{tag}b", f"{tag}p", (f"{tag}ra", f"{tag}rb"), delay_ms=delay_ms)
    ra, rb = net.routers
    try:
        for ns in (net.a, net.b, net.pub, ra, rb):
            _namespace(net, ns)
        for letter, side, home, router in (("a", sa, net.a, ra), ("b", sb, net.b, rb)):
            _side(net, letter, side, home, router)
        run("ip", "netns", "exec", net.pub, "sysctl", "-qw", "net.ipv4.ip_forward=1")
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
        _stop_wires(net)


def _start_coturn(net: NatPair, log: Path) -> subprocess.Popen[bytes]:
    """coturn on the public namespace's addresses: STUN for anyone, TURN for one long-term user."""
    command = [
        *net.exec(net.pub),
        "turnserver",
        "-n",
        "--listening-ip=10.88.10.1",
        "--listening-ip=10.88.20.1",
        *(f"--listening-ip={ip}" for ip in net.six),
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
