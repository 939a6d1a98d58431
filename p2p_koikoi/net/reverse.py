"""The reverse connection: the guest listens and the host dials it, for when only the guest can be reached.

TCP does not care who dialled, and neither does the greeting: the guest still sends its ``hello``
first (with the invite token's proof, when the invite has one) and accepts only the key the invite
code named; the host still answers, and accepts only the key the guest's answer code named (and the
token, for ``--invite-only``). So turning the connection round changes who calls ``connect``, and
nothing a peer can see after that.

:func:`await_host` is the guest's side: it listens through the same door as a host does (a flood at
its port cannot keep the host out), greets every caller as a guest, and drops whoever proves another
key. :func:`dial_guest` is the host's side: every address in the answer code at once (happy
eyeballs), each attempt connecting and greeting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from p2p_koikoi.net.answer import Answer
from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.door import Door, Dropped, Refused
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.net.handshake import Greeting, Guard, NotKoikoi, greet_as_guest, greet_as_host, token_nonce
from p2p_koikoi.net.punch import simultaneous_open
from p2p_koikoi.net.reach import AllFailed, Failed, Failure, Miss, classify_os_error, happy_eyeballs, interleave
from p2p_koikoi.net.spray import SPRAY_FOR, open_many, probe_many
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin, _connect, listen_raw, parse_address
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import RemoteProtocolError

__all__ = ["HOST_DEADLINE", "await_host", "dial_guest", "greet_the_host", "punch_host"]

HOST_DEADLINE = 30.0  # from a host's connection to its greeting done: a few round trips


async def await_host(
    key: bytes,
    pin: Pin,
    *,
    port: int,
    bind: str | None = None,
    on_listening: Callable[[list[Address]], Awaitable[None]] | None = None,
    on_dropped: Callable[[Dropped], Awaitable[None]] | None = None,
    greeting_deadline: float = 10.0,
    door: Door | None = None,
) -> tuple[FramedChannel, Greeting, Address]:
    """Listen on ``port`` until the host whose fingerprint ``pin`` holds dials in and greets; its channel,
    the greeting, and the address it came from. Anyone else is dropped and the listening goes on."""
    expected = pin.fingerprint
    if expected is None:
        raise ValueError("a reverse connection needs the host's fingerprint, from its invite code")

    async def admit(channel: FramedChannel, peer: str) -> tuple[Greeting, str]:
        nonce = token_nonce(pin.token, expected, key) if pin.token else None
        greeting = await greet_as_guest(channel, key, greeting_deadline, nonce=nonce)
        proven = fingerprint(greeting.peer_key)
        if proven != expected:
            raise Refused(f"it proved the key {proven}, not the host's {expected}")
        return greeting, peer

    channel, (greeting, peer) = await listen_raw(
        admit, port=port, bind=bind, on_listening=on_listening, on_dropped=on_dropped, deadline=HOST_DEADLINE, door=door
    )
    return channel, greeting, parse_address(peer)


async def punch_host(
    key: bytes, pin: Pin, local_port: int, host: Endpoint, *, deadline: float, greeting_deadline: float = 10.0
) -> tuple[FramedChannel, Greeting, Address]:
    """The guest's side of a hole punch: a simultaneous open from ``local_port`` to the host's candidate,
    kept trying until ``deadline`` (Trio time), then the greeting, as over any connection."""
    try:
        stream = await simultaneous_open(local_port, host, deadline=deadline)
    except OSError as exc:
        raise CouldNotJoin(f"the punch to {Address(*host)} did not get through: {exc.strerror or exc}") from None
    channel, greeting = await greet_the_host(stream, key, pin, f"the punch to {Address(*host)}", greeting_deadline)
    return channel, greeting, Address(*host)


async def greet_the_host(
    stream: trio.SocketStream, key: bytes, pin: Pin, what: str, deadline: float = 10.0
) -> tuple[FramedChannel, Greeting]:
    """The guest's greeting over a connection it did not dial (a punch, a relay): ``hello`` first, the
    invite's token proved, the invite's key required; :class:`CouldNotJoin` (``what`` got through, but
    not to the host) otherwise, the connection closed."""
    channel = FramedChannel(stream)
    try:
        nonce = token_nonce(pin.token, pin.fingerprint, key) if pin.token and pin.fingerprint else None
        greeting = await greet_as_guest(channel, key, deadline, nonce=nonce)
        if fingerprint(greeting.peer_key) != pin.fingerprint:
            raise Refused(f"it proved the key {fingerprint(greeting.peer_key)}, not the host's")
    except (Refused, ConnectionLost, RemoteProtocolError, TimedOut) as exc:
        await trio.aclose_forcefully(stream)
        raise CouldNotJoin(f"{what} got through, but not to the host: {exc}") from None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return channel, greeting


async def dial_guest(
    answer: Answer,
    key: bytes,
    token: bytes | None = None,
    *,
    timeout: float = 15.0,
    punch_from: int | None = None,
    ours_anew: bool = False,
) -> tuple[FramedChannel, Greeting, Address]:
    """Dial every address of ``answer`` at once and greet as the host; the first guest that proves the
    answer's key (and ``token``, when the host admits only holders of its invite) wins. With
    ``punch_from`` (the local port of our STUN mapping) and a punch candidate in the answer, a hole punch
    to it runs alongside, started last (:mod:`p2p_koikoi.net.punch`): a guest that can be dialled is
    dialled, and the punch, the next rung, adds nothing when it is not needed. Where exactly one of the two
    NATs maps each destination anew (the answer's flag for the guest's, ``ours_anew`` for ours), the birthday
    spray (:mod:`p2p_koikoi.net.spray`) takes the punch's place for at most :data:`SPRAY_FOR` s: we guess
    at the guest's ports, or, ours mapping anew, hold many connections open to its candidate for its
    guesses; where both do, there is no direct rung. The guest's relayed address on a TURN server, when
    the answer holds one, is dialled last of all, as any address, and only after the spray has failed.
    :class:`CouldNotJoin` says in one line how every address failed."""
    dial = _DialBack(answer, key, Guard(answer.guest, token), timeout, punch_from, ours_anew)
    try:
        return await happy_eyeballs(dial.order(), dial.attempt, timeout, _release)
    except AllFailed as exc:
        raise CouldNotJoin(_unreached(exc.failures, timeout), exc.failures) from None


class _DialBack:
    """One dial back to an answer code: the rungs happy eyeballs races, each named as its failure is told
    (an address, ``punch ADDRESS``, ``spray HOST``, ``relay ADDRESS``), and how each is attempted. Held
    together because the relay waits for the spray, and every rung greets with the same key and guard."""

    def __init__(
        self, answer: Answer, key: bytes, guard: Guard, timeout: float, punch_from: int | None, ours_anew: bool
    ) -> None:
        self.answer = answer
        self.key = key
        self.guard = guard
        self.timeout = timeout
        self.punch_from = punch_from
        self.targets = {str(Address(h, answer.port)): Address(h, answer.port) for h in interleave(answer.addresses)}
        self.relay = f"relay {Address(*answer.relay)}" if answer.relay else None
        if answer.relay is not None and self.relay is not None:
            self.targets[self.relay] = Address(*answer.relay)
        direct = answer.punch is not None and punch_from is not None
        self.ours_anew = ours_anew  # ours maps anew, the guest's not: we hold connections open for its guesses
        self.spray, self.punch = None, None
        if direct and answer.punch is not None and answer.spray != ours_anew:  # exactly one NAT maps anew
            self.spray = f"spray {answer.punch[0]}"
        elif direct and answer.punch is not None and not answer.spray:  # neither does
            self.punch = f"punch {Address(*answer.punch)}"
        self.sprayed = trio.Event()  # the relay waits for the spray: a relayed match is the last resort

    def order(self) -> list[str]:
        """The addresses first, then the punch or the spray (the next rung), the relay last of all."""
        rung = self.punch or self.spray
        addresses = [t for t in self.targets if t != self.relay]
        return addresses + ([rung] if rung else []) + ([self.relay] if self.relay else [])

    async def attempt(self, name: str) -> tuple[FramedChannel, Greeting, Address]:
        """Reach the rung ``name`` and greet over it as the host; :class:`Failed`, saying how, otherwise."""
        if name == self.spray:
            return await self._by_spray(name)
        if name == self.relay and self.spray:
            await self.sprayed.wait()
        channel = FramedChannel(await self._connect(name))
        try:
            greeting = await greet_as_host(channel, self.key, guard=self.guard)
        except BaseException as exc:
            await trio.aclose_forcefully(channel.stream)
            if isinstance(exc, Exception):
                raise Failed(Failure(name, _miss(exc), str(exc))) from None
            raise
        where = self.targets.get(name) or (Address(*self.answer.punch) if self.answer.punch else None)
        assert where is not None
        return channel, greeting, where

    async def _connect(self, name: str) -> trio.abc.HalfCloseableStream:
        """A simultaneous open for the punch, an ordinary connect for any address (the relay's too)."""
        if name == self.punch and self.answer.punch is not None and self.punch_from is not None:
            try:
                deadline = trio.current_time() + self.timeout
                return await simultaneous_open(self.punch_from, self.answer.punch, deadline=deadline)
            except OSError as exc:
                raise Failed(Failure(name, classify_os_error(exc), exc.strerror or str(exc))) from None
        return await _connect(self.targets[name])

    async def _by_spray(self, name: str) -> tuple[FramedChannel, Greeting, Address]:
        """The birthday spray with the guest, for at most :data:`SPRAY_FOR` s: our guesses at its public
        address, or, our NAT mapping anew, our connections held open to its candidate for its guesses. When
        it is over, won or not, the relay may be dialled."""
        assert self.answer.punch is not None and self.punch_from is not None
        try:
            deadline = trio.current_time() + min(SPRAY_FOR, self.timeout)
            if self.ours_anew:
                return await open_many(self.answer.punch, self._greet_sprayed, deadline=deadline)
            return await probe_many(self.punch_from, self.answer.punch[0], self._greet_sprayed, deadline=deadline)
        except OSError as exc:
            raise Failed(Failure(name, classify_os_error(exc), exc.strerror or str(exc))) from None
        finally:
            self.sprayed.set()

    async def _greet_sprayed(self, stream: trio.SocketStream) -> tuple[FramedChannel, Greeting, Address]:
        """Greet over one connection the spray opened, named by where it came from; closed if it fails."""
        channel = FramedChannel(stream)
        try:
            peer = stream.socket.getpeername()
            greeting = await greet_as_host(channel, self.key, guard=self.guard)
            return channel, greeting, Address(str(peer[0]), int(peer[1]))
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise


async def _release(won: tuple[FramedChannel, Greeting, Address]) -> None:
    """A guest greeted a moment after another won the race: its connection is closed."""
    await trio.aclose_forcefully(won[0].stream)


def _miss(exc: Exception) -> Miss:
    if isinstance(exc, Refused):
        return Miss.WRONG_KEY
    if isinstance(exc, NotKoikoi):
        return Miss.NOT_KOIKOI
    if isinstance(exc, TimedOut):
        return Miss.SILENT
    if isinstance(exc, ConnectionLost):
        return Miss.CLOSED
    if isinstance(exc, RemoteProtocolError):
        return Miss.OTHER
    return Miss.OTHER


def _unreached(failures: list[Failure], timeout: float) -> str:
    """One line for a dial back that failed everywhere: each address and how, the most telling first."""
    ranked = sorted(failures, key=lambda f: list(Miss).index(f.miss))
    tried = "; ".join(f"{f.target} {f.miss.value}" + (f" ({f.detail})" if f.detail else "") for f in ranked)
    if ranked and ranked[0].miss is Miss.WRONG_KEY:
        return f"the answer code's addresses did not lead to its guest: {tried}"
    return (
        f"could not reach the guest within {timeout:g} s ({tried}): neither side can be reached from the other, "
        "so one of you must forward a port on the router, or play over IPv6 or a LAN"
    )
