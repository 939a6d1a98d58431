"""The audit: re-derive every message a party sent from its revealed secret.

At the end of a deal both secrets are revealed. A party's messages are
correct if and only if

1. its secret opens its commitment,
2. every deck it sent carries a proof that holds (checked on receipt by the
   players, again here for a third party), and equals the pass recomputed
   from the deck it received (or, for pass 1, from the card points) with its
   derived contribution,
3. every key it sent (in ``Keys`` and ``Show``) equals its derived unlock key
   for that position, and every card it claimed in a ``Show`` is the card that
   really is there.

The functions here check one party (each side uses them on its peer when the
peer's secret arrives); :func:`audit_transcript` checks both parties of a
whole transcript, as a third party replaying the signed record would, and
blames whoever sent the first message that fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.fairness.cardpoints import CARD_POINTS
from p2p_koikoi.fairness.commit import opens
from p2p_koikoi.fairness.derive import Contribution, DealContext, derive_contribution
from p2p_koikoi.fairness.errors import CheatingDetected, Reason, UnusableSecret
from p2p_koikoi.fairness.messages import Commit, Deck, Keys, Message, Reveal, Show
from p2p_koikoi.fairness.passproof import check_pass
from p2p_koikoi.fairness.shuffle import deck_order, lock, pass_owner, shuffle

__all__ = [
    "AuditReport",
    "audit_transcript",
    "expected_pass",
    "open_contribution",
    "verify_deck",
    "verify_release",
]


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The outcome of a clean audit: the card at every final deck position."""

    deck: tuple[Card, ...]


def open_contribution(context: DealContext, identity: bytes, seat: int, commit: Commit, reveal: Reveal) -> Contribution:
    """Check that ``reveal`` opens ``commit`` and derive the contribution."""
    if not opens(context, identity, reveal.secret, commit.commitment):
        raise CheatingDetected(
            seat,
            Reason.COMMITMENT_MISMATCH,
            "the revealed secret does not open the commitment",
            (commit, reveal),
        )
    try:
        return derive_contribution(reveal.secret, context, identity)
    except UnusableSecret as error:
        raise CheatingDetected(seat, Reason.UNUSABLE_SECRET, str(error), (commit, reveal)) from error


def expected_pass(number: int, contribution: Contribution, received: Sequence[bytes]) -> tuple[bytes, ...]:
    """Pass ``number`` as its owner must have computed it from ``received``
    (the previous pass, or ignored for pass 1, which starts from the card points)."""
    if number == 1:
        return shuffle(CARD_POINTS, contribution)
    if number == 2:
        return shuffle(received, contribution)
    return lock(received, contribution)


def verify_deck(
    contribution: Contribution,
    deck: Deck,
    received: Sequence[bytes],
    opening: tuple[Commit, Reveal],
) -> None:
    """Check a deck its owner sent against the owner's contribution."""
    if expected_pass(deck.number, contribution, received) != deck.points:
        raise CheatingDetected(
            pass_owner(deck.number),
            Reason.DECK_MISMATCH,
            f"pass {deck.number} is not what the revealed secret derives",
            (*opening, deck),
        )


def verify_release(
    seat: int,
    contribution: Contribution,
    message: Keys | Show,
    opening: tuple[Commit, Reveal],
    deck: Sequence[Card] | None = None,
) -> None:
    """Check the keys (and, given the deck order, the claims) of a ``Keys`` or ``Show``."""
    for position, key in zip(message.positions, message.keys, strict=True):
        if key != contribution.unlock_keys[position]:
            raise CheatingDetected(
                seat,
                Reason.KEY_MISMATCH,
                f"the key sent for position {position} is not what the revealed secret derives",
                (*opening, message),
            )
    if isinstance(message, Show) and deck is not None:
        for position, card in zip(message.positions, message.cards, strict=True):
            if deck[position] != card:
                raise CheatingDetected(
                    seat,
                    Reason.CLAIM_MISMATCH,
                    f"position {position} holds {deck[position].id}, not the claimed {card.id}",
                    (*opening, message),
                )


def audit_transcript(
    context: DealContext,
    identity_keys: tuple[bytes, bytes],
    transcript: Sequence[tuple[int, Message]],
    *,
    check_proofs: bool = True,
) -> AuditReport:
    """Audit a whole deal from its transcript of ``(sender seat, message)``.

    Only the order of each sender's own messages matters. ``check_proofs``
    may be turned off only by a caller that already checked every deck's
    proof on receipt (a spectator's watch). Raises
    :class:`CheatingDetected` blaming the sender of the earliest message that
    fails (a missing message is blamed on the party that owed it).
    """
    failures: list[tuple[int, CheatingDetected]] = []
    commits: dict[int, tuple[int, Commit]] = {}
    reveals: dict[int, tuple[int, Reveal]] = {}
    decks: dict[int, tuple[int, Deck]] = {}
    releases: list[tuple[int, int, Keys | Show]] = []
    for index, (seat, message) in enumerate(transcript):
        if seat not in (0, 1):
            raise ValueError("a seat is 0 or 1")
        if isinstance(message, Commit) and seat not in commits:
            commits[seat] = (index, message)
        elif isinstance(message, Reveal) and seat not in reveals:
            reveals[seat] = (index, message)
        elif isinstance(message, Deck) and pass_owner(message.number) == seat and message.number not in decks:
            decks[message.number] = (index, message)
        elif isinstance(message, Keys | Show):
            releases.append((index, seat, message))
        else:
            failures.append(
                (index, CheatingDetected(seat, Reason.UNEXPECTED_MESSAGE, "a message out of place", (message,)))
            )
    end = len(transcript)
    for seat in (0, 1):
        if seat not in commits or seat not in reveals:
            missing = "commitment" if seat not in commits else "secret"
            failures.append((end, CheatingDetected(seat, Reason.MISSING_MESSAGE, f"seat {seat} sent no {missing}")))
    for number in (1, 2, 3, 4):
        if number not in decks:
            owner = pass_owner(number)
            failures.append((end, CheatingDetected(owner, Reason.MISSING_MESSAGE, f"pass {number} is missing")))
    if failures:
        raise min(failures, key=lambda item: item[0])[1]

    contributions: dict[int, Contribution] = {}
    openings: dict[int, tuple[Commit, Reveal]] = {}
    for seat in (0, 1):
        openings[seat] = (commits[seat][1], reveals[seat][1])
        try:
            contributions[seat] = open_contribution(context, identity_keys[seat], seat, *openings[seat])
        except CheatingDetected as error:
            failures.append((reveals[seat][0], error))
    if failures:
        raise min(failures, key=lambda item: item[0])[1]

    order = deck_order(contributions[0], contributions[1])
    previous: tuple[bytes, ...] = ()
    for number in (1, 2, 3, 4):
        index, deck = decks[number]
        owner = pass_owner(number)
        try:
            if check_proofs:
                check_pass(context, identity_keys[owner], deck, previous or CARD_POINTS)
            verify_deck(contributions[owner], deck, previous, openings[owner])
        except CheatingDetected as error:
            # The passes after a wrong one cannot be judged, and come later anyway.
            failures.append((index, error))
            break
        previous = deck.points
    for index, seat, message in releases:
        try:
            verify_release(seat, contributions[seat], message, openings[seat], order)
        except CheatingDetected as error:
            failures.append((index, error))
    if failures:
        raise min(failures, key=lambda item: item[0])[1]
    return AuditReport(deck=order)
