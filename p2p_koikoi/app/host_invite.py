"""The host's invite code as the player reads it, and the router's port mapping asked meanwhile.

The code is printed at once with what the host knows (its LAN and IPv6 addresses, its punch candidate):
a router that never answers takes seconds to give up on, and the player should not wait for it. A router
that then maps the port gets a second code, its public address first, the one to send from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from p2p_koikoi.app.punching import Punching
from p2p_koikoi.app.speech import Say
from p2p_koikoi.net.invite import MAX_ADDRESSES, Invite
from p2p_koikoi.net.portmap import Outcome
from p2p_koikoi.net.tcp import Address

__all__ = ["PortMapper", "map_and_offer_again", "map_port_then_say", "say_invite"]


class PortMapper(Protocol):
    """What the host needs of :class:`~p2p_koikoi.net.portmap.Mapper`: open the mapping, then keep it."""

    async def open(self) -> Outcome: ...

    async def keep(self) -> None: ...


def say_invite(
    hosts: list[str], port: int, ours: str, token: bytes | None, say: Say, punching: Punching | None
) -> None:
    """The invite line, with our punch candidate (and whether our NAT maps anew) when STUN gave one."""
    punch = punching.candidate if punching is not None else None
    anew = punching is not None and punching.maps_anew
    say(f"  join with: koikoi join {Invite(tuple(hosts), port, ours, token, punch, anew).format()}")
    how = f"; punching from {Address(*punch)}" if punch else ""
    if punch is not None and anew:
        how += ", but our router maps each destination to a new port: a guest guesses at our ports"
    say(f"  (reachable at {', '.join(str(Address(h, port)) for h in hosts)}{how})")


async def map_port_then_say(
    mapper: PortMapper,
    hosts: list[str],
    port: int,
    ours: str,
    token: bytes | None,
    say: Say,
    punching: Punching | None = None,
) -> None:
    """Ask the router for the port while the host already waits; say what it did, and when it opened an
    address the invite did not hold, the invite again with it first (the one to send from now on)."""
    await map_and_offer_again(
        mapper, hosts, say, "code", lambda mapped: say_invite(mapped, port, ours, token, say, punching)
    )


async def map_and_offer_again(
    mapper: PortMapper, hosts: list[str], say: Say, what: str, offer: Callable[[list[str]], None]
) -> None:
    """Ask the router for the port while the player already waits (an invite or an answer code printed
    with ``hosts``); say what it did, and when it opened an address the code did not hold, ``offer`` the
    code again with that address first, as ``what`` to send from now on. Then keep the mapping."""
    outcome = await mapper.open()
    say(f"  {outcome.line}")
    opened = [m.external for m in outcome.held if m.external]
    if any(address not in hosts for address in opened):
        mapped = [*opened, *(h for h in hosts if h not in opened)][:MAX_ADDRESSES]
        say(f"  The router forwards the port now: send this {what} instead (it holds the public address):")
        offer(mapped)
    await mapper.keep()
