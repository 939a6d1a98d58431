"""The host's half of the reverse connection: answer codes pasted while it waits, each dialled.

A guest that cannot reach the host listens and sends back an answer code (``kka1:``,
:mod:`p2p_koikoi.net.answer`); the host's player pastes it where the host waits. Each line is read,
checked and dialled while the host keeps listening: whichever brings a guest in first, its own door
or a dial back, seats it (:func:`first_of`). A line that is no answer code, one that answers another
host's invite, or one whose guest cannot be reached either, is said in one line and the host waits on
for the next: a slip at the keyboard never ends the host. A code the guest's screen wrapped, copied
with its line breaks, is joined again (:class:`Pasted`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import trio

from p2p_koikoi.net.answer import MAX_TEXT, PREFIX, Answer, AnswerError
from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.door import Conclusive, Refused
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.reverse import dial_guest
from p2p_koikoi.net.tcp import Address, CouldNotJoin
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["PASTE_HERE", "Pasted", "ReadLine", "check_answer", "first_of", "incomplete", "take_answers"]

T = TypeVar("T")
ReadLine = Callable[[], Awaitable[str | None]]
"""The next line the host's player pasted or typed; None once nothing more can come (the input ended)."""

PASTE_HERE = (
    f"If the guest cannot reach you, it sends back an answer code ({PREFIX}...): paste it here and press Enter."
)
_NOT_ADMITTED = (Refused, ConnectionLost, RemoteProtocolError, TimedOut, OSError, trio.BrokenResourceError)


class Pasted:
    """Pasted lines in, answer codes out: a code wrapped over several lines (the guest's screen wrapped
    it, and the copy kept the breaks) is joined again. Whitespace is dropped; text that starts an answer
    code but does not yet pass its check is held for the next line (:attr:`held`), unless that line
    starts a code of its own. Sans-IO, so the rule is tested without a terminal."""

    def __init__(self) -> None:
        self.held = ""

    def feed(self, line: str) -> str | None:
        """The text to check now, or None while a code is still incomplete."""
        text = "".join(line.split())
        if not text:
            return None
        if text.lower().startswith(PREFIX) or not self.held:
            self.held = ""
        joined = self.held + text
        if incomplete(joined):
            self.held = joined
            return None
        self.held = ""
        return joined


def incomplete(text: str) -> bool:
    """Whether ``text`` (whitespace and all) starts an answer code that does not yet pass its check and may
    still grow into one: a code cut by a line break, whose rest is still to come."""
    text = "".join(text.split())
    if not text.lower().startswith(PREFIX) or len(text) >= MAX_TEXT:
        return False
    try:
        Answer.parse(text)
    except AnswerError as exc:
        return "damaged" in str(exc)
    return False


def check_answer(line: str, ours: str, guest: str | None) -> Answer | str:
    """The answer in a pasted ``line``, or why it cannot be dialled, in words for the host's player:
    ``ours`` is the host's fingerprint, ``guest`` the only guest admitted (``--guest``), if any."""
    try:
        answer = Answer.parse(line)
    except AnswerError as exc:
        return f"not an answer code: {exc}"
    if answer.host != ours:
        return f"that answer code answers the invite of another host (key {answer.host}, not ours {ours})"
    if guest is not None and answer.guest != guest:
        return f"that answer code is from the key {answer.guest}; only {guest} is admitted (--guest)"
    return answer


async def take_answers(
    read: ReadLine,
    key: bytes,
    ours: str,
    admit: Callable[[FramedChannel, Greeting, str], Awaitable[T]],
    say: Callable[[str], None],
    *,
    guest: str | None = None,
    token: bytes | None = None,
    timeout: float = 15.0,
    punch_from: int | None = None,
    maps_anew: bool = False,
) -> tuple[FramedChannel, T, Answer]:
    """Dial each answer code pasted until a guest is admitted; its channel, what ``admit`` returned, and
    the answer (where to dial again after a drop). Runs until then, or forever once the input ended.
    ``punch_from``: the local port of our STUN mapping, to punch from to an answer's candidate.
    ``maps_anew``: whether our own NAT maps each destination to a new port (asked before the invite): then
    we hold many connections open to a guest that sprays guesses at us, and two such NATs cannot meet by
    a spray at all (the relay comes sooner without one)."""
    pasted = Pasted()
    while True:
        line = await read()
        if line is None:
            await trio.sleep_forever()
        assert line is not None
        text = pasted.feed(line)
        if text is None:
            if pasted.held:
                say("  The answer code so far is incomplete: paste the rest of it (or the whole code again).")
            continue
        checked = check_answer(text, ours, guest)
        if isinstance(checked, str):
            say(f"  {checked[0].upper()}{checked[1:]}; still waiting.")
            continue
        where = ", ".join(str(Address(host, checked.port)) for host in checked.addresses)
        if checked.punch is not None and punch_from is not None:
            where += _direct_words(checked.punch, checked.spray, maps_anew)
        say(f"  Dialling the guest back at {where}...")
        try:
            channel, greeting, address = await dial_guest(
                checked, key, token, timeout=timeout, punch_from=punch_from, ours_anew=maps_anew
            )
        except CouldNotJoin as exc:
            say(f"  Not connected: {exc}; still waiting.")
            continue
        try:
            return channel, await admit(channel, greeting, str(address)), checked
        except Conclusive:
            raise
        except _NOT_ADMITTED as exc:
            await trio.aclose_forcefully(channel.stream)
            say(f"  The guest at {address} was not admitted: {exc}; still waiting.")


def _direct_words(punch: Endpoint, theirs_anew: bool, ours_anew: bool) -> str:
    """How the host tries the guest's punch candidate, said after the addresses it dials."""
    if theirs_anew and ours_anew:
        return " (no spray: our router, like the guest's, maps each destination to a new port)"
    if theirs_anew:
        return f", and spraying to {punch[0]} (its router maps each destination to a new port)"
    if ours_anew:
        return f", and opening connections to {Address(*punch)} for its spray (our router maps each anew)"
    return f", and punching to {Address(*punch)}"


async def first_of(
    tasks: Sequence[Callable[[], Awaitable[T]]], release: Callable[[T], Awaitable[None]] | None = None
) -> T:
    """Run ``tasks`` at once; the first to return wins and the others are cancelled. An error of the first
    to finish is raised as itself (not in a group). A second result that came too late goes to ``release``."""
    done: list[T] = []
    failed: list[Exception] = []
    async with trio.open_nursery() as nursery:
        for task in tasks:

            async def one(task: Callable[[], Awaitable[T]] = task) -> None:
                try:
                    result = await task()
                except Exception as exc:
                    if not done and not failed:
                        failed.append(exc)
                    nursery.cancel_scope.cancel()
                    return
                if done or failed:
                    if release is not None:
                        await release(result)
                    return
                done.append(result)
                nursery.cancel_scope.cancel()

            nursery.start_soon(one)
    if failed:
        raise failed[0]
    return done[0]
