"""The deal as data: which deck positions go to which hand, the table and the stock.

The engine never shuffles. A deal arrives as a deck order (48 cards, position 0
first), from the fair-deal protocol or from a test, and a deal pattern maps the
positions to the dealer's hand, the other player's hand, the table and the
stock. The mapping is part of the protocol: the deal protocol reveals a card to
a player by its position, so both sides and any auditor must agree on it.

Patterns, as the sources deal them:

- ``8-8-8``: 8 to the non-dealer, 8 to the table, 8 to the dealer.
- ``4-4``: the rulebook (001): 4 to the non-dealer, 4 to the dealer, 4 to the
  table, then the same again.
- ``2-2``: Gameweave (003): 2 to the non-dealer, 2 to the table, 2 to the
  dealer, four times over.

The stock is always positions 24..47, drawn in that order.

>>> layout = deal_layout(DealPattern.TWO_TWO)
>>> layout.non_dealer[:4], layout.table[:4], layout.dealer[:4]
((0, 1, 6, 7), (2, 3, 8, 9), (4, 5, 10, 11))
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from p2p_koikoi.engine.cards import Card, cards_of, format_cards, mask_of
from p2p_koikoi.engine.errors import EngineError

__all__ = ["HAND_SIZE", "STOCK_SIZE", "TABLE_SIZE", "Deal", "DealLayout", "DealPattern", "deal_layout"]

HAND_SIZE = 8
TABLE_SIZE = 8
STOCK_SIZE = 24


class DealPattern(enum.Enum):
    EIGHT = "8-8-8"
    FOUR_FOUR = "4-4"
    TWO_TWO = "2-2"


@dataclass(frozen=True, slots=True)
class DealLayout:
    """Deck positions of each destination, in dealing order."""

    non_dealer: tuple[int, ...]
    dealer: tuple[int, ...]
    table: tuple[int, ...]
    stock: tuple[int, ...]

    def hand(self, seat: int, dealer_seat: int) -> tuple[int, ...]:
        """The positions dealt to ``seat`` when ``dealer_seat`` deals."""
        return self.dealer if seat == dealer_seat else self.non_dealer


# Each pattern is a cycle of (destination, count) steps over the first 24 positions.
_STEPS: dict[DealPattern, tuple[tuple[str, int], ...]] = {
    DealPattern.EIGHT: (("non_dealer", 8), ("table", 8), ("dealer", 8)),
    DealPattern.FOUR_FOUR: (("non_dealer", 4), ("dealer", 4), ("table", 4)) * 2,
    DealPattern.TWO_TWO: (("non_dealer", 2), ("table", 2), ("dealer", 2)) * 4,
}


@cache
def deal_layout(pattern: DealPattern) -> DealLayout:
    """The positions of each destination under ``pattern``."""
    places: dict[str, list[int]] = {"non_dealer": [], "dealer": [], "table": []}
    position = 0
    for destination, count in _STEPS[pattern]:
        places[destination].extend(range(position, position + count))
        position += count
    return DealLayout(
        non_dealer=tuple(places["non_dealer"]),
        dealer=tuple(places["dealer"]),
        table=tuple(places["table"]),
        stock=tuple(range(position, 48)),
    )


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one deal: two hands (by seat), the table and the stock in draw order."""

    hands: tuple[int, int]
    table: int
    stock: tuple[Card, ...]

    @classmethod
    def from_deck(cls, deck: list[int] | tuple[int, ...], pattern: DealPattern, dealer: int) -> Deal:
        """Deal a full deck order (48 distinct cards) by ``pattern``."""
        if sorted(deck) != list(range(48)):
            raise EngineError("a deck must hold each of the 48 cards exactly once")
        layout = deal_layout(pattern)
        hand_dealer = mask_of(deck[p] for p in layout.dealer)
        hand_other = mask_of(deck[p] for p in layout.non_dealer)
        hands = (hand_dealer, hand_other) if dealer == 0 else (hand_other, hand_dealer)
        return cls(
            hands=hands,
            table=mask_of(deck[p] for p in layout.table),
            stock=tuple(Card(deck[p]) for p in layout.stock),
        )

    def to_deck(self, pattern: DealPattern, dealer: int) -> list[int]:
        """The deck order that deals this deal; the inverse of :meth:`from_deck` up to the order within a hand."""
        layout = deal_layout(pattern)
        deck = [0] * 48
        for positions, mask in (
            (layout.dealer, self.hands[dealer]),
            (layout.non_dealer, self.hands[1 - dealer]),
            (layout.table, self.table),
        ):
            for position, card in zip(positions, cards_of(mask), strict=True):
                deck[position] = card
        for position, card in zip(layout.stock, self.stock, strict=True):
            deck[position] = card
        return deck

    def describe(self) -> str:
        return (
            f"hand 0: {format_cards(self.hands[0])}\n"
            f"hand 1: {format_cards(self.hands[1])}\n"
            f"table: {format_cards(self.table)}\n"
            f"stock: {' '.join(c.id for c in self.stock)}"
        )
