"""``koikoi verify`` in words: one line per file, then the details a person needs (pure functions)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from p2p_koikoi.record.verify import VerifyReport
from p2p_koikoi.referee.findings import blame_words

__all__ = ["render_json", "render_text"]

_LABELS = {
    "verified": "OK",
    "consistent": "OK (unsigned)",
    "failed": "FAILED",
    "disputed": "DISPUTED",
    "incomplete": "INCOMPLETE",
    "unreadable": "UNREADABLE",
}


def render_text(report: VerifyReport) -> list[str]:
    """The report as lines: a summary line, then indented details."""
    label = _LABELS[report.verdict]
    if report.verdict == "unreadable":
        return [f"{label}: {report.problem}"]
    rules = report.rules or "rules unknown"
    what = f"{rules}, {report.entries} entries" if report.kind == "record" else f"{rules}, a transcript"
    lines = [f"{label}: {report.path} ({what})"]
    finding = report.finding
    if finding is not None:
        lines.append(f"  {finding.line()}")
    end = report.ending
    if end is not None and end.how != "failed":
        lines.append(f"  ending: {_ending(report)}")
    outcome = end.outcome if end is not None else None
    if outcome is not None:
        winner = "drawn" if outcome.winner is None else f"seat {outcome.winner} wins"
        points = f"{outcome.points[0]} to {outcome.points[1]}"
        lines.append(f"  outcome: {winner}, {points} ({outcome.termination.value}), {len(report.rounds)} deals counted")
    for check in report.notes:
        note = check.note
        verdict = {True: "agrees", False: "differs", None: "cannot be compared"}[check.agrees]
        lines.append(f"  the writer's note ({note.reason}; {blame_words(note.blame)}): {verdict}: {check.comment}")
    lines.extend(f"  warning: {warning}" for warning in report.warnings)
    return lines


def _ending(report: VerifyReport) -> str:
    end = report.ending
    assert end is not None
    who = f"seat {end.seat}" if end.seat is not None else ""
    if end.how == "finished" and report.kind == "transcript":
        return "the match was played out"
    if end.how == "finished":
        return "the match was played out and both players said goodbye"
    if end.how == "declined":
        return "the guest declined the rules"
    if end.how == "quit":
        return f"{who} left the match ({end.text})"
    if end.how == "peer-gone":
        return f"{who} ended it: the other player was gone ({end.text})"
    if end.how == "violation":
        return f"{who} ended it, accusing the other: {end.text}"
    return end.text


def render_json(reports: Sequence[VerifyReport], *, single: bool) -> str:
    """One JSON object for a single file, a list for several."""
    data = [report.to_json() for report in reports]
    return json.dumps(data[0] if single else data, ensure_ascii=False, indent=1)
