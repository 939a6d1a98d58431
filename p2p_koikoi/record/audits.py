"""Audit every deal of a record ahead of the walk, possibly on several cores.

Auditing a deal (re-deriving both players' four deck passes and every key from
their revealed secrets) is nearly all the cost of verifying a record: about 200
group multiplications per deal. The deals are independent of each other, so
the verifier gathers each deal's messages first (:func:`audit_jobs`) and audits
them with any ``map`` it is given (:func:`audit_deals`), such as a process
pool's. The referee then walks the record in order and, while the messages it
sees are exactly those audited clean, takes every card from the audited deck
instead of unlocking it (``watch.py``).

Nothing here decides anything: a deal that does not audit clean, or whose
messages are grouped differently from what the walk finds, is simply checked
message by message during the walk, which names the first failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from p2p_koikoi.engine import EngineError, parse_rules
from p2p_koikoi.engine.rules import FirstDealer
from p2p_koikoi.fairness import DealContext, FairnessError, Purpose, audit_transcript, parse_message
from p2p_koikoi.fairness.watch import AuditedDeal
from p2p_koikoi.wire import SignedEntry, match_id_of
from p2p_koikoi.wire.bodies import DealBody, EntryKind, MatchBody, MoveBody

__all__ = ["AuditJob", "DealKey", "audit_deals", "audit_jobs", "run_audit"]

DealKey = tuple[int, int]  # (round, redeal); round 0 is the first-dealer draw, its redeal the draw number
Mapper = Callable[[Callable[["AuditJob"], "AuditedDeal | None"], Iterable["AuditJob"]], Iterator["AuditedDeal | None"]]
_REVEAL = 0x05


@dataclass(frozen=True, slots=True)
class AuditJob:
    """One deal's messages, as (sender, message bytes) in record order, with what the audit binds."""

    key: DealKey
    context: DealContext
    identity_keys: tuple[bytes, bytes]
    messages: tuple[tuple[int, bytes], ...]


def audit_jobs(entries: Sequence[SignedEntry]) -> list[AuditJob]:
    """Every deal of the record whose two secrets are out, ready to audit."""
    if not entries or entries[0].entry.kind != EntryKind.MATCH:
        return []
    opening = entries[0].entry.content
    assert isinstance(opening, MatchBody)
    try:
        coin = parse_rules(opening.rules).first_dealer is FirstDealer.COIN
    except EngineError:
        return []
    identity_keys = opening.keys
    match_id = match_id_of(identity_keys, opening.nonces)
    deals: dict[DealKey, list[tuple[int, bytes]]] = {}
    latest: dict[int, int] = {}  # the redeal in play for each round, as the walk will see it
    for signed in entries[1:]:
        entry, body = signed.entry, signed.entry.content
        if isinstance(body, DealBody):
            deals.setdefault((body.round, body.redeal), []).append((entry.author, body.message))
            latest[body.round] = body.redeal
        elif isinstance(body, MoveBody):
            redeal = latest.get(body.round)
            if redeal is not None:
                for data in (body.show, body.keys):
                    if data is not None:
                        deals[(body.round, redeal)].append((entry.author, data))
    jobs = []
    for (number, redeal), messages in deals.items():
        if number == 0 and coin:
            continue  # a coin flip has no deck to audit
        if sum(1 for _, data in messages if data[:1] == bytes([_REVEAL])) < 2:
            continue
        purpose = Purpose.DEALER_DRAW if number == 0 else Purpose.ROUND_DEAL
        context = DealContext(match_id, number, redeal, purpose)
        jobs.append(AuditJob((number, redeal), context, identity_keys, tuple(messages)))
    return jobs


def run_audit(job: AuditJob) -> AuditedDeal | None:
    """The deal's deck order if every message of both players re-derives from their secrets; else None."""
    try:
        transcript = [(seat, parse_message(data)) for seat, data in job.messages]
        report = audit_transcript(job.context, job.identity_keys, transcript)
    except (FairnessError, ValueError):
        return None
    return AuditedDeal(job.messages, tuple(message for _, message in transcript), report.deck)


def audit_deals(entries: Sequence[SignedEntry], mapper: Mapper | None = None) -> dict[DealKey, AuditedDeal]:
    """Audit every deal of ``entries`` (with ``mapper``, ``map`` by default) and keep the clean ones."""
    jobs = audit_jobs(entries)
    results = (mapper or map)(run_audit, jobs)
    return {job.key: audited for job, audited in zip(jobs, results, strict=True) if audited is not None}
