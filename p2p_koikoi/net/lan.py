"""Finding games on the LAN: ``host --lan`` announces over mDNS/DNS-SD, ``join --lan`` browses.

python-zeroconf runs its own threads; we drive its blocking calls from Trio
through ``trio.to_thread.run_sync``, so the event loop never blocks. Both run
over IPv4 and IPv6 (mDNS on 224.0.0.251 and ff02::fb), so an IPv6-only LAN
works too. The announcement carries the host's fingerprint and rules, so the
list shows them before anyone connects; an announcement proves nothing, so the
guest compares that fingerprint with the key the greeting proves, and warns
loudly when they differ. Only addresses a guest can dial are announced: never
0.0.0.0, ::, loopback or link-local.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from zeroconf import IPVersion

__all__ = ["SERVICE", "LanGame", "announce", "browse"]

SERVICE = "_koikoi._tcp.local."


@dataclass(frozen=True, slots=True)
class LanGame:
    name: str
    addresses: tuple[str, ...]
    port: int
    fingerprint: str
    rules: str


class Announcement:
    """A registered service; :meth:`close` withdraws it."""

    def __init__(self, zeroconf: object, info: object) -> None:
        self._zeroconf = zeroconf
        self._info = info

    async def close(self) -> None:
        def stop() -> None:
            self._zeroconf.unregister_service(self._info)  # type: ignore[attr-defined]
            self._zeroconf.close()  # type: ignore[attr-defined]

        await trio.to_thread.run_sync(stop)


def _ip_version() -> IPVersion:
    """Both families where this machine has both; only the one it has otherwise (zeroconf fails to
    start on a family with no interface)."""
    import ifaddr
    from zeroconf import IPVersion

    families = {6 if isinstance(ip.ip, tuple) else 4 for adapter in ifaddr.get_adapters() for ip in adapter.ips}
    if families == {6}:
        return IPVersion.V6Only
    if families == {4}:
        return IPVersion.V4Only
    return IPVersion.All


async def announce(port: int, addresses: list[str], fingerprint: str, rules: str) -> Announcement:
    from zeroconf import ServiceInfo, Zeroconf

    packed = [ipaddress.ip_address(a).packed for a in addresses if not ipaddress.ip_address(a).is_unspecified]
    if not packed:
        raise ValueError("no address to announce on the LAN")
    label = f"koikoi {fingerprint.replace(':', '')[:8]} {int(time.time()) % 100000}"
    info = ServiceInfo(
        SERVICE,
        f"{label}.{SERVICE}",
        addresses=packed,
        port=port,
        properties={"fp": fingerprint, "rules": rules[:200], "v": "1"},
        server=f"{label.replace(' ', '-')}.local.",
    )

    def start() -> object:
        zeroconf = Zeroconf(ip_version=_ip_version())
        zeroconf.register_service(info)
        return zeroconf

    return Announcement(await trio.to_thread.run_sync(start), info)


async def browse(seconds: float = 2.0) -> list[LanGame]:
    """The games announced on the LAN, found within ``seconds``."""

    def run() -> list[LanGame]:
        from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

        zeroconf = Zeroconf(ip_version=_ip_version())
        names: list[str] = []

        def on_change(zeroconf: object, service_type: str, name: str, state_change: object) -> None:
            if state_change is ServiceStateChange.Added and name not in names:
                names.append(name)

        browser = ServiceBrowser(zeroconf, SERVICE, handlers=[on_change])
        try:
            time.sleep(seconds)
            games = []
            for name in names:
                info = zeroconf.get_service_info(SERVICE, name, timeout=1500)
                if info is None or info.port is None:
                    continue
                props = {
                    k.decode(errors="replace"): (v or b"").decode(errors="replace") for k, v in info.properties.items()
                }
                games.append(
                    LanGame(
                        name.removesuffix("." + SERVICE),
                        tuple(info.parsed_addresses()),
                        int(info.port),
                        props.get("fp", ""),
                        props.get("rules", ""),
                    )
                )
            return games
        finally:
            browser.cancel()
            zeroconf.close()

    return await trio.to_thread.run_sync(run)
