"""Another match on the same connection (SPEC.md section 9): both sides say yes, then greet again.

After a match played out (both ``goodbye match-over`` entries in the chain) neither side sends its EOF:
each sends one ``["rematch", finished match id, "yes" | "no"]`` once its player has decided, and reads the
other's. Both yes within :data:`REMATCH_WAIT` seconds, and the guest greets again with a fresh ``hello``;
the host answers with its own. New nonces make a new match id (SPEC.md section 2), so the next match is
a new chain and a new record; its first dealer is chosen as the rules choose it for any match (no rule
source has the loser of the last match deal: ``/work/shared/seeds/`` 001, 002 and 003 choose the first
dealer of every match afresh, by drawing cards or at random).

What a peer can try, and what it gets:

- a yes, then silence: the wait ends at :data:`REMATCH_WAIT`, or the greeting's own deadline: ``TIMED_OUT``;
- a second rematch frame, or one naming another match: ``bad-frame`` (it ends the series, not a match:
  every match of it is over and recorded);
- a rematch frame during a match: the runner takes anything but an entry or a keepalive as ``bad-frame``;
- a greeting again with a nonce of the series, or another key: ``bad-handshake`` or ``wrong-key``.

No I/O of its own beyond the channel it is handed; the player's answer comes through ``ask``.
"""

from __future__ import annotations

import contextlib
import enum
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.session.match_session import SOFTWARE
from p2p_koikoi.wire import VERSION, Hello, Ping, Pong, RemoteProtocolError
from p2p_koikoi.wire.frames import Answer, Frame, Rematch
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["REMATCH_WAIT", "Series", "Verdict", "agree", "greet_again"]

REMATCH_WAIT = 30.0  # seconds both players have to say yes, from the end of the match
_GONE = (ConnectionLost, OSError, trio.BrokenResourceError, trio.ClosedResourceError)  # a peer that may be gone


class Verdict(enum.Enum):
    """How the offer of another match ended; ``line`` words it for the player, in one line."""

    AGREED = "agreed"
    WE_DECLINED = "we-declined"
    PEER_DECLINED = "peer-declined"
    TIMED_OUT = "timed-out"
    LOST = "lost"

    @property
    def line(self) -> str:
        return _LINES[self]


_LINES = {
    Verdict.AGREED: "Both want another match: it starts now, on the same connection.",
    Verdict.WE_DECLINED: "No more matches: thank you for the game.",
    Verdict.PEER_DECLINED: "The opponent does not want another match: thank you for the game.",
    Verdict.TIMED_OUT: f"No answer about another match within {REMATCH_WAIT:g} s: thank you for the game.",
    Verdict.LOST: "The connection closed before another match was agreed: thank you for the game.",
}


@dataclass
class Series:
    """What one connection's matches share: the keys, and every nonce greeted with, none of which may come
    again (an old nonce of ours is never sent, and one of the peer's is refused)."""

    key: bytes
    peer_key: bytes
    nonces: set[bytes] = field(default_factory=set)

    def met(self, greeting: Greeting) -> None:
        self.nonces.update(greeting.nonces)


async def agree(
    channel: FramedChannel, match_id: bytes, ask: Callable[[], Awaitable[bool]], wait: float = REMATCH_WAIT
) -> Verdict:
    """Send our answer once ``ask`` gives it, read the peer's, within ``wait`` seconds in all. A peer's no
    calls our question off; our no is sent and ends it at once (we do not wait to hear the peer's)."""
    answers: dict[str, Answer] = {}
    errors: list[Exception] = []
    done = trio.Event()

    async def ours() -> None:
        yes = await ask()
        answers["ours"] = Answer.YES if yes else Answer.NO
        try:
            await channel.send(Rematch(match_id, answers["ours"]))
        except _GONE:
            errors.append(ConnectionLost("the peer closed the connection"))
            done.set()
            return
        if not yes or "theirs" in answers:
            done.set()

    async def theirs() -> None:
        try:
            await _theirs()
        except (ConnectionLost, RemoteProtocolError) as exc:  # raised below, not as a group out of the nursery
            if not done.is_set():  # once it is settled (our no sent), a peer that parts at once changes nothing
                errors.append(exc)
            done.set()

    async def _theirs() -> None:
        frame = await _next(channel)
        if not isinstance(frame, Rematch) or frame.match_id != match_id:
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "another frame where the answer about another match belongs")
        answers["theirs"] = frame.answer
        if frame.answer is Answer.NO or "ours" in answers:
            done.set()
            return
        follow = await _next(channel, until=done)  # a second answer, before ours is given: a peer's fault
        if follow is not None:
            raise RemoteProtocolError(ReasonId.BAD_FRAME, "a second answer about another match")

    with trio.move_on_after(wait):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ours)
            nursery.start_soon(theirs)
            await done.wait()
            nursery.cancel_scope.cancel()
    verdict = _verdict(answers) if done.is_set() else Verdict.TIMED_OUT  # settled just as time ran out: settled
    if answers.get("ours") is Answer.NO:  # our no is the last word, whatever the peer did while it went out
        return Verdict.WE_DECLINED
    if errors and isinstance(errors[0], ConnectionLost):
        return Verdict.LOST
    if errors:
        raise errors[0]
    if verdict is Verdict.TIMED_OUT and "ours" not in answers:
        with trio.move_on_after(1), contextlib.suppress(*_GONE):
            await channel.send(Rematch(match_id, Answer.NO))  # a polite no, if the peer still listens
    return verdict


def _verdict(answers: dict[str, Answer]) -> Verdict:
    if answers.get("ours") is Answer.NO:
        return Verdict.WE_DECLINED
    if answers.get("theirs") is Answer.NO:
        return Verdict.PEER_DECLINED
    return Verdict.AGREED


async def _next(channel: FramedChannel, until: trio.Event | None = None) -> Frame | None:
    """The peer's next frame that is not a keepalive (pings answered); :class:`ConnectionLost` at its EOF.
    With ``until``, None once that event is set first."""
    result: list[Frame] = []
    with trio.CancelScope() as scope:
        if until is not None:

            async def stop() -> None:
                await until.wait()
                scope.cancel()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(stop)
                result.append(await _frame(channel))
                nursery.cancel_scope.cancel()
        else:
            result.append(await _frame(channel))
    return result[0] if result else None


async def _frame(channel: FramedChannel) -> Frame:
    while True:
        frame = await channel.receive()
        if frame is None:
            raise ConnectionLost("the peer closed the connection")
        if isinstance(frame, Ping):
            await channel.send(Pong(frame.n))
        elif not isinstance(frame, Pong):
            return frame


async def greet_again(channel: FramedChannel, seat: int, series: Series, deadline: float = 10.0) -> Greeting:
    """The greeting of the next match on this connection: the guest (seat 1) first, each with a fresh nonce.
    The peer must present the key it played with, and a nonce never greeted with in this series."""
    nonce = secrets.token_bytes(32)
    while nonce in series.nonces:  # pragma: no cover - 2^-256
        nonce = secrets.token_bytes(32)
    try:
        with trio.fail_after(deadline if math.isfinite(deadline) else 1e9):
            if seat == 1:
                await channel.send(Hello(VERSION, series.key, nonce, SOFTWARE))
            hello = await _hello(channel, series)
            if seat == 0:
                await channel.send(Hello(VERSION, series.key, nonce, SOFTWARE))
    except trio.TooSlowError:
        raise ConnectionLost(f"no greeting for the next match within {deadline:g} s") from None
    nonces = (nonce, hello.nonce) if seat == 0 else (hello.nonce, nonce)
    greeting = Greeting(hello.key, nonces, hello.software)
    series.met(greeting)
    return greeting


async def _hello(channel: FramedChannel, series: Series) -> Hello:
    frame = await _frame(channel)
    if not isinstance(frame, Hello):
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "the next match begins with a hello")
    if frame.key != series.peer_key:
        raise RemoteProtocolError(ReasonId.WRONG_KEY, "the next match's hello presents another key")
    if frame.nonce in series.nonces:
        raise RemoteProtocolError(ReasonId.BAD_HANDSHAKE, "the next match's hello repeats a nonce of this connection")
    return frame
