"""Who may see which deck position: the reveal plan of a deal.

The engine's deal pattern (:func:`p2p_koikoi.engine.deal.deal_layout`) maps
deck positions to the dealer's hand, the non-dealer's hand, the table and the
stock. Here that becomes, per seat:

- the table: revealed to both first (both send their keys), so the engine
  can check it for a redeal;
- its hand: revealed to it alone next (the other seat sends its keys);
- the stock (positions 24..47 in draw order): one position revealed to both
  per draw; positions never drawn are only revealed by the audit.

The rulebook's hand exchange swaps the two hands' position ranges before
anything is revealed.

>>> plan = reveal_plan(DealPattern.EIGHT, dealer_seat=1)
>>> plan.hands[0], plan.table[:3], plan.stock[0]
((0, 1, 2, 3, 4, 5, 6, 7), (8, 9, 10), 24)
>>> plan.initial_release(1) == tuple(sorted(plan.hands[0] + plan.table))
True
>>> reveal_plan(DealPattern.EIGHT, dealer_seat=1, exchanged=True).hands[0][0]
16
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_koikoi.engine.deal import DealPattern, deal_layout

__all__ = ["RevealPlan", "reveal_plan"]


@dataclass(frozen=True, slots=True)
class RevealPlan:
    """Deck positions by destination, with the hands indexed by seat."""

    hands: tuple[tuple[int, ...], tuple[int, ...]]
    table: tuple[int, ...]
    stock: tuple[int, ...]

    def hand(self, seat: int) -> tuple[int, ...]:
        return self.hands[seat]

    def initial_release(self, seat: int) -> tuple[int, ...]:
        """The positions ``seat`` sends its keys for at the start (ascending):
        the other seat's hand and the table."""
        return tuple(sorted(self.hands[1 - seat] + self.table))

    def release_groups(self, seat: int) -> tuple[tuple[int, ...], ...]:
        """The groups of positions ``seat`` releases its keys for, in order:
        the table, the other seat's hand, then one stock position per draw."""
        return (
            tuple(sorted(self.table)),
            tuple(sorted(self.hands[1 - seat])),
            *((position,) for position in self.stock),
        )

    def initially_visible(self, seat: int) -> tuple[int, ...]:
        """The positions ``seat`` knows after the initial reveals: its hand and the table."""
        return tuple(sorted(self.hands[seat] + self.table))

    def exchanged(self) -> RevealPlan:
        """The plan with the two hands' positions swapped."""
        return RevealPlan(hands=(self.hands[1], self.hands[0]), table=self.table, stock=self.stock)


def reveal_plan(pattern: DealPattern, dealer_seat: int, *, exchanged: bool = False) -> RevealPlan:
    """The reveal plan of a round dealt by ``dealer_seat`` under ``pattern``."""
    if dealer_seat not in (0, 1):
        raise ValueError("a seat is 0 or 1")
    layout = deal_layout(pattern)
    hands = (layout.dealer, layout.non_dealer) if dealer_seat == 0 else (layout.non_dealer, layout.dealer)
    plan = RevealPlan(hands=hands, table=layout.table, stock=layout.stock)
    return plan.exchanged() if exchanged else plan
