"""A relay of last resort: a TCP allocation on a TURN server (RFC 8656 with RFC 6062's TCP relaying).

Used by the guest when no direct rung can work (its NAT or the host's maps each destination to a new
port). The guest allocates a relayed TCP address on the server the player names, lets the host's public
address in (CreatePermission: the host's punch candidate gives it), and puts the relayed address in its
answer code. The host needs no TURN client at all: it dials that address as any other. The server
tells the guest of the host's connection (ConnectionAttempt); the guest opens a data connection to the
server and binds it to that one (ConnectionBind), after which the data connection carries the host's
bytes as they are. The greeting and every entry then go through the relay exactly as over a direct
connection; the relay sees what a spectator on the wire sees, and cannot pose as either side, because
both keys are pinned by the codes.

The long-term credential (RFC 8489 section 9.2): the first request is refused with the server's realm
and nonce, and every later one carries the user name, realm, nonce and MESSAGE-INTEGRITY under the key
MD5(user:realm:password).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import trio

from p2p_koikoi.net.turn_messages import Attr, Kind, Message, Method, TurnMessageError, long_term_key

__all__ = ["Allocation", "Credentials", "Relay", "TurnError", "allocate"]

HEADER = 20
MOST = 2048
TCP = 6
LIFETIME = 600  # seconds an allocation lives unless refreshed (RFC 8656's default)
REFRESH_EVERY = 240.0  # within both the allocation's 10 minutes and a permission's 5


class TurnError(Exception):
    """The TURN server could not be reached, or refused what we asked."""


@dataclass(frozen=True, slots=True)
class Credentials:
    user: str
    password: str


@dataclass(frozen=True, slots=True)
class Relay:
    """A TURN server a player named (``--relay turn:HOST:PORT``) and the credentials it takes."""

    server: tuple[str, int]
    credentials: Credentials


async def _read_message(stream: trio.SocketStream) -> Message:
    """Exactly one message: never a byte more, since a bound data connection's next bytes are the peer's."""
    data = b""
    while len(data) < HEADER:
        chunk = await stream.receive_some(HEADER - len(data))
        if not chunk:
            raise TurnError("the TURN server closed the connection")
        data += chunk
    (length,) = struct.unpack("!H", data[2:4])
    if length > MOST:
        raise TurnError("the TURN server sent a message far too long")
    while len(data) < HEADER + length:
        chunk = await stream.receive_some(HEADER + length - len(data))
        if not chunk:
            raise TurnError("the TURN server closed the connection")
        data += chunk
    try:
        return Message.decode(data)
    except TurnMessageError as exc:
        raise TurnError(f"the TURN server sent something else: {exc}") from None


@dataclass
class Allocation:
    """A relayed TCP address on ``server``, held by the control connection."""

    server: tuple[str, int]
    control: trio.SocketStream
    relayed: tuple[str, int]
    credentials: Credentials
    realm: bytes
    nonce: bytes
    permitted: list[str] = field(default_factory=list)

    @property
    def key(self) -> bytes:
        return long_term_key(self.credentials.user, self.realm.decode(), self.credentials.password)

    def _signed(self, message: Message) -> bytes:
        message.attributes[Attr.USERNAME] = self.credentials.user.encode()
        message.attributes[Attr.REALM] = self.realm
        message.attributes[Attr.NONCE] = self.nonce
        return message.encode(self.key)

    async def _ask(self, stream: trio.SocketStream, message: Message, what: str) -> Message:
        await stream.send_all(self._signed(message))
        while True:
            answer = await _read_message(stream)
            if answer.transaction == message.transaction:
                break
        if answer.kind != Kind.SUCCESS:
            raise TurnError(f"the TURN server refused {what}: {answer.error}")
        return answer

    async def permit(self, peer: str) -> None:
        """Let connections from ``peer`` (an IP address) reach the relayed address."""
        request = Message(Method.CREATE_PERMISSION, Kind.REQUEST)
        request.put_address(Attr.XOR_PEER_ADDRESS, (peer, 0))
        await self._ask(self.control, request, f"a permission for {peer}")
        if peer not in self.permitted:
            self.permitted.append(peer)

    async def accept(self) -> tuple[trio.SocketStream, tuple[str, int]]:
        """The next connection to the relayed address: a data connection bound to it, and the peer's
        address as the server saw it. Answers to :meth:`keep`'s refreshes read meanwhile are passed over."""
        while True:
            told = await _read_message(self.control)
            if told.method == Method.CONNECTION_ATTEMPT and told.kind == Kind.INDICATION:
                break
        connection = told.attributes.get(Attr.CONNECTION_ID)
        peer = told.address(Attr.XOR_PEER_ADDRESS) or ("?", 0)
        if connection is None:
            raise TurnError("the TURN server announced a connection without its id")
        data = await _connect(self.server)
        try:
            bind = Message(Method.CONNECTION_BIND, Kind.REQUEST)
            bind.attributes[Attr.CONNECTION_ID] = connection
            await self._ask(data, bind, "to bind the connection")
        except BaseException:
            await trio.aclose_forcefully(data)
            raise
        return data, peer

    async def keep(self) -> None:
        """Refresh the allocation (and the permissions) until cancelled: closing the control connection, or
        letting the allocation lapse (10 minutes by default), would cut the relayed match. The requests
        are sent and their answers left for :meth:`accept` to pass over, so that an accept (the host
        coming back after a drop) can read the control connection meanwhile: one reader, never two. A
        refresh the server refused goes unnoticed, and the allocation then lapses in its own time."""
        while True:
            await trio.sleep(REFRESH_EVERY)
            refresh = Message(Method.REFRESH, Kind.REQUEST, attributes={Attr.LIFETIME: struct.pack("!I", LIFETIME)})
            await self.control.send_all(self._signed(refresh))
            for peer in self.permitted:
                again = Message(Method.CREATE_PERMISSION, Kind.REQUEST)
                again.put_address(Attr.XOR_PEER_ADDRESS, (peer, 0))
                await self.control.send_all(self._signed(again))

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self.control)


async def _connect(server: tuple[str, int]) -> trio.SocketStream:
    try:
        return await trio.open_tcp_stream(*server)
    except OSError as exc:
        raise TurnError(f"cannot reach the TURN server {server[0]}:{server[1]}: {exc}") from None


async def allocate(server: tuple[str, int], credentials: Credentials) -> Allocation:
    """A relayed TCP address on ``server`` for us (RFC 6062 section 4.1), with the long-term credential."""
    control = await _connect(server)
    try:
        transport = bytes([TCP, 0, 0, 0])
        first = Message(Method.ALLOCATE, Kind.REQUEST, attributes={Attr.REQUESTED_TRANSPORT: transport})
        await control.send_all(first.encode())
        challenge = await _read_message(control)
        realm, nonce = challenge.attributes.get(Attr.REALM), challenge.attributes.get(Attr.NONCE)
        if challenge.kind != Kind.ERROR or realm is None or nonce is None:
            raise TurnError(f"the TURN server did not ask for credentials as expected ({challenge.error})")
        allocation = Allocation(server, control, ("", 0), credentials, realm, nonce)
        request = Message(Method.ALLOCATE, Kind.REQUEST, attributes={Attr.REQUESTED_TRANSPORT: transport})
        answer = await allocation._ask(control, request, "an allocation")
        relayed = answer.address(Attr.XOR_RELAYED_ADDRESS)
        if relayed is None:
            raise TurnError("the TURN server's allocation holds no relayed address")
        allocation.relayed = relayed
        return allocation
    except (OSError, trio.BrokenResourceError) as exc:
        await trio.aclose_forcefully(control)
        raise TurnError(f"the TURN server {server[0]}:{server[1]} failed: {exc}") from None
    except BaseException:
        await trio.aclose_forcefully(control)
        raise
