"""The proof that a lock pass locks each position with its own committed scalar.

Statement: input points ``Z[0..n-1]`` (the deck received), output points
``Y[0..n-1]`` (the deck sent) and the author's lock commitments
``X[0..n-1]``. Witness: scalars ``x[k]`` with ``X[k] = x[k] * B`` and
``Z[k] = x[k] * Y[k]`` for every ``k`` (the pass computes
``Y[k] = x[k]**-1 * Z[k]`` with ``x[k] = m * u[k]``: the mask of the author's
shuffle pass times its unlock key for ``k``).

Each position is one Chaum-Pedersen proof of equal discrete logarithms
(Chaum and Pedersen, "Wallet databases with observers", CRYPTO '92: their
proof that ``log_g x = log_h y``, here ``log_B X = log_Y Z``), made
non-interactive with Fiat-Shamir in the challenge-response form RFC 9497
uses (Section 2.2.1: the proof is ``(c, s)`` and the verifier recomputes the
commitments ``A = s*B - c*X`` and ``A' = s*Y - c*Z``). The 48 proofs are
composed with AND and share one challenge (Cramer, Damgard and Schoenmakers,
CRYPTO '94: the conjunction of sigma protocols with a common challenge is a
sigma protocol for the conjunction), so a pass carries ``c`` and 48
responses. RFC 9497's cheaper batching (one random linear combination) needs
one scalar for every position; ours has 48, so it does not apply.

Soundness: from two accepting answers to different challenges one extracts
every ``x[k]`` (special soundness), so each ``Y[k]`` is ``Z[k]`` times the
inverse of the scalar committed in ``X[k]``. A position can no longer be
mixed with another (the attack in issue 12): ``Y[k]`` is bound to ``Z[k]``
alone. Keys sent later are checked against ``X`` (``u * Gamma == X[k]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.shuffle_proof import ProofFormatError
from p2p_koikoi.fairness.spread import each
from p2p_koikoi.fairness.transcript import Transcript, proof_nonces

__all__ = ["LOCK_PROOF_BYTES", "LockProof", "LockStatement", "prove_lock", "verify_lock"]

N = 48
LOCK_PROOF_BYTES = N * 32 + 32 + N * 32  # 3104


@dataclass(frozen=True, slots=True)
class LockStatement:
    """What a lock proof is about: binding (context and author), pass, input ``Z``, output ``Y``."""

    binding: bytes
    number: int
    inputs: tuple[bytes, ...]
    outputs: tuple[bytes, ...]

    def transcript(self, locks: Sequence[bytes]) -> Transcript:
        transcript = Transcript(b"lock")
        transcript.append(b"binding", self.binding)
        transcript.append(b"pass", bytes([self.number]))
        transcript.append(b"input", b"".join(self.inputs))
        transcript.append(b"output", b"".join(self.outputs))
        transcript.append(b"locks", b"".join(locks))
        return transcript


@dataclass(frozen=True, slots=True)
class LockProof:
    """The lock commitments ``X``, the shared challenge ``c`` and the responses ``s``."""

    locks: tuple[bytes, ...]
    c: bytes
    s: tuple[bytes, ...]

    def to_bytes(self) -> bytes:
        return b"".join((*self.locks, self.c, *self.s))

    @classmethod
    def from_bytes(cls, data: bytes) -> LockProof:
        if len(data) != LOCK_PROOF_BYTES:
            raise ProofFormatError(f"the lock proof is {len(data)} bytes, not {LOCK_PROOF_BYTES}")
        fields = [data[i : i + 32] for i in range(0, len(data), 32)]
        locks, scalars = fields[:N], fields[N:]
        if not all(group.is_valid_point(x) for x in locks):
            raise ProofFormatError("a lock commitment is not a valid group element")
        if not all(group.is_canonical_scalar(s) for s in scalars):
            raise ProofFormatError("a scalar of the lock proof is not canonical")
        return cls(tuple(locks), scalars[0], tuple(scalars[1:]))


def _challenge(transcript: Transcript, commitments: Sequence[bytes]) -> bytes:
    transcript.append(b"commitments", b"".join(commitments))
    return transcript.challenge(b"challenge-c")


def _nonce_commitments(r: bytes, y: bytes) -> tuple[bytes, bytes]:
    """The prover's ``(r*B, r*Y)`` for one position."""
    return group.mul_base(r), group.mul(r, y)


def _recomputed_commitments(s: bytes, minus_c: bytes, x: bytes, y: bytes, z: bytes) -> tuple[bytes, bytes]:
    """The verifier's ``(s*B - c*X, s*Y - c*Z)`` for one position."""
    return (
        group.add(group.mul_base_any(s), group.mul_any(minus_c, x)),
        group.add(group.mul_any(s, y), group.mul_any(minus_c, z)),
    )


def prove_lock(statement: LockStatement, scalars: Sequence[bytes], secret: bytes) -> LockProof:
    """Prove ``inputs[k] = scalars[k] * outputs[k]``; nonces derived from ``secret``."""
    locks = each(group.mul_base, scalars)
    transcript = statement.transcript(locks)
    nonces = proof_nonces(secret, transcript.digest(), N)
    commitments = [point for pair in each(_nonce_commitments, nonces, statement.outputs) for point in pair]
    c = _challenge(transcript, commitments)
    s = tuple(group.scalar_add(r, group.scalar_mul(c, x)) for r, x in zip(nonces, scalars, strict=True))
    return LockProof(tuple(locks), c, s)


def verify_lock(statement: LockStatement, proof: LockProof) -> str | None:
    """``None`` if every position's proof holds, else what fails."""
    if len(statement.inputs) != N or len(statement.outputs) != N:
        return "a lock proof is for 48 points"
    minus_c = group.scalar_negate(proof.c)
    pairs = each(_recomputed_commitments, proof.s, [minus_c] * N, proof.locks, statement.outputs, statement.inputs)
    commitments = [point for pair in pairs for point in pair]
    if _challenge(statement.transcript(proof.locks), commitments) != proof.c:
        return "the challenge does not match: some position is not locked by its committed scalar"
    return None
