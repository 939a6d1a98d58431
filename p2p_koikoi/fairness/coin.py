"""Choosing the first dealer: a commit-reveal coin flip, or each player draws a card.

Coin flip (sans-IO, like :class:`~p2p_koikoi.fairness.session.FairDeal`):

1. :meth:`CoinFlip.start` sends our :class:`Commit` to a 32-byte random value
   (the context has purpose ``COIN_FLIP``, round 0, redeal 0).
2. On the peer's ``Commit`` we send our :class:`Reveal`; never earlier, so
   neither side can choose its value after seeing the other's.
3. On the peer's ``Reveal`` we check it opens the peer's commitment; the first
   dealer is seat ``(v0[0] XOR v1[0]) & 1``, ``v0`` being seat 0's value. One
   honest uniform value makes the bit uniform whatever the other side chose.

A side that sees the result first could stop instead of revealing; that is a
forfeit (:meth:`CoinFlip.forfeit`), as in the deal.

Drawing cards: :func:`dealer_draw` makes a :class:`FairDeal` with purpose
``DEALER_DRAW``. It shuffles and locks like a round deal; then
``reveal_initial()`` on both sides opens positions 0 and 1 to both: seat ``s``
drew the card at position ``DRAW_POSITIONS[s]``. The engine decides the
dealer from the two cards; the audit works as for a round.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_koikoi.fairness.commit import commitment, opens
from p2p_koikoi.fairness.derive import SECRET_BYTES, DealContext, Purpose
from p2p_koikoi.fairness.errors import CheatingDetected, DealStateError, Reason
from p2p_koikoi.fairness.messages import Commit, Message, Reveal
from p2p_koikoi.fairness.session import FairDeal, Forfeit, Phase

__all__ = ["CoinFlip", "CoinStep", "coin_context", "coin_result", "dealer_draw"]


def coin_context(match_id: bytes) -> DealContext:
    """The context of a match's first-dealer coin flip."""
    return DealContext(match_id=match_id, round=0, redeal=0, purpose=Purpose.COIN_FLIP)


def coin_result(value0: bytes, value1: bytes) -> int:
    """The first dealer's seat from both revealed values (by seat)."""
    return (value0[0] ^ value1[0]) & 1


@dataclass(frozen=True, slots=True)
class CoinStep:
    """Messages to send, and the first dealer's seat once both values are open."""

    send: tuple[Message, ...] = ()
    dealer: int | None = None


class CoinFlip:
    """One seat's side of the first-dealer coin flip."""

    def __init__(self, match_id: bytes, seat: int, identity_keys: tuple[bytes, bytes], value: bytes) -> None:
        if seat not in (0, 1):
            raise ValueError("a seat is 0 or 1")
        if len(identity_keys) != 2 or identity_keys[0] == identity_keys[1]:
            raise ValueError("two different identity keys are needed, by seat")
        if not isinstance(value, bytes) or len(value) != SECRET_BYTES:
            raise ValueError("a coin value is 32 random bytes")
        self.context = coin_context(match_id)
        self.seat = seat
        self.peer = 1 - seat
        self.identity_keys = identity_keys
        self._value = value
        self._commit = Commit(commitment(self.context, identity_keys[seat], value))
        self._peer_commit: Commit | None = None
        self.phase = Phase.IDLE
        self.dealer: int | None = None
        self.failure: CheatingDetected | None = None
        self.transcript: list[tuple[int, Message]] = []

    def start(self) -> CoinStep:
        """Send our commitment."""
        if self.phase is not Phase.IDLE:
            raise DealStateError("start is called once, first")
        self.phase = Phase.COMMITTING
        self.transcript.append((self.seat, self._commit))
        return CoinStep(send=(self._commit,))

    def receive(self, message: Message) -> CoinStep:
        """Consume the peer's ``Commit`` or ``Reveal``."""
        if self.phase is not Phase.COMMITTING:
            raise DealStateError(f"cannot receive in phase {self.phase.value}")
        self.transcript.append((self.peer, message))
        try:
            return self._dispatch(message)
        except CheatingDetected as error:
            self.phase = Phase.FAILED
            self.failure = error
            raise

    def _dispatch(self, message: Message) -> CoinStep:
        if isinstance(message, Commit) and self._peer_commit is None:
            self._peer_commit = message
            reveal = Reveal(self._value)
            self.transcript.append((self.seat, reveal))
            return CoinStep(send=(reveal,))
        if isinstance(message, Reveal) and self._peer_commit is not None:
            peer_key = self.identity_keys[self.peer]
            if not opens(self.context, peer_key, message.secret, self._peer_commit.commitment):
                raise CheatingDetected(
                    self.peer,
                    Reason.COMMITMENT_MISMATCH,
                    "the revealed coin value does not open the commitment",
                    (self._peer_commit, message),
                )
            values = (self._value, message.secret) if self.seat == 0 else (message.secret, self._value)
            self.dealer = coin_result(*values)
            self.phase = Phase.DONE
            return CoinStep(dealer=self.dealer)
        raise CheatingDetected(self.peer, Reason.UNEXPECTED_MESSAGE, "a message out of turn", (message,))

    def forfeit(self, detail: str = "the peer stopped before revealing its coin value") -> Forfeit:
        """Record that the peer stopped answering."""
        if self.phase in (Phase.DONE, Phase.FAILED, Phase.FORFEITED):
            raise DealStateError(f"the coin flip is already {self.phase.value}")
        phase = self.phase
        self.phase = Phase.FORFEITED
        evidence = tuple(m for s, m in self.transcript if s == self.peer)
        return Forfeit(seat=self.peer, phase=phase, detail=detail, evidence=evidence)


def dealer_draw(match_id: bytes, seat: int, identity_keys: tuple[bytes, bytes], secret: bytes) -> FairDeal:
    """The deal in which each seat draws one card to decide the first dealer."""
    context = DealContext(match_id=match_id, round=0, redeal=0, purpose=Purpose.DEALER_DRAW)
    return FairDeal(context, seat, identity_keys, secret)
