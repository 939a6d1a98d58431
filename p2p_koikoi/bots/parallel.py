"""Playing one search's worlds on several cores: a pool of worker processes shared by every search in a process.

A search's playouts are pure Python and hold the interpreter lock, so threads
would not add a core; worker processes do. The search hands the pool the
playing half of itself (anything with a ``play(alive, seeds, deadline)``
method that pickles: :class:`~p2p_koikoi.bots.strong.Playouts`), the moves still
in the running and the seeds of the worlds to try them in. The pool splits the
seeds into one contiguous run per process, plays the first run in the calling
thread while the workers play the others, and returns every world's results in
seed order. The search adds them up in that order, so its totals are the same
to the last bit whatever the number of processes: a seeded bot plays the same
moves on one core or four.

Each worker keeps the last search it was sent (by a token), so a search of
several halving stages unpickles its state once per worker. Workers are started
with ``spawn``: the bot runs in a thread of a Trio program, and forking a
process with threads is not safe. They start on the first search that needs
them and live as long as the program (the pool is shut down at exit).

The deadline is a :func:`time.monotonic` instant, which on Linux and macOS is
one clock for every process of the machine.
"""

from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import pickle
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

__all__ = ["PlayoutPool", "WorldsPlayer", "cores", "shared_pool", "split_runs"]

WorldResults = list[list[Any]]


class WorldsPlayer(Protocol):
    """The playing half of a search: tries the ``alive`` moves in the world of each seed, until ``deadline``."""

    def play(self, alive: list[int], seeds: list[int], deadline: float) -> WorldResults: ...


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return os.cpu_count() or 1


class PlayoutPool:
    """``processes`` ways of playing worlds: this thread, and ``processes - 1`` worker processes."""

    def __init__(self, processes: int) -> None:
        if processes < 2:
            raise ValueError("a pool plays on at least two processes (one is the caller)")
        self.processes = processes
        context = multiprocessing.get_context("spawn")
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            processes - 1, mp_context=context, initializer=_quiet_worker
        )
        self._tokens = itertools.count(1)
        self._last: tuple[WorldsPlayer, int, bytes] | None = None  # the search sent last, its token and pickle

    def play(self, player: WorldsPlayer, alive: list[int], seeds: list[int], deadline: float) -> WorldResults:
        """Every world's results, in the order of ``seeds`` (fewer worlds if the deadline passed)."""
        executor = self._executor
        runs = split_runs(seeds, self.processes)
        if executor is None or len(runs) == 1:
            return player.play(alive, seeds, deadline)
        token, blob = self._sent(player)
        try:
            futures: list[Future[WorldResults]] = [
                executor.submit(_play_run, token, blob, alive, run, deadline) for run in runs[1:]
            ]
        except (BrokenProcessPool, RuntimeError):
            self.close()  # a worker died or the program is exiting: play on this core alone
            return player.play(alive, seeds, deadline)
        results = player.play(alive, runs[0], deadline)
        for future in futures:
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                self.close()
                results.extend(player.play(alive, _rest(runs, futures, future), deadline))
                break
        return results

    def _sent(self, player: WorldsPlayer) -> tuple[int, bytes]:
        """The token and pickle of ``player``, made once per search: its halving stages send the same bytes,
        and a worker that holds the token already does not unpickle them again."""
        last = self._last
        if last is None or last[0] is not player:
            last = self._last = (player, next(self._tokens), pickle.dumps(player, protocol=pickle.HIGHEST_PROTOCOL))
        return last[1], last[2]

    def warm(self) -> None:
        """Start every worker now (each imports the engine), so that the first search does not wait for them."""
        executor = self._executor
        if executor is not None:
            for future in [executor.submit(_ready) for _ in range(self.processes - 1)]:
                future.result()

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def split_runs(seeds: list[int], ways: int) -> list[list[int]]:
    """``seeds`` in at most ``ways`` contiguous runs of nearly equal length (the first run the longest)."""
    ways = max(1, min(ways, len(seeds)))
    size, extra = divmod(len(seeds), ways)
    runs, start = [], 0
    for k in range(ways):
        end = start + size + (k < extra)
        runs.append(seeds[start:end])
        start = end
    return runs


def _rest(runs: list[list[int]], futures: list[Future[WorldResults]], failed: Future[WorldResults]) -> list[int]:
    """The seeds of the run that failed and of every run after it, to play here."""
    index = futures.index(failed) + 1
    return [seed for run in runs[index:] for seed in run]


def _quiet_worker() -> None:
    """A worker leaves Ctrl-C to the program it works for: the key reaches every process of the terminal's
    group, and a worker that took it would print a traceback under the table instead of letting the program
    end cleanly (the pool's shutdown ends the worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_last: tuple[int, int, WorldsPlayer] | None = None  # in a worker: (parent pid, token, search) of the last search


def _play_run(token: int, blob: bytes, alive: list[int], seeds: list[int], deadline: float) -> WorldResults:
    global _last
    parent = os.getppid()
    if _last is None or _last[:2] != (parent, token):
        _last = (parent, token, pickle.loads(blob))  # the blob comes from this program's own parent
    return _last[2].play(alive, seeds, deadline)


def _ready() -> bool:
    import p2p_koikoi.bots.strong  # noqa: F401 - what the first search would import

    return True


_pools: dict[int, PlayoutPool | None] = {}
_pools_lock = threading.Lock()


def shared_pool(processes: int) -> PlayoutPool | None:
    """The process's pool of ``processes`` ways (started and warmed on first use), or None for one."""
    if processes < 2:
        return None
    with _pools_lock:
        if processes not in _pools:
            _pools[processes] = _started(processes)
        return _pools[processes]


def _started(processes: int) -> PlayoutPool | None:
    pool = None
    try:
        pool = PlayoutPool(processes)
        pool.warm()
    except (BrokenProcessPool, OSError, RuntimeError):
        # No workers here (no way to start a process or a semaphore, or a main module without its ``__main__``
        # guard): every search of this process plays on its own core, which gives the same moves, only slower.
        if pool is not None:
            pool.close()
        return None
    return pool


@atexit.register
def _close_pools() -> None:
    with _pools_lock:
        for pool in _pools.values():
            if pool is not None:
                pool.close()
        _pools.clear()
