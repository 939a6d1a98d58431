"""Everything a player contributes, derived from its 32-byte secret with HKDF.

The context of a deal (:class:`DealContext`) and the player's identity key
make the *binding*, which every derivation and the commitment include, so one
secret never yields the same contribution in two deals or for two players::

    context = u8 version (=2) || u8 purpose || u8 len(match_id) || match_id
              || u32be round || u32be redeal
    binding = context || identity_key (32 bytes, the Ed25519 public key)

Each derivation is HKDF-SHA-512 (RFC 5869) with ``IKM = secret``,
``salt = HKDF_SALT`` and ``info = label || 0x00 || binding [|| u32be block]``:

- mask: ``L = 64`` bytes with label ``.../mask``, reduced mod ``L``;
- unlock keys: ``L = 48 * 64`` bytes with label ``.../unlock-keys``; key ``k``
  is bytes ``64k .. 64k+63`` reduced mod ``L``;
- permutation: a byte stream, the concatenation of 64-byte blocks
  ``block = 0, 1, 2, ...`` with label ``.../permutation`` and the block number
  appended. Fisher-Yates from the top: for ``i = 47`` down to ``1``, draw
  ``j`` uniform in ``0..i`` by taking the next byte ``b`` and rejecting it while
  ``b >= 256 - 256 % (i + 1)``, then ``j = b % (i + 1)``; swap items ``i`` and
  ``j`` of ``[0, 1, ..., 47]``. Rejection makes every ``j`` exactly uniform.

A derived scalar of zero makes the secret unusable (:class:`UnusableSecret`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.errors import UnusableSecret

__all__ = [
    "DECK_SIZE",
    "HKDF_SALT",
    "LABEL_MASK",
    "LABEL_PERMUTATION",
    "LABEL_UNLOCK_KEYS",
    "PROTOCOL_VERSION",
    "SECRET_BYTES",
    "Contribution",
    "DealContext",
    "Purpose",
    "binding",
    "derive_contribution",
    "derive_mask",
    "derive_permutation",
    "derive_unlock_keys",
]

PROTOCOL_VERSION = 2
DECK_SIZE = 48
SECRET_BYTES = 32
IDENTITY_BYTES = 32

HKDF_SALT = b"p2p-koikoi/deal/v1"
LABEL_MASK = b"p2p-koikoi/deal/v1/mask"
LABEL_UNLOCK_KEYS = b"p2p-koikoi/deal/v1/unlock-keys"
LABEL_PERMUTATION = b"p2p-koikoi/deal/v1/permutation"


class Purpose(enum.IntEnum):
    """What a context is for; part of every binding, so the uses never mix."""

    ROUND_DEAL = 0
    """The deal of one round (or of one redeal of it)."""
    DEALER_DRAW = 1
    """Each player draws a card to decide the first dealer."""
    COIN_FLIP = 2
    """The commit-reveal coin flip that decides the first dealer."""


@dataclass(frozen=True, slots=True)
class DealContext:
    """Which deal this is: the match, the round, the redeal, the purpose."""

    match_id: bytes
    round: int = 0
    redeal: int = 0
    purpose: Purpose = Purpose.ROUND_DEAL

    def __post_init__(self) -> None:
        if not isinstance(self.match_id, bytes) or not 1 <= len(self.match_id) <= 255:
            raise ValueError("match_id must be 1 to 255 bytes")
        for name, value in (("round", self.round), ("redeal", self.redeal)):
            if not 0 <= value < 2**32:
                raise ValueError(f"{name} must fit in 32 bits")

    def to_bytes(self) -> bytes:
        return (
            bytes([PROTOCOL_VERSION, int(self.purpose), len(self.match_id)])
            + self.match_id
            + self.round.to_bytes(4, "big")
            + self.redeal.to_bytes(4, "big")
        )


def binding(context: DealContext, identity: bytes) -> bytes:
    """``context || identity``: what a commitment and every derivation bind."""
    if len(identity) != IDENTITY_BYTES:
        raise ValueError("an identity key is 32 bytes")
    return context.to_bytes() + identity


def _hkdf(secret: bytes, label: bytes, info_tail: bytes, length: int) -> bytes:
    kdf = HKDF(algorithm=hashes.SHA512(), length=length, salt=HKDF_SALT, info=label + b"\x00" + info_tail)
    return kdf.derive(secret)


def _check_secret(secret: bytes) -> None:
    if not isinstance(secret, bytes) or len(secret) != SECRET_BYTES:
        raise ValueError("a secret is exactly 32 bytes")


def derive_mask(secret: bytes, bound: bytes) -> bytes:
    """The masking scalar (may be zero: :func:`derive_contribution` checks)."""
    _check_secret(secret)
    return group.scalar_from_wide(_hkdf(secret, LABEL_MASK, bound, 64))


def derive_unlock_keys(secret: bytes, bound: bytes) -> tuple[bytes, ...]:
    """The 48 per-position unlock keys."""
    _check_secret(secret)
    stream = _hkdf(secret, LABEL_UNLOCK_KEYS, bound, 64 * DECK_SIZE)
    return tuple(group.scalar_from_wide(stream[64 * k : 64 * k + 64]) for k in range(DECK_SIZE))


def _permutation_bytes(secret: bytes, bound: bytes) -> Iterator[int]:
    block = 0
    while True:
        yield from _hkdf(secret, LABEL_PERMUTATION, bound + block.to_bytes(4, "big"), 64)
        block += 1


def derive_permutation(secret: bytes, bound: bytes) -> tuple[int, ...]:
    """A uniform permutation of ``0..47`` (Fisher-Yates with rejection sampling)."""
    _check_secret(secret)
    stream = _permutation_bytes(secret, bound)
    items = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % n
        items[i], items[j] = items[j], items[i]
    return tuple(items)


@dataclass(frozen=True)
class Contribution:
    """One player's part of a deal.

    ``permutation[k]`` is the input position whose point lands at output
    position ``k`` of the shuffle pass. ``mask`` masks that pass. ``unlock_keys[k]``
    is the key sent to reveal position ``k``; the lock pass multiplies position
    ``k`` by ``(mask * unlock_keys[k])**-1``, removing the mask and locking.
    """

    permutation: tuple[int, ...]
    mask: bytes
    unlock_keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if sorted(self.permutation) != list(range(DECK_SIZE)):
            raise ValueError("a permutation of 0..47 is needed")
        if len(self.unlock_keys) != DECK_SIZE:
            raise ValueError("48 unlock keys are needed")
        for scalar in (self.mask, *self.unlock_keys):
            if not group.is_valid_scalar(scalar):
                raise UnusableSecret("a derived scalar is zero or not canonical")

    @cached_property
    def lock_factors(self) -> tuple[bytes, ...]:
        """``(mask * unlock_keys[k])**-1`` for every position ``k``."""
        return tuple(group.batch_invert([group.scalar_mul(self.mask, key) for key in self.unlock_keys]))


def derive_contribution(secret: bytes, context: DealContext, identity: bytes) -> Contribution:
    """Everything a player contributes to the deal ``context``, from its secret."""
    bound = binding(context, identity)
    return Contribution(
        permutation=derive_permutation(secret, bound),
        mask=derive_mask(secret, bound),
        unlock_keys=derive_unlock_keys(secret, bound),
    )
