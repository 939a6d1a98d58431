"""Streams for tests, as ``trio.testing`` has them: a stream that trickles bytes, and a TCP proxy that
cuts a connection at a chosen point."""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing

from p2p_koikoi.net.transport import transport
from p2p_koikoi.wire import SignedEntry


class TrickleStream(trio.abc.Stream):
    """A stream that delivers at most ``chunk`` bytes per receive, each after a delay of up to
    ``max_delay`` seconds from a seeded generator: frames arrive in pieces, and the two directions
    interleave differently. On trio's autojump clock the delays cost no wall time."""

    def __init__(self, inner: trio.abc.Stream, chunk: int = 1, *, max_delay: float = 0.0, seed: int = 0) -> None:
        import random

        self.inner = inner
        self.chunk = chunk
        self.max_delay = max_delay
        self._rng = random.Random(seed)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        # The delay comes before the read, never between the read and the return: a receive cancelled
        # in its delay (a linger running out) must lose no bytes, or the two sides' byte counts differ.
        if self.max_delay:
            await trio.sleep(self._rng.uniform(0, self.max_delay))
        return await self.inner.receive_some(self.chunk)

    async def aclose(self) -> None:
        await self.inner.aclose()


def trickle_stream_pair(
    chunk: int = 1, *, max_delay: float = 0.0, seed: int = 0
) -> tuple[TrickleStream, TrickleStream]:
    a, b = trio.testing.memory_stream_pair()
    return TrickleStream(a, chunk, max_delay=max_delay, seed=seed), TrickleStream(
        b, chunk, max_delay=max_delay, seed=seed + 1
    )


class CuttingProxy:
    """A loopback TCP proxy between a guest and a host, for network faults in tests (over the transport
    of the run: real TCP, or a :mod:`~p2p_koikoi.testing.network` on the virtual clock).

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
        opened = await transport().open_listeners(0, "127.0.0.1")
        self.port = opened[0].port
        task_status.started(self.port)
        await trio.serve_listeners(self._serve, [each.listener for each in opened])

    async def _serve(self, client: trio.abc.HalfCloseableStream) -> None:
        try:
            server = await transport().connect("127.0.0.1", self.target_port)
        except OSError:  # the host is not listening (yet): the dialler will try again
            await trio.aclose_forcefully(client)
            return
        armed = self._cut is not None and self.cuts == 0
        async with trio.open_nursery() as nursery:

            async def pump(source: trio.abc.HalfCloseableStream, sink: trio.abc.HalfCloseableStream) -> None:
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

    async def _send(self, sink: trio.abc.Stream, data: bytes) -> None:
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
