"""The 48 cards as points of the group, hashed from their canonical ids.

Card ``c`` is the point ``from_hash(SHA-512(CARD_DOMAIN || 0x00 || id))``,
where ``id`` is its canonical id in ASCII (``pine-crane``) and ``from_hash`` is
the RFC 9496 element derivation. Nobody knows the discrete logarithm of one
card point to another, which is what hides a masked card: with ``i * G``
encodings (as some mental-poker packages use) anyone can tell the masked
cards apart by comparing multiples.

The points are computed once, at import, and cached here.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import group

__all__ = ["CARD_DOMAIN", "CARD_POINTS", "card_of_point", "card_point_input"]

CARD_DOMAIN = b"p2p-koikoi/deal/v1/card"


def card_point_input(card: Card) -> bytes:
    """The bytes hashed with SHA-512 to make ``card``'s point."""
    return CARD_DOMAIN + b"\x00" + card.id.encode("ascii")


def _sha512(data: bytes) -> bytes:
    digest = hashes.Hash(hashes.SHA512())
    digest.update(data)
    return digest.finalize()


CARD_POINTS: tuple[bytes, ...] = tuple(group.from_hash(_sha512(card_point_input(card))) for card in Card)
"""``CARD_POINTS[i]`` is the point of the card with protocol index ``i``."""

_CARD_BY_POINT: dict[bytes, Card] = {point: Card(i) for i, point in enumerate(CARD_POINTS)}
if len(_CARD_BY_POINT) != len(CARD_POINTS):  # pragma: no cover - a hash collision
    raise RuntimeError("two card points coincide")


def card_of_point(point: bytes) -> Card | None:
    """The card whose point this is, or ``None`` for any other point."""
    return _CARD_BY_POINT.get(point)
