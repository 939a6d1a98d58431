"""Checking an accusation with the accuser's evidence: its secret for the deal in progress.

What a seat checks with its own secret and a spectator cannot (the other seat's
keys for the seat's hand unlock real, unseen cards; the other seat's moves are
legal given the seat's hand) becomes checkable by anyone once the accuser's
deal secret is out. :func:`examine` does exactly the accuser's checks:

1. the secret must open the accuser's commitment, and every deck and key the
   accuser sent must re-derive from it (else the accuser cheated: it is blamed);
2. every key the accused released for the accuser's hand, with the accuser's
   own key, must unlock a card seen at no other position (``not-a-card``,
   ``duplicate-card``, at the entry that carried the key);
3. every move of the round so far must be legal with the accuser's hand known
   (``illegal-move:RULE``, at the entry of the move).

The finding names the same entry, reason and blame the accuser's live referee
named, so the two copies of a match and ``koikoi verify`` agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2p_koikoi.engine import CHANCE, Card, Exchange, IllegalActionError, Round, RuleId
from p2p_koikoi.fairness import CheatingDetected, DealContext, Keys, Message, Reason, Reveal, parse_message, reveal_plan
from p2p_koikoi.fairness.audit import open_contribution
from p2p_koikoi.fairness.derive import Contribution
from p2p_koikoi.fairness.shuffle import unlock
from p2p_koikoi.fairness.watch import DealWatch
from p2p_koikoi.referee.findings import Finding
from p2p_koikoi.wire.bodies import DealBody, MoveBody
from p2p_koikoi.wire.reasons import ReasonCode, ReasonId

if TYPE_CHECKING:
    from p2p_koikoi.referee.endings import Accusation
    from p2p_koikoi.referee.referee import Referee

__all__ = ["examine"]


def examine(referee: Referee, accusation: Accusation) -> Finding | None:
    """What the accuser's evidence proves: a finding against either seat, or None (nothing wrong)."""
    context = referee.deal_context()
    secret = accusation.evidence
    if context is None or secret is None or len(secret) != 32:
        return None
    accuser = accusation.seat
    watch = _new_watch(referee, context)
    try:
        messages = _replay_deal(referee, watch)
        contribution = _open(watch, context, accuser, secret)
        return _unlock_hand(referee, watch, messages, accuser, contribution) or _replay_moves(referee, accuser, watch)
    except CheatingDetected as exc:
        entry = watch.entry_of(exc.evidence[-1]) if exc.evidence else None
        return Finding(
            entry if entry is not None else accusation.entry,
            str(exc.reason),
            f"deal: {exc.detail}",
            exc.blame,
            found_at=accusation.entry,
        )


def _deal_messages(referee: Referee) -> list[tuple[int, int, Message]]:
    """Every deal message of the deal in progress, as (entry, author, message), in chain order."""
    out: list[tuple[int, int, Message]] = []
    for index in range(referee.deal_start, len(referee.entries)):
        entry, body = referee.entries[index].entry, referee.entries[index].entry.content
        if isinstance(body, DealBody):
            out.append((index, entry.author, parse_message(body.message)))
        elif isinstance(body, MoveBody):
            for field in (body.show, body.keys):
                if field is not None:
                    out.append((index, entry.author, parse_message(field)))
    return out


def _new_watch(referee: Referee, context: DealContext) -> DealWatch:
    rules, match = referee.rules, referee.match
    plan = None
    if context.round and rules is not None and match is not None and match.dealer is not None:
        plan = reveal_plan(rules.deal_pattern, match.dealer)
    return DealWatch(context, referee.keys, plan)


def _replay_deal(referee: Referee, watch: DealWatch) -> list[tuple[int, int, Message]]:
    """The deal so far, told to a spectator's watch, which checks what any third party can."""
    messages = _deal_messages(referee)
    swapped = referee.round is not None and any(
        isinstance(action, Exchange) and action.swap for _, action in referee.round.history
    )
    for n, (index, author, message) in enumerate(messages):
        if n == 8 and swapped:
            watch.exchange_hands()
        watch.receive(index, author, message)
    return messages


def _open(watch: DealWatch, context: DealContext, accuser: int, secret: bytes) -> Contribution:
    """The accuser's contribution: its secret must open its commitment and re-derive all it sent."""
    reveal = Reveal(secret)
    commit = watch.commits.get(accuser)
    if commit is None:
        raise CheatingDetected(accuser, Reason.UNEXPECTED_MESSAGE, "evidence for a deal it never committed to", ())
    contribution = open_contribution(context, watch.keys[accuser], accuser, commit, reveal)
    watch.audit_one(accuser, reveal)
    return contribution


def _unlock_hand(
    referee: Referee,
    watch: DealWatch,
    messages: list[tuple[int, int, Message]],
    accuser: int,
    contribution: Contribution,
) -> Finding | None:
    """The accused's keys, with the accuser's: every position must open to a card seen nowhere else."""
    if 4 not in watch.decks:
        return None
    final = watch.decks[4].points
    seen: dict[Card, int] = {card: position for position, card in watch.cards.items()}
    for index, author, message in messages:
        if author == accuser or not isinstance(message, Keys):
            continue
        for position, key in message.items():
            if position in watch.cards:
                continue
            card = unlock(final[position], contribution.unlock_keys[position], key)
            if card is None:
                text = f"deal: position {position} does not unlock to a card"
                return Finding(index, str(Reason.NOT_A_CARD), text, 1 - accuser, found_at=referee.accusation_entry())
            other = seen.get(card)
            if other is not None and other != position:
                text = f"deal: {card.id} unlocks at positions {other} and {position}"
                return Finding(
                    index, str(Reason.DUPLICATE_CARD), text, 1 - accuser, found_at=referee.accusation_entry()
                )
            seen[card] = position
            watch.cards.setdefault(position, card)
    return None


def _replay_moves(referee: Referee, accuser: int, watch: DealWatch) -> Finding | None:
    """The round so far, with the accuser's hand known: every move of the accused must be legal."""
    rnd, rules, plan = referee.round, referee.rules, watch.plan
    if rnd is None or rules is None or plan is None:
        return None
    table = sum(1 << watch.cards[p] for p in plan.table)
    probe = Round.start(rules, rnd.dealer, (0, 0), table, [None] * 24, hidden=(8, 8))
    hand = sum(1 << watch.cards[p] for p in plan.hand(accuser) if p in watch.cards)
    revealed = False
    for n, (seat, action) in enumerate(rnd.history):
        if not revealed and not isinstance(action, Exchange):
            probe.reveal(accuser, hand & ~probe.hands[accuser])
            revealed = True
        try:
            probe.apply(action, seat)
        except IllegalActionError as exc:
            if seat in (CHANCE, accuser) or exc.rule is RuleId.GAJI_BLOCKED_BY_HIKI:
                return None
            return Finding(
                referee.history_entry(n),
                str(ReasonCode(ReasonId.ILLEGAL_MOVE, exc.rule)),
                f"illegal move: {exc}",
                seat,
                found_at=referee.accusation_entry(),
            )
    return None
