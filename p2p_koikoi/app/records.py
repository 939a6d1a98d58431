"""Use cases over saved matches: verify files and folders, export a transcript, load a match to replay.

A file is either a signed record (``.koikoi``) or a transcript (JSON); both are
read through the same walk (``record/verify.py``), so every command accepts
both, and a transcript is always reported as unsigned. Bad input (a missing
file, garbage, a folder without matches) raises :class:`InputError`, which the
commands print as one line with exit code 2.

Several files are verified in parallel, one process per core: a record's check
is CPU-bound (group arithmetic and signatures), so threads would not help.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p_koikoi.fairness import spread
from p2p_koikoi.record.export import TranscriptBuilder, render_transcript
from p2p_koikoi.record.format import SUFFIX
from p2p_koikoi.record.reader import MAX_RECORD, RecordError, read_record_bytes
from p2p_koikoi.record.transcript import TranscriptError
from p2p_koikoi.record.verify import ReportKind, Verdict, VerifyReport, check_transcript, walk_record
from p2p_koikoi.referee.events import MatchVisitor

__all__ = [
    "ExportResult",
    "InputError",
    "compare_copies",
    "expand_paths",
    "export_file",
    "read_match",
    "verify_file",
    "verify_paths",
]

TRANSCRIPT_SUFFIX = ".json"


class InputError(Exception):
    """The input is not something these commands can read (one line for the user)."""


def read_match(path: Path, visitor: MatchVisitor | None = None) -> VerifyReport:
    """Read and check the record or transcript at ``path``, telling its match to ``visitor``."""
    try:
        if path.is_dir():
            raise InputError(f"{path} is a folder; name a record or a transcript")
        size = path.stat().st_size
        if size > MAX_RECORD:
            raise InputError(f"{path} is {size} bytes; a match is at most {MAX_RECORD}")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data.lstrip()[:1] == b"{":
        return _read_transcript(path, data, visitor)
    try:
        return walk_record(read_record_bytes(data, path), visitor)
    except RecordError as exc:
        raise InputError(str(exc)) from None


def _read_transcript(path: Path, data: bytes, visitor: MatchVisitor | None) -> VerifyReport:
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{path} is not a record, nor a transcript (bad JSON: {exc})") from None
    try:
        return check_transcript(parsed, str(path), visitor)
    except TranscriptError as exc:
        raise InputError(f"{path} is not a readable transcript: {exc}") from None


def verify_file(path: Path) -> VerifyReport:
    """Check one file; never raises: an unreadable file is a report with the verdict ``unreadable``."""
    try:
        return read_match(path)
    except InputError as exc:
        return VerifyReport(str(path), ReportKind.UNKNOWN, Verdict.UNREADABLE, problem=str(exc))


def expand_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, and every record and transcript directly in each folder given."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in (SUFFIX, TRANSCRIPT_SUFFIX) and p.is_file())
            if not found:
                raise InputError(f"{path} holds no records ({SUFFIX}) or transcripts ({TRANSCRIPT_SUFFIX})")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    if not out:
        raise InputError("name at least one record, transcript or folder")
    return out


def _one_core_each() -> None:
    """A pool's process keeps its group work on its own core: the others are the pool's too."""
    spread.set_enabled(False)


def verify_paths(
    paths: Sequence[Path],
    jobs: int | None = None,
    on_done: Callable[[VerifyReport], None] | None = None,
    *,
    together: bool = True,
) -> list[VerifyReport]:
    """Verify every file (in parallel on ``jobs`` processes, all cores by default); reports in input order.

    Copies of one match (the host's and the guest's) are then compared (:func:`compare_copies`): a fork
    shows only across them. ``together=False`` leaves each report as its file alone gives it."""
    files = expand_paths(paths)
    workers = max(1, min(jobs or os.cpu_count() or 1, len(files)))
    reports: dict[int, VerifyReport] = {}
    if workers == 1:
        for index, path in enumerate(files):
            reports[index] = verify_file(path)
            if on_done is not None:
                on_done(reports[index])
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_one_core_each) as pool:
            futures = {pool.submit(verify_file, path): index for index, path in enumerate(files)}
            for future in as_completed(futures):
                reports[futures[future]] = report = future.result()
                if on_done is not None:
                    on_done(report)
    ordered = [reports[index] for index in range(len(files))]
    if together:
        compare_copies(ordered)
    return ordered


def compare_copies(reports: Sequence[VerifyReport]) -> None:
    """Each report next to every other: copies of one match get what only together they show."""
    for report in reports:
        for other in reports:
            report.cross_check(other)


@dataclass(frozen=True, slots=True)
class ExportResult:
    """A transcript, and the check of the file it came from."""

    transcript: dict[str, Any]
    report: VerifyReport

    def render_json(self) -> str:
        return render_transcript(self.transcript) + "\n"


def export_file(path: Path) -> ExportResult:
    """The transcript of the match at ``path`` (a record or a transcript), each result recomputed."""
    builder = TranscriptBuilder()
    report = read_match(path, builder)
    transcript = builder.result()
    transcript["source"] = {
        "file": path.name,
        "kind": report.kind,
        "verdict": report.verdict,
        "failure": report.finding.to_json() if report.finding is not None else None,
    }
    return ExportResult(transcript, report)
