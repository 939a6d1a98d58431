"""The yaku tracker: what a pile of captures has made, and how far it is from the rest.

A new player cannot keep the yaku table in their head, so the table shows,
beside each player's captures, every yaku made (with its points) and every one
under way (``Inoshikachō 2/3``, ``Tan 4/5``). The yaku made come from the
engine's :class:`~p2p_koikoi.engine.yaku.YakuTable`, the one place the yaku are
written down; this module only counts cards towards the first step of each
family, under the rule set's switches (the sake cup as a plain, the rain man in
Sankō, the viewing yaku).

A yaku is only under way while it can still be made: one whose cards are in the
other player's captures (the Sake cup taken by the other side ends both viewing
yaku; the Deer there ends Inoshikachō; six animals there leave four, too few for
Tane) is dead, and the tracker leaves it out rather than count towards it.

>>> from p2p_koikoi.engine import preset, parse_cards
>>> [str(p) for p in progress(parse_cards(["clover-boar maple-deer"]), preset("lemme"))]
['Inoshikachō 2/3', 'Tane 2/5']
>>> [str(p) for p in progress(parse_cards(["clover-boar"]), preset("lemme"), theirs=parse_cards(["maple-deer"]))]
['Tane 1/5']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2p_koikoi.engine import Card, Kind, Role, RuleSet, Yaku, YakuTable, cards_of

__all__ = ["Progress", "captured_by_kind", "progress", "short_name"]

_SHORT = {
    Yaku.GOKO: "Gokō",
    Yaku.SHIKO: "Shikō",
    Yaku.AME_SHIKO: "Ame-Shikō",
    Yaku.SANKO: "Sankō",
    Yaku.HANAMI: "Hanami",
    Yaku.TSUKIMI: "Tsukimi",
    Yaku.INOSHIKACHO: "Inoshikachō",
    Yaku.AKATAN_AOTAN: "Chōfuku",
    Yaku.AKATAN: "Akatan",
    Yaku.AOTAN: "Aotan",
    Yaku.TRIAD: "Triad",
    Yaku.TANE: "Tane",
    Yaku.TAN: "Tan",
    Yaku.KASU: "Kasu",
    Yaku.TESHI: "Teshi",
    Yaku.KUTTSUKI: "Kuttsuki",
}

_LIGHT_YAKU = {Yaku.GOKO, Yaku.SHIKO, Yaku.AME_SHIKO, Yaku.SANKO}


def short_name(yaku: Yaku) -> str:
    """A yaku's name without its gloss (``Inoshikachō``), short enough for a tracker line."""
    return _SHORT[yaku]


@dataclass(frozen=True, slots=True)
class Progress:
    """One line of the tracker: a yaku made (``points`` set) or under way (``have`` of ``need``)."""

    yaku: Yaku
    have: int
    need: int
    points: int | None = None

    @property
    def made(self) -> bool:
        return self.points is not None

    def __str__(self) -> str:
        name = short_name(self.yaku)
        return f"{name} {self.points}" if self.points is not None else f"{name} {self.have}/{self.need}"


def _mask(test: Callable[[Card], bool]) -> int:
    return sum(c.bit for c in Card if test(c))


_LIGHTS = _mask(lambda c: c.kind is Kind.BRIGHT)
_ANIMALS = _mask(lambda c: c.kind is Kind.ANIMAL)
_RIBBONS = _mask(lambda c: c.kind is Kind.RIBBON)
_PLAINS = _mask(lambda c: c.kind is Kind.PLAIN)
_POEM = _mask(lambda c: c.role is Role.POEM_RIBBON)
_BLUE = _mask(lambda c: c.role is Role.BLUE_RIBBON)
_BOAR_DEER_BUTTERFLIES = Card.CLOVER_BOAR.bit | Card.MAPLE_DEER.bit | Card.PEONY_BUTTERFLIES.bit
_RAIN = Card.WILLOW_RAIN.bit
_SAKE = Card.CHRYSANTHEMUM_SAKE.bit


def _count(caps: int, mask: int) -> int:
    return (caps & mask).bit_count()


def progress(caps: int, rules: RuleSet, table: YakuTable | None = None, *, theirs: int = 0) -> list[Progress]:
    """The tracker of one pile of captures: yaku made first (most points first), then the ones
    under way, closest first. A family shows only once a card of it is held, and only while
    enough of its cards are out of ``theirs`` (the other player's captures) to finish it."""
    made = (table or YakuTable(rules)).score(caps)
    done = {y.yaku for y in made}
    out = [Progress(y.yaku, 0, 0, y.points) for y in sorted(made, key=lambda y: -y.points)]
    under_way: list[Progress] = []

    def track(yaku: Yaku, family: int, need: int) -> None:
        have = _count(caps, family)
        alive = _count(family, ~theirs) >= need  # enough of the family is not the other's for good
        if yaku not in done and 0 < have < need and alive:
            under_way.append(Progress(yaku, have, need))

    if not done & _LIGHT_YAKU:
        track(Yaku.SANKO, _LIGHTS if rules.rain_in_sanko else _LIGHTS & ~_RAIN, 3)
    if rules.viewing_yaku:
        track(Yaku.HANAMI, Card.CHERRY_CURTAIN.bit | _SAKE, 2)
        track(Yaku.TSUKIMI, Card.PAMPAS_MOON.bit | _SAKE, 2)
    track(Yaku.INOSHIKACHO, _BOAR_DEER_BUTTERFLIES, 3)
    if Yaku.AKATAN_AOTAN not in done:
        track(Yaku.AKATAN, _POEM, 3)
        track(Yaku.AOTAN, _BLUE, 3)
    track(Yaku.TANE, _ANIMALS, 5)
    track(Yaku.TAN, _RIBBONS, 5)
    track(Yaku.KASU, _PLAINS | _SAKE if rules.sake_as_plain else _PLAINS, 10)
    under_way.sort(key=lambda p: (-(p.have / p.need), -p.have))
    return out + under_way


def captured_by_kind(caps: int) -> dict[Kind, list[Card]]:
    """Captures grouped as the table shows them: brights, animals, ribbons, plains."""
    groups: dict[Kind, list[Card]] = {kind: [] for kind in Kind}
    for card in cards_of(caps):
        groups[card.kind].append(card)
    return groups
