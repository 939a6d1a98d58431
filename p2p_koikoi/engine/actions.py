"""Actions and events of a round, as small value types with text parse/format pairs.

An action is what a seat (or chance, for the stock) does; an event is what the
round reports back for the UI, the log and the record. Actions format to short
words and parse back:

>>> Action.parse("play pine-ribbon take pine-crane")
Play(card=<Card.PINE_RIBBON: 1>, target=<Card.PINE_CRANE: 0>)
>>> str(Action.parse("draw willow-rain"))
'draw willow-rain'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.engine.cards import Card, cards_of, parse_cards
from p2p_koikoi.engine.errors import EngineError
from p2p_koikoi.engine.yaku import Yaku, YakuScore

__all__ = [
    "TAKING",
    "Action",
    "AnyAction",
    "CallKoiKoi",
    "CallStop",
    "ChooseCapture",
    "ClaimHandYaku",
    "Draw",
    "Event",
    "EventKind",
    "Exchange",
    "PassHandYaku",
    "Play",
]


@dataclass(frozen=True, slots=True)
class Play:
    """Play a hand card. ``target`` names the table card taken when two match, or the Gaji's pick."""

    card: Card
    target: Card | None = None

    def __str__(self) -> str:
        return f"play {self.card.id}" + (f" take {self.target.id}" if self.target is not None else "")


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance turns over the top card of the stock."""

    card: Card

    def __str__(self) -> str:
        return f"draw {self.card.id}"


@dataclass(frozen=True, slots=True)
class ChooseCapture:
    """The drawn card matches two table cards: take this one."""

    target: Card

    def __str__(self) -> str:
        return f"take {self.target.id}"


@dataclass(frozen=True, slots=True)
class CallKoiKoi:
    def __str__(self) -> str:
        return "koikoi"


@dataclass(frozen=True, slots=True)
class CallStop:
    """Shobu: end the round and score."""

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class Exchange:
    """The rulebook's right of the non-dealer to swap hands before looking."""

    swap: bool

    def __str__(self) -> str:
        return "exchange" if self.swap else "keep"


@dataclass(frozen=True, slots=True)
class ClaimHandYaku:
    """Claim Teshi or Kuttsuki, showing the cards that make it."""

    yaku: Yaku
    cards: int

    def __str__(self) -> str:
        return f"claim {self.yaku.value} " + " ".join(c.id for c in cards_of(self.cards))


@dataclass(frozen=True, slots=True)
class PassHandYaku:
    def __str__(self) -> str:
        return "pass"


AnyAction = Play | Draw | ChooseCapture | CallKoiKoi | CallStop | Exchange | ClaimHandYaku | PassHandYaku


class Action:
    """Namespace for parsing actions from their text form."""

    @staticmethod
    def parse(text: str) -> AnyAction:
        words = text.split()
        if not words:
            raise EngineError("empty action")
        verb, rest = words[0].lower(), words[1:]
        try:
            if verb == "play" and len(rest) == 1:
                return Play(Card.parse(rest[0]))
            if verb == "play" and len(rest) == 3 and rest[1] == "take":
                return Play(Card.parse(rest[0]), Card.parse(rest[2]))
            if verb == "draw" and len(rest) == 1:
                return Draw(Card.parse(rest[0]))
            if verb == "take" and len(rest) == 1:
                return ChooseCapture(Card.parse(rest[0]))
            if verb in ("koikoi", "koi-koi") and not rest:
                return CallKoiKoi()
            if verb in ("stop", "shobu") and not rest:
                return CallStop()
            if verb in ("exchange", "keep") and not rest:
                return Exchange(verb == "exchange")
            if verb == "pass" and not rest:
                return PassHandYaku()
            if verb == "claim" and len(rest) >= 2:
                return ClaimHandYaku(Yaku.parse(rest[0]), parse_cards(rest[1:]))
        except ValueError as exc:
            raise EngineError(f"bad action {text!r}: {exc}") from None
        raise EngineError(f"bad action {text!r}")


# -- events ---------------------------------------------------------------------


class EventKind(enum.StrEnum):
    """What an :class:`Event` tells (a ``str``, so its value is the word the record's readers know)."""

    PLAY = "play"
    DRAW = "draw"
    CAPTURE = "capture"
    YAKU = "yaku"
    KOIKOI = "koikoi"
    STOP = "stop"
    EXCHANGE = "exchange"
    HAND_YAKU = "hand-yaku"
    ROUND_OVER = "round-over"


TAKING = frozenset({EventKind.PLAY, EventKind.DRAW, EventKind.CAPTURE})
"""The kinds of event that can take cards from the table (``Event.captured``)."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, in words a UI can show and fields a program can read.

    The fields say what the words say, so no layer above reads the words back: ``action`` is the action
    that caused it where one did (an exchange's ``Exchange`` says whether the hands were swapped),
    ``choice`` marks a drawn card that matches two table cards and waits for its player's choice, ``count``
    is the number the words carry (a Koi-Koi's: which call of its seat's it is; a yaku's: what the seat's
    yaku are worth). ``p2p_koikoi.app.narrator`` tells an event from these fields alone.
    """

    kind: EventKind
    seat: int
    card: Card | None = None
    captured: int = 0
    yaku: tuple[YakuScore, ...] = ()
    text: str = ""
    action: AnyAction | None = None
    choice: bool = False
    count: int = 0
