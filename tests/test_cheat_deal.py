"""Cheating at the deal: each attack is our own session with one step altered, against the honest program.

The cheater signs its lies with its own key, so they link and verify; only the deal protocol's
checks (DEAL.md section 9 on receipt, section 10 at the audit) can catch them. Each test asserts the
entry at which the honest side caught the cheat: the first one that makes it knowable. Point and
key checks happen on receipt; a card that was swapped is caught when its position opens; a chosen
permutation is invisible (that is the point of masking) until the cheater's secret is out.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import trio.testing
from test_cheat_support import Liar, assert_caught, verify_record

from p2p_koikoi.engine import preset
from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness import DealContext, Deck, FairDeal, Keys, Reveal, parse_message
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.session.events import PeerLeft, SessionEnd
from p2p_koikoi.session.match_session import MatchSession, Stage
from p2p_koikoi.testing.adversary import duel

RULES = preset("nintendo")
CHEATER = 1  # the guest cheats; test_cheat_moves has the host cheat too


def deal_message(session: MatchSession, kind: str, body: list[Any], stage: Stage = Stage.SETUP) -> object | None:
    """The deal message of an entry about to be written in ``stage`` (by default a round's deal)."""
    return parse_message(body[2]) if kind == "deal" and session.stage is stage else None


def with_message(body: list[Any], message: Deck | Keys | Reveal) -> list[Any]:
    return [body[0], body[1], message.to_bytes()]


# -- stacking the deck -------------------------------------------------------------------------


class ChosenPermutation(MatchSession):
    """Shuffles with a permutation of its choosing (none at all: the identity), not the one its secret
    derives. Every point is still a masked card, so nothing is wrong until the secret comes out."""

    def new_deal(
        self, context: DealContext, seat: int, keys: tuple[bytes, bytes], secret: bytes, **layout: Any
    ) -> FairDeal:
        fair = super().new_deal(context, seat, keys, secret, **layout)
        if context.round:
            fair._mine = dataclasses.replace(fair._mine, permutation=tuple(range(48)))
        return fair


async def test_a_chosen_permutation_is_caught_at_the_audit(tmp_path: Path) -> None:
    """Masked points cannot be told apart (DDH), so the earliest proof is the cheater's secret: its
    deck pass does not re-derive from it (``deck-mismatch``). Caught on the cheater's Reveal."""
    d = await duel(RULES, tmp_path, cheater=ChosenPermutation)
    reveal = d.record.entries[-2]
    assert isinstance(parse_message(reveal.entry.body[2]), Reveal)
    assert_caught(d, "deck-mismatch", blame=CHEATER, offending=reveal, stage=Stage.AUDIT)


class DuplicatesACard(Liar):
    """Copies one point of its shuffled deck (pass 2) over another: one card twice, another gone."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body)
        if isinstance(message, Deck) and message.number == 2:
            points = list(message.points)
            points[5] = points[3]
            return with_message(body, Deck(2, tuple(points)))
        return None


async def test_a_duplicated_card_is_caught_on_receipt(tmp_path: Path) -> None:
    """Two equal points in one deck are a duplicated card: caught on the deck's own entry."""
    d = await duel(RULES, tmp_path, cheater=DuplicatesACard)
    assert_caught(d, "duplicate-point", blame=CHEATER, offending=d.cheater_lie, stage=Stage.SETUP)


class SubstitutesATableCard(Liar):
    """The host puts the crane's own point at the first table position of its lock pass (deck 3)
    instead of the locked card there: a valid, distinct point, so the deck passes the point checks."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body)
        if isinstance(message, Deck) and message.number == 3:
            assert self._deal is not None
            points = list(message.points)
            points[self._deal.plan.table[0]] = CARD_POINTS[Card.PINE_CRANE]
            return with_message(body, Deck(3, tuple(points), message.proof))
        return None


async def test_a_substituted_card_is_caught_on_its_deck(tmp_path: Path) -> None:
    """The lock pass proves each position is the received one times its committed scalar: a swapped
    point breaks that proof, so the deck's own entry is caught (``bad-lock-proof``), before any key
    is sent, and ``koikoi verify`` finds the same from the record alone."""
    d = await duel(RULES, tmp_path, cheater=SubstitutesATableCard, cheater_seat=0)
    assert_caught(d, "bad-lock-proof", blame=0, offending=d.cheater_lie, stage=Stage.SETUP)


# -- keys and points ---------------------------------------------------------------------------


class WrongLockKey(Liar):
    """Sends, for one table position, the key of another position: a valid scalar, the wrong key."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body)
        if isinstance(message, Keys):
            keys = list(message.keys)
            keys[0], keys[1] = keys[1], keys[0]
            return with_message(body, Keys(message.positions, tuple(keys)))
        return None


async def test_a_wrong_lock_key_is_caught_on_receipt(tmp_path: Path) -> None:
    """Every key is checked against the sender's commitment from its lock pass (``u * Gamma == X[k]``)
    as it arrives: a wrong key is caught on that very entry (``wrong-key``)."""
    d = await duel(RULES, tmp_path, cheater=WrongLockKey)
    assert_caught(d, "wrong-key", blame=CHEATER, offending=d.cheater_lie, stage=Stage.SETUP)


class InvalidPoint(Liar):
    """Puts a byte string that is no group element into its deck."""

    point = b"\xff" * 32

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body)
        if isinstance(message, Deck) and message.number == 2:
            return with_message(body, Deck(2, (self.point, *message.points[1:])))
        return None


class IdentityPoint(InvalidPoint):
    """The identity element: valid encoding, but it would make one card every card."""

    point = bytes(32)


@pytest.mark.parametrize("cheater", [InvalidPoint, IdentityPoint], ids=["non-canonical", "identity"])
async def test_an_invalid_group_point_is_caught_on_receipt(tmp_path: Path, cheater: type[Liar]) -> None:
    """Every point of a received deck is decoded and checked before use (``invalid-point``)."""
    d = await duel(RULES, tmp_path, cheater=cheater)
    assert_caught(d, "invalid-point", blame=CHEATER, offending=d.cheater_lie, stage=Stage.SETUP)


# -- secrets -----------------------------------------------------------------------------------


class WrongSecret(Liar):
    """Reveals a secret other than the one it committed to (one bit flipped)."""

    stage_of_lie = Stage.AUDIT

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body, self.stage_of_lie)
        if isinstance(message, Reveal):
            secret = bytes([message.secret[0] ^ 1]) + message.secret[1:]
            return with_message(body, Reveal(secret))
        return None


class WrongFirstDealerSecret(WrongSecret):
    """The same lie when the first dealer is chosen (a coin flip, or a dealer draw: a whole deal)."""

    stage_of_lie = Stage.FIRST_DEALER


@pytest.mark.parametrize(
    ("cheater", "rules", "stage"),
    [
        (WrongSecret, "nintendo", Stage.AUDIT),
        (WrongFirstDealerSecret, "lemme", Stage.FIRST_DEALER),
        (WrongFirstDealerSecret, "nintendo", Stage.FIRST_DEALER),
    ],
    ids=["round-audit", "coin-flip", "dealer-draw"],
)
async def test_a_secret_that_does_not_open_its_commitment_is_caught_on_receipt(
    tmp_path: Path, cheater: type[Liar], rules: str, stage: Stage
) -> None:
    """A revealed secret is checked against its commitment at once (``commitment-mismatch``): in a
    round's audit, in the coin flip (where a chosen value would pick the dealer) and in a dealer draw."""
    d = await duel(preset(rules), tmp_path, cheater=cheater)
    assert_caught(d, "commitment-mismatch", blame=CHEATER, offending=d.cheater_lie, stage=stage)


class RevealsEarly(Liar):
    """Sends its secret in place of its table keys: the deal takes a secret whenever the deck is
    locked, so only the session's stage can tell that none is due."""

    def lie(self, kind: str, body: list[Any]) -> list[Any] | None:
        message = deal_message(self, kind, body)
        if isinstance(message, Keys):
            assert self._deal is not None
            return with_message(body, Reveal(self._deal._secret))
        return None


async def test_a_secret_sent_before_it_is_due_is_refused(tmp_path: Path) -> None:
    """Found by the session fuzzer: this used to crash the honest side (a ``KeyError`` opening a table
    it never got the keys for). Now ``unexpected-message``, on that entry."""
    d = await duel(RULES, tmp_path, cheater=RevealsEarly)
    assert_caught(d, "unexpected-message", blame=CHEATER, offending=d.cheater_lie, stage=Stage.SETUP)


# -- refusing to reveal --------------------------------------------------------------------------


class _Stall(Exception):
    pass


class Staller(MatchSession):
    """Plays the round, then never writes its secret (the round lost, it would rather not be audited);
    its connection stays up and answers keepalives."""

    def _write(self, kind: str, body: list[Any]) -> Any:
        if self.stage is Stage.AUDIT and kind == "deal":
            raise _Stall
        return super()._write(kind, body)


async def test_refusing_to_reveal_loses_by_silence(tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """Withholding the secret cannot be proved by any entry, only by silence, and silence loses: the honest
    side waits the automatic step's deadline (60 s, on the autojump clock) from the moment the secret was
    due, then writes its signed claim (``peer-gone``) as the record's last entry, its own secret the entry
    before. The match is the honest seat's by the staller's silence, marked as claimed (the staller could
    refute it only with the entry it owes); ``koikoi verify`` rules the same (DEAL.md section 11)."""
    d = await duel(RULES, tmp_path, cheater=Staller, step_deadline=60, dead_after=10_000, timeout=10_000)
    report = d.report
    assert report.ended_by is SessionEnd.PEER_VANISHED and report.failure is None
    assert report.text == "the opponent took no protocol step"
    assert [e.text for e in d.player.events if isinstance(e, PeerLeft)] == [report.text]
    honest = d.honest
    assert honest.ending is not None and (honest.ending.how, honest.ending.owed) == ("silence", CHEATER)
    assert honest.ending.winner == honest.seat and honest.ending.claimed and not honest.resumable
    *_, owed, goodbye = d.record.entries
    assert (goodbye.entry.kind, goodbye.entry.author, goodbye.entry.body[0]) == ("goodbye", 0, "peer-gone")
    assert owed.entry.author == honest.seat and isinstance(parse_message(owed.entry.body[2]), Reveal)
    assert not any(e.entry.author == CHEATER for e in d.record.entries if e.entry.seq > owed.entry.seq)
    verdict = verify_record(d.path)
    assert (verdict.code, verdict.verdict) == (0, "verified"), verdict.output
    ending = verdict.output["ending"]
    assert (ending["how"], ending["seat"], ending["owed"], ending["winner"]) == ("silence", 0, CHEATER, 0)
    assert ending["claimed"] is True
