"""Asking the home router to forward the host's port: UPnP IGD (v1 and v2) first, then NAT-PMP.

Both clients are maintained libraries with blocking calls (``miniupnpc``, ``py-natpmp``), so they
run in a worker thread. The mapping is leased, not permanent: the host renews it while the match
runs and deletes it on the way out; after a crash or a pulled plug the lease runs out on its own.

What the person is told is one line (:attr:`Outcome.line`): the mapped public address, or that no
router offered mapping and what to do instead.
"""

from __future__ import annotations

import contextlib
import ipaddress
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
    NATPMP = "NAT-PMP"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of asking: a mapping, or why none (``refusal`` when a router answered but said no)."""

    port: int
    mapping: PortMapping | None = None
    refusal: str = ""

    @property
    def line(self) -> str:
        if self.mapping is not None:
            public = f"{self.mapping.external}:{self.mapping.port}"
            return f"mapped TCP {self.port} on your router ({public}) by {self.mapping.method.value}"
        if self.refusal:
            return (
                f"the router would not map TCP {self.port} ({self.refusal}): forward it yourself, "
                "or play over IPv6 or a LAN"
            )
        return f"no router offered port mapping: forward TCP {self.port} yourself, or play over IPv6 or a LAN"


@dataclass(frozen=True, slots=True)
class PortMapping:
    method: Method
    external: str  # the router's public address ("" when it would not say)
    port: int
    renew: Callable[[], None]
    remove: Callable[[], None]


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


def map_port(port: int, lease: int = LEASE, gateway: str | None = None) -> Outcome:
    """Blocking: try UPnP IGD, then NAT-PMP at the default gateway; the first mapping wins."""
    refusals: list[str] = []
    for method in Method:
        if method is Method.UPNP:
            found = _try_upnp(port, lease)
        else:
            found = _try_natpmp(port, lease, gateway or default_gateway())
        if isinstance(found, PortMapping):
            return Outcome(port, found)
        if isinstance(found, str):
            refusals.append(found)
    return Outcome(port, None, "; ".join(refusals))


class Mapper:
    """The mapping's life in a match: ask once, renew at half-lease, remove on every way out."""

    def __init__(self, port: int, lease: int = LEASE, gateway: str | None = None) -> None:
        self.port = port
        self.lease = lease
        self.gateway = gateway
        self.outcome: Outcome | None = None

    async def open(self) -> Outcome:
        """Ask; a router that answers nonsense makes the libraries raise anything, and that must not
        end the host, so every failure becomes a refusal in the message."""
        try:
            self.outcome = await trio.to_thread.run_sync(
                map_port, self.port, self.lease, self.gateway, abandon_on_cancel=True
            )
        except Exception as exc:
            self.outcome = Outcome(self.port, None, f"{type(exc).__name__}: {exc}")
        return self.outcome

    async def keep(self) -> None:
        """Renew until cancelled; a failed renewal is tried again at the next half-lease."""
        while self.outcome is not None and self.outcome.mapping is not None:
            await trio.sleep(self.lease / 2)
            with contextlib.suppress(Exception):
                await trio.to_thread.run_sync(self.outcome.mapping.renew, abandon_on_cancel=True)

    async def close(self) -> None:
        mapping = self.outcome.mapping if self.outcome is not None else None
        self.outcome = None
        if mapping is None:
            return
        with trio.CancelScope(shield=True), trio.move_on_after(5), contextlib.suppress(Exception):
            await trio.to_thread.run_sync(mapping.remove, abandon_on_cancel=True)
