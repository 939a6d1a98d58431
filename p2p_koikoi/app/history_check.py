"""The verdict of every record of a folder, as ``koikoi verify`` gives it, checked once per content.

Records are checked by the project's one verification (``records.verify_paths``: the referee with a
spectator's knowledge, several files on every core); what it says is kept in the verdict cache by the
file's content hash (``verdict_cache.py``). Copies of one match (the same match id in several files: the
host's and the guest's, a copy someone sent, a copy edited by hand) are checked again together, since
only together do they show a fork, a refuted claim or a dispute (``record/copies.py``): each copy's verdict
is then the one ``koikoi verify`` gives it next to the others, kept under a key of the whole group's
contents, so the same copies are not checked together twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from p2p_koikoi.app.record_facts import RecordFacts
from p2p_koikoi.app.records import compare_copies, verify_paths
from p2p_koikoi.app.verdict_cache import VerdictCache, content_hash
from p2p_koikoi.record.reader import MAX_RECORD
from p2p_koikoi.record.verify import Verdict, VerifyReport

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
    else checked now, alone (and cached); then copies of one match checked together."""
    digests = [_digest(path) for path in paths]
    facts: list[RecordFacts | None] = [cache.get(d) if d is not None else None for d in digests]
    missing = [i for i, found in enumerate(facts) if found is None]
    fresh: dict[int, VerifyReport] = {}
    if missing:
        on_report = (lambda _: on_done()) if on_done is not None else None
        reports = verify_paths([paths[i] for i in missing], jobs, on_report, together=False)
        for i, report in zip(missing, reports, strict=True):
            fresh[i] = report
            facts[i] = RecordFacts.of(report)
            if digests[i] is not None and _digest(paths[i]) == digests[i]:
                cache.put(digests[i] or "", facts[i] or RecordFacts(Verdict.UNREADABLE))
    known = [found or RecordFacts(Verdict.UNREADABLE) for found in facts]
    for group in _copies(known):
        _check_together(paths, digests, group, known, cache, fresh, jobs)
    return [Checked(path, found) for path, found in zip(paths, known, strict=True)]


def _check_together(
    paths: Sequence[Path],
    digests: Sequence[str | None],
    group: list[int],
    known: list[RecordFacts],
    cache: VerdictCache,
    fresh: dict[int, VerifyReport],
    jobs: int | None,
) -> None:
    """The copies of one match (``group``) compared, or their verdicts from the cache when these very copies
    were compared before: each member is kept under a key made of every member's content, so a copy
    changed, added or taken away has the group compared again. Members verified this run are compared as
    they are; a group with a member known only from the cache is verified again, whole."""
    keys = _group_keys([digests[i] for i in group])
    cached = [cache.get(key) for key in keys] if keys is not None else []
    if keys is not None and all(found is not None for found in cached):
        for i, found in zip(group, cached, strict=True):
            known[i] = found or known[i]
        return
    if all(i in fresh for i in group):
        reports = [fresh[i] for i in group]
        compare_copies(reports)
    else:
        reports = verify_paths([paths[i] for i in group], jobs)
    for n, (i, report) in enumerate(zip(group, reports, strict=True)):
        known[i] = RecordFacts.of(report)
        if keys is not None and _digest(paths[i]) == digests[i]:
            cache.put(keys[n], known[i])


def _group_keys(digests: Sequence[str | None]) -> list[str] | None:
    """A cache key for each member of a group of copies, from every member's content hash (in any order)."""
    if any(digest is None for digest in digests):
        return None
    together = ",".join(sorted(digest or "" for digest in digests))
    return [content_hash(f"copies {together} member {digest}".encode()) for digest in digests]


def _copies(facts: Sequence[RecordFacts]) -> list[list[int]]:
    """The files that hold the same match, in groups of two or more."""
    by_match: dict[str, list[int]] = {}
    for i, found in enumerate(facts):
        if found.match_id is not None:
            by_match.setdefault(found.match_id, []).append(i)
    return [group for group in by_match.values() if len(group) > 1]
