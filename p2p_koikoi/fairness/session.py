"""One player's side of a fair deal, as a sans-IO state machine.

:class:`FairDeal` does no I/O, reads no clock and draws no randomness: the
session layer hands it a 32-byte secret (fresh from ``secrets.token_bytes``
for every deal and every redeal), feeds it the peer's messages with
:meth:`FairDeal.receive`, calls the local operations the rules ask for, and
sends whatever comes back in :attr:`Step.send`, in order. Cards become known
through :attr:`Step.learned`. Both sides run the same machine; seat 0 plays the
part called A (first to shuffle), seat 1 the part called B.

Rules of the state machine
==========================

Phases: ``IDLE -> COMMITTING -> SHUFFLING -> LOCKED -> DONE``, and from any
phase but ``DONE``: ``FAILED`` (the peer was caught cheating; the error is
raised once and kept in :attr:`FairDeal.failure`) or ``FORFEITED`` (the
session reported the peer gone, :meth:`FairDeal.forfeit`).

1. :meth:`~FairDeal.start` (``IDLE``) sends our :class:`Commit`. Call it before
   feeding any received message.
2. Each side's messages arrive in this order, and any other order is
   cheating (``unexpected-message``)::

       seat 0 (A): Commit, Deck 1, Deck 3, then Keys/Show..., Reveal
       seat 1 (B): Commit, Deck 2, Deck 4, then Keys/Show..., Reveal

   A sends Deck 1 on receiving B's Commit; B answers Deck 1 with Deck 2; A
   answers with Deck 3; B answers with Deck 4. Every received deck must hold
   48 valid, distinct points and carry a proof that holds (``passproof.py``:
   a shuffle pass is one scalar times a permutation of its input, a lock pass
   locks each position by its committed scalar), checked before anything
   else is done with it. After Deck 4 both sides are ``LOCKED``.
3. ``LOCKED``: the reveals. Each side releases its keys in a fixed schedule
   of groups, and the peer's ``Keys`` must match the next group exactly:

   - group 0, :meth:`~FairDeal.reveal_table`: keys for the table positions
     (so the engine can check the table for a redeal);
   - group 1, :meth:`~FairDeal.reveal_hand`: keys for the other seat's hand;
   - then one group per :meth:`~FairDeal.draw`: the next stock position.

   :meth:`~FairDeal.reveal_initial` releases groups 0 and 1 at once. A dealer
   draw has one group only, positions 0 and 1 (``reveal_initial``).

   A position of our own hand is learned as soon as the peer's key arrives;
   a public position (table, stock, dealer draw) once both sides released
   their key for it. :meth:`~FairDeal.show` opens cards of our own hand to the
   peer (to play one, or for a Teshi/Kuttsuki claim) with our keys and the
   cards claimed; the receiver checks each decodes to the card claimed.
   Every received key must match the peer's commitment for its position
   (``u * Gamma == X[k]``, from the peer's two proofs), or it is ``wrong-key``
   on that very message.
   :meth:`~FairDeal.exchange_hands` swaps the hands' positions, on both sides,
   before any hand key is sent or received. Every unlocked point must be
   one of the 48 card points, at no other position so far; received keys must
   be canonical non-zero scalars.
4. :meth:`~FairDeal.reveal_secret` (``LOCKED``) ends our reveals and sends
   our secret. The peer's :class:`Reveal` may arrive before or after ours;
   it is checked at once against the peer's commitment, and every deck and
   key the peer sent is re-derived and compared. When both secrets are out
   and the audit is clean the phase is ``DONE`` and :attr:`Step.report` holds
   the whole deck order. Stock cards never drawn are known only then.
5. A peer that stops instead of revealing has forfeited: the session layer
   decides when (its deadline), calls :meth:`~FairDeal.forfeit` and records
   the :class:`Forfeit` it returns.

A redeal (four of a month on the table) is a new :class:`FairDeal` with
``redeal + 1`` in its context and fresh secrets; audit the abandoned one first.

Example, both sides in one process (the session layer carries the messages,
as bytes, over the network instead):

>>> import secrets
>>> from p2p_koikoi.fairness import DealContext, FairDeal
>>> context = DealContext(match_id=b"example-match", round=1)
>>> keys = (bytes([1]) * 32, bytes([2]) * 32)  # the two players' Ed25519 public keys
>>> sides = [FairDeal(context, seat, keys, secrets.token_bytes(32)) for seat in (0, 1)]
>>> def run(steps):
...     learned = [list(step.learned) for step in steps]
...     queue = [(seat, m) for seat, step in enumerate(steps) for m in step.send]
...     while queue:
...         sender, message = queue.pop(0)
...         step = sides[1 - sender].receive(message)
...         queue += [(1 - sender, m) for m in step.send]
...         learned[1 - sender] += step.learned
...     return learned
>>> _ = run([side.start() for side in sides])  # commitments, then the four passes
>>> [len(cards) for cards in run([side.reveal_initial() for side in sides])]  # table and own hand
[16, 16]
>>> [len(cards) for cards in run([side.draw() for side in sides])]
[1, 1]
>>> _ = run([side.reveal_secret() for side in sides])  # the audit
>>> sides[0].phase.value, sides[0].report == sides[1].report
('done', True)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.engine.deal import Deal, DealPattern
from p2p_koikoi.fairness import group
from p2p_koikoi.fairness.ahead import PassAhead, next_round
from p2p_koikoi.fairness.audit import AuditReport, open_contribution, verify_deck, verify_release
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.commit import commitment
from p2p_koikoi.fairness.derive import (
    SECRET_BYTES,
    Contribution,
    DealContext,
    Purpose,
    derive_contribution,
)
from p2p_koikoi.fairness.errors import CheatingDetected, DealStateError, Reason
from p2p_koikoi.fairness.messages import Commit, Deck, Keys, Message, Reveal, Show
from p2p_koikoi.fairness.passproof import check_pass, key_matches, make_pass
from p2p_koikoi.fairness.plan import RevealPlan, reveal_plan
from p2p_koikoi.fairness.shuffle import deck_order, deck_problem, pass_owner, unlock

__all__ = ["DRAW_POSITIONS", "FairDeal", "Forfeit", "Learned", "Phase", "Step"]

_PASSES = ((1, 3), (2, 4))  # the deck passes each seat computes: its shuffle, its lock

DRAW_POSITIONS = (0, 1)
"""In a dealer draw, seat ``s`` draws the card at position ``DRAW_POSITIONS[s]``."""


class Phase(enum.Enum):
    IDLE = "idle"
    COMMITTING = "committing"
    SHUFFLING = "shuffling"
    LOCKED = "locked"
    DONE = "done"
    FAILED = "failed"
    FORFEITED = "forfeited"


@dataclass(frozen=True, slots=True)
class Learned:
    """A card this side now knows, at a deck position."""

    position: int
    card: Card


@dataclass(frozen=True, slots=True)
class Step:
    """What one call produced: messages to send (in order), cards learned,
    and, when the deal is over and clean, the audit report."""

    send: tuple[Message, ...] = ()
    learned: tuple[Learned, ...] = ()
    report: AuditReport | None = None


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The session layer's record that ``seat`` stopped before the deal ended."""

    seat: int
    phase: Phase
    detail: str
    evidence: tuple[Message, ...]


class FairDeal:
    """One seat's state machine for one deal (see the module docstring)."""

    def __init__(
        self,
        context: DealContext,
        seat: int,
        identity_keys: tuple[bytes, bytes],
        secret: bytes,
        *,
        pattern: DealPattern = DealPattern.EIGHT,
        dealer_seat: int = 0,
        ahead: PassAhead | None = None,
    ) -> None:
        if seat not in (0, 1) or dealer_seat not in (0, 1):
            raise ValueError("a seat is 0 or 1")
        if len(identity_keys) != 2 or any(len(key) != 32 for key in identity_keys):
            raise ValueError("two 32-byte identity keys are needed, by seat")
        if identity_keys[0] == identity_keys[1]:
            raise ValueError("the two identity keys must differ")
        if not isinstance(secret, bytes) or len(secret) != SECRET_BYTES:
            raise ValueError("a secret is exactly 32 bytes")
        if context.purpose not in (Purpose.ROUND_DEAL, Purpose.DEALER_DRAW):
            raise ValueError("a FairDeal is for a round deal or a dealer draw")
        self.context = context
        self.seat = seat
        self.peer = 1 - seat
        self.identity_keys = identity_keys
        self._secret = secret
        self._mine: Contribution = derive_contribution(secret, context, identity_keys[seat])
        self._commit = Commit(commitment(context, identity_keys[seat], secret))
        self._plan = reveal_plan(pattern, dealer_seat)
        self._pattern = pattern
        self._dealer_seat = dealer_seat
        self._exchanged = False
        self._ahead = ahead  # seat 0: pass 1 made in the background (ahead.py); a pure speed-up

        self.phase = Phase.IDLE
        self.failure: CheatingDetected | None = None
        self.report: AuditReport | None = None
        self.transcript: list[tuple[int, Message]] = []
        self._peer_commit: Commit | None = None
        self._peer_reveal: Reveal | None = None
        self._peer_contribution: Contribution | None = None
        self._decks: dict[int, Deck] = {}
        self._my_next = 0  # index of our next release group
        self._peer_next = 0  # index of the peer's next release group
        self._released: set[int] = set()  # positions we sent our key for
        self._peer_keys: dict[int, bytes] = {}
        self._peer_key_message: dict[int, Keys | Show] = {}
        self._decoded: dict[int, Card] = {}  # every position unlocked so far
        self._position_of: dict[Card, int] = {}
        self._known: dict[int, Card] = {}  # positions reported through Step.learned
        self._revealed = False

    # ------------------------------------------------------------ properties

    @property
    def plan(self) -> RevealPlan:
        """The positions of each hand, the table and the stock (after any exchange)."""
        return self._plan

    @property
    def known(self) -> dict[int, Card]:
        """Every card reported so far, by deck position."""
        return dict(self._known)

    @property
    def final_deck(self) -> tuple[bytes, ...] | None:
        """The fully locked deck (pass 4), once known."""
        deck = self._decks.get(4)
        return deck.points if deck is not None else None

    def decodable(self) -> dict[int, Card]:
        """Every position this state holds both keys for, decoded now.

        This ignores the release rules on purpose: it is what a modified
        client could read out of this object. Tests use it to show that a side
        holds nothing more than its hand and the public cards.
        """
        final = self.final_deck
        if final is None:
            return {}
        out: dict[int, Card] = {}
        for position, key in self._peer_keys.items():
            card = unlock(final[position], self._mine.unlock_keys[position], key)
            if card is not None:
                out[position] = card
        return out

    def final_deal(self) -> Deal:
        """The engine's :class:`Deal` of the whole deck, once the audit is done."""
        if self.report is None or self.context.purpose is not Purpose.ROUND_DEAL:
            raise DealStateError("the deal is known only after a clean audit of a round deal")
        deal = Deal.from_deck(list(self.report.deck), self._pattern, self._dealer_seat)
        if self._exchanged:
            deal = Deal(hands=(deal.hands[1], deal.hands[0]), table=deal.table, stock=deal.stock)
        return deal

    # ------------------------------------------------------- local operations

    def start(self) -> Step:
        """Send our commitment."""
        self._require(Phase.IDLE, "start")
        self.phase = Phase.COMMITTING
        return self._send([self._commit])

    def exchange_hands(self) -> None:
        """Swap the two hands' positions (the rulebook's hand exchange).

        Both sides call it, before any hand key is sent or received (the
        table may already be open: the engine checks it for a redeal first).
        """
        if self.context.purpose is not Purpose.ROUND_DEAL:
            raise DealStateError("only a round deal has hands to exchange")
        if self._my_next > 1 or self._peer_next > 1 or self.phase in (Phase.DONE, Phase.FAILED):
            raise DealStateError("hands are exchanged before any hand is revealed")
        self._plan = self._plan.exchanged()
        self._exchanged = not self._exchanged

    def reveal_table(self) -> Step:
        """Release our keys for the table (the first group of a round deal)."""
        self._require_reveals("reveal_table")
        if self.context.purpose is not Purpose.ROUND_DEAL or self._my_next != 0:
            raise DealStateError("the table is revealed once, first")
        return self._release()

    def reveal_hand(self) -> Step:
        """Release our keys for the other seat's hand (after the table)."""
        self._require_reveals("reveal_hand")
        if self.context.purpose is not Purpose.ROUND_DEAL or self._my_next != 1:
            raise DealStateError("the hand is revealed once, after the table")
        return self._release()

    def reveal_initial(self) -> Step:
        """Everything revealed at the start: the table, then the other seat's
        hand (two ``Keys`` messages); for a dealer draw, both drawn positions."""
        self._require_reveals("reveal_initial")
        if self._my_next != 0:
            raise DealStateError("the initial reveal happens once")
        if self.context.purpose is Purpose.DEALER_DRAW:
            return self._release()
        table = self._release()
        hand = self._release()
        return Step(send=table.send + hand.send, learned=table.learned + hand.learned)

    def draw(self) -> Step:
        """Release our key for the next stock position (a card drawn)."""
        self._require_reveals("draw")
        if self.context.purpose is not Purpose.ROUND_DEAL:
            raise DealStateError("only a round deal has a stock")
        if self._my_next < 2:
            raise DealStateError("draw after the table and the hands are revealed")
        if self._my_next >= len(self._groups(self.seat)):
            raise DealStateError("the stock is empty")
        return self._release()

    def show(self, positions: Iterable[int]) -> Step:
        """Open cards of our own hand to the peer (a play, or a Teshi/Kuttsuki claim)."""
        self._require_reveals("show")
        wanted = tuple(sorted(set(positions)))
        hand = set(self._plan.hand(self.seat)) if self.context.purpose is Purpose.ROUND_DEAL else set()
        if not wanted or not set(wanted) <= hand:
            raise DealStateError("only positions of our own hand can be shown")
        if not all(p in self._known for p in wanted):
            raise DealStateError("a card is shown only once we know it")
        message = Show(
            wanted,
            tuple(self._known[p] for p in wanted),
            tuple(self._mine.unlock_keys[p] for p in wanted),
        )
        return self._send([message])

    def reveal_secret(self) -> Step:
        """End our reveals and send our secret for the audit."""
        self._require_reveals("reveal_secret")
        self._revealed = True
        sent = self._send([Reveal(self._secret)])
        return Step(send=sent.send, report=self._finish())

    def forfeit(self, detail: str = "the peer stopped before revealing its secret") -> Forfeit:
        """Record that the peer stopped answering; the deal ends here."""
        if self.phase in (Phase.DONE, Phase.FAILED, Phase.FORFEITED):
            raise DealStateError(f"the deal is already {self.phase.value}")
        phase = self.phase
        self.phase = Phase.FORFEITED
        evidence = tuple(m for s, m in self.transcript if s == self.peer)
        return Forfeit(seat=self.peer, phase=phase, detail=detail, evidence=evidence)

    # ---------------------------------------------------------------- receive

    def receive(self, message: Message) -> Step:
        """Consume one message from the peer; raises :class:`CheatingDetected`."""
        if self.phase in (Phase.IDLE, Phase.DONE, Phase.FAILED, Phase.FORFEITED):
            raise DealStateError(f"cannot receive in phase {self.phase.value}")
        self.transcript.append((self.peer, message))
        try:
            return self._dispatch(message)
        except CheatingDetected as error:
            self.phase = Phase.FAILED
            self.failure = error
            raise

    def _dispatch(self, message: Message) -> Step:
        if self._peer_reveal is not None:
            self._cheat(Reason.UNEXPECTED_MESSAGE, "a message after the peer's secret", message)
        if isinstance(message, Commit):
            return self._on_commit(message)
        if isinstance(message, Deck):
            return self._on_deck(message)
        if self.phase is not Phase.LOCKED:
            self._cheat(Reason.UNEXPECTED_MESSAGE, "reveals before the deck is locked", message)
        if isinstance(message, Keys):
            return self._on_keys(message)
        if isinstance(message, Show):
            return self._on_show(message)
        return self._on_reveal(message)

    def _on_commit(self, message: Commit) -> Step:
        if self._peer_commit is not None:
            self._cheat(Reason.UNEXPECTED_MESSAGE, "a second commitment", message)
        self._peer_commit = message
        self.phase = Phase.SHUFFLING
        if self.seat == 0:
            first = self._make_pass(1, CARD_POINTS)
            self._decks[1] = first
            return self._send([first])
        return Step()

    def _make_pass(self, number: int, received: Sequence[bytes]) -> Deck:
        """Our pass ``number`` over ``received``, with its proof (a cheating test alters this one step)."""
        if number == 1 and self._ahead is not None:
            ready = self._ahead.take(self.context, self.identity_keys[self.seat], self._secret)
            if ready is not None:
                return ready
        return make_pass(number, self.context, self.identity_keys[self.seat], self._mine, self._secret, received)

    def _received_for(self, number: int) -> Sequence[bytes]:
        """The input of pass ``number``: the card points, or the previous pass."""
        return CARD_POINTS if number == 1 else self._decks[number - 1].points

    def _on_deck(self, message: Deck) -> Step:
        passes = (1, 3) if self.peer == 0 else (2, 4)
        received = sum(1 for n in passes if n in self._decks)
        if self._peer_commit is None or received == 2 or message.number != passes[received]:
            self._cheat(Reason.UNEXPECTED_MESSAGE, f"deck pass {message.number} out of turn", message)
        problem = deck_problem(message.points)
        if problem is not None:
            self._cheat(problem[0], problem[1], message)
        identity = self.identity_keys[self.peer]
        check_pass(self.context, identity, message, self._received_for(message.number))
        self._decks[message.number] = message
        if message.number == 4:
            self.phase = Phase.LOCKED
            if self._ahead is not None:
                self._ahead.prepare(next_round(self.context))
            return Step()
        number = message.number + 1
        mine = self._make_pass(number, message.points)
        self._decks[number] = mine
        if number == 4:
            self.phase = Phase.LOCKED
        return self._send([mine])

    def _on_keys(self, message: Keys) -> Step:
        groups = self._groups(self.peer)
        if self._peer_next >= len(groups) or message.positions != groups[self._peer_next]:
            self._cheat(Reason.UNEXPECTED_POSITIONS, "keys for positions not due now", message)
        self._check_scalars(message)
        self._peer_next += 1
        for position, key in message.items():
            self._peer_keys[position] = key
            self._peer_key_message[position] = message
        self._unlock(message.positions, message)
        return Step(learned=self._learn())

    def _on_show(self, message: Show) -> Step:
        peer_hand = set(self._plan.hand(self.peer)) if self.context.purpose is Purpose.ROUND_DEAL else set()
        if not set(message.positions) <= peer_hand:
            self._cheat(Reason.UNEXPECTED_POSITIONS, "shown positions not in the peer's hand", message)
        self._check_scalars(message)
        final = self._final()
        for position, card, key in message.items():
            decoded = unlock(final[position], self._mine.unlock_keys[position], key)
            if decoded is None:
                self._cheat(
                    Reason.NOT_A_CARD, f"position {position} does not unlock to a card", *self._peer_decks(), message
                )
            if decoded != card or self._decoded.get(position, card) != card:
                self._cheat(
                    Reason.CLAIM_MISMATCH,
                    f"position {position} unlocks to {decoded.id}, not the claimed {card.id}",
                    message,
                )
            if position not in self._decoded:
                self._peer_keys[position] = key
                self._peer_key_message[position] = message
                self._record(position, decoded, message)
        return Step(learned=self._emit(message.positions))

    def _on_reveal(self, message: Reveal) -> Step:
        assert self._peer_commit is not None
        opening = (self._peer_commit, message)
        contribution = open_contribution(
            self.context, self.identity_keys[self.peer], self.peer, self._peer_commit, message
        )
        inputs = {1: CARD_POINTS, 2: self._decks[1].points, 3: self._decks[2].points, 4: self._decks[3].points}
        for number in (1, 2, 3, 4):
            if pass_owner(number) == self.peer:
                verify_deck(contribution, self._decks[number], inputs[number], opening)
        seats = (self._mine, contribution) if self.seat == 0 else (contribution, self._mine)
        order = deck_order(*seats)
        for seat, sent in self.transcript:
            if seat == self.peer and isinstance(sent, Keys | Show):
                verify_release(self.peer, contribution, sent, opening, order)
        self._peer_reveal = message
        self._peer_contribution = contribution
        return Step(report=self._finish())

    # ---------------------------------------------------------------- helpers

    def _require(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise DealStateError(f"{what} is not allowed in phase {self.phase.value}")

    def _require_reveals(self, what: str) -> None:
        self._require(Phase.LOCKED, what)
        if self._revealed:
            raise DealStateError(f"{what} after our secret was revealed")

    def _send(self, messages: Sequence[Message]) -> Step:
        for message in messages:
            self.transcript.append((self.seat, message))
        return Step(send=tuple(messages))

    def _cheat(self, reason: Reason, detail: str, *evidence: Message) -> NoReturn:
        raise CheatingDetected(self.peer, reason, detail, evidence)

    def _final(self) -> tuple[bytes, ...]:
        deck = self._decks.get(4)
        assert deck is not None
        return deck.points

    def _groups(self, seat: int) -> list[tuple[int, ...]]:
        """The release schedule of ``seat``: table, other hand, one per draw."""
        if self.context.purpose is Purpose.DEALER_DRAW:
            return [DRAW_POSITIONS]
        return list(self._plan.release_groups(seat))

    def _release(self) -> Step:
        group_ = self._groups(self.seat)[self._my_next]
        self._my_next += 1
        self._released.update(group_)
        message = Keys(group_, tuple(self._mine.unlock_keys[p] for p in group_))
        sent = self._send([message])
        return Step(send=sent.send, learned=self._learn())

    def _check_scalars(self, message: Keys | Show) -> None:
        """Every key is a valid scalar and the one the peer committed to for its position."""
        for position, key in zip(message.positions, message.keys, strict=True):
            if not group.is_valid_scalar(key):
                self._cheat(Reason.INVALID_SCALAR, f"the key for position {position} is not a valid scalar", message)
            shuffled, locked = (self._decks[n] for n in _PASSES[self.peer])
            if not key_matches(shuffled, locked, position, key):
                detail = f"the key for position {position} is not the one committed in the lock pass"
                self._cheat(Reason.WRONG_KEY, detail, message)

    def _unlock(self, positions: Iterable[int], message: Keys) -> None:
        final = self._final()
        for position in positions:
            card = unlock(final[position], self._mine.unlock_keys[position], self._peer_keys[position])
            if card is None:
                self._cheat(
                    Reason.NOT_A_CARD,
                    f"position {position} does not unlock to a card",
                    *self._peer_decks(),
                    message,
                )
            self._record(position, card, message)

    def _record(self, position: int, card: Card, message: Message) -> None:
        other = self._position_of.get(card)
        if other is not None and other != position:
            earlier = self._peer_key_message.get(other)
            evidence = [*self._peer_decks(), *([earlier] if earlier is not None else []), message]
            self._cheat(
                Reason.DUPLICATE_CARD,
                f"{card.id} unlocks at positions {other} and {position}",
                *evidence,
            )
        self._decoded[position] = card
        self._position_of[card] = position

    def _peer_decks(self) -> list[Message]:
        return [deck for number, deck in sorted(self._decks.items()) if pass_owner(number) == self.peer]

    def _visible(self, position: int) -> bool:
        """May we report ``position``: our own hand, or public and released by us."""
        if self.context.purpose is Purpose.ROUND_DEAL and position in self._plan.hand(self.seat):
            return True
        return position in self._released

    def _learn(self) -> tuple[Learned, ...]:
        ready = [p for p in sorted(self._decoded) if p not in self._known and self._visible(p)]
        return self._emit(ready)

    def _emit(self, positions: Iterable[int]) -> tuple[Learned, ...]:
        out: list[Learned] = []
        for position in positions:
            if position not in self._known:
                self._known[position] = self._decoded[position]
                out.append(Learned(position, self._decoded[position]))
        return tuple(out)

    def _finish(self) -> AuditReport | None:
        if not self._revealed or self._peer_contribution is None:
            return None
        seats = (self._mine, self._peer_contribution)
        if self.seat == 1:
            seats = (self._peer_contribution, self._mine)
        self.report = AuditReport(deck=deck_order(*seats))
        self.phase = Phase.DONE
        return self.report
