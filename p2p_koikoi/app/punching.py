"""Each side's half of a hole punch: its public TCP endpoint from STUN, held open, and the port it maps from.

The host asks before it prints its invite (the candidate goes into the code); the guest asks when the
host's invite held a candidate and no address answered (its candidate goes into the answer code). The
STUN connection stays open while the side waits, so its NAT keeps the mapping; the punch later leaves
from the same local port (:mod:`p2p_koikoi.net.punch`).

No STUN is asked when the side listens only on loopback (a test, a local game: nobody outside could be
punched to), or with ``--stun none``. A server that does not answer costs at most :data:`ASK_FOR`
seconds, once, and the side goes on without a candidate.

:func:`maps_per_destination` asks a second server from the same local port: a NAT that answers with
another public port maps each destination anew (endpoint-dependent), so the candidate's port is not the
one a punch leaves from, and the birthday spray (:mod:`p2p_koikoi.net.spray`) is the only direct way.
The guest asks only once its dial has failed: nothing that already connects waits for it. The host asks
before it prints its invite, right after its candidate (the invite says so, for the guest to spray: the
second server's answer is one more round trip, within :data:`ASK_FOR`, and none when it asked no server).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field

import trio

from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.stun import StunError, tcp_mapping

__all__ = ["ASK_FOR", "DEFAULT_STUN", "Punching", "ask_stun", "maps_per_destination"]

ASK_FOR = 1.5  # seconds in all for the STUN servers, before the code is printed without a candidate
DEFAULT_STUN = ("stun.cloudflare.com:3478", "stun.nextcloud.com:443")  # two operators, both STUN over TCP


@dataclass
class Punching:
    """A side's punch candidate (None without one), the local port it maps from, and the STUN connection
    held open meanwhile."""

    candidate: Endpoint | None = None
    local_port: int = 0
    held: list[trio.SocketStream] = field(default_factory=list)
    why_not: str = ""
    server: tuple[str, int] | None = None  # the STUN server (address, port) that gave the candidate
    maps_anew: bool = False  # a second server saw another port (the host asks before its invite)

    @property
    def from_port(self) -> int | None:
        """The local port to punch from, when there is a candidate to punch to."""
        return self.local_port if self.candidate is not None else None

    async def aclose(self) -> None:
        for stream in self.held:
            with contextlib.suppress(Exception):
                await trio.aclose_forcefully(stream)
        self.held.clear()


def _loopback_only(bind: str | None) -> bool:
    if bind is None:
        return False
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(bind.split("%")[0]).is_loopback
    return False


async def ask_stun(servers: Sequence[tuple[str, int]], bind: str | None) -> Punching:
    """Our public endpoint from the first of ``servers`` that answers (names resolved here), within
    :data:`ASK_FOR` seconds in all; a :class:`Punching` without a candidate, saying why, otherwise."""
    if not servers:
        return Punching(why_not="--stun none")
    if _loopback_only(bind):
        return Punching(why_not="listening on loopback only")
    problems: list[str] = []
    with trio.move_on_after(ASK_FOR):
        for name, port in servers:
            try:
                infos = await trio.socket.getaddrinfo(name, port, 0, socket.SOCK_STREAM)
            except OSError as exc:
                problems.append(f"{name}: {exc.strerror or exc}")
                continue
            for info in infos:
                host = str(info[4][0])
                try:
                    mapping, stream = await tcp_mapping((host, port), 0, timeout=ASK_FOR)
                except StunError as exc:
                    problems.append(str(exc))
                    continue
                return Punching((mapping.host, mapping.port), mapping.local_port, [stream], server=(host, port))
    return Punching(why_not="; ".join(problems) or f"no STUN server answered within {ASK_FOR:g} s")


async def maps_per_destination(punching: Punching, servers: Sequence[tuple[str, int]]) -> bool:
    """Whether our NAT gave another public port to a second STUN server (another address or port than the
    one that gave ``punching``'s candidate) from the same local port; False when none answers within
    :data:`ASK_FOR` s, or there is none to ask (we cannot tell, and the ordinary punch is tried)."""
    if punching.candidate is None:
        return False
    with trio.move_on_after(ASK_FOR):
        for name, port in servers:
            try:
                infos = await trio.socket.getaddrinfo(name, port, 0, socket.SOCK_STREAM)
            except OSError:
                continue
            for info in infos:
                other = (str(info[4][0]), port)
                if other == punching.server:
                    continue
                try:
                    mapping, stream = await tcp_mapping(other, punching.local_port, timeout=ASK_FOR)
                except StunError:
                    continue
                await trio.aclose_forcefully(stream)
                return (mapping.host, mapping.port) != punching.candidate
    return False
