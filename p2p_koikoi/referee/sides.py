"""What an observer of a match knows: the one thing that differs between a seat and a spectator.

The referee applies one set of rules for everybody (``table.py``, ``referee.py``).
What it can check depends on what its observer knows, as OpenSpiel's games
differ between observers only in the information state:

- a seat (:class:`SeatKnowledge`) holds its own deal secrets, so it opens its own
  hand, checks the other seat's keys for it at once, and writes its own deal
  messages (:class:`SeatDeal` wraps the seat's :class:`~p2p_koikoi.fairness.FairDeal`);
- a spectator (:class:`SpectatorKnowledge`, ``koikoi verify``) holds no secret: it
  checks what the entries show at once and the rest when the secrets come out at
  each round's end (:class:`~p2p_koikoi.fairness.watch.DealWatch`).

A side is handed every deal message of its deal in chain order, whoever wrote it,
with the entry that carried it, and answers with the cards a Show opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p_koikoi.engine import Card
from p2p_koikoi.engine.deal import DealPattern
from p2p_koikoi.fairness import (
    CoinFlip,
    DealContext,
    FairDeal,
    Learned,
    Message,
    Purpose,
    Reveal,
    RevealPlan,
    Show,
    Step,
    parse_message,
    reveal_plan,
)
from p2p_koikoi.fairness.ahead import PassAhead
from p2p_koikoi.fairness.coin import coin_context
from p2p_koikoi.fairness.watch import AuditedDeal, CoinWatch, DealWatch

__all__ = [
    "SECRET_SALT",
    "CoinSide",
    "DealSide",
    "Knowledge",
    "SeatCoin",
    "SeatDeal",
    "SeatKnowledge",
    "SpectatorKnowledge",
    "deal_secret",
]

SECRET_SALT = b"p2p-koikoi/session-secrets/v1"
DealKey = tuple[int, int]  # (round, redeal); round 0 is the dealer draw


def deal_secret(master_secret: bytes, context: DealContext) -> bytes:
    """A seat's secret for one deal (or the coin): HKDF-SHA256 of the match's master secret, salted with
    ``SECRET_SALT``, with the context's bytes as info. Every secret derives from the master, so a match
    restored from its record writes the very same entries again."""
    hkdf = HKDF(algorithm=SHA256(), length=32, salt=SECRET_SALT, info=context.to_bytes())
    return hkdf.derive(master_secret)


class DealSide(Protocol):
    """One deal as an observer sees it."""

    plan: RevealPlan | None

    def parse(self, author: int, data: bytes) -> Message: ...

    def take(self, entry: int, author: int, message: Message) -> tuple[Card, ...]: ...

    def card_at(self, position: int) -> Card: ...

    def own_hand(self) -> int: ...

    def exchange_hands(self) -> None: ...

    def entry_of(self, message: Message) -> int | None: ...

    @property
    def deck(self) -> tuple[Card, ...] | None: ...


class CoinSide(Protocol):
    """The first-dealer coin flip as an observer sees it."""

    @property
    def dealer(self) -> int | None: ...

    def take(self, author: int, message: Message) -> None: ...


class Knowledge(Protocol):
    """What an observer knows: ``seat`` is None for a spectator. Makes the side of each deal."""

    seat: int | None

    def coin(self, match_id: bytes, keys: tuple[bytes, bytes]) -> CoinSide: ...

    def deal(
        self, context: DealContext, keys: tuple[bytes, bytes], pattern: DealPattern | None, dealer: int
    ) -> DealSide: ...


# ---------------------------------------------------------------------------------- spectator


class SpectatorDeal(DealWatch):
    """A spectator's side of one deal: the watch, which already checks every author's messages."""

    def take(self, entry: int, author: int, message: Message) -> tuple[Card, ...]:
        return self.receive(entry, author, message)

    def own_hand(self) -> int:
        return 0


class SpectatorCoin(CoinWatch):
    def take(self, author: int, message: Message) -> None:
        self.receive(author, message)


class SpectatorKnowledge:
    """A third party's knowledge: the entries and nothing else. ``audited`` holds deals audited clean
    ahead of time (``record/audits.py``), so their cards need no unlocking."""

    seat: int | None = None

    def __init__(self, audited: Mapping[DealKey, AuditedDeal] | None = None) -> None:
        self.audited = audited or {}

    def coin(self, match_id: bytes, keys: tuple[bytes, bytes]) -> CoinSide:
        return SpectatorCoin(match_id, keys)

    def deal(
        self, context: DealContext, keys: tuple[bytes, bytes], pattern: DealPattern | None, dealer: int
    ) -> DealSide:
        plan = reveal_plan(pattern, dealer) if pattern is not None else None
        return SpectatorDeal(context, keys, plan, self.audited.get((context.round, context.redeal)))


# ---------------------------------------------------------------------------------- a seat


class SeatDeal:
    """A seat's side of one deal: its :class:`FairDeal`, which writes the seat's messages and checks the
    other seat's with the seat's secret.

    The seat's own messages are made here first (the ``reveal_*``, ``draw`` and ``show`` calls the session
    makes when it writes), and reach :meth:`take` again when their entry joins the chain. A Reveal from the
    other seat at a round's end is held until ours is made, so both audits run at once: our secret goes
    out before we spend the time to check theirs.
    """

    def __init__(self, fair: FairDeal) -> None:
        self.fair = fair
        self.known: dict[int, Card] = {}
        self.queue: list[Message] = []  # our messages the deal asked for, not yet written
        self._entry_of: dict[int, int] = {}
        self._held: Reveal | None = None  # the other seat's Reveal at a round's end, until ours is out
        self._ours_out = False  # our Reveal joined the chain
        self.made(fair.start())

    # ------------------------------------------------------------------ queries

    @property
    def plan(self) -> RevealPlan | None:
        return self.fair.plan if self.fair.context.purpose is Purpose.ROUND_DEAL else None

    @plan.setter
    def plan(self, value: RevealPlan | None) -> None:  # the protocol's attribute; the deal owns its plan
        raise AttributeError("a seat's plan follows its deal")

    @property
    def deck(self) -> tuple[Card, ...] | None:
        report = self.fair.report
        return report.deck if report is not None else None

    def card_at(self, position: int) -> Card:
        return self.known[position]

    def own_hand(self) -> int:
        plan = self.plan
        if plan is None:
            return 0
        return sum(1 << self.known[p] for p in plan.hand(self.fair.seat) if p in self.known)

    def position_of(self, card: Card) -> int | None:
        for position, known in self.known.items():
            if known is card:
                return position
        return None

    def entry_of(self, message: Message) -> int | None:
        return self._entry_of.get(id(message))

    def parse(self, author: int, data: bytes) -> Message:
        return parse_message(data)

    def exchange_hands(self) -> None:
        self.fair.exchange_hands()

    # ------------------------------------------------------------------ our messages

    def made(self, step: Step) -> Step:
        """Take in what one of our own calls on the deal gave: its messages to write, the cards learned."""
        self._learn(step.learned)
        self.queue.extend(step.send)
        return step

    def next_message(self) -> Message:
        return self.queue.pop(0)

    # ------------------------------------------------------------------ every message, in chain order

    def take(self, entry: int, author: int, message: Message) -> tuple[Card, ...]:
        self._entry_of[id(message)] = entry
        fair = self.fair
        if author == fair.seat:
            if isinstance(message, Reveal):
                self._ours_out = True
                held, self._held = self._held, None
                if held is not None:
                    self._receive(held)
            return message.cards if isinstance(message, Show) else ()
        if isinstance(message, Reveal) and self.plan is not None and not self._ours_out:
            self._held = message
            return ()
        self._receive(message)
        return message.cards if isinstance(message, Show) else ()

    def _receive(self, message: Message) -> None:
        self.made(self.fair.receive(message))

    def _learn(self, learned: tuple[Learned, ...]) -> None:
        for item in learned:
            self.known[item.position] = item.card


class SeatCoin:
    """A seat's side of the coin flip: its :class:`CoinFlip`."""

    def __init__(self, flip: CoinFlip) -> None:
        self.flip = flip
        self.queue: list[Message] = list(flip.start().send)

    @property
    def dealer(self) -> int | None:
        return self.flip.dealer

    def take(self, author: int, message: Message) -> None:
        if author != self.flip.seat:
            self.queue.extend(self.flip.receive(message).send)


class SeatKnowledge:
    """A seat's knowledge: its seat, and every secret, each derived from the match's master secret by its
    deal context (``secret_for`` may be replaced to test a seat that cheats)."""

    def __init__(self, seat: int, master_secret: bytes) -> None:
        self.seat: int | None = seat
        self.master_secret = master_secret
        self.secret_for: Callable[[DealContext], bytes] = lambda context: deal_secret(master_secret, context)
        self.make_deal: Callable[..., FairDeal] = FairDeal  # a seam: a test's cheating seat deals otherwise
        self._ahead: PassAhead | None = None

    def coin(self, match_id: bytes, keys: tuple[bytes, bytes]) -> CoinSide:
        assert self.seat is not None
        return SeatCoin(CoinFlip(match_id, self.seat, keys, self.secret_for(coin_context(match_id))))

    def deal(
        self, context: DealContext, keys: tuple[bytes, bytes], pattern: DealPattern | None, dealer: int
    ) -> DealSide:
        assert self.seat is not None
        secret = self.secret_for(context)
        ahead = self._pass_ahead(keys[self.seat])
        if pattern is None:
            return SeatDeal(self.make_deal(context, self.seat, keys, secret, ahead=ahead))
        layout = {"pattern": pattern, "dealer_seat": dealer}
        return SeatDeal(self.make_deal(context, self.seat, keys, secret, ahead=ahead, **layout))

    def _pass_ahead(self, identity: bytes) -> PassAhead | None:
        """Seat 0 makes each next round's first pass while the round is played (``fairness/ahead.py``)."""
        if self.seat != 0:
            return None
        if self._ahead is None:
            self._ahead = PassAhead(identity, self._secret_of)
        return self._ahead

    def _secret_of(self, context: DealContext) -> bytes:
        return self.secret_for(context)  # a method, so that a copied seat's pass ahead asks the copy
