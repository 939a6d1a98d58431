"""Cheating at play: the cheater writes, once, a move its own engine would refuse, signed and linked.

Each cheater is an honest session whose ``_write`` says something else once (:class:`Liar`). The
honest side checks every move with its own engine, and every shown card with the deal protocol, on
the entry that carries it, so each lie is caught on its own entry. ``result`` entries are each
seat's own count of the round; a different count is caught on the first one that differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_cheat_support import Liar, assert_caught

from p2p_koikoi.engine import Action, ClaimHandYaku, Phase, Play, preset
from p2p_koikoi.engine.cards import Card, cards_of, month_mask
from p2p_koikoi.engine.yaku import Yaku
from p2p_koikoi.fairness import Show, parse_message
from p2p_koikoi.session.match_session import Stage
from p2p_koikoi.testing.adversary import duel

RULES = preset("nintendo")  # hand yaku on, no Gaji: every move below is plainly illegal


def other_month_on_table(session: Liar, card: Card) -> Card | None:
    """A table card of another month than ``card``'s, if any."""
    assert session.round is not None
    others = session.round.table & ~month_mask(card.month)
    return next(cards_of(others), None)


class PlaysACardAgain(Liar):
    """Plays, a second time, a card it played earlier in the round, with that earlier (genuine) Show."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "move" or not body[1].startswith("play "):
            return None
        for signed in self.chain.entries:
            old = signed.entry
            if old.author == self.seat and old.kind == "move" and old.body[0] == body[0]:
                played = Action.parse(old.body[1])
                if isinstance(played, Play):
                    return [body[0], f"play {played.card.id}", old.body[2], body[3]]
        return None


async def test_playing_a_card_not_in_its_hand_is_caught_by_the_engine(tmp_path: Path) -> None:
    """The Show re-opens a position of the cheater's own hand, so the deal protocol accepts it; the
    engine knows the card was already played (``illegal-move:card-not-in-hand``), on that entry."""
    d = await duel(RULES, tmp_path, cheater=PlaysACardAgain)
    assert_caught(d, "illegal-move:card-not-in-hand", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)
    assert d.caught_in[1] is Phase.PLAY


class ClaimsAnotherCard(Liar):
    """Plays a card it does not hold: the Show opens the position of the card it holds but names
    another card (the crane, or the curtain if it holds the crane)."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "move" or not body[1].startswith("play ") or self.round is None:
            return None
        show = parse_message(body[2])
        assert isinstance(show, Show)
        held = self.round.hands[self.seat]
        claimed = next(c for c in (Card.PINE_CRANE, Card.CHERRY_CURTAIN) if not held & c.bit)
        forged = Show(show.positions, (claimed,), show.keys)
        return [body[0], f"play {claimed.id}", forged.to_bytes(), body[3]]


async def test_showing_a_card_it_does_not_hold_is_caught_by_the_deal(tmp_path: Path) -> None:
    """The honest side unlocks the shown position itself: it holds another card than the one claimed
    (``claim-mismatch``), caught on the play's entry."""
    d = await duel(RULES, tmp_path, cheater=ClaimsAnotherCard)
    assert_caught(d, "claim-mismatch", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)


class TakesANonMatchingCard(Liar):
    """Plays a card honestly but takes a table card of another month with it."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "move" or not body[1].startswith("play "):
            return None
        played = Action.parse(body[1])
        assert isinstance(played, Play)
        target = other_month_on_table(self, played.card)
        if target is None:
            return None
        return [body[0], f"play {played.card.id} take {target.id}", body[2], body[3]]


async def test_taking_a_table_card_that_does_not_match_is_caught(tmp_path: Path) -> None:
    """``illegal-move:target-does-not-match``, on the play's entry."""
    d = await duel(RULES, tmp_path, cheater=TakesANonMatchingCard)
    assert_caught(d, "illegal-move:target-does-not-match", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)


class ChoosesWrongly(Liar):
    """Its drawn card matches two table cards; it names a table card of another month instead."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "move" or not body[1].startswith("take "):
            return None
        target = other_month_on_table(self, Card.parse(body[1].split()[1]))
        if target is None:
            return None
        return [body[0], f"take {target.id}", None, None]


async def test_choosing_the_wrong_one_of_two_is_caught(tmp_path: Path) -> None:
    """The drawn card is public, so the honest engine knows which two cards it may take
    (``illegal-move:target-does-not-match``), on the choice's entry, in the draw-choice phase."""
    d = await duel(RULES, tmp_path, cheater=ChoosesWrongly, seed="duel 1")  # a seed found to deal the case
    assert_caught(d, "illegal-move:target-does-not-match", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)
    assert d.caught_in[1] is Phase.DRAW_CHOICE


class CallsWithoutARise(Liar):
    """Calls Koi-Koi (or Shobu, to end the round as if it had scored) instead of playing a card."""

    call = "koikoi"

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind == "move" and body[1].startswith("play "):
            return [body[0], self.call, None, None]
        return None


class StopsWithoutARise(CallsWithoutARise):
    call = "stop"


@pytest.mark.parametrize("cheater", [CallsWithoutARise, StopsWithoutARise], ids=["koikoi", "shobu"])
async def test_calling_koikoi_or_shobu_without_a_rise_is_caught(tmp_path: Path, cheater: type[Liar]) -> None:
    """A decision is a move of the decision phase only, which only a rise opens
    (``illegal-move:wrong-phase``), on the call's entry."""
    d = await duel(RULES, tmp_path, cheater=cheater)
    assert_caught(d, "illegal-move:wrong-phase", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)
    assert d.caught_in[1] is Phase.PLAY


class FalseTeshi(Liar):
    """Instead of passing, claims Teshi, showing four genuine cards of its hand that are not four of a
    month (the honest side sees the very cards, so the claim needs no audit)."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "move" or body[1] != "pass" or self._deal is None:
            return None
        positions = self._deal.plan.hand(self.seat)[:4]
        show = self._deal.show(positions).send[0]
        assert isinstance(show, Show)
        cards = sum(card.bit for card in show.cards)
        return [body[0], str(ClaimHandYaku(Yaku.TESHI, cards)), show.to_bytes(), None]


async def test_a_false_teshi_is_caught_on_the_claim(tmp_path: Path) -> None:
    """``illegal-move:false-hand-yaku``, on the claim's entry, in the hand-yaku phase."""
    d = await duel(RULES, tmp_path, cheater=FalseTeshi)
    assert_caught(d, "illegal-move:false-hand-yaku", blame=1, offending=d.cheater_lie, stage=Stage.PLAY)
    assert d.caught_in[1] is Phase.HAND_YAKU


class ClaimsMore(Liar):
    """Counts the round with a payment one point higher than the rules give."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind != "result":
            return None
        return [*body[:4], body[4] + 1, *body[5:]]


@pytest.mark.parametrize("cheater_seat", [0, 1], ids=["host-cheats", "guest-cheats"])
async def test_claiming_a_wrong_score_is_caught_on_the_result(tmp_path: Path, cheater_seat: int) -> None:
    """Each seat writes its own count of the round; the honest side compares the peer's with its own
    field by field (``result-mismatch`` names the payment), on the cheater's result entry, whether the
    cheater counts first (the host) or second."""
    d = await duel(RULES, tmp_path, cheater=ClaimsMore, cheater_seat=cheater_seat)
    record = assert_caught(d, "result-mismatch", blame=cheater_seat, offending=d.cheater_lie, stage=Stage.RESULT)
    assert "in the payment" in record.notes[0].text


class ExchangesInAnotherRound(Liar):
    """Under the rulebook, writes its exchange decision for a round other than the one being dealt."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        if kind == "move" and self.stage is Stage.EXCHANGE:
            return [body[0] + 1, *body[1:]]
        return None


async def test_an_exchange_for_another_round_is_caught(tmp_path: Path) -> None:
    """Found by the session fuzzer: the exchange decision's round was not checked (a ``keep`` of round 2
    was taken in round 1). Now ``wrong-round``, on that entry, and ``koikoi verify`` finds the same."""
    d = await duel(preset("rulebook"), tmp_path, cheater=ExchangesInAnotherRound, cheater_seat=1, seed="exchange")
    assert_caught(
        d,
        "wrong-round",
        blame=1,
        offending=d.cheater_lie,
        stage=Stage.EXCHANGE,
    )
