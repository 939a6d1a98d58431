"""The host's key, as a guest checks it before playing: pinned by an invite code, compared with a LAN
announcement, or trusted on first use for the name dialled (SSH's ``known_hosts``, in ``known_peers``).

A changed key is said loudly and asked about, never passed over: it is the one sign a guest gets that
someone between it and the host is posing as the host.
"""

from __future__ import annotations

from p2p_koikoi.app.identity import PeerCheck, Trust, known_peer, remember_peer
from p2p_koikoi.app.speech import Confirm, Say
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.tcp import Address
from p2p_koikoi.record.identity_names import fingerprint

__all__ = ["host_key_accepted", "trusted_on_first_use"]


async def host_key_accepted(
    address: Address, greeting: Greeting, pinned: str | None, announced: str | None, say: Say, confirm: Confirm
) -> bool:
    """Whether to play against the key the host at ``address`` proved: ``pinned`` by an invite code
    (already checked while dialling), else compared with the fingerprint the LAN ``announced``, then
    trusted on first use for the name dialled."""
    if pinned is not None:
        remember_peer(address.host, greeting.peer_key)
        return True
    proven = fingerprint(greeting.peer_key)
    if announced is not None and proven != announced:
        _loud(
            say,
            f"WARNING: the game on the LAN announced fingerprint {announced},",
            f"  but the host at {address} proved the key {proven}.",
            "Someone on the LAN may be posing as the host.",
        )
        if not await confirm("Play against this key anyway?"):
            return False
    return await trusted_on_first_use(address.host, greeting, say, confirm)


async def trusted_on_first_use(name: str, greeting: Greeting, say: Say, confirm: Confirm) -> bool:
    """Trust on first use: remember a new peer; warn loudly and ask when a known name shows a new key."""
    check: PeerCheck = known_peer(name, greeting.peer_key)
    if check.trust is Trust.CHANGED:
        _loud(
            say,
            f"WARNING: {name} presented a DIFFERENT KEY than before.",
            f"  before: {check.previous}",
            f"  now:    {check.fingerprint}",
            "Someone may be impersonating your opponent, or they made a new key.",
        )
        if not await confirm("Trust the new key and play?"):
            return False
    remember_peer(name, greeting.peer_key)
    return True


def _loud(say: Say, *lines: str) -> None:
    """A warning that cannot be missed among the lines around it."""
    say("@" * 70)
    for line in lines:
        say(line)
    say("@" * 70)
