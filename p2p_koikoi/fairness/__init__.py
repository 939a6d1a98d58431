"""The fair and private deal, as a sans-IO state machine (``protocol/DEAL.md``).

Each round both players commit to a secret, shuffle and lock the 48 card
points of a prime-order group (ristretto255) in four passes, reveal cards by
sending per-position keys as the rules allow, and audit each other's messages
from the revealed secrets at the end. :class:`FairDeal` is one player's side;
:class:`CoinFlip` and :func:`dealer_draw` choose the first dealer.

Imports point one way: this package uses ``engine.cards`` and ``engine.deal``
and nothing above it.
"""

from __future__ import annotations

from p2p_koikoi.fairness.audit import AuditReport, audit_transcript
from p2p_koikoi.fairness.coin import CoinFlip, CoinStep, coin_result, dealer_draw
from p2p_koikoi.fairness.derive import PROTOCOL_VERSION, DealContext, Purpose
from p2p_koikoi.fairness.errors import (
    CheatingDetected,
    DealStateError,
    FairnessError,
    MessageFormatError,
    Reason,
    UnusableSecret,
)
from p2p_koikoi.fairness.messages import Commit, Deck, Keys, Message, Reveal, Show, parse_message
from p2p_koikoi.fairness.plan import RevealPlan, reveal_plan
from p2p_koikoi.fairness.session import DRAW_POSITIONS, FairDeal, Forfeit, Learned, Phase, Step

__all__ = [
    "DRAW_POSITIONS",
    "PROTOCOL_VERSION",
    "AuditReport",
    "CheatingDetected",
    "CoinFlip",
    "CoinStep",
    "Commit",
    "DealContext",
    "DealStateError",
    "Deck",
    "FairDeal",
    "FairnessError",
    "Forfeit",
    "Keys",
    "Learned",
    "Message",
    "MessageFormatError",
    "Phase",
    "Purpose",
    "Reason",
    "Reveal",
    "RevealPlan",
    "Show",
    "Step",
    "UnusableSecret",
    "audit_transcript",
    "coin_result",
    "dealer_draw",
    "parse_message",
    "reveal_plan",
]
