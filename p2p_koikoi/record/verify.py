"""``koikoi verify`` as a library: audit a record (or a transcript) and say what it proves.

:func:`walk_record` is the one walk every reader of a record takes: audit the
deals ahead (``audits.py``), then tell the record to a
:class:`~p2p_koikoi.referee.Referee` (with a spectator's knowledge), which checks every entry and tells
the match to whatever :class:`~p2p_koikoi.referee.events.MatchVisitor` the caller
brings (the exporter, the replay). It returns a :class:`VerifyReport`: the
verdict, the first failure (entry, reason, who is to blame), how the match
ended, every round's count, and what the writer's own notes say next to it.

Verdicts:

- ``verified``: every entry checks out and the match reached its end (played
  out, declined, or left by a player: the ending says who);
- ``consistent``: a transcript whose moves are legal and whose counts are
  right; it carries no signatures, so nothing is proved about who played it;
- ``failed``: the first thing wrong, named;
- ``disputed``: two copies of the match verified together that nothing decides
  between (``disputed-copies``, ``copies.py``), or a transcript that ends in an
  accusation (``unconfirmed:violation``): a record alone is never disputed;
- ``incomplete``: everything present checks out, but the record stops before
  the match ended (a crash, a lost connection): it says where, and whose turn
  it was.

A record ended by a cheat carries the honest player's ``goodbye`` and note; the
verifier reaches its own finding from the entries (or from the offending bytes
the note kept, when they never joined the chain) and says whether it agrees.

A record ended by a fork shown at resume (SPEC.md section 8) carries no goodbye,
only the writer's ``fork`` note keeping the peer's signed resume proof
(:mod:`p2p_koikoi.wire.resume_proof`). The verifier checks the proof itself
(:func:`_fork_note`): this match's id, the blamed seat's signature, a head that is
not this record's entry at that place, and no crossing that could explain it;
then the blamed seat signed a fork, and the match is the other seat's win.
"""

from __future__ import annotations

import contextlib
import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2p_koikoi.engine import MatchOutcome, MatchPhase, Termination
from p2p_koikoi.fairness.watch import AuditedDeal
from p2p_koikoi.record.audits import Mapper, audit_deals
from p2p_koikoi.record.copies import Comparison, Copy, CopyComparison, Ruling, compare_copies
from p2p_koikoi.record.format import withdrawn_place
from p2p_koikoi.record.identity_names import short_fingerprint
from p2p_koikoi.record.reader import Ending, FileEnd, Header, Note, Record, RecordVisitor, UnreadableEntry
from p2p_koikoi.record.transcript import read_transcript
from p2p_koikoi.referee import Referee, SpectatorKnowledge, Stage
from p2p_koikoi.referee.endings import Accusation
from p2p_koikoi.referee.events import Ending as MatchEnding
from p2p_koikoi.referee.events import (
    FirstDealerChoice,
    MatchEnd,
    MatchFanout,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
)
from p2p_koikoi.referee.findings import Finding, Rejected
from p2p_koikoi.wire import SIGN_DOMAIN, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.reasons import ReasonCode, ReasonId, reason_kind
from p2p_koikoi.wire.resume_proof import ResumeClaim
from p2p_koikoi.wire.sent_names import sent_names

__all__ = [
    "EXIT_CODES",
    "CopyCheck",
    "MatchSummary",
    "NoteCheck",
    "ReportKind",
    "RoundSummary",
    "Verdict",
    "VerifyReport",
    "check_transcript",
    "walk_record",
]


class ReportKind(enum.StrEnum):
    """What a checked file was (a ``str``, so the JSON report prints the member's value)."""

    RECORD = "record"
    TRANSCRIPT = "transcript"
    UNKNOWN = "unknown"  # it could not be read as either


class Verdict(enum.StrEnum):
    """What ``koikoi verify`` concludes of a record (RECORD.md section 4.5); a ``str``, so the JSON report
    and the words print the member's value."""

    VERIFIED = "verified"
    CONSISTENT = "consistent"  # a transcript: its account agrees with itself (TRANSCRIPT.md)
    FAILED = "failed"
    DISPUTED = "disputed"
    INCOMPLETE = "incomplete"
    UNREADABLE = "unreadable"


EXIT_CODES = {
    Verdict.VERIFIED: 0,
    Verdict.CONSISTENT: 0,
    Verdict.FAILED: 1,
    Verdict.DISPUTED: 1,
    Verdict.INCOMPLETE: 1,
    Verdict.UNREADABLE: 2,
}
_SEATS = ("host", "guest")
_NAME = re.compile(r"^\d{8}-\d{6}-(?P<fp0>[0-9a-f]{8})-(?P<fp1>[0-9a-f]{8})-(?P<rules>[a-z]+)-(?P<whose>host|guest)\.")


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One deal as counted: the numbers both seats signed (or a transcript states)."""

    number: int
    redeal: int
    dealer: int
    outcome: str
    winner: int | None
    payment: int
    points: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "redeal": self.redeal,
            "dealer": self.dealer,
            "outcome": self.outcome,
            "winner": self.winner,
            "payment": self.payment,
            "points": list(self.points),
        }


@dataclass(frozen=True, slots=True)
class NoteCheck:
    """A note of the writer next to the verifier's own finding: ``agrees`` is None when there is
    nothing to compare (a note about the connection, which the record cannot show)."""

    note: Note
    agrees: bool | None
    comment: str

    def to_json(self) -> dict[str, Any]:
        note = self.note
        return {
            "reason": note.reason,
            "blame": note.blame,
            "text": note.text,
            "evidence_bytes": len(note.evidence),
            "agrees": self.agrees,
            "comment": self.comment,
        }


@dataclass(frozen=True, slots=True)
class CopyCheck:
    """This copy compared with another copy of the same match (``koikoi verify A B``)."""

    other: str
    found: CopyComparison

    def to_json(self, path: str) -> dict[str, Any]:
        found = self.found
        files = (path, self.other)
        return {
            "other": self.other,
            "comparison": found.kind.value,
            "parts_at": found.parts_at,
            "longer": files[found.longer] if found.longer is not None else None,
            "stands": [files[i] for i in found.stands],
            "falls": [files[i] for i in found.falls],
            "reason": found.reason,
            "blame": found.blame,
            "refuted_by": found.refuted_by,
            "entries": list(found.parting) if found.parting is not None else None,
            "text": found.text,
        }


@dataclass
class VerifyReport:
    """What checking one file found."""

    path: str
    kind: ReportKind
    verdict: Verdict
    entries: int = 0
    complete: bool = True
    rules: str | None = None
    match_id: bytes | None = None
    keys: tuple[bytes | None, bytes | None] = (None, None)
    writer_seat: int | None = None
    header: Header | None = None  # the first frame as written: signed by nobody, so told as the writer's say-so
    finding: Finding | None = None
    ending: MatchEnd | None = None
    first_dealer: FirstDealerChoice | None = None
    rounds: list[RoundSummary] = field(default_factory=list)
    notes: list[NoteCheck] = field(default_factory=list)
    next_writer: int | None = None
    problem: str = ""
    warnings: list[str] = field(default_factory=list)
    chain: list[SignedEntry] = field(default_factory=list)  # every entry that passed, for other copies to compare
    copies: list[CopyCheck] = field(default_factory=list)  # this copy against each other copy of the match
    falls_against: str | None = None  # another copy of the match against which this copy's ending does not stand

    def cross_check(self, other: VerifyReport) -> None:
        """Another copy of this match (the host's and the guest's, or an older one): compared entry by entry
        (``copies.py``); a copy whose ruling does not stand against the other fails with the finding (``fork``,
        ``refuted``) or is disputed (``disputed-copies``), unless it failed earlier on its own."""
        if self.kind is not ReportKind.RECORD or other.kind is not ReportKind.RECORD or self.path == other.path:
            return
        if self.match_id is None or self.match_id != other.match_id:
            return
        names = (self.path, other.path)
        if Path(self.path).name != Path(other.path).name:  # the copies in words: their file names, if they differ
            names = (Path(self.path).name, Path(other.path).name)
        found = compare_copies(
            Copy(self.chain, Ruling.of(self.ending), names[0]), Copy(other.chain, Ruling.of(other.ending), names[1])
        )
        self.copies.append(CopyCheck(other.path, found))
        # A fork is proof its author cheated: the copy it wrote itself falls too, whatever its ruling says.
        forger = found.kind is Comparison.FORK and found.blame is not None and found.blame == self.writer_seat
        reason = ReasonId.FORK if forger else found.reason
        if reason is None or (0 not in found.falls and not forger):
            return
        if self.falls_against is None:
            self.falls_against = other.path
        at = found.parts_at if found.kind is not Comparison.PREFIX else len(self.chain) - 1
        if self.finding is not None and (self.finding.entry or 0) <= (at or 0):
            return
        self.verdict = Verdict.DISPUTED if found.kind is Comparison.DISPUTED else Verdict.FAILED
        self.finding = Finding(at, reason, found.text, found.blame)

    @property
    def names(self) -> tuple[str | None, str | None]:
        """The names the seats sent, signed, in the match setup (None where a seat sent none)."""
        return sent_names(self.chain)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        end = self.ending
        outcome = end.outcome if end is not None else None
        return {
            "file": self.path,
            "kind": self.kind,
            "verdict": self.verdict,
            "ok": self.ok,
            "signed": self.kind is ReportKind.RECORD,
            "entries": self.entries,
            "complete": self.complete,
            "rules": self.rules,
            "match_id": self.match_id.hex() if self.match_id is not None else None,
            "players": [
                {
                    "seat": seat,
                    "key": key.hex() if key else None,
                    "fingerprint": short_fingerprint(key) if key else None,
                    "name": self.names[seat],
                }
                for seat, key in enumerate(self.keys)
            ],
            "writer_seat": self.writer_seat,
            "header": None if self.header is None else _header_json(self.header),
            "failure": self.finding.to_json() if self.finding is not None else None,
            "ending": None
            if end is None
            else {
                "how": str(end.how),
                "seat": end.seat,
                "owed": end.owed,
                "winner": end.winner,
                "claimed": end.claimed,
                "text": end.text,
            },
            "outcome": None
            if outcome is None
            else {"winner": outcome.winner, "points": list(outcome.points), "termination": outcome.termination.value},
            "first_dealer": None
            if self.first_dealer is None
            else {"seat": self.first_dealer.seat, "by": self.first_dealer.method},
            "rounds": [r.to_json() for r in self.rounds],
            "notes": [n.to_json() for n in self.notes],
            "next_writer": self.next_writer,
            "problem": self.problem,
            "warnings": self.warnings,
            "copies": [check.to_json(self.path) for check in self.copies],
            "stands": self.falls_against is None,
        }


def _header_json(header: Header) -> dict[str, Any]:
    """The record's header as written. ``signed`` is always false: no signature covers the header (RECORD.md
    section 2), so its time, address and software are what the writer's program put there, nothing more."""
    return {
        "signed": False,
        "writer_seat": header.writer_seat,
        "peer_address": header.peer_address,
        "created": header.created,
        "software": header.software,
    }


def _player(seat: int, key: bytes | None) -> dict[str, Any]:
    return {"seat": seat, "key": key.hex() if key else None, "fingerprint": short_fingerprint(key) if key else None}


class MatchSummary(MatchVisitor):
    """Keeps what a report says about the match: its info, the first dealer, the counts, the end."""

    def __init__(self) -> None:
        self.info: MatchInfo | None = None
        self.first: FirstDealerChoice | None = None
        self.rounds: list[RoundSummary] = []
        self.end: MatchEnd | None = None

    def begin_match(self, info: MatchInfo) -> None:
        self.info = info

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        self.first = choice

    def round_played(self, played: PlayedRound) -> None:
        result = played.result
        if result is None:
            return
        payment = result.score.payment if result.score is not None else 0
        kind = result.outcome.kind.value
        self.rounds.append(
            RoundSummary(
                result.number, result.redeal, result.dealer, kind, result.outcome.winner, payment, result.points
            )
        )

    def end_match(self, end: MatchEnd) -> None:
        self.end = end

    def fill(self, report: VerifyReport) -> None:
        info = self.info
        if info is not None:
            report.rules = info.rules.format()
            report.match_id = info.match_id
            report.keys = info.keys
        report.first_dealer = self.first
        report.rounds = self.rounds
        report.ending = self.end


class _Walk(RecordVisitor[None]):
    """Tells a record's entries to the referee, stopping at the first failure, and keeps the rest."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.header: Header | None = None
        self.notes: list[Note] = []
        self.unreadable: UnreadableEntry | None = None
        self.ending = Ending(FileEnd.COMPLETE, 0)

    def begin_record(self, header: Header) -> None:
        self.header = header

    def visit_entry(self, index: int, signed: SignedEntry) -> None:
        if self.referee.finding is None or self.referee.end is None:
            with contextlib.suppress(Rejected):  # the referee keeps its finding
                self.referee.feed(signed)

    def visit_unreadable_entry(self, unreadable: UnreadableEntry) -> None:
        self.unreadable = unreadable

    def visit_note(self, note: Note) -> None:
        self.notes.append(note)

    def end_record(self, ending: Ending) -> None:
        self.ending = ending

    def result(self) -> None:
        return None


def walk_record(record: Record, visitor: MatchVisitor | None = None, mapper: Mapper | None = None) -> VerifyReport:
    """Check ``record`` entry by entry, telling the match to ``visitor``; ``mapper`` audits the deals
    (``map`` by default; a process pool's ``map`` spreads them over cores)."""
    audited = audit_deals(record.entries, mapper)
    summary = MatchSummary()
    fanout = MatchFanout([summary, *([visitor] if visitor is not None else [])])
    referee = Referee(SpectatorKnowledge(audited), fanout)
    walk = _Walk(referee)
    record.accept(walk)
    report = VerifyReport(str(record.path), ReportKind.RECORD, Verdict.VERIFIED, entries=len(record.entries))
    report.complete = walk.ending.complete
    report.problem = walk.ending.problem
    report.writer_seat = walk.header.writer_seat if walk.header is not None else None
    report.header = walk.header
    report.chain = list(referee.entries)
    finding = referee.finding
    ended = referee.end  # how the entries ended the match, if they did
    if walk.unreadable is not None and finding is None:
        if ended is None:
            finding = _unreadable_finding(walk.unreadable, referee)
            referee.record_fault(finding)
        else:
            report.warnings.append(f"after the match ended: {walk.ending.problem}")
    elif walk.ending.kind is FileEnd.CORRUPT and finding is None and ended is None:
        # A whole frame that does not parse is damage, not a crash: a crash only cuts the last frame short.
        finding = Finding(len(record.entries), ReasonId.CORRUPT_FRAME, walk.ending.problem, None)
        referee.record_fault(finding)
    forks = [_fork_note(note, referee) for note in walk.notes if note.reason == ReasonId.FORK]
    proven = next((found for found, _ in forks if found is not None), None)
    if proven is not None and finding is None and (ended is None or ended.refutable):
        finding = _settle_fork(referee, proven)
    report.next_writer = referee.next_writer()
    referee.close(walk.ending.problem or "the record stops here")
    summary.fill(report)
    accusation = referee.accusation
    if finding is None and accusation is not None:
        finding = _evidence_finding(record, accusation, walk.notes, audited)
    if finding is not None:
        report.verdict, report.finding = Verdict.FAILED, finding
    elif accusation is not None:
        report.verdict = Verdict.DISPUTED
        report.finding = Finding(
            accusation.entry,
            str(ReasonCode(ReasonId.UNCONFIRMED, accusation.reason)),
            f"seat {accusation.seat} ended the match accusing seat {1 - accusation.seat} ({accusation.text}); "
            "every entry checks out, and the record holds nothing a third party can check the claim against",
            None,
        )
    elif ended is None:
        report.verdict = Verdict.INCOMPLETE
        report.finding = _incomplete_finding(len(record.entries), walk.ending, report.next_writer)
    elif not walk.ending.complete and walk.unreadable is None:
        report.warnings.append(f"after the match ended: {walk.ending.problem}")
    fork_checks = iter(forks)
    report.notes = [
        _check_fork_note(note, next(fork_checks), report.finding)
        if note.reason == ReasonId.FORK
        else _check_note(note, report.finding, accusation)
        for note in walk.notes
    ]
    report.warnings.extend(_name_warnings(record, report))
    return report


def check_transcript(data: Any, name: str, visitor: MatchVisitor | None = None) -> VerifyReport:
    """Check a transcript (parsed JSON): legality and counts, as :func:`walk_record` checks a record.

    Raises :class:`~p2p_koikoi.record.transcript.TranscriptError` if ``data`` is not a transcript.
    """
    summary = MatchSummary()
    fanout = MatchFanout([summary, *([visitor] if visitor is not None else [])])
    report = VerifyReport(name, ReportKind.TRANSCRIPT, Verdict.CONSISTENT, entries=0)
    try:
        read_transcript(data, fanout)
    except Rejected as exc:
        report.verdict, report.finding = Verdict.FAILED, exc.finding
        fanout.end_match(MatchEnd(MatchEnding.FAILED, None, exc.finding.line()))
    summary.fill(report)
    end = report.ending
    if report.verdict is Verdict.CONSISTENT and end is not None:
        if end.how is MatchEnding.VIOLATION:
            report.verdict = Verdict.DISPUTED
            text = f"the transcript says seat {end.seat} ended the match accusing the other: {end.text}"
            report.finding = Finding(
                None, str(ReasonCode(ReasonId.UNCONFIRMED, "violation")), text, None, where="the ending"
            )
        elif end.how in (MatchEnding.UNFINISHED, MatchEnding.FAILED):
            report.verdict = Verdict.INCOMPLETE
            text = f"the transcript stops before the match ended ({end.text})"
            report.finding = Finding(None, ReasonId.INCOMPLETE, text, None, where="the ending")
    report.warnings.append("a transcript carries no signatures: it proves nothing about who played it")
    return report


def _incomplete_finding(entries: int, ending: Ending, next_writer: int | None) -> Finding:
    why = ending.problem if not ending.complete else "the record stops before the match ended"
    turn = f"; seat {next_writer} was to write it" if next_writer is not None else ""
    return Finding(entries, ReasonId.INCOMPLETE, f"{why}: entry {entries} is missing{turn}", None)


def _unreadable_finding(unreadable: UnreadableEntry, referee: Referee) -> Finding:
    """An entry whose bytes do not parse: blamed on whoever signed those very bytes, if anyone did."""
    signer = None
    for seat, key in enumerate(referee.keys):
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(unreadable.signature, SIGN_DOMAIN + unreadable.data)
        except (InvalidSignature, ValueError):
            continue
        signer = seat
    signed = f"; seat {signer} signed it" if signer is not None else ", and no seat signed it"
    return Finding(
        unreadable.index, ReasonId.UNREADABLE_ENTRY, f"the entry does not parse ({unreadable.error}){signed}", signer
    )


def _evidence_finding(
    record: Record, accusation: Accusation, notes: list[Note], audited: dict[tuple[int, int], AuditedDeal]
) -> Finding | None:
    """Check the offending entry the accuser's note kept (it never joined the chain) in the place it came."""
    for note in notes:
        if len(note.evidence) <= 64 or note.reason == ReasonId.FORK:  # a fork note keeps a resume proof, not an entry
            continue
        place = f"the entry kept in the writer's note (it came as entry {accusation.entry})"
        try:
            signed = SignedEntry.parse(note.evidence[:-64], note.evidence[-64:])
        except RemoteProtocolError as exc:
            text = f"the peer's bytes kept as evidence are not an entry: {exc}"
            return Finding(accusation.entry, exc.reason, text, None, where=place)
        referee = Referee(SpectatorKnowledge(audited))
        try:
            for entry in record.entries[: accusation.entry]:
                referee.feed(entry)
            referee.feed(signed)
        except Rejected as exc:
            found = exc.finding
            if found.entry == accusation.entry:
                return Finding(found.entry, found.reason, found.text, found.blame, where=place)
            return found
    return None


def _check_note(note: Note, finding: Finding | None, accusation: Accusation | None) -> NoteCheck:
    place = withdrawn_place(note.reason, note.evidence)
    if place is not None:  # the record's own structure (RECORD.md section 2), not a finding: compared with nothing
        return NoteCheck(note, None, f"entries from {place} on were withdrawn: a crossing goodbye took their place")
    if finding is None or finding.reason == ReasonId.INCOMPLETE:
        if accusation is not None:
            return NoteCheck(note, None, "the accusation cannot be checked from the record")
        return NoteCheck(note, None, "nothing in the entries to compare it with")
    if note.reason == finding.reason or finding.reason == str(ReasonCode(ReasonId.UNCONFIRMED, note.reason)):
        if note.blame == finding.blame:
            return NoteCheck(note, True, "the verifier finds the same")
        who = "nobody can be proved" if finding.blame is None else f"the record proves seat {finding.blame}"
        return NoteCheck(note, False, f"same finding, but {who} to blame")
    return NoteCheck(note, False, f"the verifier finds {finding.reason} instead")


def _fork_note(note: Note, referee: Referee) -> tuple[Finding | None, NoteCheck]:
    """A ``fork`` note's evidence checked as the peer's resume proof against the entries that joined the chain:
    the fork it proves (its finding, blaming the seat that signed it), or None and why not. The note itself
    is not trusted: its blamed seat only says whose key to check the signature with."""
    entries = referee.entries
    try:
        claim = ResumeClaim.parse(note.evidence)
    except ValueError:
        return None, NoteCheck(note, False, "its evidence is not a resume proof: nothing shows the fork")
    if not entries:
        return None, NoteCheck(note, False, "the record holds no match entry to check its resume proof against")
    if claim.match_id != referee.match_id:
        return None, NoteCheck(note, False, "the resume proof it keeps is of another match")
    seat = note.blame
    if seat not in (0, 1):
        return None, NoteCheck(note, False, "it blames no seat whose key could have signed the resume proof")
    assert seat is not None
    if not claim.signed_by(referee.keys[seat]):
        return None, NoteCheck(note, False, f"the resume proof it keeps is not signed by seat {seat}'s key")
    place = claim.count - 1
    if not claim.forks_from(entries):
        if 0 < claim.count <= len(entries):
            text = f"seat {seat} signed, resuming, that its entry {place} is this record's: no fork"
        else:
            text = f"the head seat {seat} signed (its entry {place}) lies past this record's entries: no fork shows"
        return None, NoteCheck(note, False, text)
    who = _SEATS[seat]
    text = (
        f"the {who} signed, resuming, that its entry {place} is {claim.head.hex()[:16]}, "
        f"but this record's entry {place} is {entries[place].digest.hex()[:16]}"
    )
    if not _signed_past_the_other(entries, seat, place):
        why = (
            f"{text}; a crossing (SPEC.md section 6) could explain it: seat {seat} signed no entry of this record "
            f"chained after one of seat {1 - seat}'s from entry {place} on"
        )
        return None, NoteCheck(note, None, why)
    found = Finding(place, ReasonId.FORK, f"{text}: its copy of the match forked from this one", seat)
    return found, NoteCheck(note, True, "the verifier finds the same")


def _signed_past_the_other(entries: list[SignedEntry], seat: int, place: int) -> bool:
    """Whether ``seat`` signed an entry chained after an entry of the other seat at ``place`` or later: it then
    held this record's entry ``place``, and no crossing takes it back (a seat withdraws only a run of its own
    entries, and takes nothing chained on entries the other seat withdrew), so a resume proof of another
    entry there is its fork. Without one, a proof taken from a crossing could be passed off as a fork."""
    other_seen = False
    for signed in entries[place:]:
        author = signed.entry.author
        if author != seat:
            other_seen = True
        elif other_seen:
            return True
    return False


def _settle_fork(referee: Referee, found: Finding) -> Finding:
    """End the match on the fork ``found`` proves, as a proven violation ends it: the other seat's win."""
    loser = found.blame
    assert loser is not None
    outcome = _forfeit_outcome(referee, loser)
    referee.finish(MatchEnd(MatchEnding.VIOLATION, 1 - loser, found.text, outcome, owed=referee.next_writer()))
    return found


def _forfeit_outcome(referee: Referee, loser: int) -> MatchOutcome | None:
    """What the match comes to when ``loser`` loses it outside the count (as the referee rules a proven
    violation): the count as it stood if it had decided, else the other seat's win on the points so far;
    none before the guest accepted the rules."""
    match = referee.match
    if match is not None:
        if match.phase is MatchPhase.OVER and match.outcome is not None:
            return match.outcome
        return MatchOutcome(1 - loser, (match.points[0], match.points[1]), Termination.FORFEIT)
    if referee.rules is None or referee.stage in (Stage.MATCH, Stage.ACCEPT):
        return None
    return MatchOutcome(1 - loser, (0, 0), Termination.FORFEIT)


def _check_fork_note(note: Note, checked: tuple[Finding | None, NoteCheck], finding: Finding | None) -> NoteCheck:
    """A ``fork`` note: what its resume proof shows (:func:`_fork_note`), next to the verifier's finding."""
    found, check = checked
    if found is None or (finding is not None and (finding.reason, finding.blame) == (found.reason, found.blame)):
        return check
    if finding is None or reason_kind(finding.reason) is ReasonId.UNCONFIRMED:
        return NoteCheck(note, None, "the resume proof checks out, but the entries had ended the match for good")
    return NoteCheck(note, False, f"the resume proof checks out, but the verifier finds {finding.reason} first")


def _name_warnings(record: Record, report: VerifyReport) -> list[str]:
    """File names are not signed; say so when one disagrees with the match it holds."""
    found = _NAME.match(record.path.name)
    if found is None or report.rules is None:
        return []
    out = []
    preset = report.rules.split()[0]
    if found["rules"] != preset:
        out.append(f"the file name says the rules are {found['rules']}, the signed match entry says {preset}")
    for seat, key in enumerate(report.keys):
        if key is not None and found[f"fp{seat}"] != short_fingerprint(key):
            out.append(f"the file name gives seat {seat} another fingerprint than its signed key")
    whose = 0 if found["whose"] == "host" else 1
    if report.writer_seat is not None and whose != report.writer_seat:
        out.append("the file name and the record's header disagree about whose copy this is")
    return out
