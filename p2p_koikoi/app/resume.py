"""``koikoi resume FILE``: take a match up again after a crash or a long drop, from our record.

Our side is rebuilt by replaying the record (:meth:`MatchSession.restore`: our own entries are written
again from the master secret kept beside the record and must come out byte for byte the same), then
we find the peer again: the host listens on the port it used, the guest dials the address it dialled
(or the one given, when it changed), both prove they are the same keys in the same match, exchange
whatever the other missed, and play on. The record is appended to, after cutting off any half frame
the crash left. A match taken up again and played out is followed by a rematch when both players want
one, as after any match (SPEC.md section 9), its record beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from p2p_koikoi.app.continuing import GRACE, Reconnect, play_on
from p2p_koikoi.app.identity import load_identity
from p2p_koikoi.app.netplay import NetMatchResult, rematches
from p2p_koikoi.app.series import Again
from p2p_koikoi.app.speech import Say
from p2p_koikoi.app.unfinished import CatchingUp, ResumeError, restore_match, tell_so_far
from p2p_koikoi.net.runner import Held, Player
from p2p_koikoi.net.tcp import Address, parse_address
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import public_bytes

__all__ = ["CatchingUp", "ResumeError", "resume_match"]


async def resume_match(
    path: Path,
    address: Address | None,
    player_for: Callable[[int], Player],
    say: Say,
    *,
    grace: float = GRACE,
    bind: str | None = None,
    again: Again | None = None,
) -> NetMatchResult:
    """Play the match of the record at ``path`` on to its end; with ``again``, each rematch both players want."""
    identity = load_identity()
    unfinished = restore_match(path, identity)
    session, record = unfinished.session, unfinished.record
    seat = session.seat
    if seat == 1:
        target = address or parse_address(record.peer_address)
        plan = Reconnect(1, address=target, grace=grace)
        say(f"Resuming as the guest: dialling {target} (entry {len(record.entries)} is our last).")
    else:
        port = address.port if address is not None else parse_address("localhost" + record.peer_address).port
        plan = Reconnect(0, port=port, bind=bind, grace=grace)
        say(f"Resuming as the host: listening on port {port} (entry {len(record.entries)} is our last).")
    result = NetMatchResult(None, path, fingerprint(public_bytes(identity)), fingerprint(session.keys[1 - seat]))
    writer = unfinished.reopen()
    player = player_for(seat)
    tell_so_far(player, session)
    held = Held() if again is not None else None
    try:
        result.report = await play_on(None, session, identity, player, writer, plan, say, held)
    finally:
        writer.close()
    if held is None or again is None:
        return result
    return await rematches(session, held, result, identity, player_for, path.parent, plan, say, again)
