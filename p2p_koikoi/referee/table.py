"""The rules of the match machine, as data: the stages, who holds the floor, what each slot holds.

Both seats and every verifier judge a match by this one table; the live session
and ``koikoi verify`` differ only in what they know (``sides.py``), never in the
rules. ``protocol/SPEC.md`` section 5 restates it, and a test checks the two agree.

Exactly one seat holds the floor at any time, so the entries form one chain with
no races. Who it is follows from the public state alone:

==============  ==================================================================
stage           who writes, and what
==============  ==================================================================
MATCH           the host (seat 0): ``match`` (rules, keys, nonces, turn limit)
ACCEPT          the guest: ``accept`` (or ``decline``, which ends the match)
FIRST_DEALER    seats alternate from seat 0: ``deal`` messages of the coin flip
                (COIN_SLOTS), or of a dealer draw (DEALER_DRAW_SLOTS)
SETUP           alternate from seat 0: OPENING_SLOTS (commits, decks 1-4, table keys)
EXCHANGE        the non-dealer (rulebook only): ``move`` exchange or keep
HANDS           alternate from seat 0: HAND_SLOTS, each seat's keys for the other's hand
PLAY            the engine's seat to act: ``move``. A play carries the Show of the
                card and the player's key for the next stock card; then the other
                seat writes ``deal`` with its key for it, and both turn the card
                over. A Gaji wildcard onto a month of three is answered by a
                ``move`` ``hiki CARD`` (the play is void) or ``no-hiki`` first.
AUDIT           alternate from seat 0: AUDIT_SLOTS, both secrets (``deal`` Reveal)
RESULT          alternate from seat 0: ``result``, each seat's own count
GOODBYE         alternate from seat 0: ``goodbye`` match-over
==============  ==================================================================

An alternating stage is as long as its slots: it is over when every slot is
filled. A ``goodbye`` other than match-over may come from either seat at any
time; ``endings.py`` says what it settles.

The state hash every entry carries is SHA-256 over ``STATE_DOMAIN`` and the
msgpack array ``[stage, step, round, redeal, points, dealer, public]``, cut to 16
bytes: the stage by its name below, ``step`` the slots filled in an alternating
stage (0 elsewhere), the round number and redeal count of the deal in play, both
seats' points, the dealer (-1 before the first dealer is known), and the round's
public state (``Round.public_state``; empty between rounds).
"""

from __future__ import annotations

import enum
import hashlib
from typing import Any

from p2p_koikoi.engine import Match, Phase, Play, Round, RoundResult
from p2p_koikoi.fairness import Commit, Deck, Keys, Reveal
from p2p_koikoi.wire.codec import pack

__all__ = [
    "ALTERNATING",
    "AUDIT_SLOTS",
    "COIN_SLOTS",
    "DEALER_DRAW_SLOTS",
    "HAND_SLOTS",
    "OPENING_SLOTS",
    "RESULT_FIELDS",
    "STATE_DOMAIN",
    "Slot",
    "Stage",
    "floor",
    "result_body",
    "state_hash",
]

STATE_DOMAIN = b"p2p-koikoi/state/v1\x00"


class Stage(enum.Enum):
    """The stages of a match, named as the state hash encodes them."""

    MATCH = "match"
    ACCEPT = "accept"
    FIRST_DEALER = "first-dealer"
    SETUP = "setup"
    EXCHANGE = "exchange"
    HANDS = "hands"
    PLAY = "play"
    AUDIT = "audit"
    RESULT = "result"
    GOODBYE = "goodbye"
    OVER = "over"


# A slot of an alternating deal stage: the message type due, and its deck pass (0 for none).
Slot = tuple[type, int]

COIN_SLOTS: tuple[Slot, ...] = ((Commit, 0), (Commit, 0), (Reveal, 0), (Reveal, 0))
OPENING_SLOTS: tuple[Slot, ...] = (
    (Commit, 0),
    (Commit, 0),
    (Deck, 1),
    (Deck, 2),
    (Deck, 3),
    (Deck, 4),
    (Keys, 0),
    (Keys, 0),
)
DEALER_DRAW_SLOTS: tuple[Slot, ...] = (*OPENING_SLOTS, (Reveal, 0), (Reveal, 0))
HAND_SLOTS: tuple[Slot, ...] = ((Keys, 0), (Keys, 0))
AUDIT_SLOTS: tuple[Slot, ...] = ((Reveal, 0), (Reveal, 0))
RESULT_SLOTS = 2  # each seat's ``result``
GOODBYE_SLOTS = 2  # each seat's ``goodbye`` match-over

ALTERNATING = frozenset({Stage.FIRST_DEALER, Stage.SETUP, Stage.HANDS, Stage.AUDIT, Stage.RESULT, Stage.GOODBYE})
RESULT_FIELDS = ("round", "redeal", "outcome", "winner", "payment", "seat 0's points", "seat 1's points")


def floor(stage: Stage, step: int, rnd: Round | None, gaji_pending: Play | None, key_out: list[bool]) -> int:
    """The seat that writes the next entry."""
    if stage is Stage.MATCH:
        return 0
    if stage is Stage.ACCEPT:
        return 1
    if stage in ALTERNATING:
        return step % 2
    assert rnd is not None
    if stage is Stage.EXCHANGE:
        return 1 - rnd.dealer
    if gaji_pending is not None:
        return 1 - rnd.turn
    if rnd.phase is Phase.DRAW:
        # The player releases its key for the stock card first (inside its play), then the other.
        return 1 - rnd.turn if key_out[rnd.turn] else rnd.turn
    return rnd.to_act


def state_hash(stage: Stage, step: int, number: int, redeal: int, match: Match | None, rnd: Round | None) -> bytes:
    """The public state an entry's author saw before writing it (see the module docstring)."""
    points = match.points if match is not None else [0, 0]
    dealer = match.dealer if match is not None and match.dealer is not None else -1
    public = list(rnd.public_state()) if rnd is not None else []
    state = [stage.value, step, number, redeal, points, dealer, public]
    return hashlib.sha256(STATE_DOMAIN + pack(state)).digest()[:16]


def result_body(result: RoundResult) -> list[Any]:
    """The body of the ``result`` entry both seats must write for ``result``."""
    outcome = result.outcome
    winner = -1 if outcome.winner is None else outcome.winner
    payment = result.score.payment if result.score is not None else 0
    return [result.number, result.redeal, outcome.kind.value, winner, payment, *result.points]
