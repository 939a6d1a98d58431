"""The greeting before the chain: each side sends ``hello`` with its key and a fresh nonce.

The guest greets first; the host answers. Neither greeting is signed: the first
two entries of the chain (the host's ``match`` and the guest's ``accept``) sign
both keys and both nonces, so a forged greeting fails there. The whole greeting
must finish within ``deadline`` seconds.

A host may admit only some guests (:class:`Guard`): one whose key has a given fingerprint
(``--guest``), or one that proves the invite code's one-time token. The proof rides in the guest's
nonce, which stays 32 bytes (``protocol/INVITE.md``): 16 random bytes, then the first 16 bytes of
HMAC-SHA-256(token, ``TOKEN_DOMAIN`` || host fingerprint (16 bytes) || guest key || those 16 bytes).
Only the code's holders know the token, and the MAC binds it to the guest's own key, so a replayed
nonce helps nobody else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import trio

from p2p_koikoi.net.door import Refused
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.session.match_session import SOFTWARE
from p2p_koikoi.wire import VERSION, Hello, RemoteProtocolError
from p2p_koikoi.wire.keys import check_public_key
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["TOKEN_DOMAIN", "Greeting", "Guard", "NotKoikoi", "greet_as_guest", "greet_as_host", "token_nonce"]

TOKEN_DOMAIN = b"p2p-koikoi/invite-token/v1\x00"
NOT_KOIKOI: frozenset[str] = frozenset(
    {
        ReasonId.FRAME_TOO_LARGE,
        ReasonId.EMPTY_FRAME,
        ReasonId.BAD_MSGPACK,
        ReasonId.NOT_CANONICAL,
        ReasonId.BAD_TYPE,
        ReasonId.TOO_DEEP,
        ReasonId.BAD_FRAME,
        ReasonId.NO_HELLO,
    }
)


class NotKoikoi(RemoteProtocolError):
    """The other end answered with bytes that are not a koikoi greeting at all."""


@dataclass(frozen=True, slots=True)
class Guard:
    """Which guests the host admits: any (the default), one key (``guest``), or holders of ``token``."""

    guest: str | None = None
    token: bytes | None = None

    def check(self, guest_key: bytes, guest_nonce: bytes, host_key: bytes) -> None:
        if self.guest is not None and fingerprint(guest_key) != self.guest:
            raise Refused(f"its key {fingerprint(guest_key)} is not the guest expected")
        host_fp = _fingerprint_bytes(fingerprint(host_key))
        if self.token is not None and not hmac.compare_digest(
            guest_nonce[16:], _token_mac(self.token, host_fp, guest_key, guest_nonce[:16])
        ):
            raise Refused("it did not prove the invite code's token")


def _fingerprint_bytes(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


def _token_mac(token: bytes, host_fp: bytes, guest_key: bytes, salt: bytes) -> bytes:
    return hmac.new(token, TOKEN_DOMAIN + host_fp + guest_key + salt, hashlib.sha256).digest()[:16]


def token_nonce(token: bytes, host_fingerprint: str, guest_key: bytes) -> bytes:
    """A guest nonce that proves ``token`` to the host with ``host_fingerprint``."""
    salt = secrets.token_bytes(16)
    return salt + _token_mac(token, _fingerprint_bytes(host_fingerprint), guest_key, salt)


@dataclass(frozen=True, slots=True)
class Greeting:
    peer_key: bytes
    nonces: tuple[bytes, bytes]  # host's first
    peer_software: str


async def _receive_hello(channel: FramedChannel, deadline: float) -> Hello:
    try:
        with trio.fail_after(deadline):
            frame = await channel.receive()
    except RemoteProtocolError as exc:
        if exc.reason in NOT_KOIKOI:
            raise NotKoikoi(exc.reason, f"it does not speak koikoi ({exc})") from None
        raise
    except trio.TooSlowError:
        raise TimedOut(f"no greeting within {deadline:g} s") from None
    if frame is None:
        raise ConnectionLost("the peer closed the connection before greeting")
    if not isinstance(frame, Hello):
        raise NotKoikoi(ReasonId.NO_HELLO, "it does not speak koikoi (it did not start with a hello)")
    problem = check_public_key(frame.key)
    if problem is not None:
        raise RemoteProtocolError(ReasonId.BAD_KEY, f"the peer's identity key {problem}")
    return frame


async def greet_as_host(
    channel: FramedChannel,
    key: bytes,
    deadline: float = 10.0,
    guard: Guard | None = None,
    on_hello: Callable[[], None] | None = None,
) -> Greeting:
    """``on_hello`` runs once the guest's hello has passed the guard, before ours is sent: the door
    marks the connection greeted there, or turns it away by raising."""
    hello = await _receive_hello(channel, deadline)
    if hello.key == key:
        raise RemoteProtocolError(ReasonId.SAME_KEY, "the guest presents our own key")
    if guard is not None:
        guard.check(hello.key, hello.nonce, key)
    if on_hello is not None:
        on_hello()
    nonce = secrets.token_bytes(32)
    await channel.send(Hello(VERSION, key, nonce, SOFTWARE))
    return Greeting(hello.key, (nonce, hello.nonce), hello.software)


async def greet_as_guest(
    channel: FramedChannel, key: bytes, deadline: float = 10.0, nonce: bytes | None = None
) -> Greeting:
    """``nonce`` is fresh random bytes unless the caller proves a token with :func:`token_nonce`."""
    nonce = nonce if nonce is not None else secrets.token_bytes(32)
    await channel.send(Hello(VERSION, key, nonce, SOFTWARE))
    hello = await _receive_hello(channel, deadline)
    if hello.key == key:
        raise RemoteProtocolError(ReasonId.SAME_KEY, "the host presents our own key")
    return Greeting(hello.key, (hello.nonce, nonce), hello.software)
