"""A framed channel over any ``trio.abc.Stream``: whole frames in and out, with deadlines.

Reading enforces two limits besides the frame size: a frame that has started
must be complete within ``frame_deadline`` seconds (a peer sending a byte a
minute is cut off), and :meth:`FramedChannel.receive` takes an optional
``idle`` deadline: seconds with no bytes at all (a keepalive resets it, and so
does each piece of a large frame still on its way over a slow link).
"""

from __future__ import annotations

import contextlib
import math

import trio

from p2p_koikoi.wire import FrameDecoder, encode, parse_frame
from p2p_koikoi.wire.frames import Frame, Ping, Pong

__all__ = ["ConnectionLost", "FramedChannel", "TimedOut"]

READ_SIZE = 16384


class ConnectionLost(Exception):
    """The stream closed, broke, or went silent past a deadline."""


class TimedOut(ConnectionLost):
    """The peer went silent, or too slow, past a deadline (the door counts these apart)."""


class FramedChannel:
    def __init__(self, stream: trio.abc.Stream, *, frame_deadline: float = 10.0) -> None:
        self.stream = stream
        self._decoder = FrameDecoder()
        self._send_lock = trio.Lock()
        self._frame_deadline = frame_deadline
        self.bytes_sent = 0
        self.bytes_received = 0
        self.last_received: float | None = None  # the Trio time bytes last arrived

    async def send(self, frame: Frame) -> None:
        data = encode(frame)
        async with self._send_lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise ConnectionLost(f"the connection broke while sending: {exc}") from None
        self.bytes_sent += len(data)

    async def keepalive(self, frame: Frame) -> bool:
        """Whether ``frame`` is a keepalive, answered here: a Ping gets its Pong (a connection that broke
        meanwhile is for the next receive to find), a Pong needs nothing. The one place the rule lives,
        so every loop over frames (the match, the resume, the rules' acceptance) reads only the rest."""
        if isinstance(frame, Ping):
            with contextlib.suppress(ConnectionLost):
                await self.send(Pong(frame.n))
            return True
        return isinstance(frame, Pong)

    async def receive(self, idle: float = math.inf) -> Frame | None:
        """The next frame, or None at a clean end of stream.

        Raises :class:`RemoteProtocolError` for bad bytes and :class:`ConnectionLost` when no bytes
        arrive for ``idle`` seconds, a frame takes longer than the frame deadline, or the stream breaks.
        """
        started: float | None = None
        idle_until = trio.current_time() + idle
        while True:
            body = self._decoder.next_frame()
            if body is not None:
                return parse_frame(body)
            if self._decoder.closed:
                return None
            if self._decoder.buffered and started is None:
                started = trio.current_time()
            deadline = idle_until if started is None else min(idle_until, started + self._frame_deadline)
            with trio.move_on_at(deadline) as scope:
                try:
                    data = await self.stream.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    raise ConnectionLost(f"the connection broke: {exc}") from None
            if scope.cancelled_caught:
                if started is not None and trio.current_time() >= started + self._frame_deadline:
                    raise TimedOut(f"a frame took longer than {self._frame_deadline:g} s to arrive")
                raise TimedOut(f"the peer was silent for {idle:g} s")
            self.bytes_received += len(data)
            self._decoder.receive_data(bytes(data))
            self.last_received = trio.current_time()
            idle_until = self.last_received + idle

    async def close(self) -> None:
        """Send EOF if the stream can, then close."""
        with trio.move_on_after(2):
            try:
                if isinstance(self.stream, trio.abc.HalfCloseableStream):
                    await self.stream.send_eof()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        await self.stream.aclose()
