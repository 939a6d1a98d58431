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
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["Worker", "each", "halves", "set_enabled"]

T = TypeVar("T")
R = TypeVar("R")

MIN_SPLIT = 8  # fewer operations than this run in the caller alone


class Worker:
    """One thread of this process, made on first use and made anew in a forked child.

    A fork copies the executor but not its thread, so a child must not use its
    parent's: every :class:`Worker` forgets its executor in the child.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forget)

    def submit(self, function: Callable[..., T], *args: object) -> Future[T]:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._name)
            return self._executor.submit(function, *args)

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._executor = None


_worker = Worker("p2p-koikoi-group")
_here = threading.local()  # ``on_worker`` is set in the worker thread
_enabled = len(os.sched_getaffinity(0)) > 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) > 1


def set_enabled(enabled: bool) -> bool:
    """Turn the split on or off (a benchmark measures both); returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, enabled
    return previous


def _on_worker(function: Callable[[Sequence[R]], T], rows: Sequence[R]) -> T:
    _here.on_worker = True
    return function(rows)


def halves(function: Callable[[Sequence[R]], T], rows: Sequence[R]) -> list[T]:
    """``[function(rows)]``, or ``[function(first half), function(second half)]`` with the second on the worker."""
    if not _enabled or len(rows) < MIN_SPLIT or getattr(_here, "on_worker", False):
        return [function(rows)]
    half = len(rows) // 2
    later = _worker.submit(_on_worker, function, rows[half:])
    try:
        first = function(rows[:half])
    finally:
        second = later.result()
    return [first, second]


def each(function: Callable[..., T], *columns: Sequence[object]) -> list[T]:
    """``function`` applied to each row of ``columns``, in order; half of the rows on the worker thread."""
    rows = list(zip(*columns, strict=True))
    return [out for part in halves(lambda some: [function(*row) for row in some], rows) for out in part]
