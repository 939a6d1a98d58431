"""The one narrator: an engine event in words, from its fields, for a person and a tense.

Every place that tells a move (the plain lines, the table's log, the replay, the line the turn limit
writes for us) tells it here, from the event's fields (``kind``, ``card``, ``captured``, ``yaku``,
``action``, ``choice``, ``count``), never from the engine's words read back. ``Person.THEY`` in the present
says what the engine's ``text`` says, but for a yaku, which it names (a test checks it over whole games of
every preset); ``Person.YOU``
turns every verb that opens a clause to the second person; ``Tense.PAST`` is the turn limit's account of
a move the game made for us. ``brief`` is the table's shorter wording, made for a narrow log.

>>> from p2p_koikoi.engine import Card, Event, EventKind
>>> play = Event(EventKind.PLAY, 1, Card.PINE_CRANE, Card.PINE_PLAIN_1.bit)
>>> says(play)
'plays Pine crane, takes Pine plain'
>>> says(play, Person.YOU)
'play Pine crane, take Pine plain'
>>> for_you(play)
"Time's up: the game played Pine crane for you, taking Pine plain."
"""

from __future__ import annotations

import enum

from p2p_koikoi.app.words import count
from p2p_koikoi.engine import Event, EventKind, Exchange, cards_of
from p2p_koikoi.engine.cards import month_mask

__all__ = ["DECISIONS", "Person", "Tense", "for_you", "says", "verb"]


class Person(enum.Enum):
    YOU = "you"  # our own seat: "You play"
    THEY = "they"  # the other seat, or either seat told by name: "Bot plays", "Host plays"


class Tense(enum.Enum):
    PRESENT = "present"
    PAST = "past"


# The events that tell a decision of a seat's (what the turn limit may make for it).
DECISIONS = frozenset({EventKind.PLAY, EventKind.CAPTURE, EventKind.KOIKOI, EventKind.STOP, EventKind.EXCHANGE})

# Each verb a move is told with: the third person's present, and the past.
_FORMS = {
    "play": ("plays", "played"),
    "draw": ("draws", "drew"),
    "take": ("takes", "took"),
    "call": ("calls", "called"),
    "have": ("has", "had"),
    "show": ("shows", "showed"),
    "exchange": ("exchanges", "exchanged"),
    "keep": ("keeps", "kept"),
    "make": ("makes", "made"),
    "deal": ("deals", "dealt"),
    "win": ("wins", "won"),
    "score": ("scores", "scored"),
}


def verb(base: str, person: Person, tense: Tense = Tense.PRESENT) -> str:
    """``play`` for ``You``, ``plays`` for anyone else, ``played`` in the past."""
    third, past = _FORMS[base]
    if tense is Tense.PAST:
        return past
    return base if person is Person.YOU else third


def _names(cards: int) -> str:
    return ", ".join(c.display_name for c in cards_of(cards))


def says(event: Event, person: Person = Person.THEY, tense: Tense = Tense.PRESENT, *, brief: bool = False) -> str:
    """What the event's seat did, as a predicate with no subject (``plays Pine crane, takes Pine plain``).

    ``brief`` (the table's log): a card played or drawn to the table is named alone, a capture names the card
    taken, Koi-Koi leaves out its count and a yaku its points' unit. The round's end is its reason, as the
    engine gives it (words to show, which nothing reads back)."""

    def v(base: str) -> str:
        return verb(base, person, tense)

    kind, card = event.kind, event.card
    if kind is EventKind.PLAY and card is not None:
        if not event.captured:
            return f"{v('play')} {card.display_name}" + ("" if brief else " to the table")
        gaji = not brief and not event.captured & month_mask(card.month)  # the Gaji took another month's card
        return f"{v('play')} {card.display_name}, {v('take')} {_names(event.captured)}" + (
            " with the Gaji" if gaji else ""
        )
    if kind is EventKind.DRAW and card is not None:
        if event.choice:
            return f"{v('draw')} {card.display_name}, which matches two" + ("" if brief else " table cards")
        if event.captured:
            return f"{v('draw')} {card.display_name}, {v('take')} {_names(event.captured)}"
        return f"{v('draw')} {card.display_name}" + ("" if brief else " to the table")
    if kind is EventKind.CAPTURE and card is not None:
        taken = _names(event.captured)
        return f"{v('take')} {taken}" if brief else f"{v('take')} {taken} with {card.display_name}"
    if kind is EventKind.YAKU:  # the engine says what they are worth ("has yaku worth 6"); we name them
        made = (f"{y.yaku.display_name} {y.points if brief else count(y.points, 'point')}" for y in event.yaku)
        return f"{v('have')} {', '.join(made)}"
    if kind is EventKind.KOIKOI:
        return f"{v('call')} Koi-Koi" + ("!" if brief else f" ({event.count})")
    if kind is EventKind.STOP:
        return f"{v('call')} Shōbu"
    if kind is EventKind.HAND_YAKU:
        return f"{v('show')} {event.yaku[0].yaku.display_name}" if event.yaku else f"{v('have')} no hand yaku"
    if kind is EventKind.EXCHANGE:
        swapped = isinstance(event.action, Exchange) and event.action.swap
        return f"{v('exchange')} hands with the dealer" if swapped else f"{v('keep')} the hands"
    return event.text  # the round's end: its reason


def for_you(event: Event) -> str:
    """Our own move that the game made when the turn limit ran out, told as such (never as ``You play ...``,
    which would read as if the person had chosen it)."""
    card = event.card.display_name if event.card is not None else ""
    kind = event.kind
    if kind is EventKind.PLAY:
        taken = _names(event.captured)
        what = f"played {card} for you" + (f", taking {taken}" if taken else ", to the table")
    elif kind is EventKind.CAPTURE and event.captured:
        what = f"took {_names(event.captured)} for you"
    elif kind is EventKind.KOIKOI:
        what = "called Koi-Koi for you"
    elif kind is EventKind.STOP:
        what = "called Shōbu for you"
    elif kind is EventKind.EXCHANGE:
        swapped = isinstance(event.action, Exchange) and event.action.swap
        what = "exchanged hands for you" if swapped else "kept the hands for you"
    else:
        what = f"chose for you: {says(event)}"
    return f"Time's up: the game {what}."
