"""The round state machine: captures, decisions, endings, hand yaku, redeals, exchange, the Gaji, views."""

from __future__ import annotations

import pickle

import pytest
from builders import build_round, cards

from p2p_koikoi.engine import (
    CHANCE,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    Exchange,
    IllegalActionError,
    OutcomeKind,
    PassHandYaku,
    Phase,
    Play,
    Round,
    RuleId,
    Yaku,
    preset,
)

C = Card.parse
LEMME = preset("lemme")
NO_HAND = LEMME.with_overrides(["hand-yaku=off"])


def to_play(r: Round) -> Round:
    while r.phase in (Phase.EXCHANGE, Phase.HAND_YAKU):
        r.apply(r.legal_actions()[0])
    return r


def snapshot(r: Round) -> tuple[object, ...]:
    return (r.public_state(), tuple(r.hands), tuple(r.hidden), r.stock_index, r.pending_draw, len(r.history))


# -- captures ----------------------------------------------------------------------


def test_no_match_goes_to_the_table() -> None:
    r = build_round(NO_HAND, hand0="pine-crane", hand1="", table="plum-plain-1", stock="plum-plain-2")
    r.apply(Play(C("pine-crane")))
    assert r.table & C("pine-crane").bit
    assert r.phase is Phase.DRAW and r.to_act == CHANCE


def test_one_match_is_taken() -> None:
    r = build_round(NO_HAND, hand0="pine-crane", hand1="", table="pine-plain-1", stock="maple-deer")
    r.apply(Play(C("pine-crane")))
    assert r.captures[0] == cards("pine-crane pine-plain-1")
    assert not r.table & C("pine-plain-1").bit


def test_two_matches_need_a_choice() -> None:
    r = build_round(NO_HAND, hand0="pine-crane", hand1="", table="pine-plain-1 pine-ribbon", stock="maple-deer")
    legal = [a for a in r.legal_actions() if isinstance(a, Play) and a.card is C("pine-crane")]
    assert legal == [Play(C("pine-crane"), C("pine-ribbon")), Play(C("pine-crane"), C("pine-plain-1"))]
    before = snapshot(r)
    with pytest.raises(IllegalActionError) as err:
        r.apply(Play(C("pine-crane")))
    assert err.value.rule == "choose-capture"
    assert snapshot(r) == before
    r.apply(Play(C("pine-crane"), C("pine-ribbon")))
    assert r.captures[0] == cards("pine-crane pine-ribbon")
    assert r.table & C("pine-plain-1").bit


def test_the_fourth_card_takes_all_three() -> None:
    r = build_round(
        NO_HAND, hand0="pine-crane", hand1="", table="pine-plain-1 pine-plain-2 pine-ribbon", stock="maple-deer"
    )
    with pytest.raises(IllegalActionError) as err:
        r.apply(Play(C("pine-crane"), C("pine-ribbon")))
    assert err.value.rule == "no-choice"
    r.apply(Play(C("pine-crane")))
    assert r.captures[0] == cards("pine-crane pine-plain-1 pine-plain-2 pine-ribbon")


def test_drawn_card_with_two_matches_asks_its_seat() -> None:
    r = build_round(NO_HAND, hand0="maple-deer", hand1="", table="pine-plain-1 pine-ribbon", stock="pine-crane")
    r.apply(Play(C("maple-deer")))
    r.apply(Draw(C("pine-crane")))
    assert r.phase is Phase.DRAW_CHOICE and r.to_act == 0 and r.pending_draw is C("pine-crane")
    with pytest.raises(IllegalActionError):
        r.apply(ChooseCapture(C("maple-deer")))
    r.apply(ChooseCapture(C("pine-plain-1")))
    assert r.captures[0] & cards("pine-crane pine-plain-1") == cards("pine-crane pine-plain-1")


def test_a_card_just_played_can_be_taken_by_the_draw() -> None:
    r = build_round(NO_HAND, hand0="pine-crane", hand1="", table="", stock="pine-plain-1")
    r.apply(Play(C("pine-crane")))
    r.apply(Draw(C("pine-plain-1")))
    assert r.captures[0] == cards("pine-crane pine-plain-1")


def test_illegal_moves_name_the_rule_and_change_nothing() -> None:
    r = build_round(NO_HAND, hand0="pine-crane", hand1="maple-deer", table="", stock="plum-plain-1")
    cases = [
        (Play(C("maple-deer")), None, "card-not-in-hand"),
        (Play(C("maple-deer")), 1, "not-your-turn"),
        (Draw(C("plum-plain-1")), None, "wrong-phase"),
        (CallKoiKoi(), None, "wrong-phase"),
        (Play(C("pine-crane"), C("maple-deer")), None, "target-does-not-match"),
    ]
    for action, seat, rule in cases:
        before = snapshot(r)
        with pytest.raises(IllegalActionError) as err:
            r.apply(action, seat)
        assert err.value.rule == rule
        assert snapshot(r) == before
    r.apply(Play(C("pine-crane")))
    with pytest.raises(IllegalActionError) as err:
        r.apply(Draw(C("maple-plain-1")), CHANCE)
    assert err.value.rule == "wrong-draw"


def test_an_illegal_move_error_crosses_a_process_boundary_whole() -> None:
    # The arena's jobs and a search's pool run the engine in worker processes, which return errors pickled.
    error = pickle.loads(pickle.dumps(IllegalActionError(RuleId.NOT_YOUR_TURN, "it is player 1's turn")))
    assert type(error) is IllegalActionError
    assert (error.rule, str(error)) == ("not-your-turn", "it is player 1's turn")


# -- decisions -------------------------------------------------------------------------


def make_yaku_turn(rules_name: str, *overrides: str, dealer: int = 0) -> Round:
    """Seat 0 completes Inoshikacho with its first turn: it holds the boar, the deer and butterflies are its
    own captures-to-be via the table and the draw."""
    rules = preset(rules_name).with_overrides(["hand-yaku=off", *overrides])
    return build_round(
        rules,
        dealer=dealer,
        hand0="clover-boar maple-deer",
        hand1="",
        table="clover-plain-1 maple-plain-1 peony-plain-1",
        stock="peony-butterflies",
    )


def test_a_rise_offers_koikoi_or_stop() -> None:
    r = make_yaku_turn("lemme")
    r.apply(Play(C("clover-boar")))
    r.apply(Draw(C("peony-butterflies")))
    assert r.phase is Phase.PLAY  # two of three: no yaku yet
    r.apply(r.legal_actions()[0])  # seat 1 plays
    r.apply(r.legal_actions()[0])  # draws
    assert r.phase is Phase.PLAY and r.to_act == 0, "the deal gives seat 1 no yaku on its first turn"
    r.apply(Play(C("maple-deer")))
    r.apply(r.legal_actions()[0])
    assert r.phase is Phase.DECISION and r.to_act == 0
    assert r.legal_actions() == [CallKoiKoi(), CallStop()]
    r.apply(CallStop())
    assert r.outcome is not None and r.outcome.kind is OutcomeKind.STOP and r.outcome.winner == 0
    assert [(y.yaku, y.points) for y in r.outcome.yaku] == [(Yaku.INOSHIKACHO, 5)]
    assert r.outcome.next_dealer == 0


def play_out_seat0_yaku(r: Round) -> None:
    """Seat 0 makes Inoshikacho on its second turn (seat 1 plays its own cards meanwhile)."""
    r.apply(Play(C("clover-boar")))
    r.apply(Draw(C("peony-butterflies")))
    r.apply(r.legal_actions()[0])
    r.apply(r.legal_actions()[0])
    r.apply(Play(C("maple-deer")))
    r.apply(r.legal_actions()[0])


def test_koikoi_then_only_a_rise_offers_again() -> None:
    r = make_yaku_turn("lemme")
    play_out_seat0_yaku(r)
    r.apply(CallKoiKoi())
    assert r.calls == [1, 0] and r.last_caller == 0 and r.phase is Phase.PLAY and r.to_act == 1


# -- hand yaku, redeals, exchange ------------------------------------------------------------


TESHI = "cherry-curtain cherry-ribbon cherry-plain-1 cherry-plain-2"
KUTTSUKI = "pine-crane pine-ribbon plum-warbler plum-ribbon iris-bridge iris-ribbon maple-deer maple-ribbon"


def test_teshi_must_be_claimed_and_wins() -> None:
    r = build_round(LEMME, dealer=0, hand0="", hand1=TESHI, table="")
    r.apply(PassHandYaku())
    with pytest.raises(IllegalActionError) as err:
        r.apply(PassHandYaku())
    assert err.value.rule == "hand-yaku-not-claimed"
    assert r.legal_actions() == [ClaimHandYaku(Yaku.TESHI, cards(TESHI))]
    r.apply(ClaimHandYaku(Yaku.TESHI, cards(TESHI)))
    assert r.outcome is not None and r.outcome.kind is OutcomeKind.HAND_YAKU
    assert (r.outcome.winner, r.outcome.next_dealer) == (1, 1)
    score = r.outcome.score(LEMME, 25)
    assert score is not None and score.payment == 6


def test_kuttsuki_and_a_false_claim() -> None:
    r = build_round(LEMME, dealer=0, hand0=KUTTSUKI, hand1="", table="")
    with pytest.raises(IllegalActionError) as err:
        r.apply(ClaimHandYaku(Yaku.TESHI, cards("pine-crane pine-ribbon plum-warbler plum-ribbon")))
    assert err.value.rule == "false-hand-yaku"
    r.apply(ClaimHandYaku(Yaku.KUTTSUKI, cards(KUTTSUKI)))
    r.apply(PassHandYaku())
    assert r.outcome is not None and r.outcome.winner == 0


@pytest.mark.parametrize(
    ("both", "kind", "winner"), [("dealer", OutcomeKind.HAND_YAKU, 0), ("draw", OutcomeKind.HAND_YAKU_DRAW, None)]
)
def test_both_dealt_a_hand_yaku(both: str, kind: OutcomeKind, winner: int | None) -> None:
    rules = LEMME.with_overrides([f"both-hand-yaku={both}"])
    r = build_round(rules, dealer=0, hand0=KUTTSUKI, hand1=TESHI, table="")
    r.apply(r.legal_actions()[0])
    r.apply(r.legal_actions()[0])
    assert r.outcome is not None and (r.outcome.kind, r.outcome.winner) == (kind, winner)
    assert r.outcome.counts and r.outcome.next_dealer == 0


def test_four_of_a_month_on_the_table_is_dealt_again() -> None:
    r = build_round(LEMME, hand0="", hand1="", table=TESHI)
    assert r.outcome is not None and r.outcome.kind is OutcomeKind.REDEAL and not r.outcome.counts
    three = build_round(LEMME, hand0="", hand1="", table="cherry-curtain cherry-ribbon cherry-plain-1")
    assert not three.over


def test_rulebook_redeals_four_pairs_on_the_table_too() -> None:
    rulebook = preset("rulebook")
    assert build_round(rulebook, hand0="", hand1="", table=KUTTSUKI).over
    assert not build_round(LEMME, hand0="", hand1="", table=KUTTSUKI).over


def test_rulebook_hand_exchange() -> None:
    rules = preset("rulebook")
    r = build_round(rules, dealer=0, hand0="pine-crane", hand1="maple-deer", table="")
    h0, h1 = r.hands
    assert r.phase is Phase.EXCHANGE and r.to_act == 1
    assert r.legal_actions() == [Exchange(False), Exchange(True)]
    r.apply(Exchange(True))
    assert r.hands == [h1, h0] and r.phase is Phase.HAND_YAKU and r.to_act == 0


# -- the Gaji ------------------------------------------------------------------------------


def gaji_round(**kw: str) -> Round:
    rules = preset("rulebook").with_overrides(["hand-yaku=off", "hand-exchange=off"])
    return build_round(rules, **kw)


def test_gaji_takes_any_table_card_and_the_month_left_on_the_table() -> None:
    r = gaji_round(hand0="willow-lightning", hand1="", table="pampas-moon pampas-plain-1", stock="maple-plain-1")
    assert Play(C("willow-lightning"), C("pampas-moon")) in r.legal_actions()
    r.apply(Play(C("willow-lightning"), C("pampas-moon")))
    assert r.captures[0] == cards("willow-lightning pampas-moon")
    r.apply(Draw(C("maple-plain-1")))
    # Seat 1 gives up at once to end the round: make the round end and check the award.
    r._finish(OutcomeKind.DRAWN, None, next_dealer=0, counts=True)
    assert r.captures[0] & C("pampas-plain-1").bit


def test_gaji_is_no_wildcard_after_the_other_played_november() -> None:
    r = gaji_round(
        dealer=1, hand0="willow-lightning", hand1="willow-swallow", table="pampas-moon", stock="maple-plain-1"
    )
    r.apply(Play(C("willow-swallow")), 1)
    r.apply(Draw(C("maple-plain-1")))
    with pytest.raises(IllegalActionError) as err:
        r.apply(Play(C("willow-lightning"), C("pampas-moon")))
    assert err.value.rule == "gaji-after-november"


def test_gaji_blocked_by_hiki() -> None:
    r = gaji_round(hand0="willow-lightning", hand1="pampas-moon", table="pampas-geese pampas-plain-1 pampas-plain-2")
    with pytest.raises(IllegalActionError) as err:
        r.apply(Play(C("willow-lightning"), C("pampas-geese")))
    assert err.value.rule == "gaji-blocked-by-hiki"
    assert Play(C("willow-lightning"), C("pampas-geese")) not in r.legal_actions()


def test_gaji_off_outside_the_rulebook() -> None:
    r = build_round(NO_HAND, hand0="willow-lightning", hand1="", table="pampas-moon")
    with pytest.raises(IllegalActionError) as err:
        r.apply(Play(C("willow-lightning"), C("pampas-moon")))
    assert err.value.rule == "target-does-not-match"


# -- views -----------------------------------------------------------------------------------


def test_a_view_hides_the_other_hand_and_the_stock() -> None:
    r = to_play(build_round(LEMME, hand0="pine-crane", hand1="maple-deer", table=""))
    v = r.view(0)
    assert v.hands[0] == r.hands[0] and v.hands[1] == 0 and v.hidden[1] == 8
    assert v.legal_actions() == r.legal_actions()
    assert v.unseen == r.hands[1] | sum(1 << c for c in r._stock)
    v1 = r.view(1)
    assert v1.hands[0] == 0 and v1.hands[1] == r.hands[1]
    # The view can follow the real round: the other seat's play and the draws come in as data.
    r.apply(r.legal_actions()[0])
    top = r.legal_actions()[0]
    v1.apply(r.history[-1][1], 0)
    v1.apply(top)
    r.apply(top)
    assert v1.public_state() == r.public_state()


def test_a_view_rejects_a_card_already_seen() -> None:
    r = to_play(build_round(LEMME, hand0="pine-crane", hand1="maple-deer", table=""))
    v = r.view(1)
    with pytest.raises(IllegalActionError):
        v.apply(Play(C("maple-deer")), 0)  # seat 1 holds it: seat 0 cannot play it


def test_a_copy_holds_every_slot_and_shares_no_list() -> None:
    r = to_play(build_round(LEMME, hand0="pine-crane", hand1="maple-deer", table=""))
    r.apply(r.legal_actions()[0])
    c = r.copy()
    for name in Round.__slots__:
        mine, theirs = getattr(r, name), getattr(c, name)
        assert theirs == mine, name
        if isinstance(mine, list):
            assert theirs is not mine, name
    # Playing on the copy leaves the original as it was.
    before = snapshot(r)
    c.apply(c.legal_actions()[0])
    assert snapshot(r) == before and snapshot(c) != before
