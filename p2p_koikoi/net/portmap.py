"""Asking the home router to forward the host's port: for IPv4, UPnP IGD (v1 and v2) first, then
PCP (:mod:`p2p_koikoi.net.pcp`), then NAT-PMP; for IPv6, a pinhole in the router's firewall
(:mod:`p2p_koikoi.net.pinhole`).

The clients are maintained libraries where one exists (``miniupnpc``, ``py-natpmp``,
``async-upnp-client`` in a loop of its own; PCP has none, so its two datagrams are ours); all
block, so they run in worker threads. Mappings are leased,
not permanent: the host renews them while the match runs and deletes them on the way out; after a
crash or a pulled plug the lease runs out on its own.

What the person is told is one line (:attr:`Outcome.line`): the mapped public address, or that no
router offered mapping and what to do instead.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import secrets
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import trio

__all__ = ["LEASE", "Mapper", "Method", "Outcome", "PortMapping", "default_gateway", "map_port"]

LEASE = 600  # seconds; renewed at half-time, so a crashed host's mapping is gone within ten minutes
DISCOVERY_MS = 2000
NATPMP_RETRIES = 2  # 0.25 + 0.5 + 1 s; the protocol's default of 9 waits over a minute
DESCRIPTION = "koikoi"


class Method(Enum):
    UPNP = "UPnP"
    PCP = "PCP"
    NATPMP = "NAT-PMP"
    PINHOLE = "UPnP IPv6 firewall control"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of asking: an IPv4 mapping and an IPv6 pinhole, each or neither, and why not
    (``refusal`` when a router answered but said no)."""

    port: int
    mapping: PortMapping | None = None
    refusal: str = ""
    pinhole: PortMapping | None = None

    @property
    def line(self) -> str:
        done = []
        if self.mapping is not None:
            public = f"{self.mapping.external}:{self.mapping.port}" if self.mapping.external else "its public address"
            done.append(f"mapped TCP {self.port} on your router ({public}) by {self.mapping.method.value}")
        if self.pinhole is not None:
            done.append(f"opened TCP {self.port} to [{self.pinhole.external}] in your router's IPv6 firewall")
        if self.mapping is None and self.refusal:
            done.append(
                f"the router would not map TCP {self.port} ({self.refusal}): forward it yourself, "
                "or play over IPv6 or a LAN"
            )
        elif self.mapping is None and self.pinhole is None:
            done.append(f"no router offered port mapping: forward TCP {self.port} yourself, or play over IPv6 or a LAN")
        return "; ".join(done)

    @property
    def held(self) -> list[PortMapping]:
        return [m for m in (self.mapping, self.pinhole) if m is not None]


@dataclass(frozen=True, slots=True)
class PortMapping:
    method: Method
    external: str  # the router's public address ("" when it would not say); ours for a pinhole
    port: int
    renew: Callable[[], object]
    remove: Callable[[], object]


def default_gateway(route_table: Path = Path("/proc/net/route")) -> str | None:
    """The IPv4 default gateway from Linux's routing table (NAT-PMP talks to it); None elsewhere."""
    try:
        lines = route_table.read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 3 and fields[1] == "00000000" and int(fields[3], 16) & 2:  # RTF_GATEWAY
            return socket.inet_ntoa(struct.pack("<I", int(fields[2], 16)))
    return None


def _public(text: str) -> str:
    """The router's external address if it is one (some routers answer 0.0.0.0 or nothing)."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return ""
    return "" if ip.is_unspecified else str(ip)


def _try_upnp(port: int, lease: int) -> PortMapping | str | None:
    """A mapping, a refusal (str), or None when no IGD answered."""
    import miniupnpc

    client = miniupnpc.UPnP()
    client.discoverdelay = DISCOVERY_MS
    try:  # miniupnpc raises a bare Exception when nothing answers, or no device is an IGD
        if not client.discover():
            return None
        client.selectigd()
    except Exception:
        return None
    external = ""
    with contextlib.suppress(Exception):
        external = _public(client.externalipaddress() or "")
    lan = client.lanaddr

    def add() -> None:
        client.addportmapping(port, "TCP", lan, port, DESCRIPTION, "", lease)

    def remove() -> None:
        client.deleteportmapping(port, "TCP")

    try:
        add()
    except Exception as exc:
        return f"UPnP: {exc}"
    return PortMapping(Method.UPNP, external, port, add, remove)


def _try_pcp(port: int, lease: int, gateway: str | None) -> PortMapping | str | None:
    from p2p_koikoi.net.pcp import PcpError, request_mapping

    if gateway is None:
        return None
    nonce = secrets.token_bytes(12)
    try:
        reply = request_mapping(gateway, port, lease, nonce)
    except PcpError as exc:
        return f"PCP: {exc}"
    except OSError:
        return None
    if reply is None:
        return None
    return PortMapping(
        Method.PCP,
        _public(reply.external),
        reply.external_port,
        functools.partial(request_mapping, gateway, port, lease, nonce),
        functools.partial(request_mapping, gateway, port, 0, nonce),
    )


def _try_natpmp(port: int, lease: int, gateway: str | None) -> PortMapping | str | None:
    import natpmp

    if gateway is None:
        return None
    try:
        reply = natpmp.map_tcp_port(port, port, lease, gateway_ip=gateway, retry=NATPMP_RETRIES)
    except natpmp.NATPMPResultError as exc:
        words = exc.args[1] if len(exc.args) > 1 else exc
        return f"NAT-PMP: {str(words).replace('  ', ' ').strip()}"
    except (natpmp.NATPMPError, OSError):
        return None
    external = ""
    with contextlib.suppress(natpmp.NATPMPError, OSError):
        external = _public(natpmp.get_public_address(gateway_ip=gateway, retry=NATPMP_RETRIES))

    def renew() -> None:
        natpmp.map_tcp_port(port, port, lease, gateway_ip=gateway, retry=NATPMP_RETRIES)

    def remove() -> None:
        natpmp.map_tcp_port(port, port, 0, gateway_ip=gateway, retry=NATPMP_RETRIES)

    return PortMapping(Method.NATPMP, external, int(reply.public_port), renew, remove)


def _try_pinhole(port: int, lease: int) -> PortMapping | str | None:
    from p2p_koikoi.net.pinhole import open_pinhole

    found = open_pinhole(port, lease)
    if found is None or isinstance(found, str):
        return found
    return PortMapping(Method.PINHOLE, found.address, port, found.renew, found.remove)


def map_port(port: int, lease: int = LEASE, gateway: str | None = None) -> Outcome:
    """Blocking: for IPv4 try UPnP IGD, then NAT-PMP at the default gateway (the first mapping
    wins); see :class:`Mapper` for the IPv6 pinhole, asked for alongside."""
    refusals: list[str] = []
    gateway = gateway or default_gateway()
    for method in (Method.UPNP, Method.PCP, Method.NATPMP):
        if method is Method.UPNP:
            found = _try_upnp(port, lease)
        elif method is Method.PCP:
            found = _try_pcp(port, lease, gateway)
        else:
            found = _try_natpmp(port, lease, gateway)
        if isinstance(found, PortMapping):
            return Outcome(port, found)
        if isinstance(found, str):
            refusals.append(found)
    return Outcome(port, None, "; ".join(refusals))


class Mapper:
    """The mappings' life in a match: ask once (IPv4 and IPv6 side by side), renew at half-lease,
    remove on every way out."""

    def __init__(self, port: int, lease: int = LEASE, gateway: str | None = None) -> None:
        self.port = port
        self.lease = lease
        self.gateway = gateway
        self.outcome: Outcome | None = None

    async def open(self) -> Outcome:
        """Ask; a router that answers nonsense makes the libraries raise anything, and that must not
        end the host, so every failure becomes a refusal in the message."""
        found: dict[str, object] = {}

        async def ask(name: str, call: Callable[[], object]) -> None:
            try:
                found[name] = await trio.to_thread.run_sync(call, abandon_on_cancel=True)
            except Exception as exc:
                found[name] = f"{type(exc).__name__}: {exc}"

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask, "v4", lambda: map_port(self.port, self.lease, self.gateway))
            nursery.start_soon(ask, "v6", lambda: _try_pinhole(self.port, self.lease))
        v4, v6 = found.get("v4"), found.get("v6")
        outcome = v4 if isinstance(v4, Outcome) else Outcome(self.port, None, str(v4 or ""))
        if isinstance(v6, PortMapping):
            outcome = Outcome(self.port, outcome.mapping, outcome.refusal, v6)
        self.outcome = outcome
        return outcome

    async def keep(self) -> None:
        """Renew until cancelled; a failed renewal is tried again at the next half-lease."""
        while self.outcome is not None and self.outcome.held:
            await trio.sleep(self.lease / 2)
            for mapping in self.outcome.held if self.outcome is not None else []:
                with contextlib.suppress(Exception):
                    await trio.to_thread.run_sync(mapping.renew, abandon_on_cancel=True)

    async def close(self) -> None:
        held = self.outcome.held if self.outcome is not None else []
        self.outcome = None
        with trio.CancelScope(shield=True), trio.move_on_after(5):
            for mapping in held:
                with contextlib.suppress(Exception):
                    await trio.to_thread.run_sync(mapping.remove, abandon_on_cancel=True)
