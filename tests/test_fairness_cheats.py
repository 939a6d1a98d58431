"""One test per cheat: each is detected, the right seat is blamed, the evidence kept.

Cheaters are honest state machines with one outgoing message altered (see
``test_fairness_support``). ``L`` below is the ristretto255 group order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS, Pipe, honest_round

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import (
    CheatingDetected,
    Commit,
    Deck,
    FairDeal,
    Keys,
    Message,
    Phase,
    Reason,
    Reveal,
    Show,
    audit_transcript,
    group,
)
from p2p_koikoi.fairness.audit import verify_release
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import derive_contribution

L = 2**252 + 27742317777372353535851937790883648493
CONTRIBUTIONS = tuple(derive_contribution(SECRETS[s], CONTEXT, IDENTITY_KEYS[s]) for s in (0, 1))


def caught(pipe: Pipe, honest: int, blame: int, reason: Reason, *evidence: type[Message]) -> CheatingDetected:
    """Check the honest side's verdict and return the error."""
    side = pipe.sides[honest]
    error = side.failure
    assert error is not None, "the cheat went unnoticed"
    assert side.phase is Phase.FAILED
    assert error.blame == blame
    assert error.reason is reason
    kinds = [type(m) for m in error.evidence]
    for kind in evidence:
        assert kind in kinds, (kind, kinds)
    # The evidence is what the cheater really sent, byte for byte.
    sent = {bytes_ for seat, bytes_ in pipe.wire if seat == blame}
    assert all(m.to_bytes() in sent for m in error.evidence)
    return error


def run(pipe: Pipe, *calls: str) -> None:
    """Run protocol steps until the honest side raises; swallow nothing else."""
    with pytest.raises(CheatingDetected):
        for call in calls:
            getattr(pipe, call)()


def scalar(n: int) -> bytes:
    return n.to_bytes(32, "little")


def a_shows_altered(alter: Callable[[Show], Show], nth: int) -> Pipe:
    """Deal, then A (seat 0) plays its ``nth`` hand card, the ``show`` it sends for it being what ``alter``
    makes of the true one; returns the pipe once the honest side raised."""

    def tamper(seat: int, message: Message) -> Message | None:
        return alter(message) if isinstance(message, Show) else message

    pipe = Pipe(tamper=tamper, cheater=0)
    pipe.shuffle()
    pipe.initial()
    a = pipe.sides[0]
    with pytest.raises(CheatingDetected):
        pipe.step(0, a.show([a.plan.hand(0)[nth]]))
    return pipe


# -- substituted, duplicated and dropped cards ----------------------------------------------


def test_a_substituted_card_is_caught_on_its_deck() -> None:
    table_position = 8

    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Deck) and message.number == 2:
            # B slips in the crane, masked with its own mask: A's lock cannot make it a card.
            points = list(message.points)
            points[table_position] = group.mul(CONTRIBUTIONS[1].mask, CARD_POINTS[Card.PINE_CRANE])
            return Deck(2, tuple(points), message.proof)
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle")
    caught(pipe, 0, 1, Reason.BAD_SHUFFLE_PROOF, Deck)
    assert pipe.sides[0].phase is Phase.FAILED and not pipe.sides[0].known  # no key was sent


def test_a_substituted_card_at_play_is_caught() -> None:
    def claim_another(show: Show) -> Show:
        # A plays one card but claims another.
        claimed = Card((show.cards[0] + 1) % 48)
        return Show(show.positions, (claimed,), show.keys)

    pipe = a_shows_altered(claim_another, 0)
    caught(pipe, 1, 0, Reason.CLAIM_MISMATCH, Show)


def test_a_duplicated_card_is_caught_on_receipt() -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Deck) and message.number == 1:
            points = list(message.points)
            points[5] = points[3]
            return Deck(1, tuple(points))
        return message

    pipe = Pipe(tamper=tamper, cheater=0)
    run(pipe, "shuffle")
    caught(pipe, 1, 0, Reason.DUPLICATE_POINT, Deck)


def test_a_disguised_duplicate_is_caught_on_its_deck() -> None:
    # B copies the table card at position 8 onto position 9 as a different point, r * D4[8],
    # and sends a key for 9 that cancels r: both positions unlock to the same card.
    r = scalar(12345)
    ua, ub = CONTRIBUTIONS[0].unlock_keys, CONTRIBUTIONS[1].unlock_keys

    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Deck) and message.number == 4:
            points = list(message.points)
            points[9] = group.mul(r, points[8])
            return Deck(4, tuple(points), message.proof)
        if isinstance(message, Keys) and 9 in message.positions:
            forged = group.scalar_mul(group.scalar_mul(ua[8], ub[8]), group.scalar_invert(group.scalar_mul(ua[9], r)))
            keys = tuple(forged if p == 9 else k for p, k in message.items())
            return Keys(message.positions, keys)
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle")
    caught(pipe, 0, 1, Reason.BAD_LOCK_PROOF, Deck)


def test_a_dropped_card_is_caught_on_receipt() -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Deck) and message.number == 2:
            return Deck(2, message.points[:47])
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle")
    caught(pipe, 0, 1, Reason.DECK_SIZE, Deck)


# -- keys and points -----------------------------------------------------------------------


def test_a_wrong_lock_key_is_caught() -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        # B's keys for A's hand: one is not B's key.
        if isinstance(message, Keys) and 16 in message.positions:
            keys = tuple(scalar(777) if p == 16 else k for p, k in message.items())
            return Keys(message.positions, keys)
        return message

    pipe = Pipe(tamper=tamper, cheater=1, dealer_seat=0)  # seat 0 deals: its hand is 16..23
    run(pipe, "shuffle", "initial")
    error = caught(pipe, 0, 1, Reason.WRONG_KEY, Keys)
    assert "position 16" in error.detail


@pytest.mark.parametrize(
    "bad",
    [
        bytes(32),  # the identity
        bytes.fromhex("00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # not canonical
        bytes.fromhex("0100000000000000000000000000000000000000000000000000000000000000"),  # negative s
        bytes.fromhex("26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371"),  # not square
    ],
)
def test_an_invalid_point_is_caught_on_receipt(bad: bytes) -> None:
    assert not group.is_valid_point(bad)

    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Deck) and message.number == 3:
            points = list(message.points)
            points[10] = bad
            return Deck(3, tuple(points))
        return message

    pipe = Pipe(tamper=tamper, cheater=0)
    run(pipe, "shuffle")
    error = caught(pipe, 1, 0, Reason.INVALID_POINT, Deck)
    assert "position 10" in error.detail


@pytest.mark.parametrize("bad", [bytes(32), L.to_bytes(32, "little"), (L + 5).to_bytes(32, "little")])
def test_an_invalid_key_is_caught_on_receipt(bad: bytes) -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Keys):
            return Keys(message.positions, (bad, *message.keys[1:]))
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle", "initial")
    caught(pipe, 0, 1, Reason.INVALID_SCALAR, Keys)


# -- the audit ------------------------------------------------------------------------------


def test_a_secret_that_does_not_open_the_commitment_is_caught() -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Reveal):
            return Reveal(bytes([0x5A]) * 32)
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle", "initial", "draw", "audit")
    caught(pipe, 0, 1, Reason.COMMITMENT_MISMATCH, Commit, Reveal)
    assert pipe.sides[0].report is None


@pytest.mark.parametrize("cheater", [0, 1])
def test_a_deck_the_secret_does_not_derive_is_caught_at_the_audit(cheater: int) -> None:
    # The cheater plays a consistent deal from another secret (say, a stacked permutation
    # it chose), so every card decodes, but it committed to and reveals its real secret.
    sides = [FairDeal(CONTEXT, s, IDENTITY_KEYS, SECRETS[s]) for s in (0, 1)]
    other = derive_contribution(bytes([0x77]) * 32, CONTEXT, IDENTITY_KEYS[cheater])
    stacked = dataclasses.replace(other, permutation=tuple(range(48)))
    sides[cheater]._mine = stacked
    pipe = Pipe(sides=(sides[0], sides[1]), cheater=cheater)
    pipe.shuffle()
    pipe.initial()
    pipe.draw()
    assert pipe.sides[0].known.keys() & pipe.sides[1].known.keys()  # play went on normally
    run(pipe, "audit")
    error = caught(pipe, 1 - cheater, cheater, Reason.DECK_MISMATCH, Commit, Reveal, Deck)
    assert f"pass {1 + cheater}" in error.detail


def test_the_third_party_audit_blames_the_sender_of_the_first_bad_message() -> None:
    pipe = honest_round()
    transcript = list(pipe.sides[0].transcript)
    # Alter one of B's draw keys in the record: its secret no longer derives it.
    index = max(i for i, (s, m) in enumerate(transcript) if s == 1 and isinstance(m, Keys))
    seat, keys = transcript[index]
    assert isinstance(keys, Keys)
    transcript[index] = (seat, Keys(keys.positions, (scalar(99),)))
    with pytest.raises(CheatingDetected) as info:
        audit_transcript(CONTEXT, IDENTITY_KEYS, transcript)
    assert info.value.blame == 1 and info.value.reason is Reason.KEY_MISMATCH
    # A deck of A altered too: that comes earlier, so A is blamed.
    first = next(i for i, (s, m) in enumerate(transcript) if isinstance(m, Deck) and m.number == 3)
    deck = transcript[first][1]
    assert isinstance(deck, Deck)
    transcript[first] = (0, Deck(3, (deck.points[1], deck.points[0], *deck.points[2:]), deck.proof))
    with pytest.raises(CheatingDetected) as info:
        audit_transcript(CONTEXT, IDENTITY_KEYS, transcript)
    assert info.value.blame == 0 and info.value.reason is Reason.BAD_LOCK_PROOF
    # A party that never revealed its secret.
    silent = [(s, m) for s, m in pipe.sides[0].transcript if not (s == 1 and isinstance(m, Reveal))]
    with pytest.raises(CheatingDetected) as info:
        audit_transcript(CONTEXT, IDENTITY_KEYS, silent)
    assert info.value.blame == 1 and info.value.reason is Reason.MISSING_MESSAGE


def test_a_key_the_secret_does_not_derive_is_a_key_mismatch() -> None:
    commit = Commit(bytes(32))
    reveal = Reveal(SECRETS[1])
    forged = Keys((30,), (scalar(5),))
    with pytest.raises(CheatingDetected) as info:
        verify_release(1, CONTRIBUTIONS[1], forged, (commit, reveal))
    assert info.value.reason is Reason.KEY_MISMATCH and info.value.evidence == (commit, reveal, forged)


# -- messages out of turn -------------------------------------------------------------------


def test_keys_out_of_turn_are_caught() -> None:
    def tamper(seat: int, message: Message) -> Message | None:
        if isinstance(message, Keys) and message.positions == (24,):
            # B releases a later stock card instead of the next one.
            return Keys((25,), (CONTRIBUTIONS[1].unlock_keys[25],))
        return message

    pipe = Pipe(tamper=tamper, cheater=1)
    run(pipe, "shuffle", "initial", "draw")
    caught(pipe, 0, 1, Reason.UNEXPECTED_POSITIONS, Keys)


def test_messages_before_their_turn_are_caught() -> None:
    a = FairDeal(CONTEXT, 0, IDENTITY_KEYS, SECRETS[0])
    a.start()
    with pytest.raises(CheatingDetected) as info:
        a.receive(Deck(2, CARD_POINTS))
    assert info.value.reason is Reason.UNEXPECTED_MESSAGE and info.value.blame == 1
    b = FairDeal(CONTEXT, 1, IDENTITY_KEYS, SECRETS[1])
    b.start()
    b.receive(Commit(bytes(32)))
    with pytest.raises(CheatingDetected) as info:
        b.receive(Keys((0,), (scalar(3),)))
    assert info.value.reason is Reason.UNEXPECTED_MESSAGE and info.value.blame == 0
    assert b.phase is Phase.FAILED


def test_showing_a_position_outside_ones_hand_is_caught() -> None:
    pipe = Pipe()
    pipe.shuffle()
    pipe.initial()
    b = pipe.sides[1]
    stranger = b.plan.hand(1)[0]
    with pytest.raises(CheatingDetected) as info:
        b.receive(Show((stranger,), (Card.PINE_CRANE,), (CONTRIBUTIONS[0].unlock_keys[stranger],)))
    assert info.value.reason is Reason.UNEXPECTED_POSITIONS and info.value.blame == 0


def test_a_wrong_key_in_a_shown_card_is_caught() -> None:
    pipe = a_shows_altered(lambda show: Show(show.positions, show.cards, (scalar(4242),)), 1)
    caught(pipe, 1, 0, Reason.WRONG_KEY, Show)
