"""The 48 hanafuda cards, their canonical ids, and sets of cards as bit masks.

A card is an ``IntEnum`` member whose value is its index 0..47, in month order
and, within a month, in the order of the canonical id table (the special card
first). The index is part of the protocol: the deal and the record name cards
by it, so the order here must never change.

A set of cards is a plain ``int`` used as a 48-bit mask (bit ``i`` is card
``i``), as python-chess does with squares: union, intersection and counting are
single integer operations, which is what makes random playouts fast.

>>> Card.parse("sake-cup")
<Card.CHRYSANTHEMUM_SAKE: 32>
>>> Card.CHRYSANTHEMUM_SAKE.id
'chrysanthemum-sake'
>>> format_cards(mask_of([Card.PINE_CRANE, Card.PINE_RIBBON]))
'pine-crane pine-ribbon'
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable, Iterator

from p2p_koikoi.engine.errors import CardParseError

__all__ = [
    "ALL_CARDS",
    "Card",
    "Kind",
    "Month",
    "Role",
    "cards_of",
    "format_cards",
    "mask_of",
    "month_mask",
    "parse_cards",
]


class Month(enum.IntEnum):
    """The twelve months; the value is the month number minus one."""

    PINE = 0
    PLUM = 1
    CHERRY = 2
    WISTERIA = 3
    IRIS = 4
    PEONY = 5
    CLOVER = 6
    PAMPAS = 7
    CHRYSANTHEMUM = 8
    MAPLE = 9
    WILLOW = 10
    PAULOWNIA = 11

    @property
    def id(self) -> str:
        return self.name.lower()

    @property
    def number(self) -> int:
        """The calendar month, 1 for January (pine) to 12 for December (paulownia)."""
        return self.value + 1


class Kind(enum.IntEnum):
    """The four kinds of card. The value is the traditional point value."""

    BRIGHT = 20
    ANIMAL = 10
    RIBBON = 5
    PLAIN = 1

    @property
    def id(self) -> str:
        return self.name.lower()


class Role(enum.Enum):
    """The special part a card plays in some yaku or rule; ``NONE`` for most."""

    NONE = "none"
    CRANE = "crane"
    CURTAIN = "curtain"
    MOON = "moon"
    RAIN = "rain"
    PHOENIX = "phoenix"
    SAKE_CUP = "sake-cup"
    BOAR = "boar"
    DEER = "deer"
    BUTTERFLIES = "butterflies"
    POEM_RIBBON = "poem-ribbon"
    BLUE_RIBBON = "blue-ribbon"
    LIGHTNING = "lightning"  # also the rulebook's Gaji wildcard


# (id, kind, role, display name), four per month in Month order.
_TABLE: tuple[tuple[str, Kind, Role, str], ...] = (
    ("pine-crane", Kind.BRIGHT, Role.CRANE, "Pine crane"),
    ("pine-ribbon", Kind.RIBBON, Role.POEM_RIBBON, "Pine poem ribbon"),
    ("pine-plain-1", Kind.PLAIN, Role.NONE, "Pine plain"),
    ("pine-plain-2", Kind.PLAIN, Role.NONE, "Pine plain"),
    ("plum-warbler", Kind.ANIMAL, Role.NONE, "Plum warbler"),
    ("plum-ribbon", Kind.RIBBON, Role.POEM_RIBBON, "Plum poem ribbon"),
    ("plum-plain-1", Kind.PLAIN, Role.NONE, "Plum plain"),
    ("plum-plain-2", Kind.PLAIN, Role.NONE, "Plum plain"),
    ("cherry-curtain", Kind.BRIGHT, Role.CURTAIN, "Cherry curtain"),
    ("cherry-ribbon", Kind.RIBBON, Role.POEM_RIBBON, "Cherry poem ribbon"),
    ("cherry-plain-1", Kind.PLAIN, Role.NONE, "Cherry plain"),
    ("cherry-plain-2", Kind.PLAIN, Role.NONE, "Cherry plain"),
    ("wisteria-cuckoo", Kind.ANIMAL, Role.NONE, "Wisteria cuckoo"),
    ("wisteria-ribbon", Kind.RIBBON, Role.NONE, "Wisteria ribbon"),
    ("wisteria-plain-1", Kind.PLAIN, Role.NONE, "Wisteria plain"),
    ("wisteria-plain-2", Kind.PLAIN, Role.NONE, "Wisteria plain"),
    ("iris-bridge", Kind.ANIMAL, Role.NONE, "Iris bridge"),
    ("iris-ribbon", Kind.RIBBON, Role.NONE, "Iris ribbon"),
    ("iris-plain-1", Kind.PLAIN, Role.NONE, "Iris plain"),
    ("iris-plain-2", Kind.PLAIN, Role.NONE, "Iris plain"),
    ("peony-butterflies", Kind.ANIMAL, Role.BUTTERFLIES, "Peony butterflies"),
    ("peony-ribbon", Kind.RIBBON, Role.BLUE_RIBBON, "Peony blue ribbon"),
    ("peony-plain-1", Kind.PLAIN, Role.NONE, "Peony plain"),
    ("peony-plain-2", Kind.PLAIN, Role.NONE, "Peony plain"),
    ("clover-boar", Kind.ANIMAL, Role.BOAR, "Clover boar"),
    ("clover-ribbon", Kind.RIBBON, Role.NONE, "Clover ribbon"),
    ("clover-plain-1", Kind.PLAIN, Role.NONE, "Clover plain"),
    ("clover-plain-2", Kind.PLAIN, Role.NONE, "Clover plain"),
    ("pampas-moon", Kind.BRIGHT, Role.MOON, "Pampas moon"),
    ("pampas-geese", Kind.ANIMAL, Role.NONE, "Pampas geese"),
    ("pampas-plain-1", Kind.PLAIN, Role.NONE, "Pampas plain"),
    ("pampas-plain-2", Kind.PLAIN, Role.NONE, "Pampas plain"),
    ("chrysanthemum-sake", Kind.ANIMAL, Role.SAKE_CUP, "Chrysanthemum sake cup"),
    ("chrysanthemum-ribbon", Kind.RIBBON, Role.BLUE_RIBBON, "Chrysanthemum blue ribbon"),
    ("chrysanthemum-plain-1", Kind.PLAIN, Role.NONE, "Chrysanthemum plain"),
    ("chrysanthemum-plain-2", Kind.PLAIN, Role.NONE, "Chrysanthemum plain"),
    ("maple-deer", Kind.ANIMAL, Role.DEER, "Maple deer"),
    ("maple-ribbon", Kind.RIBBON, Role.BLUE_RIBBON, "Maple blue ribbon"),
    ("maple-plain-1", Kind.PLAIN, Role.NONE, "Maple plain"),
    ("maple-plain-2", Kind.PLAIN, Role.NONE, "Maple plain"),
    ("willow-rain", Kind.BRIGHT, Role.RAIN, "Willow rain man"),
    ("willow-swallow", Kind.ANIMAL, Role.NONE, "Willow swallow"),
    ("willow-ribbon", Kind.RIBBON, Role.NONE, "Willow ribbon"),
    ("willow-lightning", Kind.PLAIN, Role.LIGHTNING, "Willow lightning"),
    ("paulownia-phoenix", Kind.BRIGHT, Role.PHOENIX, "Paulownia phoenix"),
    ("paulownia-plain-1", Kind.PLAIN, Role.NONE, "Paulownia plain"),
    ("paulownia-plain-2", Kind.PLAIN, Role.NONE, "Paulownia plain"),
    ("paulownia-plain-3", Kind.PLAIN, Role.NONE, "Paulownia plain"),
)

# Obvious alternative spellings people type; each maps to a canonical id.
_ALIASES: dict[str, str] = {
    "sake-cup": "chrysanthemum-sake",
    "sake": "chrysanthemum-sake",
    "rain-man": "willow-rain",
    "rainman": "willow-rain",
    "rain": "willow-rain",
    "ono-no-michikaze": "willow-rain",
    "gaji": "willow-lightning",
    "lightning": "willow-lightning",
    "crane": "pine-crane",
    "curtain": "cherry-curtain",
    "moon": "pampas-moon",
    "phoenix": "paulownia-phoenix",
    "boar": "clover-boar",
    "deer": "maple-deer",
    "butterflies": "peony-butterflies",
    "butterfly": "peony-butterflies",
    "bush-clover-boar": "clover-boar",
    "lespedeza-boar": "clover-boar",
    "susuki-moon": "pampas-moon",
    "plum-nightingale": "plum-warbler",
    "pine-poem": "pine-ribbon",
    "plum-poem": "plum-ribbon",
    "cherry-poem": "cherry-ribbon",
}


class Card(enum.IntEnum):
    """One of the 48 cards; the value is its protocol index."""

    PINE_CRANE = 0
    PINE_RIBBON = 1
    PINE_PLAIN_1 = 2
    PINE_PLAIN_2 = 3
    PLUM_WARBLER = 4
    PLUM_RIBBON = 5
    PLUM_PLAIN_1 = 6
    PLUM_PLAIN_2 = 7
    CHERRY_CURTAIN = 8
    CHERRY_RIBBON = 9
    CHERRY_PLAIN_1 = 10
    CHERRY_PLAIN_2 = 11
    WISTERIA_CUCKOO = 12
    WISTERIA_RIBBON = 13
    WISTERIA_PLAIN_1 = 14
    WISTERIA_PLAIN_2 = 15
    IRIS_BRIDGE = 16
    IRIS_RIBBON = 17
    IRIS_PLAIN_1 = 18
    IRIS_PLAIN_2 = 19
    PEONY_BUTTERFLIES = 20
    PEONY_RIBBON = 21
    PEONY_PLAIN_1 = 22
    PEONY_PLAIN_2 = 23
    CLOVER_BOAR = 24
    CLOVER_RIBBON = 25
    CLOVER_PLAIN_1 = 26
    CLOVER_PLAIN_2 = 27
    PAMPAS_MOON = 28
    PAMPAS_GEESE = 29
    PAMPAS_PLAIN_1 = 30
    PAMPAS_PLAIN_2 = 31
    CHRYSANTHEMUM_SAKE = 32
    CHRYSANTHEMUM_RIBBON = 33
    CHRYSANTHEMUM_PLAIN_1 = 34
    CHRYSANTHEMUM_PLAIN_2 = 35
    MAPLE_DEER = 36
    MAPLE_RIBBON = 37
    MAPLE_PLAIN_1 = 38
    MAPLE_PLAIN_2 = 39
    WILLOW_RAIN = 40
    WILLOW_SWALLOW = 41
    WILLOW_RIBBON = 42
    WILLOW_LIGHTNING = 43
    PAULOWNIA_PHOENIX = 44
    PAULOWNIA_PLAIN_1 = 45
    PAULOWNIA_PLAIN_2 = 46
    PAULOWNIA_PLAIN_3 = 47

    @property
    def id(self) -> str:
        """The canonical id, such as ``pine-crane``."""
        return _TABLE[self.value][0]

    @property
    def month(self) -> Month:
        return Month(self.value >> 2)

    @property
    def kind(self) -> Kind:
        return _TABLE[self.value][1]

    @property
    def role(self) -> Role:
        return _TABLE[self.value][2]

    @property
    def display_name(self) -> str:
        return _TABLE[self.value][3]

    @property
    def bit(self) -> int:
        return 1 << self.value

    def __str__(self) -> str:
        return self.id

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a canonical id or an obvious alias; reject anything else.

        The error lists the closest canonical ids, so a typo is easy to fix.
        """
        key = text.strip().lower().replace("_", "-").replace(" ", "-")
        key = _ALIASES.get(key, key)
        card = _BY_ID.get(key)
        if card is not None:
            return card
        close = difflib.get_close_matches(key, list(_BY_ID) + list(_ALIASES), n=3, cutoff=0.5)
        suggestions = sorted({_ALIASES.get(c, c) for c in close})
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        raise CardParseError(f"unknown card {text!r}{hint}")


_BY_ID: dict[str, Card] = {c.id: c for c in Card}

ALL_CARDS: int = (1 << 48) - 1


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


_CARD_BY_INDEX: tuple[Card, ...] = tuple(Card)


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a mask, in index order."""
    while mask:
        low = mask & -mask
        yield _CARD_BY_INDEX[low.bit_length() - 1]
        mask ^= low


def month_mask(month: int) -> int:
    """The four cards of a month as a mask."""
    return 0b1111 << (4 * month)


def format_cards(mask: int) -> str:
    """Canonical ids separated by spaces; the inverse of :func:`parse_cards`."""
    return " ".join(c.id for c in cards_of(mask))


def parse_cards(texts: Iterable[str]) -> int:
    """Parse card names into a mask, rejecting duplicates."""
    mask = 0
    for text in texts:
        for part in text.replace(",", " ").split():
            card = Card.parse(part)
            if mask & card.bit:
                raise CardParseError(f"card {card.id!r} is named twice")
            mask |= card.bit
    return mask
