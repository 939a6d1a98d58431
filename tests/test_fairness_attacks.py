"""The two attacks of issue 12, as cheating peers built from our own FairDeal with one step altered.

- :class:`MixingLock`: seat 0 (A) knows ``D2[j] = mA * mB * P[c_j]`` for every position. In its lock
  pass it puts, at a position ``k`` of its own hand, ``fA[k] * (t1 * D2[j1] + t2 * D2[j2])`` for two
  positions of the other hand. Every point is valid and distinct. Once the other side sends its keys
  for A's hand, A unlocks ``t1 * P[c_j1] + t2 * P[c_j2]`` and finds both cards by search.
- :class:`TracerShuffle`: seat 1 (B) outputs, in its shuffle pass, ``2 * X`` in place of one card,
  ``X`` another point of its output, which it can then follow through the rest of the deal.

Both are caught on the deck that carries them (``bad-lock-proof``, ``bad-shuffle-proof``), before
the honest side sends any key, and a spectator's :class:`DealWatch` names the same message.
Without the proof check, the first attack reads the other player's cards: that is shown too.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS, Pipe

from p2p_koikoi.fairness import CheatingDetected, Deck, FairDeal, Keys, Phase, Reason, group, parse_message
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import binding
from p2p_koikoi.fairness.dleq import LockStatement, prove_lock
from p2p_koikoi.fairness.shuffle_proof import ShuffleStatement, prove_shuffle
from p2p_koikoi.fairness.watch import DealWatch

COEFFICIENTS = (1, 2)  # t1, t2: small and known


def scalar(n: int) -> bytes:
    return n.to_bytes(32, "little")


class MixingLock(FairDeal):
    """A side with its lock pass altered: one of its hand positions mixes two of the other hand's.

    The payoff (:meth:`read_targets`) is seat 0's, whose lock pass sees ``mA * mB * P``; as seat 1
    the same alteration is tried on pass 4, and must be caught the same way.
    """

    def targets(self) -> tuple[int, tuple[int, int]]:
        """(our hand position that carries the mix, the two positions of the other hand it reads)."""
        theirs = self.plan.hand(self.peer)
        return self.plan.hand(self.seat)[0], (theirs[0], theirs[1])

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 3 + self.seat:
            return honest
        k, (j1, j2) = self.targets()
        t1, t2 = (scalar(t) for t in COEFFICIENTS)
        mixed = group.add(group.mul(t1, received[j1]), group.mul(t2, received[j2]))
        points = list(honest.points)
        points[k] = group.mul(self._mine.lock_factors[k], mixed)
        # Its best try at a proof: the true lock scalars, over the deck it sends.
        scalars = [group.scalar_mul(self._mine.mask, key) for key in self._mine.unlock_keys]
        bound = binding(self.context, self.identity_keys[self.seat])
        statement = LockStatement(bound, number, tuple(received), tuple(points))
        return Deck(number, tuple(points), prove_lock(statement, scalars, self._secret).to_bytes())

    def read_targets(self) -> tuple[int, int] | None:
        """The attack's payoff: the two cards of the other hand, from the mixed position, by search."""
        k, _ = self.targets()
        key = self._peer_keys.get(k)
        final = self.final_deck
        if key is None or final is None:
            return None
        target = group.mul(group.scalar_mul(self._mine.unlock_keys[k], key), final[k])
        first = {group.mul(scalar(COEFFICIENTS[0]), p): c for c, p in enumerate(CARD_POINTS)}
        for c2, p2 in enumerate(CARD_POINTS):
            c1 = first.get(group.sub(target, group.mul(scalar(COEFFICIENTS[1]), p2)))
            if c1 is not None:
                return c1, c2
        return None


class TracerShuffle(FairDeal):
    """Seat 1 with its shuffle pass altered: ``2 * X`` in place of one card, ``X`` another output."""

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 2:
            return honest
        points = list(honest.points)
        points[12] = group.mul(scalar(2), points[5])
        statement = ShuffleStatement(
            binding(self.context, self.identity_keys[self.seat]), 2, tuple(received), tuple(points)
        )
        proof = prove_shuffle(statement, self._mine.permutation, self._mine.mask, self._secret)
        return Deck(2, tuple(points), proof.to_bytes())


def sides(cheater: type[FairDeal], seat: int) -> tuple[FairDeal, FairDeal]:
    made = [(cheater if s == seat else FairDeal)(CONTEXT, s, IDENTITY_KEYS, SECRETS[s]) for s in (0, 1)]
    return made[0], made[1]


def watch_verdict(pipe: Pipe) -> tuple[int, CheatingDetected]:
    """Feed every message sent, in order, to a spectator; the index of the message it rejects."""
    watch = DealWatch(CONTEXT, IDENTITY_KEYS, pipe.sides[0].plan)
    for index, (seat, data) in enumerate(pipe.wire):
        try:
            watch.receive(index, seat, parse_message(data))
        except CheatingDetected as error:
            return index, error
    raise AssertionError("the spectator saw nothing wrong")


@pytest.mark.parametrize(
    ("cheater", "seat", "number", "reason"),
    [(MixingLock, 0, 3, Reason.BAD_LOCK_PROOF), (TracerShuffle, 1, 2, Reason.BAD_SHUFFLE_PROOF)],
    ids=["mixing-positions-in-a-lock-pass", "tracer-in-a-shuffle-pass"],
)
def test_the_attack_is_caught_on_its_own_deck_before_any_key(
    cheater: type[FairDeal], seat: int, number: int, reason: Reason
) -> None:
    pipe = Pipe(sides=sides(cheater, seat), cheater=seat)
    with pytest.raises(CheatingDetected):
        pipe.shuffle()
    honest = pipe.sides[1 - seat]
    error = honest.failure
    assert honest.phase is Phase.FAILED and error is not None
    assert (error.blame, error.reason) == (seat, reason)
    (deck,) = error.evidence
    assert isinstance(deck, Deck) and deck.number == number
    # The last message the honest side took is that deck; it has sent no key at all.
    assert honest.transcript[-1] == (seat, deck)
    assert not any(isinstance(m, Keys) for s, m in honest.transcript if s == honest.seat)
    # The spectator names the same message, for the same reason.
    index, seen = watch_verdict(pipe)
    assert pipe.wire[index] == (seat, deck.to_bytes())
    assert (seen.blame, seen.reason) == (seat, reason)


def test_without_the_lock_proof_the_mixing_attack_reads_the_other_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the proof is needed: skip its check, and the honest side accepts the mixed deck, sends its
    keys for the cheater's hand as the rules say, and the cheater reads two cards of the other hand."""
    monkeypatch.setattr("p2p_koikoi.fairness.session.check_pass", lambda *args: None)
    pipe = Pipe(sides=sides(MixingLock, 0), cheater=0)
    pipe.shuffle()
    pipe.initial()
    cheater = pipe.sides[0]
    assert isinstance(cheater, MixingLock)
    _, (j1, j2) = cheater.targets()
    read = cheater.read_targets()
    assert read == (pipe.learned[1][j1], pipe.learned[1][j2])  # the guest's own cards, read by the host
    assert j1 not in pipe.learned[0] and j2 not in pipe.learned[0]  # the rules never showed them to it


def test_a_wrong_key_is_caught_by_the_spectator_on_its_entry() -> None:
    """Keys are checked against the sender's commitments at once, by the player and the spectator."""

    def tamper(seat: int, message: object) -> object:
        if isinstance(message, Keys) and len(message.positions) == 8:  # the keys for the other hand
            return Keys(message.positions, (scalar(5), *message.keys[1:]))
        return message

    pipe = Pipe(tamper=tamper, cheater=1)  # type: ignore[arg-type]
    with pytest.raises(CheatingDetected):
        pipe.shuffle()
        pipe.initial()
    error = pipe.sides[0].failure
    assert error is not None and (error.blame, error.reason) == (1, Reason.WRONG_KEY)
    index, seen = watch_verdict(pipe)
    assert (seen.blame, seen.reason) == (1, Reason.WRONG_KEY)
    assert parse_message(pipe.wire[index][1]) == error.evidence[-1]
