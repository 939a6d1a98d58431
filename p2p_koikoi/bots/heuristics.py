"""How much each card is worth to each seat right now: the shared judgement of the greedy bot and the rollouts.

A card's worth is not fixed: a third poem ribbon is worth far more to a seat
holding two than a first one, and nothing once the other seat has taken one.
:func:`card_worths` turns both capture piles into one number per card and seat,
from the yaku groups of the rule set (:func:`yaku_groups`): each group a card
belongs to adds the group's points divided by the cards still missing, so the
closer a seat is to a yaku the more its cards weigh, and a dead group adds
nothing. A card's worth to a seat also counts what it would be worth to the
other seat, since taking it denies it.

The numbers are a cheap heuristic, not a model of the game: the greedy bot uses
them to rank its moves, and the search bot's rollouts to play plausibly fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from p2p_koikoi.engine import Card, Kind, Role, RuleSet
from p2p_koikoi.engine.rules import Doubling
from p2p_koikoi.engine.yaku import (
    ANIMALS,
    BLUE,
    BOAR_DEER_BUTTERFLIES,
    BRIGHTS,
    CURTAIN,
    MOON,
    PLAINS,
    POEM,
    RAIN,
    RIBBONS,
    SAKE,
)

__all__ = ["DENIAL", "KOIKOI_MIN_HAND", "YakuGroup", "card_worths", "cards_to_rise", "koikoi_pays", "yaku_groups"]

# How much a card the other seat wants is worth to us, relative to what it is worth to them.
DENIAL = 0.6

# A little worth by kind, so that among cards no yaku wants the brighter one is still kept.
_KIND_WORTH = {Kind.BRIGHT: 0.6, Kind.ANIMAL: 0.3, Kind.RIBBON: 0.25, Kind.PLAIN: 0.1}
_BASE = tuple(_KIND_WORTH[c.kind] + (0.2 if c.role is not Role.NONE else 0.0) for c in Card)


@dataclass(frozen=True, slots=True)
class YakuGroup:
    """Cards of which ``need`` make a yaku worth ``points``; ``extra`` more points for each card beyond."""

    cards: int
    need: int
    points: int
    extra: float


@cache
def yaku_groups(rules: RuleSet) -> tuple[YakuGroup, ...]:
    """The yaku a seat can build under ``rules``, as groups of cards (cached: a rule set is immutable)."""
    plains = PLAINS | SAKE if rules.sake_as_plain else PLAINS
    # Without rain in Sanko the rain man only adds to four or five lights: its kind worth is enough.
    lights = BRIGHTS if rules.rain_in_sanko else BRIGHTS & ~RAIN
    groups = [
        YakuGroup(lights, 3, 5, 2.5),
        YakuGroup(BOAR_DEER_BUTTERFLIES, 3, 5, 1.0 if rules.set_extras else 0.0),
        YakuGroup(POEM, 3, 5, 1.0 if rules.set_extras else 0.0),
        YakuGroup(BLUE, 3, 5, 1.0 if rules.set_extras else 0.0),
        YakuGroup(ANIMALS, 5, 1, 1.0),
        YakuGroup(RIBBONS, 5, 1, 1.0),
        YakuGroup(plains, 10, 1, 1.0),
    ]
    if rules.viewing_yaku:
        groups.append(YakuGroup(CURTAIN | SAKE, 2, 5, 0.0))
        groups.append(YakuGroup(MOON | SAKE, 2, 5, 0.0))
    return tuple(groups)


def _group_worth(group: YakuGroup, mine: int, theirs: int) -> float:
    """What one more card of ``group`` is worth to the seat that holds ``mine`` while the other holds ``theirs``."""
    have = (mine & group.cards).bit_count()
    if have >= group.need:
        return group.extra
    lost = (theirs & group.cards).bit_count()
    if group.cards.bit_count() - lost < group.need:
        return 0.0
    missing = group.need - have
    return group.points / missing


def card_worths(rules: RuleSet, mine: int, theirs: int) -> list[float]:
    """Each card's worth (index = card) to the seat whose captures are ``mine``, denial included."""
    worth = list(_BASE)
    for group in yaku_groups(rules):
        gain = _group_worth(group, mine, theirs) + DENIAL * _group_worth(group, theirs, mine)
        if gain:
            cards = group.cards
            while cards:
                low = cards & -cards
                worth[low.bit_length() - 1] += gain
                cards ^= low
    return worth


def cards_to_rise(rules: RuleSet, mine: int, theirs: int) -> int:
    """The fewest more cards the seat holding ``mine`` needs for its yaku total to rise (99 if it cannot).

    A yaku counted by cards (Tane, Tan, Kasu, lights) rises with each card past
    the first, so a seat that holds one is always one card from a rise while
    cards of it are still free.
    """
    best = 99
    taken = mine | theirs
    for group in yaku_groups(rules):
        have = (mine & group.cards).bit_count()
        free = (group.cards & ~taken).bit_count()
        if have >= group.need:
            if group.extra and free:
                best = min(best, 1)
        elif free >= group.need - have:
            best = min(best, group.need - have)
    return best


# Koi-Koi needs at least this many hand cards left to have a fair chance of another rise.
KOIKOI_MIN_HAND = 4
_DOUBLING_LINE = {Doubling.AT_7: 7, Doubling.AT_8: 8, Doubling.NEVER: 1_000}


def koikoi_pays(rules: RuleSet, hand_size: int, total: int, mine: int, theirs: int) -> bool:
    """The simple Koi-Koi rule: call only when another rise is one card away and the other seat's is not.

    Also only with cards enough left to play, and below the doubling line (above
    it a stop is already worth double, and a loss would throw that away).
    """
    return (
        hand_size >= KOIKOI_MIN_HAND
        and total < _DOUBLING_LINE[rules.doubling]
        and cards_to_rise(rules, mine, theirs) == 1
        and cards_to_rise(rules, theirs, mine) >= 2
    )
