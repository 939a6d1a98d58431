"""Strict ristretto255 decoding (RFC 9496 section 4.3.1) on everything a peer sends.

libsodium's ``crypto_core_ristretto255_is_valid_point``, as rbcl bundles it, does not look at bit 255
(it decodes ``s`` and ``s + 2**255`` to the same element) and so also takes ``00..80`` for the
identity. The RFC refuses both at step 1. ``protocol/vectors/ristretto-decoding.json`` lists the
cases with their verdicts; here the code is checked against them, and a peer that re-spells one
point of its deck that way is refused on receipt (``invalid-point``), in a live match and by
``koikoi verify`` alike, where before it passed every check until the audit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import rbcl  # type: ignore[import-untyped, unused-ignore]
from test_cheat_proofs import cheating_session
from test_cheat_support import assert_caught
from test_fairness_attacks import sides, watch_verdict
from test_fairness_support import Pipe

from p2p_koikoi.engine import preset
from p2p_koikoi.fairness import CheatingDetected, Deck, FairDeal, Keys, Phase, Reason, group, parse_message
from p2p_koikoi.fairness.derive import binding
from p2p_koikoi.fairness.dleq import LockStatement, prove_lock
from p2p_koikoi.fairness.shuffle_proof import ShuffleStatement, prove_shuffle
from p2p_koikoi.session.match_session import Stage
from p2p_koikoi.testing.adversary import duel

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "ristretto-decoding.json"
P = 2**255 - 19


def cases() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    return [*data["cases"], *data["rfc9496_invalid"]]


@pytest.mark.parametrize("case", cases(), ids=lambda case: str(case["name"]))
def test_the_group_decodes_as_the_vectors_say(case: dict[str, Any]) -> None:
    encoding = bytes.fromhex(case["hex"])
    assert group.is_valid_element(encoding) is case["decodes"]
    assert group.is_valid_point(encoding) is case["valid_point"]
    assert case["decodes"] is (case["refused_at_step"] is None)


def test_the_strict_check_adds_only_step_1_to_libsodium() -> None:
    """Where libsodium's decode alone and the vectors disagree, it is bit 255 at step 1 (with rbcl 1.1:
    generator-bit-255 and identity-bit-255), and libsodium never refuses what the vectors accept."""
    for case in cases():
        encoding = bytes.fromhex(case["hex"])
        lenient = len(encoding) == 32 and bool(rbcl.crypto_core_ristretto255_is_valid_point(encoding))
        if case["decodes"]:
            assert lenient, case["name"]
        elif lenient:
            assert case["refused_at_step"] == 1 and encoding[31] & 0x80, case["name"]


def test_every_multiple_of_the_generator_decodes_and_its_aliases_do_not() -> None:
    """For k*B: its encoding decodes; with bit 255 set, or as s + p where that fits in 255 bits, or as
    p - s (the negative root, same square), it does not."""
    for k in range(1, 65):
        encoding = group.mul_base(k.to_bytes(32, "little"))
        s = int.from_bytes(encoding, "little")
        assert s < P and s % 2 == 0
        assert group.is_valid_point(encoding)
        assert not group.is_valid_point((s | 1 << 255).to_bytes(32, "little"))
        assert not group.is_valid_point((P - s).to_bytes(32, "little"))
        if s + P < 2**256:
            assert not group.is_valid_point((s + P).to_bytes(32, "little"))


def respelled(point: bytes) -> bytes:
    """The same element's encoding with bit 255 set (the top bit of the last byte)."""
    assert point[31] & 0x80 == 0
    return point[:31] + bytes([point[31] | 0x80])


RESPELLED_POSITION = 7


class RespelledShuffle(FairDeal):
    """Seat 1's shuffle pass (2) with one point re-spelled with bit 255 set, proved over those bytes.

    A decoder that ignores bit 255 reads the same element, so the proof holds and every card opens
    as it should; only the bytes differ from what the secret derives, which the audit would name.
    """

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 2:
            return honest
        points = list(honest.points)
        points[RESPELLED_POSITION] = respelled(points[RESPELLED_POSITION])
        statement = ShuffleStatement(
            binding(self.context, self.identity_keys[self.seat]), number, tuple(received), tuple(points)
        )
        proof = prove_shuffle(statement, self._mine.permutation, self._mine.mask, self._secret)
        return Deck(number, tuple(points), proof.to_bytes())


class RespelledLock(FairDeal):
    """Seat 0's lock pass (3) with one point re-spelled the same way, proved over those bytes."""

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        honest = super()._make_pass(number, received)
        if number != 3:
            return honest
        points = list(honest.points)
        points[RESPELLED_POSITION] = respelled(points[RESPELLED_POSITION])
        scalars = [group.scalar_mul(self._mine.mask, key) for key in self._mine.unlock_keys]
        statement = LockStatement(
            binding(self.context, self.identity_keys[self.seat]), number, tuple(received), tuple(points)
        )
        return Deck(number, tuple(points), prove_lock(statement, scalars, self._secret).to_bytes())


ATTACKS = [(RespelledShuffle, 1, 2), (RespelledLock, 0, 3)]
ATTACK_IDS = ["shuffle-pass", "lock-pass"]


@pytest.mark.parametrize(("cheater", "seat", "number"), ATTACKS, ids=ATTACK_IDS)
def test_a_respelled_point_is_refused_on_receipt(cheater: type[FairDeal], seat: int, number: int) -> None:
    pipe = Pipe(sides=sides(cheater, seat), cheater=seat)
    with pytest.raises(CheatingDetected):
        pipe.shuffle()
    honest = pipe.sides[1 - seat]
    error = honest.failure
    assert honest.phase is Phase.FAILED and error is not None
    assert (error.blame, error.reason) == (seat, Reason.INVALID_POINT)
    assert f"position {RESPELLED_POSITION}" in error.detail
    (deck,) = error.evidence
    assert isinstance(deck, Deck) and deck.number == number
    assert honest.transcript[-1] == (seat, deck)
    assert not any(isinstance(m, Keys) for s, m in honest.transcript if s == honest.seat)
    index, seen = watch_verdict(pipe)
    assert pipe.wire[index] == (seat, deck.to_bytes())
    assert (seen.blame, seen.reason) == (seat, Reason.INVALID_POINT)


@pytest.mark.parametrize(("cheater", "seat", "number"), ATTACKS, ids=ATTACK_IDS)
def test_with_a_lenient_decoder_the_respelled_deck_passes_until_the_audit(
    monkeypatch: pytest.MonkeyPatch, cheater: type[FairDeal], seat: int, number: int
) -> None:
    """Why the strict check: with libsodium's decode alone, the re-spelled deck and its proof pass on
    receipt, the honest side computes over it and sends its keys; only the audit names the deck."""

    def lenient(point: bytes) -> bool:
        return (
            len(point) == 32 and point != group.IDENTITY and bool(rbcl.crypto_core_ristretto255_is_valid_point(point))
        )

    monkeypatch.setattr(group, "is_valid_point", lenient)
    pipe = Pipe(sides=sides(cheater, seat), cheater=seat)
    pipe.shuffle()
    pipe.initial()
    honest = pipe.sides[1 - seat]
    assert honest.failure is None
    assert any(isinstance(m, Keys) for s, m in honest.transcript if s == honest.seat)
    with pytest.raises(CheatingDetected) as caught:
        pipe.audit()
    assert (caught.value.blame, caught.value.reason) == (seat, Reason.DECK_MISMATCH)
    assert f"pass {number} " in caught.value.detail
    assert any(isinstance(m, Deck) and m.number == number for m in caught.value.evidence)


async def test_a_respelled_deck_ends_the_match_on_its_entry(tmp_path: Path) -> None:
    """In a whole match: the honest side ends it on the cheater's deck entry (``invalid-point``, the
    cheater to blame), before it sends a key, and ``koikoi verify`` on its record names the same entry."""
    d = await duel(preset("nintendo"), tmp_path, cheater=cheating_session(RespelledShuffle), cheater_seat=1)
    deck_entry = d.record.entries[-2]
    deck = parse_message(deck_entry.entry.body[2])
    assert isinstance(deck, Deck) and deck.number == 2 and deck_entry.entry.author == 1
    assert deck.points[RESPELLED_POSITION][31] & 0x80
    assert_caught(d, "invalid-point", blame=1, offending=deck_entry, stage=Stage.SETUP)
