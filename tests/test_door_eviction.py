"""The door's eviction at work: the listening side (:class:`Lobby`) on trio memory streams with the
autojump clock, each stream tagged with the address it comes from; and the guest's knocking again
(:func:`dial_patiently`) against loopback hosts that reset, close or greet."""

from __future__ import annotations

import functools
import math
import socket
import struct
from collections.abc import Callable

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.net.door import Door, DropKind, Dropped
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting, Guard, greet_as_guest, greet_as_host, token_nonce
from p2p_koikoi.net.knock import dial_patiently
from p2p_koikoi.net.lobby import Lobby
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.wire import VERSION, Hello, encode, public_bytes

HOST_KEY = public_bytes(Ed25519PrivateKey.generate())


class Street(trio.abc.Listener[trio.abc.Stream]):
    """A listener of memory streams: :meth:`knock` opens one from an address, as a client would."""

    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[trio.abc.Stream](math.inf)
        self._hosts: dict[int, str] = {}

    def knock(self, host: str) -> trio.abc.Stream:
        client, server = trio.testing.memory_stream_pair()
        self._hosts[id(server)] = host
        self._send.send_nowait(server)
        return client

    def peer_of(self, stream: trio.abc.Stream) -> tuple[str, str]:
        host = self._hosts[id(stream)]
        return host, f"{host}:7447"

    async def accept(self) -> trio.abc.Stream:
        return await self._receive.receive()

    async def aclose(self) -> None:
        await self._receive.aclose()


def greeting_lobby(street: Street, door: Door, dropped: list[Dropped], guard: Guard | None = None) -> Lobby[Greeting]:
    """What :func:`~p2p_koikoi.net.tcp.listen` runs, admitting whoever greets."""

    async def admit(channel: FramedChannel, peer: str, greeted: Callable[[], None]) -> Greeting:
        return await greet_as_host(channel, HOST_KEY, 10.0, guard, on_hello=greeted)

    async def on_dropped(item: Dropped) -> None:
        dropped.append(item)

    return Lobby(admit, door, 310.0, on_dropped, street.peer_of)


def hello(key: bytes | None = None, nonce: bytes = b"n" * 32) -> bytes:
    key = key if key is not None else public_bytes(Ed25519PrivateKey.generate())
    return encode(Hello(VERSION, key, nonce, "flood"))


async def closed(stream: trio.abc.Stream) -> bool:
    """Whether the host has closed ``stream`` (read to its end)."""
    with trio.move_on_after(0.01):
        while await stream.receive_some(4096):
            pass
        return True
    return False


async def flood(street: Street, kinds: list[str], rate: float, held: list[trio.abc.Stream]) -> None:
    """Connections from 100 addresses, one every ``1 / rate`` s, each behaving as the next kind:
    ``idle``, ``garbage``, ``slowloris`` (a hello one byte a second) or ``hello`` (a whole one)."""
    async with trio.open_nursery() as nursery:
        for n in range(100_000):
            client = street.knock(f"127.0.0.{2 + n % 100}")
            held.append(client)
            kind = kinds[n % len(kinds)]
            if kind == "garbage":
                await client.send_all(b"GET / HTTP/1.1\r\n\r\n")
            elif kind == "hello":
                await client.send_all(hello())
            elif kind == "slowloris":
                nursery.start_soon(trickle, client)
            await trio.sleep(1 / rate)


async def trickle(client: trio.abc.Stream) -> None:
    with trio.move_on_after(60):
        for byte in hello():
            try:
                await client.send_all(bytes([byte]))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            await trio.sleep(1)


async def run_lobby(lobby: Lobby[Greeting], street: Street, admitted: list[Greeting], nursery: trio.Nursery) -> None:
    """Run the lobby until it admits a guest; then stop everything else in ``nursery``."""
    _, greeting = await lobby.run([street])
    admitted.append(greeting)
    nursery.cancel_scope.cancel()


@pytest.mark.parametrize("kinds", [["idle"], ["garbage", "idle"], ["slowloris"], ["idle", "garbage", "slowloris"]])
async def test_a_flood_from_100_addresses_does_not_keep_a_guest_out(
    autojump_clock: trio.testing.MockClock, kinds: list[str]
) -> None:
    street, door, dropped, held = Street(), Door(total=32), [], []
    guest_key = public_bytes(Ed25519PrivateKey.generate())
    lobby = greeting_lobby(street, door, dropped)
    admitted: list[Greeting] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_lobby, lobby, street, admitted, nursery)
        nursery.start_soon(flood, street, kinds, 200.0, held)
        await trio.sleep(5)  # the door is full and churning: 1,000 connections so far
        assert door.waiting >= 31  # (a garbage one may be on its way out)
        await greet_as_guest(FramedChannel(street.knock("192.0.2.7")), guest_key)
    assert [greeting.peer_key for greeting in admitted] == [guest_key]
    assert all([await closed(stream) for stream in held[:900]])  # the old ones were pushed out
    evictable = sum(kinds[n % len(kinds)] != "garbage" for n in range(len(held)))  # garbage is dropped at once
    assert sum(d.kind is DropKind.EVICTED for d in dropped) >= evictable - door.total


async def test_a_newcomer_pushes_out_the_oldest_waiting_one(autojump_clock: trio.testing.MockClock) -> None:
    street, door, dropped = Street(), Door(per_address=4, total=3), []
    lobby = greeting_lobby(street, door, dropped)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lobby.run, [street])
        first, second, third = (street.knock(f"198.51.100.{n}") for n in range(3))
        await trio.sleep(1)
        fourth = street.knock("198.51.100.9")
        await trio.sleep(1)
        assert [await closed(s) for s in (first, second, third, fourth)] == [True, False, False, False]
        assert [d.peer for d in dropped] == ["198.51.100.0:7447"] and dropped[0].kind is DropKind.EVICTED
        nursery.cancel_scope.cancel()


async def test_a_flooder_without_the_token_never_holds_a_greeted_slot(autojump_clock: trio.testing.MockClock) -> None:
    token = b"t" * 12
    street, door, dropped, held = Street(), Door(total=8), [], []
    lobby = greeting_lobby(street, door, dropped, Guard(token=token))
    guest_key = public_bytes(Ed25519PrivateKey.generate())
    admitted: list[Greeting] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_lobby, lobby, street, admitted, nursery)
        nursery.start_soon(flood, street, ["hello"], 100.0, held)
        await trio.sleep(3)
        assert door.greeted == 0  # every hello failed the guard
        nonce = token_nonce(token, fingerprint(HOST_KEY), guest_key)
        await greet_as_guest(FramedChannel(street.knock("192.0.2.7")), guest_key, 10.0, nonce)
    assert [greeting.peer_key for greeting in admitted] == [guest_key]
    assert {d.kind for d in dropped} <= {DropKind.REFUSED, DropKind.EVICTED}


async def test_on_an_open_host_greeters_hold_half_the_door_and_no_more(autojump_clock: trio.testing.MockClock) -> None:
    street, door, dropped, held = Street(), Door(total=8), [], []

    async def hold(channel: FramedChannel, peer: str, greeted: Callable[[], None]) -> Greeting:
        await greet_as_host(channel, HOST_KEY, 10.0, None, on_hello=greeted)
        await trio.sleep_forever()  # an accept that never comes
        raise AssertionError

    async def on_dropped(item: Dropped) -> None:
        dropped.append(item)

    lobby = Lobby(hold, door, 310.0, on_dropped, street.peer_of)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lobby.run, [street])
        nursery.start_soon(flood, street, ["hello", "idle"], 100.0, held)
        await trio.sleep(5)
        assert door.greeted == door.greeted_cap == 4
        idle = held[len(held) - 1 - len(held) % 2]  # the newest idle one (the flood alternates, hello first)
        assert not await closed(idle)  # the other half churns: newcomers still get in
        nursery.cancel_scope.cancel()
    kinds = {d.kind for d in dropped}
    assert DropKind.CROWDED_GREETED in kinds and DropKind.EVICTED in kinds


# -- knocking again, over loopback TCP ------------------------------------------------------


def reset_now(stream: trio.SocketStream) -> None:
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    stream.socket.close()


async def knock_at(resets: int, *, orderly: bool = False, patience: float = 30.0) -> tuple[list[str], int, object]:
    """A loopback host that resets (or closes in order) its first ``resets`` connections, then greets;
    returns what the guest said, how many connections came, and what the dial returned or raised."""
    said: list[str] = []
    came = 0

    async def handler(stream: trio.SocketStream) -> None:
        nonlocal came
        came += 1
        if came <= resets:
            await stream.receive_some(4096)
            if orderly:
                await stream.aclose()
            else:
                reset_now(stream)
            return
        await greet_as_host(FramedChannel(stream), HOST_KEY)
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        key = public_bytes(Ed25519PrivateKey.generate())
        outcome: object
        try:
            outcome = await dial_patiently(
                [Address("127.0.0.1", port)], key, Pin(), timeout=5, say=said.append, patience=patience
            )
        except CouldNotJoin as exc:
            outcome = exc
        nursery.cancel_scope.cancel()
    return said, came, outcome


async def test_a_busy_host_is_knocked_at_again_until_it_answers() -> None:
    said, came, outcome = await knock_at(3)
    assert isinstance(outcome, tuple) and fingerprint(outcome[1].peer_key) == fingerprint(HOST_KEY)
    assert came == 4
    assert said == ["The host is busy (it reset the connection before greeting): trying again for 30 s..."]


async def test_a_refusal_is_not_knocked_at_again() -> None:
    said, came, outcome = await knock_at(1, orderly=True)
    assert isinstance(outcome, CouldNotJoin) and "closed the connection before greeting" in str(outcome)
    assert came == 1 and said == []


async def test_knocking_ends_when_the_patience_does() -> None:
    said, came, outcome = await knock_at(1000, patience=2.0)
    assert isinstance(outcome, CouldNotJoin)
    assert "was busy" in str(outcome) and str(outcome).endswith("(tried again for 2 s)")
    assert 2 <= came <= 4 and len(said) == 1
