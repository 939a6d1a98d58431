"""Choosing the first dealer: the coin flip and the card draw."""

from __future__ import annotations

import random

import pytest
from test_fairness_support import IDENTITY_KEYS, Pipe

from p2p_koikoi.fairness import (
    DRAW_POSITIONS,
    CheatingDetected,
    CoinFlip,
    Commit,
    DealStateError,
    Message,
    Phase,
    Reason,
    Reveal,
    coin_result,
    dealer_draw,
    parse_message,
)

MATCH = b"match-0001"


def flip(values: tuple[bytes, bytes]) -> tuple[CoinFlip, CoinFlip]:
    sides = (CoinFlip(MATCH, 0, IDENTITY_KEYS, values[0]), CoinFlip(MATCH, 1, IDENTITY_KEYS, values[1]))
    queue: list[tuple[int, Message]] = []
    for seat, side in enumerate(sides):
        queue += [(seat, m) for m in side.start().send]
    while queue:
        sender, message = queue.pop(0)
        step = sides[1 - sender].receive(parse_message(message.to_bytes()))
        queue += [(1 - sender, m) for m in step.send]
    return sides


def test_both_sides_agree_on_the_first_dealer() -> None:
    rng = random.Random(1)
    seen = set()
    for _ in range(16):
        values = (rng.randbytes(32), rng.randbytes(32))
        a, b = flip(values)
        assert a.dealer == b.dealer == coin_result(*values) == (values[0][0] ^ values[1][0]) & 1
        assert a.phase is Phase.DONE
        seen.add(a.dealer)
    assert seen == {0, 1}


def test_a_side_reveals_only_after_the_other_committed() -> None:
    a = CoinFlip(MATCH, 0, IDENTITY_KEYS, bytes(32))
    step = a.start()
    assert [type(m) for m in step.send] == [Commit]
    with pytest.raises(CheatingDetected) as info:
        a.receive(Reveal(bytes(32)))  # a reveal before the peer's commitment
    assert info.value.reason is Reason.UNEXPECTED_MESSAGE and info.value.blame == 1


def test_a_coin_value_that_does_not_open_the_commitment_is_caught() -> None:
    a = CoinFlip(MATCH, 0, IDENTITY_KEYS, bytes([1]) * 32)
    b = CoinFlip(MATCH, 1, IDENTITY_KEYS, bytes([2]) * 32)
    commit_b = b.start().send[0]
    a.start()
    a.receive(commit_b)
    with pytest.raises(CheatingDetected) as info:
        a.receive(Reveal(bytes([3]) * 32))  # b changed its value after seeing a's
    assert info.value.blame == 1 and info.value.reason is Reason.COMMITMENT_MISMATCH
    assert info.value.evidence == (commit_b, Reveal(bytes([3]) * 32))
    assert a.failure is info.value


def test_a_coin_flip_peer_that_stops_forfeits() -> None:
    a = CoinFlip(MATCH, 0, IDENTITY_KEYS, bytes([1]) * 32)
    a.start()
    a.receive(Commit(bytes(32)))
    forfeit = a.forfeit()
    assert forfeit.seat == 1 and forfeit.evidence == (Commit(bytes(32)),)
    with pytest.raises(DealStateError):
        a.receive(Reveal(bytes(32)))


def test_drawing_cards_for_the_first_dealer() -> None:
    secrets = (bytes([0x31]) * 32, bytes([0x32]) * 32)
    sides = (
        dealer_draw(MATCH, 0, IDENTITY_KEYS, secrets[0]),
        dealer_draw(MATCH, 1, IDENTITY_KEYS, secrets[1]),
    )
    pipe = Pipe(sides=sides)
    pipe.shuffle()
    pipe.initial()
    assert set(pipe.learned[0]) == set(pipe.learned[1]) == set(DRAW_POSITIONS)
    assert pipe.learned[0] == pipe.learned[1]
    assert set(sides[0].decodable()) == set(DRAW_POSITIONS)
    with pytest.raises(DealStateError):
        sides[0].draw()
    with pytest.raises(DealStateError):
        sides[0].exchange_hands()
    pipe.audit()
    assert pipe.reports[0] == pipe.reports[1]
    drawn = [pipe.reports[0].deck[p] for p in DRAW_POSITIONS]
    assert drawn == [pipe.learned[0][p] for p in DRAW_POSITIONS]
    with pytest.raises(DealStateError):
        sides[0].final_deal()
