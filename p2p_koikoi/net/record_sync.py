"""Our copy of the record, written and fsynced off the event loop by one long-lived writer thread.

The runner hands every new entry of the chain to :meth:`RecordSync.push`, which
costs a queue put: the writer thread takes whatever has piled up, writes it in
one go (handed to the OS at once, so a killed process loses nothing written) and
fsyncs once per batch. There is no thread hop per entry, and sending never waits
on the disk, with one exception, on purpose:

**Before we send an entry that reveals a secret** (a ``deal`` entry whose message
is a :class:`~p2p_koikoi.fairness.Reveal`), every entry so far is made durable.
A secret out is a secret out: if we crashed right after, our record must already
hold everything it answered (the peer's commitments and passes it lets us check),
so a resumed match and ``koikoi verify`` can still hold the peer to them.

That one wait blocks the Trio thread rather than awaiting the writer thread: it
lasts one batch and one fsync (milliseconds, twice a round), and nothing else of
ours could go on meanwhile anyway. It also keeps the wait invisible to a mock
clock: awaiting a thread lets an autojump clock run on (tens of mock seconds
during a 10 ms fsync), which would fire the peer's deadlines in tests.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol

import trio

from p2p_koikoi.fairness import MessageFormatError, Reveal, parse_message
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.bodies import DealBody

__all__ = ["RecordFile", "RecordSync", "reveals_secret"]

_POLL = 0.05  # how often a barrier looks whether the writer thread died under it


class RecordFile(Protocol):
    """What :class:`RecordSync` needs of a record (``RecordWriter`` has it)."""

    written: int

    def write(self, entries: Sequence[SignedEntry]) -> None: ...

    def commit(self) -> None: ...

    def note(self, reason: str, blame: int | None, text: str, evidence: bytes = b"") -> None: ...

    def withdraw(self, place: int) -> None: ...


def reveals_secret(signed: SignedEntry) -> bool:
    """Whether this entry gives away a secret: a ``deal`` entry whose message is a Reveal (a round's
    deal secret, or the coin flip's value)."""
    try:
        body = signed.entry.content
        return isinstance(body, DealBody) and isinstance(parse_message(body.message), Reveal)
    except (MessageFormatError, RemoteProtocolError):
        return False


Job = Callable[[], None] | threading.Event | None  # work, a barrier, or the end


class RecordSync:
    """Writes the chain's entries (and notes) to a record through one writer thread. Open it with
    :meth:`open`; with no record every call does nothing."""

    def __init__(self, record: RecordFile | None) -> None:
        self.record = record
        self._handed = record.written if record is not None else 0
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._stopped = threading.Event()

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, record: RecordFile | None) -> AsyncIterator[RecordSync]:
        """Run the writer thread for the body; on the way out it writes and fsyncs what is left, then ends
        (its errors, a full disk, come out here)."""
        sync = cls(record)
        if record is None:
            yield sync
            return
        async with trio.open_nursery() as nursery:
            await nursery.start(sync._thread)  # running before the first barrier can block the Trio thread
            try:
                yield sync
            finally:
                sync._jobs.put(None)

    def push(self, entries: Sequence[SignedEntry]) -> None:
        """Hand the writer every entry of ``entries`` (the whole chain) not handed yet."""
        if self.record is None or len(entries) <= self._handed:
            return
        batch = list(entries[self._handed :])
        self._handed = len(entries)
        record = self.record
        self._jobs.put(lambda: record.write(batch))

    def withdraw(self, place: int) -> None:
        """Our entries from ``place`` on were withdrawn (a crossing goodbye took their place)."""
        if self.record is not None and place < self._handed:
            record = self.record
            self._handed = place
            self._jobs.put(lambda: record.withdraw(place))

    def note(self, reason: str, blame: int | None, text: str, evidence: bytes = b"") -> None:
        """A finding (a cheat, a broken connection), written after the entries pushed before it."""
        if self.record is not None:
            record = self.record
            self._jobs.put(lambda: record.note(reason, blame, text, evidence))

    def durable(self) -> None:
        """Block until every entry pushed so far is fsynced (see the module docstring for why this blocks)."""
        if self.record is None:
            return
        barrier = threading.Event()
        self._jobs.put(barrier)
        while not barrier.wait(_POLL):
            if self._stopped.is_set():
                break
        if self._error is not None:
            raise self._error

    def before_send(self, signed: SignedEntry) -> None:
        """Call before sending one of our entries: one that reveals a secret waits for the disk."""
        if reveals_secret(signed):
            self.durable()

    # ------------------------------------------------------------ the writer thread

    async def _thread(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        await trio.to_thread.run_sync(self._work, task_status)

    def _work(self, task_status: trio.TaskStatus[None]) -> None:
        trio.from_thread.run_sync(task_status.started)
        try:
            while self._batch():
                pass
        except BaseException as exc:
            self._error = exc
            raise
        finally:
            self._stopped.set()

    def _batch(self) -> bool:
        """Run every job waiting (at least one), fsync once, then release the barriers among them.
        False once the end was asked for."""
        jobs = [self._jobs.get()]
        with contextlib.suppress(queue.Empty):
            while True:
                jobs.append(self._jobs.get_nowait())
        barriers: list[threading.Event] = []
        for job in jobs:
            if isinstance(job, threading.Event):
                barriers.append(job)
            elif job is not None:
                job()
        assert self.record is not None
        self.record.commit()
        for barrier in barriers:
            barrier.set()
        return None not in jobs
