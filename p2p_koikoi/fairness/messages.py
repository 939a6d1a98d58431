"""The messages of the deal protocol: small frozen value types with exact bytes.

Every message is one kind byte followed by fixed-size fields; integers are
single bytes, points and scalars are 32 bytes. ``to_bytes`` and ``from_bytes``
are exact inverses, and ``from_bytes`` accepts only the canonical encoding
(positions strictly ascending, no trailing bytes), so one message has one
byte string, which the signed record can rely on.

======  ========  ===========================================================
kind    message   layout after the kind byte
======  ========  ===========================================================
0x01    Commit    commitment (32)
0x02    Deck      pass (1, 1..4) || n (1) || n points (32 each; 48 expected) || proof
0x03    Keys      n (1, 1..48) || n * (position (1) || unlock key (32))
0x04    Show      n (1, 1..48) || n * (position (1) || card index (1) || key (32))
0x05    Reveal    secret (32)
======  ========  ===========================================================

Constructors check the structure (sizes, ranges, order) and raise
:class:`MessageFormatError`; they do not judge the values (whether a point is
valid, whether a key is right): the state machine does that, because a bad
value is cheating by a known sender.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness.errors import MessageFormatError

__all__ = [
    "Commit",
    "Deck",
    "Keys",
    "Message",
    "Reveal",
    "Show",
    "parse_message",
]

_FIELD = 32
_POSITIONS = 48


def _check_field(value: bytes, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != _FIELD:
        raise MessageFormatError(f"{what} must be {_FIELD} bytes")


def _check_positions(positions: tuple[int, ...]) -> None:
    if not 1 <= len(positions) <= _POSITIONS:
        raise MessageFormatError("between 1 and 48 positions are needed")
    previous = -1
    for position in positions:
        if not isinstance(position, int) or not previous < position < _POSITIONS:
            raise MessageFormatError("positions must be strictly ascending in 0..47")
        previous = position


def _expect_kind(data: bytes, kind: int, name: str) -> None:
    if not data or data[0] != kind:
        raise MessageFormatError(f"not a {name} message")


@dataclass(frozen=True, slots=True)
class Commit:
    """A player's commitment to its secret; the first message of a deal."""

    KIND: ClassVar[int] = 0x01
    commitment: bytes

    def __post_init__(self) -> None:
        _check_field(self.commitment, "a commitment")

    def to_bytes(self) -> bytes:
        return bytes([self.KIND]) + self.commitment

    @classmethod
    def from_bytes(cls, data: bytes) -> Commit:
        _expect_kind(data, cls.KIND, "Commit")
        if len(data) != 1 + _FIELD:
            raise MessageFormatError("a Commit is 33 bytes")
        return cls(bytes(data[1:]))


@dataclass(frozen=True, slots=True)
class Deck:
    """The whole deck after one pass: ``number`` 1..4, one point per position, and the pass's proof.

    The proof (``shuffle_proof.py`` for passes 1 and 2, ``dleq.py`` for 3 and
    4) is kept as bytes here: whether it is well formed and holds is for the
    state machine to judge, as cheating by a known sender.
    """

    KIND: ClassVar[int] = 0x02
    number: int
    points: tuple[bytes, ...]
    proof: bytes = b""

    def __post_init__(self) -> None:
        if not isinstance(self.number, int) or not 1 <= self.number <= 4:
            raise MessageFormatError("a pass number is 1..4")
        if not isinstance(self.points, tuple) or len(self.points) > 255:
            raise MessageFormatError("points must be a tuple of at most 255")
        for point in self.points:
            _check_field(point, "a point")
        if not isinstance(self.proof, bytes):
            raise MessageFormatError("a proof is bytes")

    def to_bytes(self) -> bytes:
        return bytes([self.KIND, self.number, len(self.points)]) + b"".join(self.points) + self.proof

    @classmethod
    def from_bytes(cls, data: bytes) -> Deck:
        _expect_kind(data, cls.KIND, "Deck")
        if len(data) < 3 or len(data) < 3 + data[2] * _FIELD:
            raise MessageFormatError("a Deck is 3 bytes, then 32 bytes per point, then the proof")
        end = 3 + data[2] * _FIELD
        body = bytes(data[3:end])
        points = tuple(body[i : i + _FIELD] for i in range(0, len(body), _FIELD))
        return cls(data[1], points, bytes(data[end:]))


@dataclass(frozen=True, slots=True)
class Keys:
    """Unlock keys the sender releases, one per deck position."""

    KIND: ClassVar[int] = 0x03
    positions: tuple[int, ...]
    keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        _check_positions(self.positions)
        if len(self.keys) != len(self.positions):
            raise MessageFormatError("one key per position")
        for key in self.keys:
            _check_field(key, "a key")

    def items(self) -> tuple[tuple[int, bytes], ...]:
        return tuple(zip(self.positions, self.keys, strict=True))

    def to_bytes(self) -> bytes:
        out = bytearray([self.KIND, len(self.positions)])
        for position, key in self.items():
            out.append(position)
            out += key
        return bytes(out)

    @classmethod
    def from_bytes(cls, data: bytes) -> Keys:
        _expect_kind(data, cls.KIND, "Keys")
        if len(data) < 2 or len(data) != 2 + data[1] * (1 + _FIELD):
            raise MessageFormatError("a Keys message is 2 bytes and then 33 bytes per key")
        step = 1 + _FIELD
        entries = [data[2 + i * step : 2 + (i + 1) * step] for i in range(data[1])]
        return cls(tuple(e[0] for e in entries), tuple(bytes(e[1:]) for e in entries))


@dataclass(frozen=True, slots=True)
class Show:
    """The sender opens cards of its own hand: position, claimed card, its key."""

    KIND: ClassVar[int] = 0x04
    positions: tuple[int, ...]
    cards: tuple[Card, ...]
    keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        _check_positions(self.positions)
        if not len(self.cards) == len(self.keys) == len(self.positions):
            raise MessageFormatError("one card and one key per position")
        if not all(isinstance(card, Card) for card in self.cards):
            raise MessageFormatError("cards must be Card values")
        for key in self.keys:
            _check_field(key, "a key")

    def items(self) -> tuple[tuple[int, Card, bytes], ...]:
        return tuple(zip(self.positions, self.cards, self.keys, strict=True))

    def to_bytes(self) -> bytes:
        out = bytearray([self.KIND, len(self.positions)])
        for position, card, key in self.items():
            out.append(position)
            out.append(card)
            out += key
        return bytes(out)

    @classmethod
    def from_bytes(cls, data: bytes) -> Show:
        _expect_kind(data, cls.KIND, "Show")
        if len(data) < 2 or len(data) != 2 + data[1] * (2 + _FIELD):
            raise MessageFormatError("a Show message is 2 bytes and then 34 bytes per card")
        step = 2 + _FIELD
        entries = [data[2 + i * step : 2 + (i + 1) * step] for i in range(data[1])]
        if any(e[1] >= _POSITIONS for e in entries):
            raise MessageFormatError("a card index is 0..47")
        return cls(
            tuple(e[0] for e in entries),
            tuple(Card(e[1]) for e in entries),
            tuple(bytes(e[2:]) for e in entries),
        )


@dataclass(frozen=True, slots=True)
class Reveal:
    """A player's secret, revealed for the audit at the end of the deal."""

    KIND: ClassVar[int] = 0x05
    secret: bytes

    def __post_init__(self) -> None:
        _check_field(self.secret, "a secret")

    def to_bytes(self) -> bytes:
        return bytes([self.KIND]) + self.secret

    @classmethod
    def from_bytes(cls, data: bytes) -> Reveal:
        _expect_kind(data, cls.KIND, "Reveal")
        if len(data) != 1 + _FIELD:
            raise MessageFormatError("a Reveal is 33 bytes")
        return cls(bytes(data[1:]))


Message = Commit | Deck | Keys | Show | Reveal

_BY_KIND: dict[int, type[Commit] | type[Deck] | type[Keys] | type[Show] | type[Reveal]] = {
    cls.KIND: cls for cls in (Commit, Deck, Keys, Show, Reveal)
}


def parse_message(data: bytes) -> Message:
    """Parse any deal message by its kind byte."""
    if not data:
        raise MessageFormatError("an empty message")
    cls = _BY_KIND.get(data[0])
    if cls is None:
        raise MessageFormatError(f"unknown message kind 0x{data[0]:02x}")
    return cls.from_bytes(data)
