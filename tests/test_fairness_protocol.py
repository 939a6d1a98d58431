"""The honest protocol: a legal deal, privacy of each side, reveals, audit, API rules."""

from __future__ import annotations

import pytest
from test_fairness_support import CONTEXT, IDENTITY_KEYS, SECRETS, Pipe, honest_round

from p2p_koikoi.engine import PRESETS, Round
from p2p_koikoi.engine.cards import Card, mask_of
from p2p_koikoi.engine.deal import Deal, DealPattern
from p2p_koikoi.fairness import (
    DealContext,
    DealStateError,
    Deck,
    FairDeal,
    Keys,
    Phase,
    Reveal,
    Show,
    audit_transcript,
    reveal_plan,
)
from p2p_koikoi.fairness.derive import derive_contribution
from p2p_koikoi.fairness.shuffle import unlock


def test_honest_round_deals_a_legal_round() -> None:
    pipe = honest_round(dealer_seat=1)
    a, b = pipe.sides
    assert a.phase is Phase.DONE and b.phase is Phase.DONE
    assert pipe.reports[0] == pipe.reports[1]
    deck = pipe.reports[0].deck
    assert sorted(deck) == list(Card)
    deal = a.final_deal()
    assert deal == b.final_deal() == Deal.from_deck(list(deck), DealPattern.EIGHT, 1)
    # The engine accepts it as the deal of a round.
    Round.from_deal(PRESETS["nintendo"], 1, deal)
    # What each side learned during play is what the audit says is there.
    for seat in (0, 1):
        for position, card in pipe.learned[seat].items():
            assert deck[position] == card
    plan = a.plan
    assert mask_of(pipe.learned[0][p] for p in plan.hand(0)) == deal.hands[0]
    assert mask_of(pipe.learned[1][p] for p in plan.hand(1)) == deal.hands[1]
    assert mask_of(pipe.learned[0][p] for p in plan.table) == deal.table
    assert [pipe.learned[1][p] for p in plan.stock[:3]] == list(deal.stock[:3])


def test_each_side_can_decode_only_its_hand_and_the_public_cards() -> None:
    pipe = Pipe(dealer_seat=0)
    pipe.shuffle()
    a, b = pipe.sides
    assert a.decodable() == {} and b.decodable() == {}
    pipe.initial()
    for seat, side in enumerate(pipe.sides):
        visible = set(side.plan.hand(seat)) | set(side.plan.table)
        assert set(side.decodable()) == visible
        assert set(side.known) == visible == set(pipe.learned[seat])
        # Every other position: our own key alone unlocks nothing that is a card.
        final = side.final_deck
        assert final is not None
        own = derive_contribution(SECRETS[seat], CONTEXT, IDENTITY_KEYS[seat]).unlock_keys
        for position in set(range(48)) - visible:
            assert unlock(final[position], own[position], own[position]) is None
    pipe.draw()
    stock0 = a.plan.stock[0]
    assert stock0 in a.decodable() and stock0 in b.decodable()
    assert len(a.decodable()) == len(b.decodable()) == 17
    # Playing a hand card shows it to the other side, and only that one.
    position = a.plan.hand(0)[3]
    pipe.step(0, a.show([position]))
    assert set(b.decodable()) == set(b.plan.hand(1)) | set(b.plan.table) | {stock0, position}
    assert pipe.learned[1][position] == pipe.learned[0][position]


def test_the_table_opens_before_the_hands_and_hands_can_be_exchanged() -> None:
    pipe = Pipe(pattern=DealPattern.FOUR_FOUR, dealer_seat=1)
    pipe.shuffle()
    pipe.both(FairDeal.reveal_table)
    a, b = pipe.sides
    table = set(a.plan.table)
    assert set(pipe.learned[0]) == set(pipe.learned[1]) == table
    before = a.plan.hand(0)
    for side in pipe.sides:
        side.exchange_hands()
    assert a.plan.hand(0) == b.plan.hand(0) == reveal_plan(DealPattern.FOUR_FOUR, 1).hand(1) != before
    pipe.both(FairDeal.reveal_hand)
    assert set(pipe.learned[0]) == table | set(a.plan.hand(0))
    with pytest.raises(DealStateError):
        a.exchange_hands()
    pipe.audit()
    deal = a.final_deal()
    unexchanged = Deal.from_deck(list(pipe.reports[0].deck), DealPattern.FOUR_FOUR, 1)
    assert deal.hands == (unexchanged.hands[1], unexchanged.hands[0])
    assert mask_of(pipe.learned[0][p] for p in a.plan.hand(0)) == deal.hands[0]


def test_a_teshi_claim_shows_the_claimed_cards() -> None:
    pipe = Pipe(pattern=DealPattern.TWO_TWO)
    pipe.shuffle()
    pipe.initial()
    a, b = pipe.sides
    claimed = a.plan.hand(0)[:4]
    step = a.show(claimed)
    assert isinstance(step.send[0], Show) and step.send[0].positions == tuple(sorted(claimed))
    pipe.step(0, step)
    assert {p: pipe.learned[1][p] for p in claimed} == {p: pipe.learned[0][p] for p in claimed}
    # Playing a claimed card later shows it again, consistently, and teaches nothing new.
    pipe.step(0, a.show([claimed[0]]))
    assert b.known[claimed[0]] == a.known[claimed[0]]


def test_draws_follow_the_stock_order_and_stop_at_the_end() -> None:
    pipe = Pipe()
    pipe.shuffle()
    pipe.initial()
    a, b = pipe.sides
    for _ in range(24):
        pipe.draw()
    assert set(a.plan.stock) <= set(pipe.learned[0]) and set(b.plan.stock) <= set(pipe.learned[1])
    with pytest.raises(DealStateError, match="stock is empty"):
        a.draw()


def test_a_draw_is_learned_only_when_both_keys_are_out() -> None:
    pipe = Pipe()
    pipe.shuffle()
    pipe.initial()
    a, b = pipe.sides
    step = a.draw()
    assert step.learned == ()
    pipe.step(0, step)  # b now holds a's key, but has not released its own
    position = a.plan.stock[0]
    assert position not in b.known and position not in a.known
    step = b.draw()
    assert [learned.position for learned in step.learned] == [position]
    pipe.step(1, step)
    assert a.known[position] == b.known[position]


def test_secrets_revealed_in_either_order_give_the_same_audit() -> None:
    pipe = Pipe()
    pipe.shuffle()
    pipe.initial()
    a, b = pipe.sides
    pipe.step(0, a.reveal_secret())
    assert a.phase is Phase.LOCKED and b.phase is Phase.LOCKED
    # b still plays on after a's secret arrived, then reveals.
    step = b.reveal_secret()
    assert step.report is not None and b.phase is Phase.DONE
    pipe.step(1, step)
    assert a.report == b.report
    with pytest.raises(DealStateError):
        a.draw()


def test_the_transcript_audits_for_a_third_party() -> None:
    pipe = honest_round()
    report = audit_transcript(CONTEXT, IDENTITY_KEYS, pipe.sides[0].transcript)
    assert report == pipe.reports[0]
    assert audit_transcript(CONTEXT, IDENTITY_KEYS, pipe.sides[1].transcript) == report


def test_a_peer_that_stops_has_forfeited() -> None:
    pipe = Pipe()
    pipe.shuffle()
    pipe.initial()
    a = pipe.sides[0]
    pipe.step(0, a.reveal_secret())
    # b never reveals: the session layer's deadline passes.
    forfeit = a.forfeit()
    assert forfeit.seat == 1 and forfeit.phase is Phase.LOCKED
    assert [type(m) for m in forfeit.evidence] == [type(m) for s, m in a.transcript if s == 1]
    assert a.phase is Phase.FORFEITED
    with pytest.raises(DealStateError):
        a.receive(Reveal(SECRETS[1]))
    with pytest.raises(DealStateError):
        a.forfeit()


def test_a_redeal_is_a_fresh_shuffle() -> None:
    first = honest_round()
    context = DealContext(CONTEXT.match_id, CONTEXT.round, redeal=1)
    second = honest_round(context=context)
    assert first.reports[0].deck != second.reports[0].deck
    assert first.sides[0].transcript[0] != second.sides[0].transcript[0]


def test_the_api_refuses_calls_out_of_turn() -> None:
    a = FairDeal(CONTEXT, 0, IDENTITY_KEYS, SECRETS[0])
    with pytest.raises(DealStateError):
        a.receive(Keys((0,), (bytes(32),)))
    with pytest.raises(DealStateError):
        a.reveal_initial()
    a.start()
    with pytest.raises(DealStateError):
        a.start()
    with pytest.raises(DealStateError):
        a.draw()
    with pytest.raises(DealStateError):
        a.reveal_secret()
    pipe = Pipe()
    pipe.shuffle()
    side = pipe.sides[0]
    with pytest.raises(DealStateError, match="after the table"):
        side.draw()
    with pytest.raises(DealStateError):
        side.reveal_hand()
    pipe.initial()
    with pytest.raises(DealStateError, match="own hand"):
        side.show([side.plan.hand(1)[0]])
    with pytest.raises(DealStateError):
        side.reveal_initial()


def test_constructor_checks() -> None:
    with pytest.raises(ValueError):
        FairDeal(CONTEXT, 2, IDENTITY_KEYS, SECRETS[0])
    with pytest.raises(ValueError):
        FairDeal(CONTEXT, 0, (IDENTITY_KEYS[0], IDENTITY_KEYS[0]), SECRETS[0])
    with pytest.raises(ValueError):
        FairDeal(CONTEXT, 0, IDENTITY_KEYS, b"short")
    with pytest.raises(ValueError):
        DealContext(b"")
    with pytest.raises(ValueError):
        DealContext(b"m", round=2**32)


def test_both_sides_exchange_the_same_bytes_in_the_same_order() -> None:
    pipe = honest_round()
    a_sent = [bytes_ for seat, bytes_ in pipe.wire if seat == 0]
    assert [m.to_bytes() for s, m in pipe.sides[0].transcript if s == 0] == a_sent
    assert [m.to_bytes() for s, m in pipe.sides[1].transcript if s == 0] == a_sent
    kinds = [type(m) for s, m in pipe.sides[1].transcript if s == 0]
    assert kinds[:3] == [type(pipe.sides[0].transcript[0][1]), Deck, Deck]
