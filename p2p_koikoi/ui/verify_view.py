"""``koikoi verify`` in words: one line per file, then the details a person needs (pure functions)."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence

from p2p_koikoi.app.closing import koikoi_command
from p2p_koikoi.app.replay import ending_told
from p2p_koikoi.app.words import count, how_match_ended, reason_words, score_words
from p2p_koikoi.record.format import withdrawn_place
from p2p_koikoi.record.identity_names import short_fingerprint
from p2p_koikoi.record.verify import ReportKind, Verdict, VerifyReport
from p2p_koikoi.referee.events import Ending
from p2p_koikoi.referee.findings import Finding, blame_words

__all__ = ["error_json", "finding_words", "render_json", "render_text"]

ROLE = ("the host", "the guest")  # the record's seats, in words (never "seat 0")

_LABELS = {
    Verdict.VERIFIED: "OK",
    Verdict.CONSISTENT: "OK (unsigned)",
    Verdict.FAILED: "FAILED",
    Verdict.DISPUTED: "DISPUTED",
    Verdict.INCOMPLETE: "INCOMPLETE",
    Verdict.UNREADABLE: "UNREADABLE",
}


def _seats_in_words(text: str) -> str:
    """``seat 0 (host)`` and ``seat 1`` read ``the host`` and ``the guest``."""
    text = re.sub(r"\bseat ([01]) \((host|guest)\)", r"the \2", text)
    return re.sub(r"\bseat ([01])\b", lambda m: ROLE[int(m.group(1))], text)


def finding_words(finding: Finding) -> str:
    """A finding's line as a person reads it, wherever it is shown (verify, replay): the seats named
    as the host and the guest, and a ``kind:detail`` id in words."""
    line = finding.line().replace(f": {finding.reason}: ", f": {reason_words(finding.reason)}: ", 1)
    return _seats_in_words(line)


def render_text(report: VerifyReport) -> list[str]:
    """The report as lines: a summary line, then indented details, the seats named as host and guest."""
    return [_seats_in_words(line) for line in _lines(report)]


def _lines(report: VerifyReport) -> list[str]:
    label = _LABELS[report.verdict]
    if report.verdict is Verdict.UNREADABLE:
        return [f"{label}: {report.problem}"]
    rules = report.rules or "rules unknown"
    what = f"{rules}, {report.entries} entries" if report.kind is ReportKind.RECORD else f"{rules}, a transcript"
    lines = [f"{label}: {report.path} ({what})"]
    if any(report.keys):
        lines.append(f"  players: {_players(report)}")
    finding = report.finding
    if finding is not None:  # a ``kind:detail`` id (``audit:RULE``, ``illegal-move:RULE``) in words
        lines.append(f"  {finding_words(finding)}")
    end = report.ending
    if end is not None and end.how is not Ending.FAILED:
        lines.append(f"  ending: {_ending(report)}")
    outcome = end.outcome if end is not None else None
    if outcome is not None:
        winner = "drawn" if outcome.winner is None else f"{ROLE[outcome.winner]} wins"
        points = score_words(outcome.points, outcome.winner)
        ended = how_match_ended(outcome.termination) if end is None or end.how is not Ending.SILENCE else "by silence"
        said = f"{winner}, {points} ({ended}), {count(len(report.rounds), 'deal')} counted"
        if report.falls_against is None:
            lines.append(f"  outcome: {said}")
        else:  # never two winners: what a copy that falls against another says is not an outcome
            lines.append(f"  outcome: none; this copy alone says {said}, but it falls against {report.falls_against}")
    for check in report.notes:
        note = check.note
        place = withdrawn_place(note.reason, note.evidence)
        if place is not None:  # no finding: the record's own note of entries a crossing displaced
            lines.append(f"  {_withdrawn(report.writer_seat, place)}")
            continue
        verdict = {True: "agrees", False: "differs", None: "cannot be compared"}[check.agrees]
        what = reason_words(note.reason)
        lines.append(f"  the writer's note ({what}; {blame_words(note.blame)}): {verdict}: {check.comment}")
    lines.extend(_copies(report))
    lines.extend(f"  warning: {warning}" for warning in report.warnings)
    return lines


def _players(report: VerifyReport) -> str:
    """Both seats by key, with the name each sent (signed): an audit names keys, and a name only beside one."""

    def seat(number: int) -> str:
        key, name = report.keys[number], report.names[number]
        fingerprint = short_fingerprint(key) if key is not None else "no key"
        return f"{ROLE[number]} {fingerprint}" + (f" ({name})" if name is not None else " (no name sent)")

    return f"{seat(0)}, {seat(1)}"


def _withdrawn(writer: int | None, place: int) -> str:
    """A ``withdrawn`` note in words: whose entries a crossing goodbye displaced, from where."""
    whose, other = ("the writer", "the other player") if writer is None else (ROLE[writer], ROLE[1 - writer])
    return f"{whose}'s entries from {place} on were withdrawn: {other}'s goodbye crossed them (a crossing, not a fault)"


def _copies(report: VerifyReport) -> list[str]:
    """Each other copy of the match it was compared with: which is longer, and what that proves (a
    comparison that made this copy fail is the finding line already)."""
    lines = []
    for check in report.copies:
        found = check.found
        if report.finding is not None and report.finding.text == found.text:
            continue
        lines.append(f"  compared with {check.other}: {found.text}")
    return lines


def _ending(report: VerifyReport) -> str:
    end = report.ending
    assert end is not None
    who = ROLE[end.seat] if end.seat is not None else "a player"
    text = reason_words(end.text)
    if end.how is Ending.FINISHED and report.kind is ReportKind.TRANSCRIPT:
        return "the match was played out"
    resume = f"{koikoi_command()} resume {shlex.quote(report.path)}" if report.kind is ReportKind.RECORD else ""
    told = ending_told(end, ROLE, resume)
    if told is not None:
        return told
    return {
        Ending.FINISHED: "the match was played out and both players said goodbye",
        Ending.DECLINED: "the guest declined the rules",
        Ending.FORFEIT: f"{who} left the match and forfeited it ({text})",
        Ending.ABANDONED: f"{who} ended it: the other player was gone; nobody won, and it can be resumed ({text})",
        Ending.VIOLATION: f"{who} ended it, accusing the other: {text}",
        Ending.DISPUTED: f"{who} accused the other of something the record cannot decide: {text}",
    }.get(end.how, text)


def render_json(reports: Sequence[VerifyReport]) -> str:
    """The reports as a JSON list, one object per file, however many files (so a script reads one shape)."""
    return json.dumps([report.to_json() for report in reports], ensure_ascii=False, indent=1)


def error_json(problem: str) -> str:
    """A request that named nothing readable (a missing file, an empty folder), as the same JSON list."""
    entry = {"file": None, "kind": None, "verdict": Verdict.UNREADABLE, "ok": False, "problem": problem}
    return json.dumps([entry], ensure_ascii=False, indent=1)
