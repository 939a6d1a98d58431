"""Run independent group operations on two cores at once.

A proof of a deck pass is a few hundred scalar multiplications, most of them
independent of each other. rbcl calls libsodium through CFFI, which releases
the GIL for the length of each call (about 50 µs, against about 2 µs of
Python around it), so two threads multiply at nearly twice the rate of one.
Where the other core is busy anyway (both peers computing at once) the split
costs almost nothing; where it is idle (one peer waits while the other
proves, which is most of a deal) it nearly halves the time.

:func:`each` is ``[function(*args) for args in zip(*columns)]`` with the
second half of the work handed to one worker thread; :func:`halves` runs one
function over each half of some rows (a sum of products sums its own half). The result is the same,
in the same order, bit for bit: what runs where never changes what is
computed, so a transcript, a proof or a record does not depend on it.

The worker is one thread shared by the process, made on first use and made
anew in a forked child (a fork copies the pool but not its thread). Work is
split only where there is more than one core and enough of it to pay for
the hand-off. Work already on the worker runs there whole (a nested
:func:`each` does not split), so the worker never waits for itself and no
split can deadlock, however many threads call :func:`each` at once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["each", "halves", "set_enabled"]

T = TypeVar("T")
R = TypeVar("R")

MIN_SPLIT = 8  # fewer operations than this run in the caller alone

_lock = threading.Lock()
_here = threading.local()  # ``on_worker`` is set in the worker thread
_worker: ThreadPoolExecutor | None = None
_enabled = len(os.sched_getaffinity(0)) > 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) > 1


def set_enabled(enabled: bool) -> bool:
    """Turn the split on or off (a benchmark measures both); returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, enabled
    return previous


def _get_worker() -> ThreadPoolExecutor:
    global _worker
    with _lock:
        if _worker is None:
            _worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="p2p-koikoi-group")
        return _worker


def _forget_worker() -> None:
    global _worker, _lock
    _worker = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)


def _on_worker(function: Callable[[Sequence[R]], T], rows: Sequence[R]) -> T:
    _here.on_worker = True
    return function(rows)


def halves(function: Callable[[Sequence[R]], T], rows: Sequence[R]) -> list[T]:
    """``[function(rows)]``, or ``[function(first half), function(second half)]`` with the second on the worker."""
    if not _enabled or len(rows) < MIN_SPLIT or getattr(_here, "on_worker", False):
        return [function(rows)]
    half = len(rows) // 2
    later = _get_worker().submit(_on_worker, function, rows[half:])
    try:
        first = function(rows[:half])
    finally:
        second = later.result()
    return [first, second]


def each(function: Callable[..., T], *columns: Sequence[object]) -> list[T]:
    """``function`` applied to each row of ``columns``, in order; half of the rows on the worker thread."""
    rows = list(zip(*columns, strict=True))
    return [out for part in halves(lambda some: [function(*row) for row in some], rows) for out in part]
