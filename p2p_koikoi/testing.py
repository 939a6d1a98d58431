"""Test helpers we ship, as trio ships ``trio.testing``: sessions piped in memory, trickling streams.

:func:`pipe_sessions` plays two :class:`MatchSession` objects against each
other with no network at all, handing each side's entries to the other, so a
test can alter one step of one side (a cheating peer built from our own
modules) and watch the other catch it.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.session.match_session import MatchSession, Waiting
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes

__all__ = ["SessionPair", "TrickleStream", "pipe_sessions", "session_pair", "trickle_stream_pair"]


@dataclass
class SessionPair:
    host: MatchSession
    guest: MatchSession
    keys: tuple[Ed25519PrivateKey, Ed25519PrivateKey]

    @property
    def sessions(self) -> tuple[MatchSession, MatchSession]:
        return (self.host, self.guest)


def session_pair(rules: RuleSet, entropy: Callable[[int], bytes] = secrets.token_bytes) -> SessionPair:
    keys = (Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate())
    nonces = (entropy(32), entropy(32))
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=entropy(32))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=entropy(32))
    return SessionPair(host, guest, keys)


Tamper = Callable[[int, SignedEntry], SignedEntry | None]


def pipe_sessions(
    pair: SessionPair,
    agents: tuple[Agent, Agent],
    *,
    tamper: Tamper | None = None,
    max_entries: int = 20_000,
) -> RemoteProtocolError | None:
    """Play the pair to the end. ``tamper(sender seat, entry)`` may replace or drop an entry in flight.

    Returns the first error a receiving side raised (the side that caught a cheat), or None.
    """
    sessions = pair.sessions
    delivered = 0
    while True:
        progressed = False
        for seat, session in enumerate(sessions):
            for signed in session.take_outgoing():
                if tamper is not None:
                    altered = tamper(seat, signed)
                    if altered is None:
                        continue
                    signed = altered
                receiver = sessions[1 - seat]
                if receiver.waiting is Waiting.DONE:
                    continue
                try:
                    receiver.receive(signed)
                except RemoteProtocolError as exc:
                    return exc
                delivered += 1
                progressed = True
        for seat, session in enumerate(sessions):
            if session.waiting is Waiting.ACCEPT:
                session.accept()
                progressed = True
            elif session.waiting is Waiting.MOVE:
                view = session.view()
                assert view is not None and session.rules is not None and session.match is not None
                legal = session.legal_actions()
                points = (session.match.points[0], session.match.points[1])
                context = MatchContext(session.rules, seat, points, session.round_number)
                session.submit(agents[seat].choose(view, legal, context))
                progressed = True
        if all(s.waiting is Waiting.DONE for s in sessions) and not any(s.outgoing for s in sessions):
            return None
        if not progressed:
            states = [(s.stage.value, s.waiting.value) for s in sessions]
            raise AssertionError(f"the sessions are stuck: {states}")
        if delivered > max_entries:
            raise AssertionError("the match does not end")


class TrickleStream(trio.abc.Stream):
    """A stream that delivers at most ``chunk`` bytes per receive: frames arrive a byte at a time."""

    def __init__(self, inner: trio.abc.Stream, chunk: int = 1) -> None:
        self.inner = inner
        self.chunk = chunk

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(self.chunk)

    async def aclose(self) -> None:
        await self.inner.aclose()


def trickle_stream_pair(chunk: int = 1) -> tuple[TrickleStream, TrickleStream]:
    a, b = trio.testing.memory_stream_pair()
    return TrickleStream(a, chunk), TrickleStream(b, chunk)


def deterministic_entropy(label: bytes) -> Callable[[int], bytes]:
    """A reproducible stand-in for ``secrets.token_bytes``: SHA-256 of a label and a counter."""
    import hashlib

    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        out = b""
        block = 0
        while len(out) < n:
            out += hashlib.sha256(label + counter[0].to_bytes(4, "big") + block.to_bytes(4, "big")).digest()
            block += 1
        return out[:n]

    return entropy


def wire_vectors(entries_shown: int = 40) -> dict[str, object]:
    """The wire test vectors: a whole 3-round ``lemme`` match between two seeded random bots, from fixed
    keys, nonces and secrets. Every byte is reproducible; ``protocol/vectors/wire-match.json`` holds them."""
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from p2p_koikoi.bots import RandomAgent
    from p2p_koikoi.engine import preset
    from p2p_koikoi.record.identity_names import fingerprint
    from p2p_koikoi.wire import VERSION, Hello, encode

    seeds = (bytes(range(32)), bytes(range(32, 64)))
    keys = (Ed25519PrivateKey.from_private_bytes(seeds[0]), Ed25519PrivateKey.from_private_bytes(seeds[1]))
    entropy = deterministic_entropy(b"p2p-koikoi wire vectors")
    nonces = (entropy(32), entropy(32))
    rules = preset("lemme").with_option("rounds", "3")
    host = MatchSession(0, keys[0], public_bytes(keys[1]), nonces, rules=rules, master_secret=entropy(32))
    guest = MatchSession(1, keys[1], public_bytes(keys[0]), nonces, master_secret=entropy(32))
    pair = SessionPair(host, guest, keys)
    error = pipe_sessions(pair, (RandomAgent(1), RandomAgent(2)))
    assert error is None, error
    chain = host.chain.entries
    assert keys[0].private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()) == seeds[0]
    return {
        "description": "A 3-round lemme match between RandomAgent(1) (host) and RandomAgent(2) (guest), "
        "master secrets from p2p_koikoi.testing.deterministic_entropy(b'p2p-koikoi wire vectors'), driven by "
        "p2p_koikoi.testing.pipe_sessions. "
        "Regenerate with: python -m p2p_koikoi.testing > protocol/vectors/wire-match.json",
        "private_keys": [s.hex() for s in seeds],
        "public_keys": [public_bytes(k).hex() for k in keys],
        "fingerprints": [fingerprint(public_bytes(k)) for k in keys],
        "nonces": [n.hex() for n in nonces],
        "match_id": host.match_id.hex(),
        "hello_frames": [
            encode(Hello(VERSION, public_bytes(keys[0]), nonces[0], "p2p-koikoi/0.1")).hex(),
            encode(Hello(VERSION, public_bytes(keys[1]), nonces[1], "p2p-koikoi/0.1")).hex(),
        ],
        "entry_count": len(chain),
        "head": host.chain.head.hex(),
        "entries": [
            {
                "seq": e.entry.seq,
                "author": e.entry.author,
                "kind": e.entry.kind,
                "entry": e.data.hex(),
                "signature": e.signature.hex(),
                "digest": e.digest.hex(),
                "frame": encode(e).hex(),
            }
            for e in chain[:entries_shown]
        ],
        "outcome": {
            "points": list(host.match.points) if host.match is not None else None,
            "rounds": len(host.match.results) if host.match is not None else 0,
        },
    }


if __name__ == "__main__":  # pragma: no cover - the vector generator
    import json
    import sys

    json.dump(wire_vectors(), sys.stdout, indent=1)
    sys.stdout.write("\n")


class CuttingProxy:
    """A loopback TCP proxy between a guest and a host, for network faults in tests.

    It forwards both directions, optionally in small random pieces with random delays (``chunk``,
    ``max_delay``, from a seeded generator, so writes are split and the two directions interleave
    differently), and it cuts every connection (closing both sides) when ``cut(entry)`` first returns
    True for an entry passing through: ``before=True`` cuts before forwarding that entry (it is lost
    in flight), else after. Later connections (a reconnect) are forwarded untouched.
    """

    def __init__(
        self,
        target_port: int,
        *,
        cut: Callable[[SignedEntry], bool] | None = None,
        before: bool = False,
        chunk: int | None = None,
        max_delay: float = 0.0,
        seed: int = 0,
    ) -> None:
        import random

        self.target_port = target_port
        self._cut = cut
        self._before = before
        self._chunk = chunk
        self._max_delay = max_delay
        self._rng = random.Random(seed)
        self.cuts = 0
        self.port = 0

    async def run(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._serve, listeners)

    async def _serve(self, client: trio.SocketStream) -> None:
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        except OSError:  # the host is not listening (yet): the dialler will try again
            await trio.aclose_forcefully(client)
            return
        armed = self._cut is not None and self.cuts == 0
        async with trio.open_nursery() as nursery:

            async def pump(source: trio.SocketStream, sink: trio.SocketStream) -> None:
                from p2p_koikoi.wire import FrameDecoder, parse_frame

                decoder = FrameDecoder()
                try:
                    while True:
                        data = await source.receive_some(65536)
                        if not data:
                            await sink.send_eof()
                            return
                        pieces = [data]
                        if armed:
                            decoder.receive_data(bytes(data))
                            pieces = []
                            while (body := decoder.next_frame()) is not None:
                                frame = len(body).to_bytes(4, "big") + body
                                parsed = parse_frame(body)
                                hit = self.cuts == 0 and isinstance(parsed, SignedEntry) and self._cut(parsed)  # type: ignore[misc]
                                if hit and self._before:
                                    await self._send(sink, b"".join(pieces))
                                    self.cuts += 1
                                    nursery.cancel_scope.cancel()
                                    return
                                pieces.append(frame)
                                if hit:
                                    await self._send(sink, b"".join(pieces))
                                    self.cuts += 1
                                    nursery.cancel_scope.cancel()
                                    return
                        await self._send(sink, b"".join(pieces))
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    async def _send(self, sink: trio.SocketStream, data: bytes) -> None:
        if not data:
            return
        if self._chunk is None:
            await sink.send_all(data)
            return
        for start in range(0, len(data), self._chunk):
            if self._max_delay:
                await trio.sleep(self._rng.uniform(0, self._max_delay))
            await sink.send_all(data[start : start + self._chunk])


# -- the real program in other processes ------------------------------------------------------

KOIKOI = [sys.executable, "-m", "p2p_koikoi"]


def koikoi_env(home: Path) -> dict[str, str]:
    """The environment for a `koikoi` process whose config and data live under ``home``."""
    return {**os.environ, "KOIKOI_HOME": str(home)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, timeout: float = 20.0) -> None:
    """Return once something accepts connections on the loopback ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:g} s")


def spawn_host(home: Path, port: int, replays: Path, *options: str) -> subprocess.Popen[str]:
    """`koikoi host` on the loopback ``port`` in a process of its own, once it listens."""
    process = subprocess.Popen(
        [*KOIKOI, "host", "--port", str(port), "--bind", "127.0.0.1", "--replay-dir", str(replays), *options],
        env=koikoi_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_listening(port)
    except TimeoutError:
        process.kill()
        raise
    return process
