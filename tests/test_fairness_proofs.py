"""Every deck-pass proof: an honest one holds, and every way of getting it wrong is rejected.

For the shuffle proof (``shuffle_proof.py``) and the lock proof (``dleq.py``): a wrong permutation,
a wrong scalar, one point replaced, two points swapped, a proof for another pass, round or match,
a proof from another key, a truncated proof, and any single altered byte.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS

from p2p_koikoi.fairness import CheatingDetected, Deck, Reason, group
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import DealContext, binding, derive_contribution
from p2p_koikoi.fairness.dleq import LOCK_PROOF_BYTES, LockProof, LockStatement, prove_lock, verify_lock
from p2p_koikoi.fairness.passproof import check_pass, key_matches, make_pass
from p2p_koikoi.fairness.shuffle import lock, shuffle
from p2p_koikoi.fairness.shuffle_proof import (
    SHUFFLE_PROOF_BYTES,
    ProofFormatError,
    ShuffleProof,
    ShuffleStatement,
    prove_shuffle,
    verify_shuffle,
)

A = derive_contribution(SECRETS[0], CONTEXT, IDENTITY_KEYS[0])
BOUND = binding(CONTEXT, IDENTITY_KEYS[0])
OTHER_BINDINGS = {
    "another round": binding(dataclasses.replace(CONTEXT, round=CONTEXT.round + 1), IDENTITY_KEYS[0]),
    "another redeal": binding(dataclasses.replace(CONTEXT, redeal=1), IDENTITY_KEYS[0]),
    "another match": binding(DealContext(b"another match", CONTEXT.round), IDENTITY_KEYS[0]),
    "another key": binding(CONTEXT, IDENTITY_KEYS[1]),
}


def scalar(n: int) -> bytes:
    return n.to_bytes(32, "little")


@cache
def honest_shuffle() -> tuple[ShuffleStatement, ShuffleProof]:
    outputs = shuffle(CARD_POINTS, A)
    statement = ShuffleStatement(BOUND, 1, CARD_POINTS, outputs)
    return statement, prove_shuffle(statement, A.permutation, A.mask, SECRETS[0])


@cache
def honest_lock() -> tuple[LockStatement, LockProof, tuple[bytes, ...]]:
    inputs = shuffle(CARD_POINTS, A)  # any deck of 48 valid points will do as the input
    outputs = lock(inputs, A)
    scalars = tuple(group.scalar_mul(A.mask, key) for key in A.unlock_keys)
    statement = LockStatement(BOUND, 3, inputs, outputs)
    return statement, prove_lock(statement, scalars, SECRETS[0]), scalars


def swapped(points: tuple[bytes, ...], i: int, j: int) -> tuple[bytes, ...]:
    out = list(points)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def replaced(points: tuple[bytes, ...], i: int, point: bytes) -> tuple[bytes, ...]:
    return (*points[:i], point, *points[i + 1 :])


# -- the shuffle proof -------------------------------------------------------------------------


def test_an_honest_shuffle_proof_holds_and_round_trips() -> None:
    statement, proof = honest_shuffle()
    data = proof.to_bytes()
    assert len(data) == SHUFFLE_PROOF_BYTES and ShuffleProof.from_bytes(data) == proof
    assert verify_shuffle(statement, proof) is None
    assert proof.gamma == group.mul_base(A.mask)
    # Deterministic from the secret: a restored session makes the same bytes.
    assert prove_shuffle(statement, A.permutation, A.mask, SECRETS[0]) == proof


def test_a_shuffle_proof_for_a_wrong_permutation_fails() -> None:
    statement, _ = honest_shuffle()
    wrong = (A.permutation[1], A.permutation[0], *A.permutation[2:])
    assert verify_shuffle(statement, prove_shuffle(statement, wrong, A.mask, SECRETS[0])) is not None


def test_a_shuffle_proof_for_a_wrong_scalar_fails() -> None:
    statement, _ = honest_shuffle()
    other = group.scalar_add(A.mask, scalar(1))
    assert verify_shuffle(statement, prove_shuffle(statement, A.permutation, other, SECRETS[0])) is not None
    # Two scalars in one pass: half the deck masked with another scalar, proved with either.
    mixed = (*statement.outputs[:24], *(group.mul(other, CARD_POINTS[i]) for i in A.permutation[24:]))
    two = dataclasses.replace(statement, outputs=mixed)
    for mask in (A.mask, other):
        assert verify_shuffle(two, prove_shuffle(two, A.permutation, mask, SECRETS[0])) is not None


@pytest.mark.parametrize("change", ["replaced", "swapped", "tracer"])
def test_a_shuffle_proof_does_not_cover_an_altered_output(change: str) -> None:
    statement, proof = honest_shuffle()
    outputs = statement.outputs
    if change == "replaced":
        outputs = replaced(outputs, 7, group.mul(A.mask, CARD_POINTS[A.permutation[9]]))  # a masked card again
    elif change == "swapped":
        outputs = swapped(outputs, 3, 40)
    else:  # the tracer of issue 12: 2 * X in place of a card, X a masked card the author can find again
        outputs = replaced(outputs, 12, group.mul(scalar(2), outputs[5]))
    altered = dataclasses.replace(statement, outputs=outputs)
    assert verify_shuffle(altered, proof) is not None
    # Nor can the author prove the altered deck, whatever witness it uses.
    assert verify_shuffle(altered, prove_shuffle(altered, A.permutation, A.mask, SECRETS[0])) is not None


@pytest.mark.parametrize("other", sorted(OTHER_BINDINGS))
def test_a_shuffle_proof_is_bound_to_its_context_and_author(other: str) -> None:
    statement, proof = honest_shuffle()
    assert verify_shuffle(dataclasses.replace(statement, binding=OTHER_BINDINGS[other]), proof) is not None


def test_a_shuffle_proof_is_bound_to_its_pass_and_input() -> None:
    statement, proof = honest_shuffle()
    assert verify_shuffle(dataclasses.replace(statement, number=2), proof) is not None
    assert verify_shuffle(dataclasses.replace(statement, inputs=swapped(CARD_POINTS, 0, 1)), proof) is not None


@pytest.mark.parametrize("cut", [0, 1, 32, SHUFFLE_PROOF_BYTES - 1])
def test_a_truncated_shuffle_proof_is_refused(cut: int) -> None:
    _, proof = honest_shuffle()
    with pytest.raises(ProofFormatError):
        ShuffleProof.from_bytes(proof.to_bytes()[:cut])
    with pytest.raises(ProofFormatError):
        ShuffleProof.from_bytes(proof.to_bytes() + b"\x00")


@settings(max_examples=12, deadline=None)
@given(st.integers(0, SHUFFLE_PROOF_BYTES - 1), st.integers(1, 255))
def test_any_altered_byte_of_a_shuffle_proof_is_refused(offset: int, flip: int) -> None:
    statement, proof = honest_shuffle()
    data = bytearray(proof.to_bytes())
    data[offset] ^= flip
    try:
        altered = ShuffleProof.from_bytes(bytes(data))
    except ProofFormatError:
        return
    assert verify_shuffle(statement, altered) is not None


# -- the lock proof ----------------------------------------------------------------------------


def test_an_honest_lock_proof_holds_and_round_trips() -> None:
    statement, proof, scalars = honest_lock()
    data = proof.to_bytes()
    assert len(data) == LOCK_PROOF_BYTES and LockProof.from_bytes(data) == proof
    assert verify_lock(statement, proof) is None
    assert prove_lock(statement, scalars, SECRETS[0]) == proof


def test_a_lock_proof_with_a_wrong_scalar_fails() -> None:
    statement, _, scalars = honest_lock()
    wrong = (*scalars[:10], group.scalar_add(scalars[10], scalar(1)), *scalars[11:])
    assert verify_lock(statement, prove_lock(statement, wrong, SECRETS[0])) is not None


def test_a_lock_proof_does_not_cover_mixed_positions() -> None:
    """The attack of issue 12: one position made of a combination of other positions of the input."""
    statement, proof, scalars = honest_lock()
    mixed = group.sum_points([group.mul(scalar(t), statement.inputs[j]) for t, j in ((3, 20), (5, 31))])
    f = group.scalar_invert(scalars[0])
    outputs = replaced(statement.outputs, 0, group.mul(f, mixed))
    altered = dataclasses.replace(statement, outputs=outputs)
    assert verify_lock(altered, proof) is not None
    assert verify_lock(altered, prove_lock(altered, scalars, SECRETS[0])) is not None


@pytest.mark.parametrize("change", ["replaced", "swapped", "wrong permutation"])
def test_a_lock_proof_does_not_cover_an_altered_output(change: str) -> None:
    statement, proof, scalars = honest_lock()
    if change == "replaced":
        outputs = replaced(statement.outputs, 4, CARD_POINTS[0])
    elif change == "swapped":
        outputs = swapped(statement.outputs, 4, 5)
    else:  # a lock pass may not reorder: each position is the same position of its input
        outputs = tuple(group.mul(group.scalar_invert(scalars[k]), statement.inputs[(k + 1) % 48]) for k in range(48))
    altered = dataclasses.replace(statement, outputs=outputs)
    assert verify_lock(altered, proof) is not None
    assert verify_lock(altered, prove_lock(altered, scalars, SECRETS[0])) is not None


@pytest.mark.parametrize("other", sorted(OTHER_BINDINGS))
def test_a_lock_proof_is_bound_to_its_context_and_author(other: str) -> None:
    statement, proof, _ = honest_lock()
    assert verify_lock(dataclasses.replace(statement, binding=OTHER_BINDINGS[other]), proof) is not None
    assert verify_lock(dataclasses.replace(statement, number=4), proof) is not None


def test_a_truncated_lock_proof_is_refused() -> None:
    _, proof, _ = honest_lock()
    for data in (proof.to_bytes()[:-1], proof.to_bytes()[:32], b"", proof.to_bytes() + b"\x01"):
        with pytest.raises(ProofFormatError):
            LockProof.from_bytes(data)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, LOCK_PROOF_BYTES - 1), st.integers(1, 255))
def test_any_altered_byte_of_a_lock_proof_is_refused(offset: int, flip: int) -> None:
    statement, proof, _ = honest_lock()
    data = bytearray(proof.to_bytes())
    data[offset] ^= flip
    try:
        altered = LockProof.from_bytes(bytes(data))
    except ProofFormatError:
        return
    assert verify_lock(statement, altered) is not None


# -- passes as messages, and the key commitments -----------------------------------------------


def test_a_pass_is_checked_with_its_proof_and_blames_its_author() -> None:
    first = make_pass(1, CONTEXT, IDENTITY_KEYS[0], A, SECRETS[0], CARD_POINTS)
    check_pass(CONTEXT, IDENTITY_KEYS[0], first, CARD_POINTS)
    for bad, reason in (
        (Deck(1, first.points, first.proof[:-32]), Reason.BAD_SHUFFLE_PROOF),
        (Deck(1, first.points), Reason.BAD_SHUFFLE_PROOF),
        (Deck(1, swapped(first.points, 0, 1), first.proof), Reason.BAD_SHUFFLE_PROOF),
    ):
        with pytest.raises(CheatingDetected) as info:
            check_pass(CONTEXT, IDENTITY_KEYS[0], bad, CARD_POINTS)
        assert (info.value.blame, info.value.reason, info.value.evidence) == (0, reason, (bad,))
    with pytest.raises(CheatingDetected) as info:  # proved by seat 0, claimed for seat 1's key
        check_pass(CONTEXT, IDENTITY_KEYS[1], first, CARD_POINTS)
    assert info.value.reason is Reason.BAD_SHUFFLE_PROOF


def test_each_key_matches_only_its_own_commitment() -> None:
    first = make_pass(1, CONTEXT, IDENTITY_KEYS[0], A, SECRETS[0], CARD_POINTS)
    third = make_pass(3, CONTEXT, IDENTITY_KEYS[0], A, SECRETS[0], first.points)
    check_pass(CONTEXT, IDENTITY_KEYS[0], third, first.points)
    assert all(key_matches(first, third, k, A.unlock_keys[k]) for k in range(48))
    assert not key_matches(first, third, 0, A.unlock_keys[1])
    assert not key_matches(first, third, 0, scalar(7))
