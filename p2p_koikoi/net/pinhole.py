"""IPv6 pinholes: asking the router's IPv6 firewall to let guests reach the host's port.

IPv6 needs no address translation, but home routers drop unsolicited inbound connections; a UPnP
IGD v2 router opens a hole on request (the ``WANIPv6FirewallControl`` service: ``AddPinhole``,
``UpdatePinhole``, ``DeletePinhole``). We find the router over IPv6 (SSDP to ``ff02::c`` from each
of our global or unique-local addresses) because a router in secure mode opens holes only for the
address that asks. ``async-upnp-client`` is an asyncio library; each call runs its own event loop
in a worker thread, so the Trio loop never blocks.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FIREWALL_SERVICE", "Pinhole", "open_pinhole", "our_ipv6_addresses"]

FIREWALL_SERVICE = "urn:schemas-upnp-org:service:WANIPv6FirewallControl:1"
IGD_V2 = "urn:schemas-upnp-org:device:InternetGatewayDevice:2"
SEARCH_SECONDS = 2
TCP = 6


@dataclass(frozen=True, slots=True)
class Pinhole:
    address: str  # ours, that the hole lets guests reach
    port: int
    renew: Callable[[], None]
    remove: Callable[[], None]


def our_ipv6_addresses() -> list[tuple[str, int]]:
    """(address, interface index) of every global or unique-local IPv6 address of this machine."""
    import ifaddr

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, tuple):
                continue
            address = ipaddress.IPv6Address(ip.ip[0])
            if not (address.is_link_local or address.is_loopback or address.is_multicast):
                found.append((str(address), socket.if_nametoindex(adapter.nice_name or adapter.name)))
    return found


async def _firewall_at(location: str) -> Any:
    from async_upnp_client.aiohttp import AiohttpRequester
    from async_upnp_client.client_factory import UpnpFactory

    device = await UpnpFactory(AiohttpRequester()).async_create_device(location)
    return device.find_service(FIREWALL_SERVICE)


async def _find_firewall(address: str, index: int) -> str | None:
    """Where the router that offers an IPv6 firewall service to ``address`` describes itself, or None."""
    from async_upnp_client.search import async_search

    locations: list[str] = []

    async def found(headers: Any) -> None:
        if headers.get("location"):
            locations.append(str(headers["location"]))

    source, target = (address, 0, 0, index), ("ff02::c", 1900, 0, index)
    await async_search(found, timeout=SEARCH_SECONDS, search_target=IGD_V2, source=source, target=target)
    for location in dict.fromkeys(locations):
        try:
            if await _firewall_at(location) is not None:
                return location
        except Exception:  # a device that does not describe itself properly: try the next
            continue
    return None


def _call(location: str, action: str, **arguments: object) -> Any:
    """One firewall action, in an event loop of its own (each call runs in a worker thread)."""

    async def main() -> Any:
        service = await _firewall_at(location)
        return await service.action(action).async_call(**arguments)

    return asyncio.run(main())


def open_pinhole(port: int, lease: int) -> Pinhole | str | None:
    """Blocking: a pinhole for the first of our IPv6 addresses whose router grants one; a refusal
    (str) when a router answered but said no; None when no IPv6 router offers the service."""
    refusal = None
    for address, index in our_ipv6_addresses():
        try:
            location = asyncio.run(_find_firewall(address, index))
        except OSError:  # this address cannot send multicast: try the next
            continue
        if location is None:
            continue
        try:
            hole = {"InternalClient": address, "InternalPort": port, "Protocol": TCP}
            reply = _call(location, "AddPinhole", RemoteHost="", RemotePort=0, LeaseTime=lease, **hole)
        except Exception as exc:
            refusal = f"IPv6 firewall: {exc}"
            continue
        unique = int(reply["UniqueID"])
        return Pinhole(
            address,
            port,
            functools.partial(_call, location, "UpdatePinhole", UniqueID=unique, NewLeaseTime=lease),
            functools.partial(_call, location, "DeletePinhole", UniqueID=unique),
        )
    return refusal
