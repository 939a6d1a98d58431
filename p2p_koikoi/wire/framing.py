"""Length-prefixed frames, sans-IO.

A frame is a 4-byte big-endian body length followed by the body. The length is
checked against :data:`MAX_FRAME` as soon as its 4 bytes arrive, before any of
the body is buffered, so a peer announcing 4 GiB costs us 4 bytes.

>>> decoder = FrameDecoder()
>>> decoder.receive_data(encode_frame(b"hi")[:3])
>>> decoder.next_frame() is None
True
>>> decoder.receive_data(encode_frame(b"hi")[3:])
>>> decoder.next_frame()
b'hi'
"""

from __future__ import annotations

import struct

from p2p_koikoi.wire.errors import LocalProtocolError, RemoteProtocolError
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["HEADER", "MAX_FRAME", "FrameDecoder", "encode_frame"]

MAX_FRAME = 64 * 1024
HEADER = 4
_LENGTH = struct.Struct(">I")


def encode_frame(body: bytes) -> bytes:
    if not 0 < len(body) <= MAX_FRAME:
        raise LocalProtocolError("frame-too-large", f"a frame body is 1 to {MAX_FRAME} bytes, not {len(body)}")
    return _LENGTH.pack(len(body)) + body


class FrameDecoder:
    """Feed bytes in with :meth:`receive_data`; take whole frames out with :meth:`next_frame`."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._need: int | None = None
        self._max = max_frame
        self._eof = False

    def receive_data(self, data: bytes) -> None:
        """Add received bytes; ``b""`` means the peer closed its side."""
        if not data:
            self._eof = True
            return
        if self._eof:
            raise RemoteProtocolError(ReasonId.DATA_AFTER_EOF, "the peer sent data after closing")
        self._buffer += data
        self._check_header()

    def _check_header(self) -> None:
        if self._need is None and len(self._buffer) >= HEADER:
            (length,) = _LENGTH.unpack_from(self._buffer)
            if length == 0:
                raise RemoteProtocolError(ReasonId.EMPTY_FRAME, "the peer sent an empty frame")
            if length > self._max:
                raise RemoteProtocolError(
                    ReasonId.FRAME_TOO_LARGE, f"the peer announced a {length}-byte frame; the limit is {self._max}"
                )
            self._need = length

    def next_frame(self) -> bytes | None:
        """The next whole frame body, or None if more bytes are needed.

        At end of input with a partial frame buffered, raise: the peer cut a frame short.
        """
        need = self._need
        if need is not None and len(self._buffer) >= HEADER + need:
            body = bytes(self._buffer[HEADER : HEADER + need])
            del self._buffer[: HEADER + need]
            self._need = None
            self._check_header()
            return body
        if self._eof and self._buffer:
            raise RemoteProtocolError(
                ReasonId.TRUNCATED_FRAME, f"the connection closed inside a frame ({len(self._buffer)} bytes buffered)"
            )
        return None

    @property
    def closed(self) -> bool:
        """The peer closed its side and every whole frame has been taken."""
        return self._eof and not self._buffer

    @property
    def buffered(self) -> int:
        return len(self._buffer)
