"""The prime-order group: ristretto255 (RFC 9496) from libsodium, through rbcl.

A thin, typed wrapper. Points and scalars are plain 32-byte ``bytes``: points
in the canonical ristretto255 encoding, scalars little-endian and reduced
modulo the group order ``L = 2**252 + 27742317777372353535851937790883648493``.
Nothing here is implemented by hand: every group and scalar operation is one
libsodium call, made through rbcl, a binding that bundles libsodium in its
wheels (``protocol/DEAL.md`` gives the figures that chose it over PyNaCl's
Ed25519 functions). The one exception is the first two steps of decoding, two
integer comparisons (:func:`is_valid_element`).

Why ristretto255 and not raw Ed25519: every valid encoding is an element of
the prime-order group, so validating a received point is a cheap decode
(about 7 µs) instead of a multiplication by ``L`` (about 80 µs), and there is
no cofactor through which a malicious point could leak bits of our keys.

Validation rules (used on everything a peer sends):

- an element decodes if it passes RFC 9496 section 4.3.1 exactly
  (:func:`is_valid_element`): the canonicity and sign of ``s`` are checked
  here, as the RFC states them, because the libsodium that rbcl bundles reads
  ``s`` modulo ``2**255`` (it ignores bit 255); the curve decode is libsodium's;
- a point is valid if it decodes and is not the identity (all zero bytes);
- a scalar is valid if it is canonical (``< L``) and not zero.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence

import rbcl  # type: ignore[import-untyped, unused-ignore]

from p2p_koikoi.fairness.spread import each, halves

__all__ = [
    "HASH_BYTES",
    "IDENTITY",
    "POINT_BYTES",
    "SCALAR_BYTES",
    "add",
    "batch_invert",
    "from_hash",
    "is_canonical_scalar",
    "is_valid_element",
    "is_valid_point",
    "is_valid_scalar",
    "mul",
    "mul_any",
    "mul_base",
    "mul_base_any",
    "mul_base_each",
    "mul_each",
    "mul_sum",
    "scalar_add",
    "scalar_from_wide",
    "scalar_invert",
    "scalar_mul",
    "scalar_negate",
    "scalar_sub",
    "sub",
    "sum_points",
]

POINT_BYTES = 32
SCALAR_BYTES = 32
HASH_BYTES = 64
IDENTITY = bytes(POINT_BYTES)
_ZERO_SCALAR = bytes(SCALAR_BYTES)
_PAD = bytes(32)
_FIELD_PRIME = 2**255 - 19  # p, the field of Curve25519 (RFC 9496 section 4.1)


def _forget_temporary_library() -> None:
    """Remove the copy of libsodium that rbcl writes to the temp dir on import.

    rbcl 1.1 loads its bundled libsodium by writing it to a fresh temporary
    file and never deletes it, which leaks about 3 MB per process. Once the
    library is mapped the file is no longer needed (POSIX keeps the mapping);
    on systems that refuse to unlink a loaded library the file simply stays.
    Only a file rbcl itself created in the temp dir is ever touched.
    """
    path = getattr(getattr(rbcl, "_sodium", None), "_name", None)
    if not isinstance(path, str):
        return
    folder, name = os.path.split(os.path.abspath(path))
    if folder == os.path.abspath(tempfile.gettempdir()) and name.startswith("tmp"):
        with contextlib.suppress(OSError):
            os.unlink(path)


_forget_temporary_library()


def is_valid_point(point: bytes) -> bool:
    """True for the canonical encoding of a non-identity group element (:func:`is_valid_element`)."""
    return point != IDENTITY and is_valid_element(point)


def is_valid_scalar(scalar: bytes) -> bool:
    """True for a canonical (reduced) non-zero scalar."""
    if len(scalar) != SCALAR_BYTES or scalar == _ZERO_SCALAR:
        return False
    reduced: bytes = rbcl.crypto_core_ristretto255_scalar_reduce(scalar + _PAD)
    return reduced == scalar


def is_valid_element(point: bytes) -> bool:
    """True if ``point`` decodes as RFC 9496 section 4.3.1 (Decode) says: any group element, the identity included.

    - Step 1: the string is 32 bytes, and ``s``, the string read as a
      little-endian integer, is ``< p = 2**255 - 19``. Bit 255 is not masked,
      so a set top bit of the last byte fails here, as does any other
      non-canonical field encoding (``s`` from ``p`` to ``2**255 - 1``).
    - Step 2: ``IS_NEGATIVE(s)`` (``s mod p`` odd; ``s < p`` already) fails.
    - Steps 3 and 4 (the square root, and the checks of ``was_square``,
      the sign of ``t`` and ``y = 0``): libsodium's
      ``crypto_core_ristretto255_is_valid_point``.

    Steps 1 and 2 are ours because the libsodium that rbcl 1.1 bundles
    checks ``s`` modulo ``2**255``: it takes ``s + 2**255`` for ``s`` (a
    second spelling of every element, and ``00..80`` for the identity).
    ``protocol/vectors/ristretto-decoding.json`` lists the cases.

    Proofs carry commitments that an honest prover makes non-identity only
    with overwhelming probability; the verifier must still compute with them.
    """
    if len(point) != POINT_BYTES:  # step 1
        return False
    s = int.from_bytes(point, "little")
    if s >= _FIELD_PRIME or s & 1:  # step 1: s < p; step 2: not IS_NEGATIVE(s)
        return False
    return bool(rbcl.crypto_core_ristretto255_is_valid_point(point))  # steps 3 and 4


def is_canonical_scalar(scalar: bytes) -> bool:
    """True for a canonical (reduced) scalar, zero included (proof responses)."""
    if len(scalar) != SCALAR_BYTES:
        return False
    reduced: bytes = rbcl.crypto_core_ristretto255_scalar_reduce(scalar + _PAD)
    return reduced == scalar


def from_hash(digest: bytes) -> bytes:
    """The RFC 9496 element derivation ("one-way map") of 64 uniform bytes."""
    if len(digest) != HASH_BYTES:
        raise ValueError("hash-to-group needs exactly 64 bytes")
    point: bytes = rbcl.crypto_core_ristretto255_from_hash(digest)
    return point


def scalar_from_wide(data: bytes) -> bytes:
    """Reduce 64 bytes (little-endian) modulo ``L``; may return zero."""
    if len(data) != HASH_BYTES:
        raise ValueError("a wide scalar is exactly 64 bytes")
    scalar: bytes = rbcl.crypto_core_ristretto255_scalar_reduce(data)
    return scalar


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """``a * b mod L``."""
    product: bytes = rbcl.crypto_core_ristretto255_scalar_mul(a, b)
    return product


def scalar_add(a: bytes, b: bytes) -> bytes:
    """``a + b mod L``."""
    total: bytes = rbcl.crypto_core_ristretto255_scalar_add(a, b)
    return total


def scalar_sub(a: bytes, b: bytes) -> bytes:
    """``a - b mod L``."""
    difference: bytes = rbcl.crypto_core_ristretto255_scalar_sub(a, b)
    return difference


def scalar_negate(a: bytes) -> bytes:
    """``-a mod L``."""
    negated: bytes = rbcl.crypto_core_ristretto255_scalar_negate(a)
    return negated


def scalar_invert(a: bytes) -> bytes:
    """``a**-1 mod L``; ``a`` must be non-zero."""
    inverse: bytes = rbcl.crypto_core_ristretto255_scalar_invert(a)
    return inverse


def batch_invert(scalars: Sequence[bytes]) -> list[bytes]:
    """Invert many non-zero scalars with one inversion (Montgomery's trick).

    With prefix products ``p_i = s_0 * ... * s_i``: ``inv = p_{n-1}**-1``, then
    walking back, ``s_i**-1 = inv * p_{i-1}`` and ``inv = inv * s_i``. Every
    step is a libsodium scalar multiplication; only the structure is ours.
    """
    if not scalars:
        return []
    prefix: list[bytes] = [scalars[0]]
    for s in scalars[1:]:
        prefix.append(scalar_mul(prefix[-1], s))
    inv = scalar_invert(prefix[-1])
    out: list[bytes] = [b""] * len(scalars)
    for i in range(len(scalars) - 1, 0, -1):
        out[i] = scalar_mul(inv, prefix[i - 1])
        inv = scalar_mul(inv, scalars[i])
    out[0] = inv
    return out


def mul(scalar: bytes, point: bytes) -> bytes:
    """``scalar * point``.

    libsodium refuses (and rbcl raises ``RuntimeError``) if the point does
    not decode or the result is the identity; callers validate first, so an
    error here means a bug of ours, not the peer's.
    """
    product: bytes = rbcl.crypto_scalarmult_ristretto255(scalar, point)
    return product


def mul_base(scalar: bytes) -> bytes:
    """``scalar * B`` for the ristretto255 generator ``B``."""
    product: bytes = rbcl.crypto_scalarmult_ristretto255_base(scalar)
    return product


def mul_any(scalar: bytes, point: bytes) -> bytes:
    """``scalar * point`` where the scalar may be zero and the point or result the identity.

    A proof verifier computes with values the prover chose; this variant never
    raises on them (the inputs must still be canonical encodings).
    """
    product: bytes = rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero(scalar, point)
    return product


def add(p: bytes, q: bytes) -> bytes:
    """``p + q``."""
    total: bytes = rbcl.crypto_core_ristretto255_add(p, q)
    return total


def sub(p: bytes, q: bytes) -> bytes:
    """``p - q``."""
    difference: bytes = rbcl.crypto_core_ristretto255_sub(p, q)
    return difference


def sum_points(points: Sequence[bytes]) -> bytes:
    """The sum of ``points`` (the identity for none)."""
    total = IDENTITY
    for point in points:
        total = add(total, point)
    return total


def mul_base_any(scalar: bytes) -> bytes:
    """``scalar * B`` where the scalar may be zero (a proof response)."""
    product: bytes = rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero(scalar)
    return product


def mul_each(scalars: Sequence[bytes], points: Sequence[bytes]) -> list[bytes]:
    """``[s * p for s, p in zip(scalars, points)]`` (as :func:`mul`), on two cores where there are two."""
    return each(mul, scalars, points)


def mul_base_each(scalars: Sequence[bytes]) -> list[bytes]:
    """``[s * B for s in scalars]``, zero scalars allowed (as :func:`mul_base_any`), on two cores."""
    return each(mul_base_any, scalars)


def mul_sum(scalars: Sequence[bytes], points: Sequence[bytes]) -> bytes:
    """``sum_i scalars[i] * points[i]`` (as :func:`mul_any`: zero and the identity allowed), on two cores.

    libsodium has no multi-scalar multiplication, so this is one
    multiplication per term; only the two halves run at once.
    """
    rows = list(zip(scalars, points, strict=True))
    return sum_points(halves(_sum_of_products, rows))


def _sum_of_products(rows: Sequence[tuple[bytes, bytes]]) -> bytes:
    return sum_points([mul_any(scalar, point) for scalar, point in rows])
