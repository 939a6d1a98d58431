"""The deal's speed-ups change nothing that is computed: the two-core split and seat 0's pass made ahead."""

from __future__ import annotations

import copy
import os
import threading

import pytest

from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.fairness import ahead, group, spread
from p2p_koikoi.fairness.ahead import PassAhead, next_round
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.derive import DealContext, Purpose, derive_contribution
from p2p_koikoi.fairness.passproof import check_pass, make_pass
from p2p_koikoi.testing import deterministic_entropy, pipe_sessions, session_pair

CONTEXT = DealContext(b"pipeline-test", 3, 0)
IDENTITY = bytes(range(32))
SECRET = bytes(range(32, 64))


def _first_pass(context: DealContext = CONTEXT, secret: bytes = SECRET) -> bytes:
    contribution = derive_contribution(secret, context, IDENTITY)
    deck = make_pass(1, context, IDENTITY, contribution, secret, CARD_POINTS)
    return deck.to_bytes()


@pytest.fixture
def split_off():
    previous = spread.set_enabled(False)
    yield
    spread.set_enabled(previous)


def test_split_keeps_order_and_values() -> None:
    scalars = [group.scalar_from_wide(bytes([i]) * 64) for i in range(1, 40)]
    points = [group.mul_base(s) for s in reversed(scalars)]
    previous = spread.set_enabled(True)
    try:
        split = group.mul_each(scalars, points)
        total = group.mul_sum(scalars, points)
    finally:
        spread.set_enabled(False)
    try:
        assert split == [group.mul(s, p) for s, p in zip(scalars, points, strict=True)]
        assert total == group.sum_points(split)
    finally:
        spread.set_enabled(previous)


def test_proofs_are_the_same_bytes_with_and_without_the_split(split_off: None) -> None:
    serial = _first_pass()
    spread.set_enabled(True)
    assert _first_pass() == serial


def test_nested_split_on_the_worker_does_not_wait_for_itself() -> None:
    previous = spread.set_enabled(True)
    try:
        rows = list(range(20))
        inner = spread.each(lambda i: sum(spread.each(lambda j: i * j, rows)), rows)
        assert inner == [i * sum(rows) for i in rows]
    finally:
        spread.set_enabled(previous)


def test_split_raises_the_callers_error_after_both_halves() -> None:
    def fail_on_three(i: int) -> int:
        if i == 3:
            raise ValueError("three")
        return i

    with pytest.raises(ValueError, match="three"):
        spread.each(fail_on_three, list(range(20)))


def test_a_forked_child_makes_its_own_worker() -> None:
    spread.each(abs, list(range(20)))  # the parent's worker exists now
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        ok = spread.each(abs, list(range(-20, 0))) == list(range(20, 0, -1))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_pass_ahead_hands_back_the_very_pass_make_pass_makes() -> None:
    made = PassAhead(IDENTITY, lambda context: SECRET)
    made.finish()  # nothing in the making: returns at once
    made.prepare(CONTEXT)
    made.finish()
    deck = made.take(CONTEXT, IDENTITY, SECRET)
    assert deck is not None and deck.to_bytes() == _first_pass()
    check_pass(CONTEXT, IDENTITY, deck, CARD_POINTS)
    assert made.take(CONTEXT, IDENTITY, SECRET) is None  # taken once


@pytest.mark.parametrize(
    ("context", "identity", "secret"),
    [
        (DealContext(b"pipeline-test", 3, 1), IDENTITY, SECRET),  # a redeal
        (DealContext(b"pipeline-test", 4, 0), IDENTITY, SECRET),  # another round
        (CONTEXT, bytes(32), SECRET),  # another identity
        (CONTEXT, IDENTITY, bytes(32)),  # another secret (a test's cheating seat)
    ],
)
def test_pass_ahead_gives_nothing_for_another_deal(context: DealContext, identity: bytes, secret: bytes) -> None:
    made = PassAhead(IDENTITY, lambda context: SECRET)
    made.prepare(CONTEXT)
    assert made.take(context, identity, secret) is None


def test_next_round_is_the_first_deal_of_the_next_round() -> None:
    draw = DealContext(b"m", 0, 2, Purpose.DEALER_DRAW)
    assert next_round(draw) == DealContext(b"m", 1, 0)
    assert next_round(DealContext(b"m", 5, 1)) == DealContext(b"m", 6, 0)


def test_a_whole_match_uses_the_pass_made_ahead_for_every_round(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    threads: set[str] = set()
    real_take, real_first = PassAhead.take, ahead._first_pass

    def counting_take(self: PassAhead, *args: bytes | DealContext) -> object:
        deck = real_take(self, *args)  # type: ignore[arg-type]
        taken.append(deck is not None)
        return deck

    def watched_first(*args: bytes | DealContext) -> object:
        threads.add(threading.current_thread().name)
        return real_first(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(PassAhead, "take", counting_take)
    monkeypatch.setattr(ahead, "_first_pass", watched_first)
    pair = session_pair(preset("nintendo"), deterministic_entropy(b"pass-ahead"))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    rounds = pair.host.referee.round_number
    assert rounds >= 2
    assert taken.count(True) >= rounds  # every round's first pass was ready
    assert all(name.startswith("p2p-koikoi-ahead") for name in threads)


def test_a_copied_seat_asks_its_own_secrets_and_starts_with_nothing_made() -> None:
    pair = session_pair(preset("nintendo"), deterministic_entropy(b"pass-ahead-copy"))
    knowledge = pair.host.knowledge
    made = knowledge._pass_ahead(pair.host.keys[0])
    assert made is not None
    made.prepare(CONTEXT)
    twin = copy.deepcopy(knowledge)
    twin.secret_for = lambda context: SECRET
    twin_made = twin._pass_ahead(pair.host.keys[0])
    assert twin_made is not None and twin_made is not made
    assert twin_made.take(CONTEXT, pair.host.keys[0], knowledge.secret_for(CONTEXT)) is None  # nothing made yet
    twin_made.prepare(CONTEXT)
    assert twin_made.take(CONTEXT, pair.host.keys[0], SECRET) is not None  # made with the copy's secret
