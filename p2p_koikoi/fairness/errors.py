"""Errors of the fair-deal protocol.

Two kinds of failure must never be confused, as in h11:

- :class:`DealStateError`: *we* called the state machine out of turn (a bug in
  the session layer, never the peer's fault).
- :class:`CheatingDetected`: the *peer* sent something the protocol forbids. It
  names the seat to blame, a short stable reason id (:class:`Reason`, part of
  the protocol: ``protocol/DEAL.md`` lists them) and the messages that prove it.

:class:`MessageFormatError` is raised by ``from_bytes`` on bytes that are not a
well-formed message; the wire layer knows who sent them and blames that peer.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from p2p_koikoi.fairness.messages import Message

__all__ = [
    "CheatingDetected",
    "DealStateError",
    "FairnessError",
    "MessageFormatError",
    "Reason",
    "UnusableSecret",
]


class FairnessError(Exception):
    """Base class of every error the fairness layer raises on purpose."""


class DealStateError(FairnessError):
    """A method called in a state that does not allow it: our own mistake."""


class MessageFormatError(FairnessError, ValueError):
    """Bytes that do not parse as a well-formed, canonically encoded message."""


class UnusableSecret(FairnessError, ValueError):
    """A secret whose derived scalars include zero (probability about 2**-246).

    The owner must draw another secret before committing. A peer whose
    revealed secret is unusable is reported as :attr:`Reason.UNUSABLE_SECRET`.
    """


class Reason(enum.StrEnum):
    """Stable ids of every way a peer can be caught cheating."""

    UNEXPECTED_MESSAGE = "unexpected-message"
    """A message the protocol does not allow at this point (wrong kind or pass)."""
    DECK_SIZE = "deck-size"
    """A deck that does not hold exactly 48 points (a dropped or added card)."""
    INVALID_POINT = "invalid-point"
    """A point that is not a canonical, non-identity ristretto255 encoding."""
    DUPLICATE_POINT = "duplicate-point"
    """A deck holding the same point twice (a duplicated card)."""
    INVALID_SCALAR = "invalid-scalar"
    """A key that is not a canonical non-zero scalar."""
    UNEXPECTED_POSITIONS = "unexpected-positions"
    """Keys or shown cards for positions the peer may not release now."""
    NOT_A_CARD = "not-a-card"
    """An unlocked point that is none of the 48 card points (wrong key or substituted card)."""
    DUPLICATE_CARD = "duplicate-card"
    """An unlocked card already seen at another position in this deal."""
    CLAIM_MISMATCH = "claim-mismatch"
    """A shown hand card that decodes to another card than the one claimed."""
    COMMITMENT_MISMATCH = "commitment-mismatch"
    """A revealed secret that does not open the peer's commitment."""
    UNUSABLE_SECRET = "unusable-secret"
    """A revealed secret from which no valid contribution derives."""
    DECK_MISMATCH = "deck-mismatch"
    """A deck the peer sent that its revealed secret does not re-derive."""
    KEY_MISMATCH = "key-mismatch"
    """A key the peer sent that its revealed secret does not re-derive."""
    BAD_SHUFFLE_PROOF = "bad-shuffle-proof"
    """A shuffle pass whose proof is malformed or fails: not one scalar times a permutation of its input."""
    BAD_LOCK_PROOF = "bad-lock-proof"
    """A lock pass whose proof is malformed or fails: a position not locked by its committed scalar alone."""
    WRONG_KEY = "wrong-key"
    """A key that does not match the sender's public commitment for that position (``u * Gamma != X[k]``)."""
    MISSING_MESSAGE = "missing-message"
    """A transcript lacking a message its party owed: its commitment, a pass or its secret (auditor only)."""


class CheatingDetected(FairnessError):
    """The peer broke the protocol; ``blame`` is its seat.

    ``evidence`` holds the messages concerned, as the blamed seat sent them
    (its commitment and revealed secret too, when the proof needs them).
    """

    def __init__(
        self,
        blame: int,
        reason: Reason,
        detail: str,
        evidence: Sequence[Message] = (),
    ) -> None:
        super().__init__(f"seat {blame} cheated ({reason}): {detail}")
        self.blame = blame
        self.reason = reason
        self.detail = detail
        self.evidence: tuple[Message, ...] = tuple(evidence)
