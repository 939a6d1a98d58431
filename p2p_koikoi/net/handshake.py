"""The greeting before the chain: each side sends ``hello`` with its key and a fresh nonce.

The guest greets first; the host answers. Neither greeting is signed: the first
two entries of the chain (the host's ``match`` and the guest's ``accept``) sign
both keys and both nonces, so a forged greeting fails there. The whole greeting
must finish within ``deadline`` seconds.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import trio

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.session.match_session import SOFTWARE
from p2p_koikoi.wire import VERSION, Hello, RemoteProtocolError
from p2p_koikoi.wire.keys import check_public_key

__all__ = ["Greeting", "greet_as_guest", "greet_as_host"]


@dataclass(frozen=True, slots=True)
class Greeting:
    peer_key: bytes
    nonces: tuple[bytes, bytes]  # host's first
    peer_software: str


async def _receive_hello(channel: FramedChannel, deadline: float) -> Hello:
    try:
        with trio.fail_after(deadline):
            frame = await channel.receive()
    except trio.TooSlowError:
        raise ConnectionLost(f"no greeting within {deadline:g} s") from None
    if frame is None:
        raise ConnectionLost("the peer closed the connection before greeting")
    if not isinstance(frame, Hello):
        raise RemoteProtocolError("no-hello", "the peer did not start with a hello")
    problem = check_public_key(frame.key)
    if problem is not None:
        raise RemoteProtocolError("bad-key", f"the peer's identity key {problem}")
    return frame


async def greet_as_host(channel: FramedChannel, key: bytes, deadline: float = 10.0) -> Greeting:
    hello = await _receive_hello(channel, deadline)
    if hello.key == key:
        raise RemoteProtocolError("same-key", "the guest presents our own key")
    nonce = secrets.token_bytes(32)
    await channel.send(Hello(VERSION, key, nonce, SOFTWARE))
    return Greeting(hello.key, (nonce, hello.nonce), hello.software)


async def greet_as_guest(channel: FramedChannel, key: bytes, deadline: float = 10.0) -> Greeting:
    nonce = secrets.token_bytes(32)
    await channel.send(Hello(VERSION, key, nonce, SOFTWARE))
    hello = await _receive_hello(channel, deadline)
    if hello.key == key:
        raise RemoteProtocolError("same-key", "the host presents our own key")
    return Greeting(hello.key, (hello.nonce, nonce), hello.software)
