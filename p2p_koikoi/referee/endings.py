"""How a ``goodbye`` ends a match: the one ruling every observer applies (RECORD.md section 6).

A claim that proves nothing gives nothing:

- ``quit`` (or any word we do not know): its author leaves, and after ``accept``
  that is a forfeit at every stage; the other seat wins.
- ``peer-gone`` or ``stalled`` ("the other vanished", "the other held its
  decision past the time limit"): if the claimer itself held the floor, the
  claim is its own abandonment, a forfeit. Otherwise the match is *abandoned*:
  nobody wins, the claimer and the seat that owed the next entry are named, and
  either player may take it up again later (``koikoi resume``); the next entry,
  if one ever comes, lifts the claim.
- ``violation:REASON`` carries the accuser's secret for the deal in progress
  (``evidence.py``). If the referee caught the other seat itself, or the
  evidence shows the other seat at fault, that seat loses. If the claim is about
  bytes that never joined the chain (a bad signature or link), the record cannot
  decide: *disputed*. Otherwise the claim is baseless, and the accuser forfeits.
- ``match-over`` closes a match the count has decided (two of them end it); one
  written before is a quit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from p2p_koikoi.engine import Match, MatchOutcome, MatchPhase
from p2p_koikoi.referee.events import Claim, Ending, MatchEnd
from p2p_koikoi.referee.findings import Finding
from p2p_koikoi.referee.table import Stage

if TYPE_CHECKING:
    from p2p_koikoi.referee.referee import Referee

__all__ = ["INTEGRITY_REASONS", "Accusation", "on_goodbye"]

# Faults in bytes that never join the chain: a third party cannot see them.
INTEGRITY_REASONS = frozenset(
    {
        "bad-signature",
        "bad-link",
        "bad-seq",
        "wrong-match",
        "replayed-entry",
        "fork",
        "bad-frame",
        "bad-body",
        "bad-kind",
        "bad-version",
        "not-canonical-entry",
        "frame-too-large",
        "out-of-turn",
        "desync",
    }
)


@dataclass(frozen=True, slots=True)
class Accusation:
    """A ``goodbye`` in which ``seat`` says it caught the other seat breaking rule ``reason``."""

    entry: int
    seat: int
    reason: str
    text: str
    evidence: bytes | None = None


def forfeit(referee: Referee, loser: int) -> MatchOutcome | None:
    """The outcome when ``loser`` gives the match away (None before the guest accepted the rules)."""
    match = referee.match
    if match is not None:
        return match.outcome if match.phase is MatchPhase.OVER else match.forfeit(loser)
    if referee.rules is None or referee.stage in (Stage.MATCH, Stage.ACCEPT):
        return None
    return Match(referee.rules).forfeit(loser)


def on_goodbye(referee: Referee, index: int, author: int, body: list[Any]) -> None:
    """Rule on a ``goodbye`` outside the GOODBYE stage (it has joined the chain already)."""
    claim, reason = Claim.parse(body[0])
    text = body[1]
    owed = _owed(referee)
    finding = referee.finding
    if finding is not None and finding.blame == 1 - author:
        # This observer caught the other seat itself: the accusation only says so.
        referee.finish(MatchEnd(Ending.VIOLATION, author, text, forfeit(referee, 1 - author), owed))
        return
    match = referee.match
    if match is not None and match.phase is MatchPhase.OVER:
        referee.finish(MatchEnd(Ending.FINISHED, author, text, match.outcome, owed))
        return
    if claim is Claim.VIOLATION:
        evidence = body[2] if len(body) > 2 else None
        _on_accusation(referee, Accusation(index, author, reason, text, evidence), owed)
    elif claim in (Claim.PEER_GONE, Claim.STALLED) and owed is not None and owed != author:
        referee.finish(MatchEnd(Ending.ABANDONED, author, text, None, owed))
    elif referee.stage is Stage.ACCEPT and author == 1:
        referee.finish(MatchEnd(Ending.DECLINED, author, text, None, owed))
    else:
        referee.finish(MatchEnd(Ending.FORFEIT, author, text, forfeit(referee, author), owed))


def _owed(referee: Referee) -> int | None:
    try:
        return referee.floor()
    except AssertionError:
        return None


def _on_accusation(referee: Referee, accusation: Accusation, owed: int | None) -> None:
    from p2p_koikoi.referee.evidence import examine

    accuser, accused = accusation.seat, 1 - accusation.seat
    referee.accusation = accusation
    if accusation.reason in INTEGRITY_REASONS:
        referee.finish(MatchEnd(Ending.DISPUTED, accuser, accusation.text, None, owed))
        return
    finding = examine(referee, accusation)
    if finding is not None and finding.blame == accused:
        referee.finding = finding
        referee.finish(MatchEnd(Ending.VIOLATION, accuser, accusation.text, forfeit(referee, accused), owed))
        return
    if finding is None:
        what = f"seat {accuser} accused seat {accused} ({accusation.reason}), but the record"
        what += " and the accuser's evidence" if accusation.evidence is not None else " (with no evidence)"
        finding = Finding(accusation.entry, "baseless-accusation", what + " show nothing wrong", accuser)
    referee.finding = finding
    referee.finish(MatchEnd(Ending.FORFEIT, accuser, accusation.text, forfeit(referee, accuser), owed))
