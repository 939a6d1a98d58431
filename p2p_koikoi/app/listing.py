"""Finding your records: ``koikoi list``, and ``last`` or a list number wherever a record is named.

Records are named ``<date>-<host fp>-<guest fp>-<rules>-<host|guest>.koikoi`` (UTC date first),
so the newest sort last by name; number 1 is the newest. Each listed match is checked as
``koikoi verify`` checks it (in parallel), so the list says the result and the verdict a person
would otherwise have to ask for file by file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from p2p_koikoi.app.netplay import replay_dir
from p2p_koikoi.app.records import InputError, verify_paths
from p2p_koikoi.record.format import SUFFIX, secret_path
from p2p_koikoi.record.reader import RecordError, read_record
from p2p_koikoi.record.verify import VerifyReport

__all__ = ["Listed", "list_records", "recent_records", "resolve_record"]

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


def _opponent(path: Path, report: VerifyReport) -> str:
    try:
        practice = read_record(path).peer_address == ""
    except (RecordError, OSError):
        practice = False
    parts = path.stem.split("-")
    seat = report.writer_seat if report.writer_seat is not None else (0 if path.stem.endswith("-host") else 1)
    fingerprint = parts[3 - seat] if len(parts) >= 6 else "?"
    return "the bot (practice)" if practice else f"key {fingerprint}"


def _result(report: VerifyReport) -> str:
    """The match's result from the writer's side, in a few words."""
    end = report.ending
    seat = report.writer_seat if report.writer_seat is not None else 0
    how = str(end.how) if end is not None else "unfinished"
    if end is None or how == "unfinished":
        return "unfinished"
    who = "you" if end.seat == seat else "they"
    outcome = end.outcome
    if outcome is not None:
        score = f"{outcome.points[seat]} to {outcome.points[1 - seat]}"
        if outcome.winner is None:
            return f"drawn, {score}"
        left = f" ({who} left)" if how in ("quit", "forfeit") else ""
        return ("you won" if outcome.winner == seat else "you lost") + f"{left}, {score}"
    return {
        "declined": "declined the rules",
        "quit": f"{who} left",
        "forfeit": f"{who} left",
        "abandoned": "abandoned (a player was gone)",
        "peer-gone": "the connection was lost",
        "violation": "stopped by a cheat",
        "disputed": "disputed",
        "failed": "stopped by a check that failed",
    }.get(how, how.replace("-", " "))


def _date(path: Path) -> str:
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
    out = []
    for number, (path, report) in enumerate(zip(paths, reports, strict=True), 1):
        verdict = report.verdict + ("" if report.complete else ", cut short")
        resumable = secret_path(path).exists() and _result(report).startswith(("unfinished", "abandoned"))
        listed = Listed(
            number, path, _date(path), _opponent(path, report), report.rules or "?", _result(report), verdict, resumable
        )
        out.append(listed)
    return out
