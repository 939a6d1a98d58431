"""Finding your records: ``koikoi list``, and ``last`` or a list number wherever a record is named.

Records are named ``<date>-<host fp>-<guest fp>-<rules>-<host|guest>.koikoi`` (UTC date first),
so the newest sort last by name; number 1 is the newest. Each listed match is checked as
``koikoi verify`` checks it (in parallel), so the list says the result and the verdict a person
would otherwise have to ask for file by file.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from p2p_koikoi.app.call_names import CallNames
from p2p_koikoi.app.closing import koikoi_command
from p2p_koikoi.app.identity import IdentityError, replay_dir
from p2p_koikoi.app.records import InputError, verify_paths
from p2p_koikoi.record.format import SUFFIX, secret_path
from p2p_koikoi.record.identity_names import fingerprint as full_fingerprint
from p2p_koikoi.record.reader import RecordError, read_record
from p2p_koikoi.record.verify import Verdict, VerifyReport
from p2p_koikoi.referee.events import Ending
from p2p_koikoi.wire.bodies import EntryKind

__all__ = ["Listed", "begun", "list_records", "recent_records", "resolve_record", "result_words", "resume_name"]

LAST = "last"


def recent_records(directory: Path | None = None) -> list[Path]:
    """Every record in the replay folder, the newest first."""
    folder = replay_dir(directory)
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.suffix == SUFFIX and p.is_file()), key=lambda p: p.name)[::-1]


def resolve_record(name: str | Path, directory: Path | None = None) -> Path:
    """A record named by path, by ``last`` (the newest), or by its number in ``koikoi list``."""
    text = str(name)
    path = Path(text)
    if path.exists() or not (text == LAST or text.isdigit()):
        return path
    records = recent_records(directory)
    number = 1 if text == LAST else int(text)
    if not records:
        raise InputError(f"no records in {replay_dir(directory)} yet: play a match first (koikoi play)")
    if not 1 <= number <= len(records):
        raise InputError(f"there is no record number {number}: `koikoi list` shows 1 to {len(records)}")
    return records[number - 1]


def resume_name(record: Path) -> str:
    """How ``koikoi resume`` names ``record`` now: its number in ``koikoi list`` when it is in the default
    replay folder (which ``resume`` looks in), else its path."""
    try:
        target = record.resolve()
        for number, path in enumerate(recent_records(), 1):
            if path.resolve() == target:
                return str(number)
    except OSError:
        pass
    return shlex.quote(str(record))


@dataclass(frozen=True, slots=True)
class Listed:
    """One line of ``koikoi list``."""

    number: int
    path: Path
    date: str
    opponent: str
    rules: str
    result: str
    verdict: str
    resumable: bool
    says_how_to_resume: bool = False  # the result already names the resume command (an adjourned match)


def _practice(path: Path) -> bool:
    """Whether ``path`` records a practice match (against the bot in this process: no peer address)."""
    try:
        return read_record(path).peer_address == ""
    except (RecordError, OSError):
        return False


def _opponent(path: Path, report: VerifyReport, practice: bool, called: CallNames | None) -> str:
    """The other seat: our name for its key, else the name it sent with its key's short fingerprint (a list
    spans many matches, and a sent name is anybody's to send), else its key."""
    parts = path.stem.split("-")
    seat = report.writer_seat if report.writer_seat is not None else (0 if path.stem.endswith("-host") else 1)
    fingerprint = parts[3 - seat] if len(parts) >= 6 else "?"
    if practice:
        return "the bot (practice)"
    key, sent = report.keys[1 - seat], report.names[1 - seat]
    ours = called.name_of(full_fingerprint(key).replace(":", "")) if called is not None and key else None
    if ours is not None:
        return ours.text
    return f"{sent} (key {fingerprint})" if sent is not None else f"key {fingerprint}"


def _called_names() -> CallNames | None:
    """Our names for keys; a names file we cannot read names nobody here (``koikoi history`` says why)."""
    try:
        return CallNames()
    except (IdentityError, OSError):
        return None


def result_words(report: VerifyReport, number: int | None = None) -> str:
    """The match's result from the writer's side, in a few words (``number``: its place in the list, for
    the command that resumes an adjourned match)."""
    end = report.ending
    seat = report.writer_seat if report.writer_seat is not None else 0
    if (
        report.chain
        and not begun(report)
        and report.verdict is Verdict.INCOMPLETE
        and (end is None or end.how is Ending.UNFINISHED)
    ):
        return "never began: the rules were not accepted"
    if end is None or end.how is Ending.UNFINISHED:
        return "unfinished"
    how = end.how
    who = "you" if end.seat == seat else "they"
    outcome = end.outcome
    if outcome is not None:
        score = f"{outcome.points[seat]} to {outcome.points[1 - seat]}"
        if outcome.winner is None:
            return f"drawn, {score}"
        won = "you won" if outcome.winner == seat else "you lost"
        if how is Ending.SILENCE:
            whose = "their" if outcome.winner == seat else "your"
            return f"{won} by {whose} silence ({'claimed' if end.claimed else 'conceded'}), {score}"
        left = f" ({who} left)" if how is Ending.FORFEIT else ""
        return f"{won}{left}, {score}"
    if how is Ending.ADJOURNED:
        resume = f"; resume it with {koikoi_command()} resume {number}" if number is not None else ""
        return f"adjourned: nobody won{resume}"
    return {
        Ending.DECLINED: "declined the rules",
        Ending.FORFEIT: f"{who} left",
        Ending.ABANDONED: "abandoned (a player was gone)",
        Ending.VIOLATION: "stopped by a cheat",
        Ending.DISPUTED: "disputed",
        Ending.FAILED: "stopped by a check that failed",
    }.get(how, str(how).replace("-", " "))


def begun(report: VerifyReport) -> bool:
    """Whether the match in a checked record began: the guest accepted the host's rules. One that never
    began (its guest left at the rules) is nobody's to resume: the host kept no record of it."""
    chain = report.chain
    return len(chain) >= 2 and chain[1].entry.kind == EntryKind.ACCEPT


def record_date(path: Path) -> str:
    """When a record began, from its file name (the writer's clock: unsigned, see RECORD.md section 2)."""
    try:
        stamp = time.strptime(path.name[:15], "%Y%m%d-%H%M%S")
    except ValueError:
        return "?"
    return time.strftime("%Y-%m-%d %H:%M UTC", stamp)


def list_records(directory: Path | None = None, limit: int = 10, jobs: int | None = None) -> list[Listed]:
    """The newest ``limit`` matches, each checked, numbered as ``last``/numbers resolve them."""
    paths = recent_records(directory)[:limit]
    if not paths:
        return []
    reports = verify_paths(paths, jobs)
    called = _called_names()
    out = []
    for number, (path, report) in enumerate(zip(paths, reports, strict=True), 1):
        verdict = report.verdict + ("" if report.complete else ", cut short")
        end = report.ending
        open_ending = end is None or end.how in (Ending.UNFINISHED, Ending.ABANDONED, Ending.ADJOURNED)
        practice = _practice(path)
        resumable = not practice and secret_path(path).exists() and open_ending and begun(report)
        result = result_words(report, number if resumable else None)
        if practice and open_ending and begun(report):  # the bot lived in that process: nothing to resume with
            result += " (practice: cannot be taken up again)"
        opponent = _opponent(path, report, practice, called)
        says_how = resumable and end is not None and end.how is Ending.ADJOURNED  # result_words names the command
        out.append(
            Listed(number, path, record_date(path), opponent, report.rules or "?", result, verdict, resumable, says_how)
        )
    return out
