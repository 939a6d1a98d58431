"""The proof that a shuffle pass is one secret scalar times a secret permutation of its input.

Statement: input points ``X[0..n-1]``, output points ``Y[0..n-1]`` and
``Gamma``. Witness: a permutation ``pi`` and a scalar ``m`` with
``Y[k] = m * X[pi[k]]`` for every ``k`` and ``Gamma = m * B``.

The construction is the proof of a shuffle of Wikstrom (ACISP 2009,
"A commitment-consistent proof of a shuffle") and Terelius and Wikstrom
(AFRICACRYPT 2010, "Proofs of restricted shuffles"), step for step
as Haenni, Locher, Koenig and Dubuis write it in "Pseudo-Code Algorithms for
Verifiable Re-Encryption Mix-Nets" (FC 2017 Workshops, LNCS 10323, pp.
370-384), section 4: Algorithm 4.3 GenShuffleProof, 4.4
GenPermutationCommitment, 4.5 GenCommitmentChain and 4.6 CheckShuffleProof.
Names follow that paper: ``c`` the permutation commitment,
``u`` the challenges, ``u'`` their permutation, ``c_hat`` the commitment chain,
``t1, t2, t3, t4_1, t4_2, t_hat`` the commitments, ``s1..s4, s_hat, s'`` the
responses, ``c`` the challenge. The group is ristretto255, written additively:
the paper's ``g^x * h`` is ``x*B + h`` here, with ``g = B``.

One conjunct changes, because our pass exponentiates instead of re-encrypting.
The paper's ``t4`` proves ``prod e'_i^{u'_i} = Enc(1, r') * prod e_i^{u_i}``
(knowledge of ``r'``); ours proves, with the same responses ``s'`` and one
response ``s4`` for ``m``::

    sum_i u'_i * Y[i] = m * X~     where X~ = sum_i u_i * X[i]       (t4_1)
    Gamma = m * B                                                      (t4_2)

The rest of the argument is untouched: ``t1, t2, t3, t_hat`` prove that ``c``
commits to a permutation matrix and that ``u'`` is ``u`` permuted by it
(Terelius-Wikstrom's permutation-matrix argument). ``Gamma`` fixes ``m`` (a discrete logarithm is
unique), so ``sum_j u_j * (Y[pi^-1(j)] - m*X[j]) = 0`` for challenges ``u``
drawn after every ``X``, ``Y`` and ``c`` are fixed; if any term were not zero,
that sum would vanish with probability ``1/L`` only. Hence every
``Y[k] = m * X[pi[k]]``: no tracer, no dropped or doubled card, no second
scalar. Honest-verifier zero knowledge is the paper's (the new conjunct is a
Schnorr-type proof simulated like ``t4``); Fiat-Shamir makes it
non-interactive (``transcript.py``).

Generators: ``h = H(0)`` starts the chain and ``h_i = H(i + 1)`` commit the
permutation, with ``H(i) = from_hash(SHA-512(GENERATOR_DOMAIN || 0x00 ||
u8(i)))``: nobody knows a discrete logarithm between them or to ``B``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes

from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.spread import each
from p2p_koikoi.fairness.transcript import Transcript, proof_nonces

__all__ = [
    "GENERATOR_DOMAIN",
    "SHUFFLE_PROOF_BYTES",
    "ProofFormatError",
    "ShuffleProof",
    "ShuffleStatement",
    "prove_shuffle",
    "shuffle_challenges",
    "verify_shuffle",
]

GENERATOR_DOMAIN = b"p2p-koikoi/deal/v2/generator"
N = 48
_P = group.POINT_BYTES
SHUFFLE_PROOF_BYTES = _P + 3 * N * _P + 5 * _P + 4 * _P + 2 * N * _P  # 8000
_ONE = (1).to_bytes(32, "little")


class ProofFormatError(ValueError):
    """Proof bytes of the wrong length or with a non-canonical point or scalar."""


def _generator(index: int) -> bytes:
    digest = hashes.Hash(hashes.SHA512())
    digest.update(GENERATOR_DOMAIN + b"\x00" + bytes([index]))
    return group.from_hash(digest.finalize())


CHAIN_START = _generator(0)
GENERATORS: tuple[bytes, ...] = tuple(_generator(i + 1) for i in range(N))
_GENERATOR_SUM = group.sum_points(GENERATORS)


def _base(scalar: bytes) -> bytes:
    return group.mul_base_any(scalar)


def _combine(scalars: Sequence[bytes], points: Sequence[bytes]) -> bytes:
    """``sum_i scalars[i] * points[i]``."""
    return group.mul_sum(scalars, points)


def _base_plus(scalar: bytes, factor: bytes, point: bytes) -> bytes:
    """``scalar*B + factor*point``: one ``t_hat`` (prover) or one side of its check (verifier)."""
    return group.add(_base(scalar), group.mul_any(factor, point))


def _chain_check(s_hat: bytes, s_prime: bytes, previous: bytes, minus_e: bytes, c_hat: bytes) -> bytes:
    """``s_hat*B + s'*c_hat[i-1] - e*c_hat[i]``, which must equal ``t_hat[i]``."""
    return group.add(_base_plus(s_hat, s_prime, previous), group.mul_any(minus_e, c_hat))


def _split(data: bytes, count: int) -> list[bytes]:
    return [data[i * 32 : i * 32 + 32] for i in range(count)]


@dataclass(frozen=True, slots=True)
class ShuffleStatement:
    """What a shuffle proof is about: its binding (context and author), pass, input, output."""

    binding: bytes
    number: int
    inputs: tuple[bytes, ...]
    outputs: tuple[bytes, ...]

    def transcript(self, gamma: bytes) -> Transcript:
        transcript = Transcript(b"shuffle")
        transcript.append(b"binding", self.binding)
        transcript.append(b"pass", bytes([self.number]))
        transcript.append(b"input", b"".join(self.inputs))
        transcript.append(b"output", b"".join(self.outputs))
        transcript.append(b"gamma", gamma)
        return transcript


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """``Gamma``, the permutation commitment, the chain, the commitments ``t`` and the responses ``s``."""

    gamma: bytes
    c: tuple[bytes, ...]
    c_hat: tuple[bytes, ...]
    t: tuple[bytes, bytes, bytes, bytes, bytes]  # t1, t2, t3, t4_1, t4_2
    t_hat: tuple[bytes, ...]
    s: tuple[bytes, bytes, bytes, bytes]  # s1, s2, s3, s4
    s_hat: tuple[bytes, ...]
    s_prime: tuple[bytes, ...]

    def to_bytes(self) -> bytes:
        return b"".join((self.gamma, *self.c, *self.c_hat, *self.t, *self.t_hat, *self.s, *self.s_hat, *self.s_prime))

    @classmethod
    def from_bytes(cls, data: bytes) -> ShuffleProof:
        if len(data) != SHUFFLE_PROOF_BYTES:
            raise ProofFormatError(f"the shuffle proof is {len(data)} bytes, not {SHUFFLE_PROOF_BYTES}")
        fields = _split(data, SHUFFLE_PROOF_BYTES // 32)
        points, scalars = fields[: 1 + 3 * N + 5], fields[1 + 3 * N + 5 :]
        if not group.is_valid_point(points[0]):
            raise ProofFormatError("Gamma is not a valid group element")
        if not all(group.is_valid_element(p) for p in points[1:]):
            raise ProofFormatError("a point of the shuffle proof is not a canonical encoding")
        if not all(group.is_canonical_scalar(s) for s in scalars):
            raise ProofFormatError("a scalar of the shuffle proof is not canonical")
        c, c_hat = points[1 : 1 + N], points[1 + N : 1 + 2 * N]
        t, t_hat = points[1 + 2 * N : 6 + 2 * N], points[6 + 2 * N :]
        s, s_hat, s_prime = scalars[:4], scalars[4 : 4 + N], scalars[4 + N :]
        return cls(
            points[0],
            tuple(c),
            tuple(c_hat),
            (t[0], t[1], t[2], t[3], t[4]),
            tuple(t_hat),
            (s[0], s[1], s[2], s[3]),
            tuple(s_hat),
            tuple(s_prime),
        )


def _permutation_commitment(permutation: Sequence[int], r: Sequence[bytes]) -> list[bytes]:
    """GenPermutationCommitment (Algorithm 4.4): ``c[pi[i]] = r[pi[i]]*B + h_i``."""
    blinds = group.mul_base_each(r)
    c = [b""] * N
    for i, j in enumerate(permutation):
        c[j] = group.add(blinds[j], GENERATORS[i])
    return c


def _commitment_chain(u_prime: Sequence[bytes], r_hat: Sequence[bytes]) -> list[bytes]:
    """GenCommitmentChain (Algorithm 4.5): ``c_hat[i] = r_hat[i]*B + u'[i]*c_hat[i-1]``, ``c_hat[-1] = h``."""
    chain: list[bytes] = []
    previous = CHAIN_START
    for ui, blind in zip(u_prime, group.mul_base_each(r_hat), strict=True):
        previous = group.add(blind, group.mul_any(ui, previous))
        chain.append(previous)
    return chain


def _aggregates(
    u_prime: Sequence[bytes], r: Sequence[bytes], r_hat: Sequence[bytes], u: Sequence[bytes]
) -> tuple[bytes, bytes, bytes]:
    """``r_bar = sum r``, ``r_hat = sum r_hat[i] * v[i]`` (``v[i] = prod_{j>i} u'[j]``),
    ``r_tilde = sum r[i] * u[i]``."""
    r_bar = r_sum = r_tilde = bytes(32)
    v = _ONE
    for i in range(N - 1, -1, -1):
        r_sum = group.scalar_add(r_sum, group.scalar_mul(r_hat[i], v))
        v = group.scalar_mul(u_prime[i], v)
    for ri, ui in zip(r, u, strict=True):
        r_bar = group.scalar_add(r_bar, ri)
        r_tilde = group.scalar_add(r_tilde, group.scalar_mul(ri, ui))
    return r_bar, r_sum, r_tilde


def prove_shuffle(statement: ShuffleStatement, permutation: Sequence[int], mask: bytes, secret: bytes) -> ShuffleProof:
    """GenShuffleProof (Algorithm 4.3) for ``outputs[k] = mask * inputs[permutation[k]]``; nonces from ``secret``."""
    gamma = group.mul_base(mask)
    transcript = statement.transcript(gamma)
    nonces = proof_nonces(secret, transcript.digest(), 4 * N + 4)
    r, r_hat, w_hat = nonces[:N], nonces[N : 2 * N], nonces[2 * N : 3 * N]
    w_prime, w = nonces[3 * N : 4 * N], nonces[4 * N :]
    c = _permutation_commitment(permutation, r)
    transcript.append(b"permutation-commitment", b"".join(c))
    u = transcript.challenges(b"challenge-u", N)
    u_prime = [u[j] for j in permutation]
    c_hat = _commitment_chain(u_prime, r_hat)
    r_bar, r_sum, r_tilde = _aggregates(u_prime, r, r_hat, u)
    x_tilde = _combine(u, statement.inputs)
    t = (
        _base(w[0]),
        _base(w[1]),
        group.add(_base(w[2]), _combine(w_prime, GENERATORS)),
        group.sub(_combine(w_prime, statement.outputs), group.mul_any(w[3], x_tilde)),
        _base(w[3]),
    )
    previous = [CHAIN_START, *c_hat[:-1]]
    t_hat = each(_base_plus, w_hat, w_prime, previous)
    transcript.append(b"chain", b"".join(c_hat))
    transcript.append(b"commitments", b"".join((*t, *t_hat)))
    e = transcript.challenge(b"challenge-c")

    def respond(nonce: bytes, witness: bytes) -> bytes:
        return group.scalar_add(nonce, group.scalar_mul(e, witness))

    s = (respond(w[0], r_bar), respond(w[1], r_sum), respond(w[2], r_tilde), respond(w[3], mask))
    return ShuffleProof(
        gamma,
        tuple(c),
        tuple(c_hat),
        t,
        tuple(t_hat),
        s,
        tuple(respond(w_hat[i], r_hat[i]) for i in range(N)),
        tuple(respond(w_prime[i], u_prime[i]) for i in range(N)),
    )


def shuffle_challenges(statement: ShuffleStatement, proof: ShuffleProof) -> tuple[list[bytes], bytes]:
    """The challenges ``u`` and ``c`` of a proof, as the verifier recomputes them from the transcript."""
    transcript = statement.transcript(proof.gamma)
    transcript.append(b"permutation-commitment", b"".join(proof.c))
    u = transcript.challenges(b"challenge-u", N)
    transcript.append(b"chain", b"".join(proof.c_hat))
    transcript.append(b"commitments", b"".join((*proof.t, *proof.t_hat)))
    return u, transcript.challenge(b"challenge-c")


def verify_shuffle(statement: ShuffleStatement, proof: ShuffleProof) -> str | None:
    """CheckShuffleProof (Algorithm 4.6); ``None`` if the proof holds, else which equation fails."""
    if len(statement.inputs) != N or len(statement.outputs) != N:
        return "a shuffle proof is for 48 points"
    u, e = shuffle_challenges(statement, proof)
    minus_e = group.scalar_negate(e)
    s1, s2, s3, s4 = proof.s
    u_product = _ONE
    for ui in u:
        u_product = group.scalar_mul(u_product, ui)
    c_bar = group.sub(group.sum_points(proof.c), _GENERATOR_SUM)
    c_hat_end = group.sub(proof.c_hat[-1], group.mul_any(u_product, CHAIN_START))
    c_tilde = _combine(u, proof.c)
    x_tilde = _combine(u, statement.inputs)
    expected = (
        group.add(_base(s1), group.mul_any(minus_e, c_bar)),
        group.add(_base(s2), group.mul_any(minus_e, c_hat_end)),
        group.add(group.add(_base(s3), _combine(proof.s_prime, GENERATORS)), group.mul_any(minus_e, c_tilde)),
        group.sub(_combine(proof.s_prime, statement.outputs), group.mul_any(s4, x_tilde)),
        group.add(_base(s4), group.mul_any(minus_e, proof.gamma)),
    )
    for name, sent, computed in zip(("t1", "t2", "t3", "t4_1", "t4_2"), proof.t, expected, strict=True):
        if sent != computed:
            return f"the equation for {name} fails"
    previous = [CHAIN_START, *proof.c_hat[:-1]]
    computed_t_hat = each(_chain_check, proof.s_hat, proof.s_prime, previous, [minus_e] * N, proof.c_hat)
    for i, (sent, computed) in enumerate(zip(proof.t_hat, computed_t_hat, strict=True)):
        if computed != sent:
            return f"the equation for t_hat[{i}] fails"
    return None
