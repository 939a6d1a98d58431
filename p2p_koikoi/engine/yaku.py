"""Yaku: which scoring sets a pile of captures makes under a rule set.

:func:`evaluate` is the single implementation of the yaku table. It is called at
the end of every turn, so it works on bit masks and only builds the detailed
list (each yaku with its points and the cards that made it) when asked.

>>> from p2p_koikoi.engine.rules import preset
>>> from p2p_koikoi.engine.cards import parse_cards
>>> table = YakuTable(preset("lemme"))
>>> [(y.yaku.value, y.points) for y in table.score(parse_cards(["clover-boar maple-deer peony-butterflies"]))]
[('inoshikacho', 5)]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.engine.cards import Card, Kind, Role, mask_of
from p2p_koikoi.engine.rules import AfterKoiKoi, AkatanAotan, AutoStop, DecisionOn, RuleSet

__all__ = ["HAND_YAKU_POINTS", "Yaku", "YakuScore", "YakuTable", "four_of_a_month", "four_pairs", "hand_yaku"]


class Yaku(enum.Enum):
    """Canonical yaku ids. The order is the order of display."""

    GOKO = "goko"
    SHIKO = "shiko"
    AME_SHIKO = "ame-shiko"
    SANKO = "sanko"
    HANAMI = "hanami"
    TSUKIMI = "tsukimi"
    INOSHIKACHO = "inoshikacho"
    AKATAN_AOTAN = "akatan-aotan"
    AKATAN = "akatan"
    AOTAN = "aotan"
    TRIAD = "triad"
    TANE = "tane"
    TAN = "tan"
    KASU = "kasu"
    TESHI = "teshi"
    KUTTSUKI = "kuttsuki"

    @property
    def bit(self) -> int:
        return 1 << _ORDER[self]

    @property
    def display_name(self) -> str:
        return _NAMES[self]

    @classmethod
    def parse(cls, text: str) -> Yaku:
        key = text.strip().lower().replace("_", "-").replace("ō", "o")
        for yaku in cls:
            if yaku.value == key:
                return yaku
        raise ValueError(f"unknown yaku {text!r}")


_ORDER = {y: i for i, y in enumerate(Yaku)}
_BIT = {y: 1 << i for i, y in enumerate(Yaku)}
_NAMES = {
    Yaku.GOKO: "Gokō (Five Lights)",
    Yaku.SHIKO: "Shikō (Four Lights)",
    Yaku.AME_SHIKO: "Ame-Shikō (Rain Four Lights)",
    Yaku.SANKO: "Sankō (Three Lights)",
    Yaku.HANAMI: "Hanami (Flower Viewing)",
    Yaku.TSUKIMI: "Tsukimi (Moon Viewing)",
    Yaku.INOSHIKACHO: "Inoshikachō (Boar, Deer, Butterflies)",
    Yaku.AKATAN_AOTAN: "Akatan-Aotan no Chōfuku",
    Yaku.AKATAN: "Akatan (Red Poem Ribbons)",
    Yaku.AOTAN: "Aotan (Blue Ribbons)",
    Yaku.TRIAD: "Triad",
    Yaku.TANE: "Tane (Animals)",
    Yaku.TAN: "Tan (Ribbons)",
    Yaku.KASU: "Kasu (Plains)",
    Yaku.TESHI: "Teshi (four of a month in hand)",
    Yaku.KUTTSUKI: "Kuttsuki (four pairs in hand)",
}

HAND_YAKU_POINTS = 6


@dataclass(frozen=True, slots=True)
class YakuScore:
    """One yaku made: its id, its points, and the cards that made it (a mask)."""

    yaku: Yaku
    points: int
    cards: int

    def __str__(self) -> str:
        return f"{self.yaku.display_name} {self.points}"


def _by_role(role: Role) -> int:
    return mask_of(c for c in Card if c.role is role)


def _by_kind(kind: Kind) -> int:
    return mask_of(c for c in Card if c.kind is kind)


BRIGHTS = _by_kind(Kind.BRIGHT)
ANIMALS = _by_kind(Kind.ANIMAL)
RIBBONS = _by_kind(Kind.RIBBON)
PLAINS = _by_kind(Kind.PLAIN)
RAIN = Card.WILLOW_RAIN.bit
SAKE = Card.CHRYSANTHEMUM_SAKE.bit
CURTAIN = Card.CHERRY_CURTAIN.bit
MOON = Card.PAMPAS_MOON.bit
POEM = _by_role(Role.POEM_RIBBON)
BLUE = _by_role(Role.BLUE_RIBBON)
BOAR_DEER_BUTTERFLIES = Card.CLOVER_BOAR.bit | Card.MAPLE_DEER.bit | Card.PEONY_BUTTERFLIES.bit
HANAMI_CARDS = CURTAIN | SAKE
TSUKIMI_CARDS = MOON | SAKE


class YakuTable:
    """The yaku of one rule set, with its masks worked out once.

    It also carries the few turn-end switches the round reads every turn, so a
    round reads one compiled object instead of walking the rule set.
    """

    __slots__ = (
        "akatan_aotan",
        "extras",
        "plains",
        "rain_in_sanko",
        "rise",
        "rules",
        "stop_after_call",
        "stop_on_own_empty",
        "tan_void",
        "tane_void",
        "viewing",
    )

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.plains = PLAINS | SAKE if rules.sake_as_plain else PLAINS
        self.viewing = rules.viewing_yaku
        self.rain_in_sanko = rules.rain_in_sanko
        self.tane_void = rules.tane_void_with_inoshikacho
        self.tan_void = rules.tan_void_with_akatan_aotan
        self.akatan_aotan = rules.akatan_aotan
        self.extras = rules.set_extras
        # Turn-end switches, read once here because every turn asks them.
        self.rise = rules.decision_on is DecisionOn.RISE
        self.stop_after_call = rules.after_koikoi is AfterKoiKoi.NEXT_YAKU_ENDS
        self.stop_on_own_empty = rules.auto_stop is AutoStop.OWN_HAND_EMPTY

    def evaluate(self, caps: int, detail: list[YakuScore] | None = None) -> tuple[int, int]:
        """The total points and the set of yaku (as bits of :attr:`Yaku.bit`) of a pile of captures.

        When ``detail`` is a list, each yaku made is appended to it with its cards.
        This is the one place the yaku table is written down; it runs at the end
        of every turn, so it is plain integer arithmetic with no helper calls.
        """
        found: list[tuple[Yaku, int, int]] = []
        lights = caps & BRIGHTS
        if lights:
            n = lights.bit_count()
            rain = lights & RAIN
            if n == 5:
                found.append((Yaku.GOKO, 10, lights))
            elif n == 4:
                found.append((Yaku.AME_SHIKO, 7, lights) if rain else (Yaku.SHIKO, 8, lights))
            elif n == 3 and (not rain or self.rain_in_sanko):
                found.append((Yaku.SANKO, 5, lights))

        if caps & SAKE and self.viewing:
            if caps & CURTAIN:
                found.append((Yaku.HANAMI, 5, HANAMI_CARDS))
            if caps & MOON:
                found.append((Yaku.TSUKIMI, 5, TSUKIMI_CARDS))

        extras = self.extras
        animals = caps & ANIMALS
        n_animals = animals.bit_count()
        if n_animals >= 3:
            ino = (animals & BOAR_DEER_BUTTERFLIES) == BOAR_DEER_BUTTERFLIES
            if ino:
                if extras:
                    found.append((Yaku.INOSHIKACHO, n_animals + 2, animals))
                else:
                    found.append((Yaku.INOSHIKACHO, 5, BOAR_DEER_BUTTERFLIES))
            if n_animals >= 5 and not (ino and self.tane_void):
                found.append((Yaku.TANE, n_animals - 4, animals))

        ribbons = caps & RIBBONS
        n_ribbons = ribbons.bit_count()
        if n_ribbons >= 3:
            poem = (ribbons & POEM) == POEM
            blue = (ribbons & BLUE) == BLUE
            if poem and blue and self.akatan_aotan is AkatanAotan.CHOFUKU:
                if extras:
                    found.append((Yaku.AKATAN_AOTAN, n_ribbons + 4, ribbons))
                else:
                    found.append((Yaku.AKATAN_AOTAN, 10, POEM | BLUE))
            else:
                if poem:
                    found.append((Yaku.AKATAN, n_ribbons + 2, ribbons) if extras else (Yaku.AKATAN, 5, POEM))
                if blue:
                    found.append((Yaku.AOTAN, n_ribbons + 2, ribbons) if extras else (Yaku.AOTAN, 5, BLUE))
                if poem and blue and self.akatan_aotan is AkatanAotan.TRIAD:
                    found.append((Yaku.TRIAD, 3, POEM | BLUE))
            if n_ribbons >= 5 and not ((poem or blue) and self.tan_void):
                found.append((Yaku.TAN, n_ribbons - 4, ribbons))

        plains = caps & self.plains
        n_plains = plains.bit_count()
        if n_plains >= 10:
            found.append((Yaku.KASU, n_plains - 9, plains))

        if not found:
            return 0, 0
        total = 0
        bits = 0
        for yaku, points, cards in found:
            total += points
            bits |= _BIT[yaku]
            if detail is not None:
                detail.append(YakuScore(yaku, points, cards))
        return total, bits

    def score(self, caps: int) -> list[YakuScore]:
        """Every yaku a pile of captures makes, each with its points and cards."""
        detail: list[YakuScore] = []
        self.evaluate(caps, detail)
        return detail

    def total(self, caps: int) -> int:
        return self.evaluate(caps)[0]


_MONTH_LOW = sum(1 << (4 * m) for m in range(12))  # bit 0 of every month's nibble


def four_of_a_month(cards: int) -> int:
    """The mask of a complete month among ``cards`` (the lowest), or 0."""
    full = cards & (cards >> 1) & (cards >> 2) & (cards >> 3) & _MONTH_LOW
    if not full:
        return 0
    return 0b1111 << ((full & -full).bit_length() - 1)


def four_pairs(cards: int) -> bool:
    """Exactly four months of exactly two cards each, and nothing else."""
    if cards.bit_count() != 8:
        return False
    a, b, c, d = cards, cards >> 1, cards >> 2, cards >> 3
    months = (a | b | c | d) & _MONTH_LOW
    three_or_more = ((a & b & (c | d)) | (c & d & (a | b))) & _MONTH_LOW
    return months.bit_count() == 4 and not three_or_more


def hand_yaku(hand: int) -> YakuScore | None:
    """The hand yaku of a dealt hand, with the cards that show it."""
    month = four_of_a_month(hand)
    if month:
        return YakuScore(Yaku.TESHI, HAND_YAKU_POINTS, month)
    if four_pairs(hand):
        return YakuScore(Yaku.KUTTSUKI, HAND_YAKU_POINTS, hand)
    return None
