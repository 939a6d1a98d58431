"""Moves that play out the same: the search tries one of each kind and gives the others its findings.

Two plain cards of one month (the Pine's two plains, say) count the same in
every yaku of every rule set: no yaku names a plain card by itself, and the
months, kinds and roles that yaku read are the same for both (the Willow's
lightning, the one plain with a part of its own, has the role ``LIGHTNING`` and
stays apart). So playing either, or taking either from the table, leads to
worlds that differ only by which of the two sits where, and the search would
find the same value for both up to its noise. Trying both splits the playouts
for nothing: a hand with two plains of one month is common, and then one move
in every few is a twin. The search tries the first of each kind
(:func:`twin_groups`) and reports its findings for the others, so a review
still gets a value for every legal move.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_koikoi.engine import AnyAction, Card, ChooseCapture, Kind, Play, Role
from p2p_koikoi.engine.cards import Month

__all__ = ["move_kind", "twin_groups"]


def _card_kind(card: Card) -> Card | tuple[Month, Kind]:
    """A card, or (its month, plain) for a plain with no part of its own: the cards no yaku tells apart."""
    if card.kind is Kind.PLAIN and card.role is Role.NONE:
        return (card.month, Kind.PLAIN)
    return card


def move_kind(action: AnyAction) -> object:
    """What the move does, with interchangeable plains made one: equal for moves that play out the same."""
    if isinstance(action, Play):
        target = _card_kind(action.target) if action.target is not None else None
        return ("play", _card_kind(action.card), target)
    if isinstance(action, ChooseCapture):
        return ("choose", _card_kind(action.target))
    return action


def twin_groups(legal: Sequence[AnyAction]) -> list[int]:
    """For each move of ``legal``, the index of the first move of its kind (itself when it is the first)."""
    first: dict[object, int] = {}
    return [first.setdefault(move_kind(action), i) for i, action in enumerate(legal)]
