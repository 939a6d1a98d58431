"""One value type per entry kind: what an entry's body says, by name instead of by position.

On the wire a body is a fixed-position array (:mod:`p2p_koikoi.wire.schema` holds its shape). Code above
the wire reads and writes these values instead, each with a ``from_list`` / ``to_list`` pair (as
python-chess pairs ``Move.from_uci`` and ``.uci()``), so a field is named once, here, and the bytes stay
exactly what they were: ``to_list(from_list(body)) == body`` for every body the schema admits.

>>> MoveBody.from_list([1, "play pine-crane", None, None]).action
'play pine-crane'
>>> HikiReply.parse("hiki pine-crane").format()
'hiki pine-crane'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.wire.schema import check_body

__all__ = [
    "AcceptBody",
    "Body",
    "DealBody",
    "DeclineBody",
    "EntryKind",
    "GoodbyeBody",
    "HereBody",
    "HikiReply",
    "MatchBody",
    "MoveBody",
    "NotAHikiReply",
    "ResultBody",
    "parse_body",
]


class EntryKind(enum.StrEnum):
    """The kinds of entry (SPEC.md section 4); a ``str``, so the wire's text is the member's value."""

    MATCH = "match"
    ACCEPT = "accept"
    DECLINE = "decline"
    DEAL = "deal"
    MOVE = "move"
    RESULT = "result"
    GOODBYE = "goodbye"
    HERE = "here"


def _pair(value: list[bytes]) -> tuple[bytes, bytes]:
    return value[0], value[1]


@dataclass(frozen=True, slots=True)
class MatchBody:
    """Entry 0, the host's: the rules, the keys and nonces of the greeting, the time limit, the software, and
    the name the host goes by (signed, so nobody between the players can change it), or None."""

    KIND: ClassVar[EntryKind] = EntryKind.MATCH
    rules: str
    fingerprint: bytes
    keys: tuple[bytes, bytes]
    nonces: tuple[bytes, bytes]
    turn_limit: int
    software: str
    name: str | None = None

    @classmethod
    def from_list(cls, body: list[Any]) -> MatchBody:
        check_body(cls.KIND, body)
        rules, fingerprint, keys, nonces, turn_limit, software, name = body
        return cls(rules, fingerprint, _pair(keys), _pair(nonces), turn_limit, software, name)

    def to_list(self) -> list[Any]:
        keys, nonces = list(self.keys), list(self.nonces)
        return [self.rules, self.fingerprint, keys, nonces, self.turn_limit, self.software, self.name]


@dataclass(frozen=True, slots=True)
class AcceptBody:
    """The guest takes the rules it was offered, named by their fingerprint, and says the name it goes by
    (or None): the guest's half of the match setup, signed as the host's name is in the match entry."""

    KIND: ClassVar[EntryKind] = EntryKind.ACCEPT
    fingerprint: bytes
    name: str | None = None

    @classmethod
    def from_list(cls, body: list[Any]) -> AcceptBody:
        check_body(cls.KIND, body)
        return cls(body[0], body[1])

    def to_list(self) -> list[Any]:
        return [self.fingerprint, self.name]


@dataclass(frozen=True, slots=True)
class DeclineBody:
    """The guest declines the rules: the match ends before it began."""

    KIND: ClassVar[EntryKind] = EntryKind.DECLINE
    reason: str

    @classmethod
    def from_list(cls, body: list[Any]) -> DeclineBody:
        check_body(cls.KIND, body)
        return cls(body[0])

    def to_list(self) -> list[Any]:
        return [self.reason]


@dataclass(frozen=True, slots=True)
class DealBody:
    """One message of the deal protocol (DEAL.md section 6), for round ``round`` and its ``redeal``."""

    KIND: ClassVar[EntryKind] = EntryKind.DEAL
    round: int
    redeal: int
    message: bytes

    @classmethod
    def from_list(cls, body: list[Any]) -> DealBody:
        check_body(cls.KIND, body)
        return cls(body[0], body[1], body[2])

    def to_list(self) -> list[Any]:
        return [self.round, self.redeal, self.message]


@dataclass(frozen=True, slots=True)
class MoveBody:
    """A player's action in words, with the Show and Keys messages it carries, if any."""

    KIND: ClassVar[EntryKind] = EntryKind.MOVE
    round: int
    action: str
    show: bytes | None = None
    keys: bytes | None = None

    @classmethod
    def from_list(cls, body: list[Any]) -> MoveBody:
        check_body(cls.KIND, body)
        return cls(body[0], body[1], body[2], body[3])

    def to_list(self) -> list[Any]:
        return [self.round, self.action, self.show, self.keys]


@dataclass(frozen=True, slots=True)
class ResultBody:
    """A round's count, as each seat writes it (SPEC.md section 5): both must be the rules' own."""

    KIND: ClassVar[EntryKind] = EntryKind.RESULT
    round: int
    redeal: int
    outcome: str
    winner: int
    payment: int
    points: tuple[int, int]

    @classmethod
    def from_list(cls, body: list[Any]) -> ResultBody:
        check_body(cls.KIND, body)
        number, redeal, outcome, winner, payment, points0, points1 = body
        return cls(number, redeal, outcome, winner, payment, (points0, points1))

    def to_list(self) -> list[Any]:
        return [self.round, self.redeal, self.outcome, self.winner, self.payment, *self.points]


@dataclass(frozen=True, slots=True)
class GoodbyeBody:
    """The end of a match as its writer rules it: a reason id, words, and an accusation's evidence."""

    KIND: ClassVar[EntryKind] = EntryKind.GOODBYE
    reason: str
    text: str
    evidence: bytes | None = None

    @classmethod
    def from_list(cls, body: list[Any]) -> GoodbyeBody:
        check_body(cls.KIND, body)
        return cls(body[0], body[1], body[2])

    def to_list(self) -> list[Any]:
        return [self.reason, self.text, self.evidence]


@dataclass(frozen=True, slots=True)
class HereBody:
    """The objection of a seat accused of silence that is still deciding: "I am here"."""

    KIND: ClassVar[EntryKind] = EntryKind.HERE
    text: str

    @classmethod
    def from_list(cls, body: list[Any]) -> HereBody:
        check_body(cls.KIND, body)
        return cls(body[0])

    def to_list(self) -> list[Any]:
        return [self.text]


Body = MatchBody | AcceptBody | DeclineBody | DealBody | MoveBody | ResultBody | GoodbyeBody | HereBody

_TYPES: dict[str, type[Body]] = {
    kind.KIND: kind
    for kind in (MatchBody, AcceptBody, DeclineBody, DealBody, MoveBody, ResultBody, GoodbyeBody, HereBody)
}


def parse_body(kind: str, body: list[Any]) -> Body:
    """The value an entry's body holds; :class:`RemoteProtocolError` (``bad-kind``, ``bad-body``) if the
    kind is unknown or the body does not fit its shape."""
    check_body(kind, body)
    return _TYPES[kind].from_list(body)


class NotAHikiReply(ValueError):
    """A move that answers a Gaji play but says neither ``no-hiki`` nor ``hiki CARD``; ``canonical`` is
    False when it names a card, but not in the one spelling a receiver accepts."""

    def __init__(self, text: str, *, canonical: bool = True) -> None:
        super().__init__(text)
        self.canonical = canonical


@dataclass(frozen=True, slots=True)
class HikiReply:
    """The answer to a Gaji play onto a month of three (GAME.md): ``card`` is the fourth card of that
    month, shown to void the play (``hiki CARD``), or None to let the play stand (``no-hiki``)."""

    card: Card | None

    @classmethod
    def parse(cls, text: str) -> HikiReply:
        if text == "no-hiki":
            return cls(None)
        words = text.split()
        if len(words) != 2 or words[0] != "hiki":
            raise NotAHikiReply("a Gaji play must be answered with hiki CARD or no-hiki")
        reply = cls(Card.parse(words[1]))  # CardParseError: no card by that name
        if reply.format() != text:
            raise NotAHikiReply(f"the Hiki answer {text!r} is not in canonical form", canonical=False)
        return reply

    def format(self) -> str:
        return "no-hiki" if self.card is None else f"hiki {self.card.id}"
