"""The four passes over the deck, unlocking, and the checks on a received deck.

With card points ``D0[c]`` (card index order), seat 0 (player A) and seat 1
(player B) with contributions ``(pi, m, u)``::

    pass 1 (A, shuffle):  D1[k] = mA * D0[piA[k]]
    pass 2 (B, shuffle):  D2[k] = mB * D1[piB[k]]
    pass 3 (A, lock):     D3[k] = (mA * uA[k])**-1 * D2[k]
    pass 4 (B, lock):     D4[k] = (mB * uB[k])**-1 * D3[k]

so ``D4[k] = (uA[k] * uB[k])**-1 * D0[piA[piB[k]]]``: position ``k`` is locked
by one key of each player, and ``(uA[k] * uB[k]) * D4[k]`` is its card point.
Pure functions, no state.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.cardpoints import card_of_point
from p2p_koikoi.fairness.derive import DECK_SIZE, Contribution
from p2p_koikoi.fairness.errors import Reason

__all__ = [
    "deck_order",
    "deck_problem",
    "lock",
    "pass_owner",
    "shuffle",
    "unlock",
]


def pass_owner(number: int) -> int:
    """The seat that computes pass ``number`` (1 and 3: seat 0; 2 and 4: seat 1)."""
    return (number - 1) % 2


def shuffle(deck: Sequence[bytes], contribution: Contribution) -> tuple[bytes, ...]:
    """A shuffle pass: permute, then mask every point."""
    masks = [contribution.mask] * len(contribution.permutation)
    return tuple(group.mul_each(masks, [deck[i] for i in contribution.permutation]))


def lock(deck: Sequence[bytes], contribution: Contribution) -> tuple[bytes, ...]:
    """A lock pass: swap the mask for one lock per position."""
    return tuple(group.mul_each(contribution.lock_factors, deck))


def unlock(point: bytes, key_a: bytes, key_b: bytes) -> Card | None:
    """The card at a fully locked position given both unlock keys, or ``None``."""
    return card_of_point(group.mul(group.scalar_mul(key_a, key_b), point))


def deck_order(seat0: Contribution, seat1: Contribution) -> tuple[Card, ...]:
    """The card at each final position, from both contributions (no group work)."""
    return tuple(Card(seat0.permutation[seat1.permutation[k]]) for k in range(DECK_SIZE))


def deck_problem(points: Sequence[bytes]) -> tuple[Reason, str] | None:
    """What is wrong with a received deck, or ``None`` if it may be used.

    A deck must hold exactly 48 valid, pairwise distinct points. Equal points
    are compared as bytes, which is exact because encodings are canonical.
    """
    if len(points) != DECK_SIZE:
        return Reason.DECK_SIZE, f"the deck holds {len(points)} points, not {DECK_SIZE}"
    for position, point in enumerate(points):
        if not group.is_valid_point(point):
            return Reason.INVALID_POINT, f"the point at position {position} is not a valid group element"
    if len(set(points)) != DECK_SIZE:
        seen: dict[bytes, int] = {}
        for position, point in enumerate(points):
            if point in seen:
                return Reason.DUPLICATE_POINT, f"positions {seen[point]} and {position} hold the same point"
            seen[point] = position
    return None
