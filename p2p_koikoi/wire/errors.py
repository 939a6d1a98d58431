"""Protocol errors, split by who is wrong (as h11 does).

:class:`RemoteProtocolError` means the peer sent something we must refuse: bad
bytes, a bad signature, a move out of turn, a cheat. :class:`LocalProtocolError`
means we tried to do something the protocol does not allow now: a bug of ours
or a caller's mistake, never the peer's fault.

Each error has a short stable ``reason`` id (``frame-too-large``,
``bad-signature``, ...) that tests, the record and ``koikoi verify`` use, and a
message in words for the one line a user sees.
"""

from __future__ import annotations

__all__ = ["LocalProtocolError", "ProtocolError", "RemoteProtocolError"]


class ProtocolError(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol (or cheated); ``blame`` is the seat at fault when known."""

    def __init__(self, reason: str, message: str, blame: int | None = None) -> None:
        super().__init__(reason, message)
        self.blame = blame


class LocalProtocolError(ProtocolError):
    """We tried something the protocol does not allow in this state."""
