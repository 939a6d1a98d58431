"""Between two matches on one connection (issue 29, SPEC.md section 9): ask, agree, greet again, begin.

A match played out leaves its connection open (:class:`~p2p_koikoi.net.runner.Held`). Each side asks its
player, :func:`~p2p_koikoi.net.rematch.agree` exchanges the answers, and on both yes the guest greets again
with a fresh nonce: a new match id, a new chain, a new record. The host offers the same rules; a guest that
sees the rules it just played under takes them without asking again (it said yes to *another match*, and
that is what the same rules are), other rules go to its player as for any match.

Everything that can go wrong here happens after a match was played out and recorded: a no, a timeout, a
drop, or a peer breaking the protocol (a second answer, an old nonce, another key, silence after a yes)
ends the series, never a match, so each is one line (:func:`parting_line`) and the command still exits
as for the match it played.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TypeVar

import trio

from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.rematch import REMATCH_WAIT, Series, Verdict, agree, greet_again
from p2p_koikoi.net.runner import Held
from p2p_koikoi.net.timing import SCALE
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import Ping, Pong, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "OFFER_DEADLINE",
    "Again",
    "ask_both",
    "part",
    "parting_line",
    "play_series",
    "series_of",
    "take_same_rules",
]

Again = Callable[[Path | None], Awaitable[bool]]  # our player's answer, shown the record of the match just played
OFFER_DEADLINE = 10.0  # seconds the host has, after the greeting, to offer the next match
LINGER = 2.0  # seconds we read on after our EOF, so our last frame is not lost to a reset
_ENDS = (ConnectionLost, RemoteProtocolError, OSError, trio.BrokenResourceError, trio.ClosedResourceError)


class _Played(Protocol):
    """What a series needs of a match's result: whether it was played out, its record, the closing lines."""

    @property
    def ok(self) -> bool: ...

    record: Path | None
    notes: list[str]


R = TypeVar("R", bound=_Played)
NextMatch = Callable[[FramedChannel, MatchSession, Series, Path | None], Awaitable["MatchSession | Verdict | str"]]


async def play_series(
    held: Held,
    session: MatchSession,
    result: R,
    series: Series,
    next_match: NextMatch,
    played: Callable[[FramedChannel, MatchSession, R], Awaitable[R]],
    say: Callable[[str], None],
) -> R:
    """From a match played out (its connection in ``held``) on: ``next_match`` asks both players and begins
    the next one (or says why not), ``played`` plays it, until a match is not played out or the players
    part (one line, :func:`parting_line`). The last match's result; host, join, resume and practice all
    run their series through here, each with its own way to begin and play a match."""
    while held.channel is not None and result.ok:
        channel, held.channel = held.channel, None
        nxt = await next_match(channel, session, series, result.record)
        if not isinstance(nxt, MatchSession):
            await part(channel)
            result.notes.append(parting_line(nxt))
            return result
        say(Verdict.AGREED.line)
        session = nxt
        result = await played(channel, session, result)
    return result


def series_of(session: MatchSession, nonces: tuple[bytes, bytes] | None = None) -> Series:
    """The series a connection's first match opens: both keys, and the nonces greeted with so far (the
    match's, and the connection's own greeting when the match was one taken up again), none to come again."""
    seat = session.seat
    series = Series(session.keys[seat], session.keys[1 - seat])
    series.nonces.update(session.nonces)
    if nonces is not None:
        series.nonces.update(nonces)
    return series


async def ask_both(channel: FramedChannel, match_id: bytes, again: Again, record: Path | None) -> Verdict | str:
    """Our player's answer and the peer's; a peer that breaks the protocol here gives its fault in words."""
    try:
        return await agree(channel, match_id, lambda: again(record), REMATCH_WAIT * SCALE)
    except RemoteProtocolError as exc:
        return f"the opponent broke the protocol after the match ({exc.reason}): {exc}"


async def greet(channel: FramedChannel, seat: int, series: Series) -> Greeting | str:
    """The next match's greeting, or why there is none, in words."""
    try:
        return await greet_again(channel, seat, series)
    except ConnectionLost as exc:
        return f"the opponent said yes but did not begin the next match ({exc})"
    except RemoteProtocolError as exc:
        return f"the opponent broke the protocol greeting again ({exc.reason}): {exc}"


async def take_same_rules(channel: FramedChannel, session: MatchSession, rules: RuleSet) -> None:
    """The guest reads the host's offer of the next match; the rules just played are accepted here, at once
    (the runner then sends the accept), other rules are left for the player to read. Raises
    :class:`ConnectionLost` when no offer comes within :data:`OFFER_DEADLINE`, and the protocol error of a
    frame that is not one."""
    try:
        with trio.fail_after(OFFER_DEADLINE):
            signed = await _entry(channel)
    except trio.TooSlowError:
        raise ConnectionLost(f"the host offered no match within {OFFER_DEADLINE:g} s of greeting again") from None
    session.receive(signed)
    offered = session.rules
    if offered is not None and offered.fingerprint == rules.fingerprint and session.ended_by is None:
        session.accept()


async def _entry(channel: FramedChannel) -> SignedEntry:
    while True:
        frame = await channel.receive()
        if frame is None:
            raise ConnectionLost("the host closed the connection instead of offering the next match")
        if isinstance(frame, Ping):
            await channel.send(Pong(frame.n))
        elif isinstance(frame, SignedEntry):
            return frame
        elif not isinstance(frame, Pong):
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "the next match begins with the host's match entry")


async def part(channel: FramedChannel) -> None:
    """Close the connection politely: our EOF, then what the peer still sends (its answer, its EOF) is read
    and dropped for up to :data:`LINGER` seconds, so our last frame is not lost to a reset."""
    with trio.move_on_after(LINGER), contextlib.suppress(*_ENDS):
        stream = channel.stream
        if isinstance(stream, trio.abc.HalfCloseableStream):
            await stream.send_eof()
        while await channel.receive() is not None:
            pass
    with contextlib.suppress(*_ENDS):
        await channel.close()


def parting_line(outcome: Verdict | str) -> str:
    """The one line that ends a series: the verdict's own, or a fault's words."""
    if isinstance(outcome, Verdict):
        return outcome.line
    return f"No further match: {outcome}."
