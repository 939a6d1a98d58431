"""The shape of every entry body and control frame, checked after decoding and before use.

Each kind is a fixed-position array; each field has a type and a range. A body
that does not fit is the peer's fault (``bad-body``), whatever else is in it.

| kind | body |
| --- | --- |
| ``match`` | rules text, fingerprint, [host key, guest key], [host nonce, guest nonce], turn limit (s), software,
  the host's name or nil |
| ``accept`` | rules fingerprint (32), the guest's name or nil |
| ``decline`` | reason |
| ``deal`` | round (0 = first dealer, 1..12), redeal (0..63), deal-protocol message (bytes) |
| ``move`` | round, action in words, Show message or nil, Keys message or nil |
| ``result`` | round, redeal, outcome kind, winner seat or -1, payment, seat 0's points, seat 1's points |
| ``goodbye`` | reason id, text, evidence (the writer's deal secret for an accusation) or nil |
| ``here`` | text: the objection of a seat accused of silence, "I am here" (protocol version 3) |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p2p_koikoi.wire.errors import RemoteProtocolError
from p2p_koikoi.wire.player_name import BadName, PlayerName
from p2p_koikoi.wire.reasons import ReasonId

__all__ = ["KINDS", "check_body"]

Check = Callable[[Any], bool]


def _int(low: int, high: int) -> Check:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _bytes(low: int, high: int) -> Check:
    return lambda v: isinstance(v, bytes) and low <= len(v) <= high


def _str(high: int) -> Check:
    return lambda v: isinstance(v, str) and len(v) <= high and v.isprintable()


def _pair(check: Check) -> Check:
    return lambda v: isinstance(v, list) and len(v) == 2 and all(check(x) for x in v)


def _optional(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _name(value: Any) -> bool:
    """A player's name as the sender's program checked it: :class:`PlayerName`'s rule, in its one spelling
    (NFC, no outer spaces), so a receiver shows exactly what was signed and nothing that draws otherwise."""
    if not isinstance(value, str):
        return False
    try:
        return PlayerName.parse(value).format() == value
    except BadName:
        return False


_KEY = _bytes(32, 32)
_ROUND = _int(0, 12)
_POINTS = _int(-1_000_000, 1_000_000)
_DEAL_MESSAGE = _bytes(1, 16384)  # a shuffle pass with its proof is 9539 bytes

KINDS: dict[str, tuple[tuple[str, Check], ...]] = {
    "match": (
        ("rules", _str(1000)),
        ("fingerprint", _KEY),
        ("keys", _pair(_KEY)),
        ("nonces", _pair(_KEY)),
        ("turn limit", _int(0, 3600)),
        ("software", _str(100)),
        ("name", _optional(_name)),
    ),
    "accept": (("fingerprint", _KEY), ("name", _optional(_name))),
    "decline": (("reason", _str(300)),),
    "deal": (("round", _ROUND), ("redeal", _int(0, 63)), ("message", _DEAL_MESSAGE)),
    "move": (
        ("round", _ROUND),
        ("action", _str(400)),
        ("show", _optional(_DEAL_MESSAGE)),
        ("keys", _optional(_DEAL_MESSAGE)),
    ),
    "result": (
        ("round", _ROUND),
        ("redeal", _int(0, 63)),
        ("outcome", _str(40)),
        ("winner", _int(-1, 1)),
        ("payment", _int(0, 1_000_000)),
        ("points 0", _POINTS),
        ("points 1", _POINTS),
    ),
    "goodbye": (("reason", _str(60)), ("text", _str(400)), ("evidence", _optional(_KEY))),
    "here": (("text", _str(400)),),
}


def check_body(kind: str, body: list[Any]) -> None:
    fields = KINDS.get(kind)
    if fields is None:
        raise RemoteProtocolError(ReasonId.BAD_KIND, f"unknown entry kind {kind[:40]!r}")
    if len(body) != len(fields):
        raise RemoteProtocolError(ReasonId.BAD_BODY, f"a {kind} entry has {len(fields)} fields, not {len(body)}")
    for (name, check), value in zip(fields, body, strict=True):
        if not check(value):
            raise RemoteProtocolError(ReasonId.BAD_BODY, f"the {name} field of a {kind} entry is malformed")
