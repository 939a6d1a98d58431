"""The verdict of every record of a folder, as ``koikoi verify`` gives it, checked once per content.

Records are checked by the project's one verification (``records.verify_paths``: the referee with a
spectator's knowledge, several files on every core); what it says is kept in the verdict cache by the
file's content hash (``verdict_cache.py``). Copies of one match (the same match id in several files: the
host's and the guest's, a copy someone sent, a copy edited by hand) are always checked again together,
never from the cache, because only together do they show a fork, a refuted claim or a dispute
(``record/copies.py``): each copy's verdict is then the one ``koikoi verify`` gives it next to the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from p2p_koikoi.app.record_facts import RecordFacts
from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.app.verdict_cache import VerdictCache, content_hash
from p2p_koikoi.record.reader import MAX_RECORD
from p2p_koikoi.record.verify import Verdict

__all__ = ["Checked", "check_records"]


@dataclass(frozen=True, slots=True)
class Checked:
    """One file and what its check found."""

    path: Path
    facts: RecordFacts


def _digest(path: Path) -> str | None:
    """The content hash of the file, or None when it cannot be read (the check then says why)."""
    try:
        if path.stat().st_size > MAX_RECORD:
            return None
        return content_hash(path.read_bytes())
    except OSError:
        return None


def check_records(
    paths: Sequence[Path], cache: VerdictCache, jobs: int | None = None, on_done: Callable[[], None] | None = None
) -> list[Checked]:
    """The facts of every file of ``paths``, in order: from the cache where its content was checked before,
    else checked now (and cached); copies of one match checked again together."""
    digests = [_digest(path) for path in paths]
    facts: list[RecordFacts | None] = [cache.get(d) if d is not None else None for d in digests]
    missing = [i for i, found in enumerate(facts) if found is None]
    if missing:
        reports = verify_paths([paths[i] for i in missing], jobs, on_done=lambda _: on_done and on_done())
        for i, report in zip(missing, reports, strict=True):
            facts[i] = RecordFacts.of(report)
            if digests[i] is not None and not report.copies and _digest(paths[i]) == digests[i]:
                cache.put(digests[i] or "", facts[i] or RecordFacts(Verdict.UNREADABLE))
    known = [found or RecordFacts(Verdict.UNREADABLE) for found in facts]
    for group in _copies(known):
        reports = verify_paths([paths[i] for i in group], jobs)
        for i, report in zip(group, reports, strict=True):
            known[i] = RecordFacts.of(report)
    return [Checked(path, found) for path, found in zip(paths, known, strict=True)]


def _copies(facts: Sequence[RecordFacts]) -> list[list[int]]:
    """The files that hold the same match, in groups of two or more."""
    by_match: dict[str, list[int]] = {}
    for i, found in enumerate(facts):
        if found.match_id is not None:
            by_match.setdefault(found.match_id, []).append(i)
    return [group for group in by_match.values() if len(group) > 1]
