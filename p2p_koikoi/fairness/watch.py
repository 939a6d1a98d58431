"""A deal as a third party watches it: both players' messages, neither player's secret.

:class:`~p2p_koikoi.fairness.FairDeal` is one player's side and holds that
player's secret; a verifier holds none. :class:`DealWatch` makes every check a
spectator can make at the moment a message appears, blaming the sender as the
receiving player would (DEAL.md, section 9):

- each sender's messages come in the protocol's order (Commit, its two Decks,
  then Keys and Shows, then its Reveal);
- every Deck holds 48 valid, distinct points and carries a proof that holds
  (a shuffle pass: one secret scalar times a secret permutation of its input;
  a lock pass: each position locked by its committed scalar alone);
- every key is a valid scalar and the one its sender committed to for that
  position (``u * Gamma == X[k]``), hand keys included;
- Keys name exactly the sender's next group of positions; a Show names
  positions of the sender's own hand;
- a position whose two keys are both out (the table, a drawn card, a dealer
  draw) or a shown hand card whose other key is out unlocks to a card, the
  claimed one, seen at no other position;
- on each Reveal, that player's commitment opens and every deck and key it sent
  re-derives (``open_contribution``, ``verify_deck``, ``verify_release``); on
  the second, :func:`~p2p_koikoi.fairness.audit_transcript` audits the whole
  deal and gives the deck order.

What a player checks with its own secret (that the hand cards unlock to real
cards) a spectator can only check at the audit; with the proofs and the key
commitments, nothing else is left for it.

A deal the verifier has already audited in full (``audited``: its messages and
deck, from :mod:`p2p_koikoi.record.audits`) needs none of the group work: as
long as the messages seen are those audited, each one is already proved, and
the cards come from the deck order. The first message that differs from the
audited transcript switches the watch back to checking everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_koikoi.engine import Card
from p2p_koikoi.fairness import (
    DRAW_POSITIONS,
    CheatingDetected,
    Commit,
    DealContext,
    Deck,
    Keys,
    Message,
    Reason,
    Reveal,
    RevealPlan,
    Show,
    audit_transcript,
    group,
    parse_message,
)
from p2p_koikoi.fairness.audit import open_contribution, verify_deck, verify_release
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.coin import coin_context, coin_result
from p2p_koikoi.fairness.commit import opens
from p2p_koikoi.fairness.passproof import check_pass, key_matches
from p2p_koikoi.fairness.shuffle import deck_problem, unlock

__all__ = ["AuditedDeal", "CoinWatch", "DealWatch"]

_PASSES = ((1, 3), (2, 4))  # the deck passes each seat computes, in order


@dataclass(frozen=True, slots=True)
class AuditedDeal:
    """A deal audited clean ahead of time: its messages as (sender, bytes) in record order, the same
    messages parsed (so the walk need not parse them again), and its deck order."""

    messages: tuple[tuple[int, bytes], ...]
    parsed: tuple[Message, ...]
    deck: tuple[Card, ...]


class DealWatch:
    """One deal (a round's, a redeal's, or a dealer draw) seen from outside."""

    def __init__(
        self,
        context: DealContext,
        keys: tuple[bytes, bytes],
        plan: RevealPlan | None,
        audited: AuditedDeal | None = None,
    ) -> None:
        self.context = context
        self.keys = keys
        self.plan = plan  # None for a dealer draw
        self._audited = audited
        self.vouched = audited is not None
        self.transcript: list[tuple[int, Message]] = []
        self._entry_of: dict[int, int] = {}  # id(message) -> the entry that carried it
        self.commits: dict[int, Commit] = {}
        self.reveals: dict[int, Reveal] = {}
        self.decks: dict[int, Deck] = {}
        self._decks_sent = [0, 0]
        self._groups_sent = [0, 0]
        self.released: tuple[dict[int, bytes], dict[int, bytes]] = ({}, {})
        self.cards: dict[int, Card] = {}  # positions opened so far (public, or shown)
        self._position_of: dict[Card, int] = {}
        self.deck: tuple[Card, ...] | None = None  # the whole deck order, after a clean audit

    # ---------------------------------------------------------------- queries

    def entry_of(self, message: Message) -> int | None:
        """The entry that carried ``message`` (one of this deal's)."""
        return self._entry_of.get(id(message))

    def parse(self, seat: int, data: bytes) -> Message:
        """``seat``'s next message from its bytes: the audited one when it is the message due."""
        audited = self._audited
        n = len(self.transcript)
        if self.vouched and audited is not None and n < len(audited.messages) and audited.messages[n] == (seat, data):
            return audited.parsed[n]
        return parse_message(data)

    def card_at(self, position: int) -> Card:
        """The card at an opened position."""
        return self.cards[position]

    def exchange_hands(self) -> None:
        """The rulebook's hand exchange: the hands swap positions before any hand key is out."""
        assert self.plan is not None
        self.plan = self.plan.exchanged()

    # ---------------------------------------------------------------- receive

    def receive(self, entry: int, seat: int, message: Message) -> tuple[Card, ...]:
        """Take ``seat``'s next message (carried by ``entry``); returns the cards a Show opened.

        Raises :class:`CheatingDetected` naming the seat to blame.
        """
        if self.vouched:
            audited = self._audited
            assert audited is not None
            n = len(self.transcript)
            if n >= len(audited.messages) or audited.messages[n] != (seat, message.to_bytes()):
                self.vouched = False
        self.transcript.append((seat, message))
        self._entry_of[id(message)] = entry
        self._check_order(seat, message)
        if isinstance(message, Commit):
            self.commits[seat] = message
        elif isinstance(message, Deck):
            self._on_deck(seat, message)
        elif isinstance(message, Keys):
            self._on_keys(seat, message)
        elif isinstance(message, Show):
            return self._on_show(seat, message)
        else:
            self._on_reveal(seat, message)
        return ()

    def _cheat(self, seat: int, reason: Reason, detail: str, *evidence: Message) -> CheatingDetected:
        return CheatingDetected(seat, reason, detail, evidence)

    def _check_order(self, seat: int, message: Message) -> None:
        if seat in self.reveals:
            raise self._cheat(seat, Reason.UNEXPECTED_MESSAGE, "a message after its own secret", message)
        if isinstance(message, Commit):
            if seat in self.commits:
                raise self._cheat(seat, Reason.UNEXPECTED_MESSAGE, "a second commitment", message)
            return
        if seat not in self.commits:
            raise self._cheat(seat, Reason.UNEXPECTED_MESSAGE, "a message before its commitment", message)
        if isinstance(message, Deck):
            sent = self._decks_sent[seat]
            if sent == 2 or message.number != _PASSES[seat][sent] or message.number - 1 not in (0, *self.decks):
                raise self._cheat(seat, Reason.UNEXPECTED_MESSAGE, f"deck pass {message.number} out of turn", message)
            return
        if 4 not in self.decks:
            raise self._cheat(seat, Reason.UNEXPECTED_MESSAGE, "reveals before the deck is locked", message)

    def _on_deck(self, seat: int, message: Deck) -> None:
        if not self.vouched:
            problem = deck_problem(message.points)
            if problem is not None:
                raise self._cheat(seat, problem[0], problem[1], message)
            received = CARD_POINTS if message.number == 1 else self.decks[message.number - 1].points
            check_pass(self.context, self.keys[seat], message, received)
        self._decks_sent[seat] += 1
        self.decks[message.number] = message

    def _check_scalars(self, seat: int, message: Keys | Show) -> None:
        if self.vouched:
            return
        for position, key in zip(message.positions, message.keys, strict=True):
            if not group.is_valid_scalar(key):
                raise self._cheat(
                    seat, Reason.INVALID_SCALAR, f"the key for position {position} is not a valid scalar", message
                )
            shuffled, locked = (self.decks[n] for n in _PASSES[seat])
            if not key_matches(shuffled, locked, position, key):
                raise self._cheat(
                    seat,
                    Reason.WRONG_KEY,
                    f"the key for position {position} is not the one committed in the lock pass",
                    message,
                )

    def _groups(self, seat: int) -> tuple[tuple[int, ...], ...]:
        if self.plan is None:
            return (DRAW_POSITIONS,)
        return self.plan.release_groups(seat)

    def _on_keys(self, seat: int, message: Keys) -> None:
        groups = self._groups(seat)
        sent = self._groups_sent[seat]
        if sent >= len(groups) or message.positions != groups[sent]:
            raise self._cheat(seat, Reason.UNEXPECTED_POSITIONS, "keys for positions not due now", message)
        self._check_scalars(seat, message)
        self._groups_sent[seat] += 1
        mine, theirs = self.released[seat], self.released[1 - seat]
        for position, key in message.items():
            mine[position] = key
        for position in message.positions:
            if position in theirs:
                # Both keys are out: the seat completing the pair checked the other's key with its own first.
                self._open(seat, position, self._decode(seat, position, mine[position], theirs[position], message))

    def _on_show(self, seat: int, message: Show) -> tuple[Card, ...]:
        hand = set(self.plan.hand(seat)) if self.plan is not None else set()
        if not set(message.positions) <= hand:
            raise self._cheat(seat, Reason.UNEXPECTED_POSITIONS, "shown positions not in its own hand", message)
        self._check_scalars(seat, message)
        theirs = self.released[1 - seat]
        for position, card, key in message.items():
            self.released[seat][position] = key
            if position not in theirs and not self.vouched:
                continue  # the other key is not out: only the audit can check this claim
            decoded = self._decode(seat, position, key, theirs.get(position, b""), message)
            earlier = self.cards.get(position, card)
            if decoded != card or earlier != card:
                raise self._cheat(
                    seat,
                    Reason.CLAIM_MISMATCH,
                    f"position {position} unlocks to {decoded.id}, not the claimed {card.id}",
                    message,
                )
            self._open(seat, position, decoded)
        return message.cards

    def _decode(self, seat: int, position: int, key: bytes, other: bytes, message: Message) -> Card:
        if self.vouched:
            audited = self._audited
            assert audited is not None
            return audited.deck[position]
        card = unlock(self.decks[4].points[position], key, other)
        if card is None:
            raise self._cheat(seat, Reason.NOT_A_CARD, f"position {position} does not unlock to a card", message)
        return card

    def _open(self, seat: int, position: int, card: Card) -> None:
        other = self._position_of.get(card)
        if other is not None and other != position:
            raise self._cheat(seat, Reason.DUPLICATE_CARD, f"{card.id} unlocks at positions {other} and {position}")
        self.cards[position] = card
        self._position_of[card] = position

    def _on_reveal(self, seat: int, message: Reveal) -> None:
        self.reveals[seat] = message
        if not self.vouched:
            self.audit_one(seat, message)
        if len(self.reveals) == 2:
            if self.vouched:
                audited = self._audited
                assert audited is not None
                self.deck = audited.deck
            else:
                # Every proof was checked as its deck arrived (or audited with the vouched deal).
                self.deck = audit_transcript(self.context, self.keys, self.transcript, check_proofs=False).deck

    def audit_one(self, seat: int, reveal: Reveal) -> None:
        """What the other player checks on this Reveal: the commitment, and every deck and key ``seat`` sent."""
        opening = (self.commits[seat], reveal)
        contribution = open_contribution(self.context, self.keys[seat], seat, *opening)
        inputs = {1: CARD_POINTS, 2: self.decks[1].points, 3: self.decks[2].points, 4: self.decks[3].points}
        for number in _PASSES[seat]:
            verify_deck(contribution, self.decks[number], inputs[number], opening)
        for sender, sent in self.transcript:
            if sender == seat and isinstance(sent, Keys | Show):
                verify_release(seat, contribution, sent, opening)


class CoinWatch:
    """The first-dealer coin flip seen from outside: two commitments, then two values that must open them."""

    def __init__(self, match_id: bytes, keys: tuple[bytes, bytes]) -> None:
        self.context = coin_context(match_id)
        self.keys = keys
        self.commits: dict[int, Commit] = {}
        self.values: dict[int, bytes] = {}
        self.dealer: int | None = None

    def receive(self, seat: int, message: Message) -> None:
        if isinstance(message, Commit) and seat not in self.commits:
            self.commits[seat] = message
            return
        if isinstance(message, Reveal) and len(self.commits) == 2 and seat not in self.values:
            if not opens(self.context, self.keys[seat], message.secret, self.commits[seat].commitment):
                raise CheatingDetected(
                    seat,
                    Reason.COMMITMENT_MISMATCH,
                    "the revealed coin value does not open the commitment",
                    (self.commits[seat], message),
                )
            self.values[seat] = message.secret
            if len(self.values) == 2:
                self.dealer = coin_result(self.values[0], self.values[1])
            return
        raise CheatingDetected(seat, Reason.UNEXPECTED_MESSAGE, "a coin flip message out of turn", (message,))
