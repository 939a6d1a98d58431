"""Each deck pass with its proof: made by the author, checked on receipt by the player and the spectator.

A shuffle pass (1, 2) carries a :class:`~p2p_koikoi.fairness.shuffle_proof.ShuffleProof`,
which publishes ``Gamma = m * B`` for the author's mask ``m``; a lock pass
(3, 4) carries a :class:`~p2p_koikoi.fairness.dleq.LockProof`, which publishes
``X[k] = (m * u[k]) * B``. Together they let anyone check a key ``u`` sent
later for position ``k`` at once: ``u * Gamma == X[k]`` (:func:`key_matches`).

Both proofs bind the statement through the transcript: the binding (protocol
version, purpose, match id, round, redeal, author's identity key), the pass
number, every input and every output point.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.derive import Contribution, DealContext, binding
from p2p_koikoi.fairness.dleq import LockProof, LockStatement, prove_lock, verify_lock
from p2p_koikoi.fairness.errors import CheatingDetected, Reason
from p2p_koikoi.fairness.messages import Deck
from p2p_koikoi.fairness.shuffle import lock, pass_owner, shuffle
from p2p_koikoi.fairness.shuffle_proof import (
    ProofFormatError,
    ShuffleProof,
    ShuffleStatement,
    prove_shuffle,
    verify_shuffle,
)

__all__ = ["check_pass", "is_shuffle", "key_matches", "make_pass"]


def is_shuffle(number: int) -> bool:
    """Passes 1 and 2 mask and shuffle; 3 and 4 lock."""
    return number in (1, 2)


def make_pass(
    number: int,
    context: DealContext,
    identity: bytes,
    contribution: Contribution,
    secret: bytes,
    received: Sequence[bytes],
) -> Deck:
    """Pass ``number`` over ``received`` (the card points for pass 1), with its proof."""
    bound = binding(context, identity)
    inputs = tuple(received)
    if is_shuffle(number):
        points = shuffle(inputs, contribution)
        statement = ShuffleStatement(bound, number, inputs, points)
        proof = prove_shuffle(statement, contribution.permutation, contribution.mask, secret).to_bytes()
    else:
        points = lock(inputs, contribution)
        scalars = [group.scalar_mul(contribution.mask, key) for key in contribution.unlock_keys]
        proof = prove_lock(LockStatement(bound, number, inputs, points), scalars, secret).to_bytes()
    return Deck(number, points, proof)


def check_pass(context: DealContext, identity: bytes, deck: Deck, received: Sequence[bytes]) -> None:
    """Check the proof ``deck`` carries over ``received``; :class:`CheatingDetected` blames its author.

    ``deck`` must already hold 48 valid, distinct points (``deck_problem``).
    """
    author = pass_owner(deck.number)
    bound = binding(context, identity)
    reason = Reason.BAD_SHUFFLE_PROOF if is_shuffle(deck.number) else Reason.BAD_LOCK_PROOF
    inputs = tuple(received)
    try:
        if is_shuffle(deck.number):
            statement = ShuffleStatement(bound, deck.number, inputs, deck.points)
            problem = verify_shuffle(statement, ShuffleProof.from_bytes(deck.proof))
        else:
            lock_statement = LockStatement(bound, deck.number, inputs, deck.points)
            problem = verify_lock(lock_statement, LockProof.from_bytes(deck.proof))
    except ProofFormatError as error:
        problem = str(error)
    if problem is not None:
        raise CheatingDetected(author, reason, f"the proof of pass {deck.number} fails: {problem}", (deck,))


def key_matches(shuffled: Deck, locked: Deck, position: int, key: bytes) -> bool:
    """Is ``key`` the unlock key the author of ``shuffled`` and ``locked`` committed to for ``position``?

    ``key * Gamma == X[position]``, with ``Gamma`` the first 32 bytes of the
    shuffle proof and ``X`` the first 48 points of the lock proof. Both proofs
    must have been checked (:func:`check_pass`) before.
    """
    gamma = shuffled.proof[:32]
    lock_commitment = locked.proof[32 * position : 32 * position + 32]
    return group.mul(key, gamma) == lock_commitment
