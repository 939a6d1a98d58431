"""msgpack with tight limits, and canonical form only.

A peer's bytes are hostile until checked: :func:`unpack` decodes with every
container and string limit set small (no maps at all, no ext types, no floats
in our schemas), and then re-encodes the result and compares bytes, so one
value has exactly one encoding on the wire and in the record.
"""

from __future__ import annotations

from typing import Any

import msgpack

from p2p_koikoi.wire.errors import RemoteProtocolError
from p2p_koikoi.wire.framing import MAX_FRAME
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["pack", "unpack"]

MAX_ARRAY = 64
MAX_STR = 2048
MAX_DEPTH = 4


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes, what: str = "message") -> Any:
    """Decode canonical msgpack within our limits, or raise :class:`RemoteProtocolError`."""
    if len(data) > MAX_FRAME:
        raise RemoteProtocolError(ReasonId.TOO_LARGE, f"the {what} is {len(data)} bytes; the limit is {MAX_FRAME}")
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_array_len=MAX_ARRAY,
            max_map_len=0,
            max_str_len=MAX_STR,
            max_bin_len=MAX_FRAME,
            max_ext_len=0,
        )
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        detail = str(exc) or type(exc).__name__
        raise RemoteProtocolError(
            ReasonId.BAD_MSGPACK, f"the {what} is not valid msgpack within our limits: {detail}"
        ) from None
    _check_depth(value, what, 0)
    if pack(value) != data:
        raise RemoteProtocolError(ReasonId.NOT_CANONICAL, f"the {what} is not in canonical msgpack form")
    return value


def _check_depth(value: Any, what: str, depth: int) -> None:
    if isinstance(value, dict):
        raise RemoteProtocolError(ReasonId.BAD_TYPE, f"the {what} holds a map; the protocol has none")
    if isinstance(value, float):
        raise RemoteProtocolError(ReasonId.BAD_TYPE, f"the {what} holds a float; the protocol has none")
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise RemoteProtocolError(ReasonId.TOO_DEEP, f"the {what} nests deeper than {MAX_DEPTH}")
        for item in value:
            _check_depth(item, what, depth + 1)
