"""``koikoi resume FILE``: take a match up again after a crash or a long drop, from our record.

Our side is rebuilt by replaying the record (:meth:`MatchSession.restore`: our own entries are written
again from the master secret kept beside the record and must come out byte for byte the same), then
we find the peer again: the host listens on the port it used, the guest dials the address it dialled
(or the one given, when it changed), both prove they are the same keys in the same match, exchange
whatever the other missed, and play on. The record is appended to, after cutting off any half frame
the crash left.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from p2p_koikoi.app.continuing import GRACE, Reconnect, play_on
from p2p_koikoi.app.identity import load_identity
from p2p_koikoi.app.netplay import NetMatchResult, Say
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.engine.match import Match
from p2p_koikoi.net.runner import Player
from p2p_koikoi.net.tcp import Address, parse_address
from p2p_koikoi.record.format import read_secret, secret_path
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import LocalProtocolError, RemoteProtocolError, public_bytes

__all__ = ["CatchingUp", "ResumeError", "resume_match"]


@runtime_checkable
class CatchingUp(Protocol):
    """A player with a screen, told the match so far (rounds, points, dealer) when it is resumed, since
    the events before the crash are not told again."""

    def caught_up(self, match: Match, rules: RuleSet | None) -> None: ...


class ResumeError(Exception):
    """The record cannot be resumed (over, not ours, no secret beside it)."""


async def resume_match(
    path: Path,
    address: Address | None,
    player_for: Callable[[int], Player],
    say: Say,
    *,
    grace: float = GRACE,
    bind: str | None = None,
) -> NetMatchResult:
    record = read_record(path)
    if not record.entries:
        raise ResumeError(f"{path} holds no entries: there is nothing to resume")
    secret_file = secret_path(path)
    if not secret_file.exists():
        raise ResumeError(f"no {secret_file.name} beside the record: the match is over, or the record was moved")
    identity = load_identity()
    try:
        session = MatchSession.restore(record.writer_seat, identity, record.entries, read_secret(secret_file))
    except (LocalProtocolError, RemoteProtocolError) as exc:
        raise ResumeError(f"cannot rebuild the match from {path}: {exc}") from None
    if session.waiting is Waiting.DONE:
        raise ResumeError(f"the match in {path} is over ({session.ended_by}); nothing to resume")
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
    writer = RecordWriter.reopen(path, len(session.chain.entries), secret=session.master_secret)
    player = player_for(seat)
    if isinstance(player, CatchingUp) and session.match is not None:  # a screen shows the match so far
        player.caught_up(session.match, session.rules)
    try:
        result.report = await play_on(None, session, identity, player, writer, plan, say)
    finally:
        writer.close()
    return result
