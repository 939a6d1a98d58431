"""A search on worker processes: the same findings to the bit as on one core, and one core when workers fail."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest
from test_bots_discards import PLAIN, shown_view

from p2p_koikoi.bots import MatchContext, parallel
from p2p_koikoi.bots.parallel import PlayoutPool, WorldResults, shared_pool, split_runs
from p2p_koikoi.bots.registry import make_agent
from p2p_koikoi.bots.strong import LEVELS, Level, Playouts, StrongAgent, evaluate
from p2p_koikoi.engine import AnyAction, Round

CONTEXT = MatchContext(PLAIN, 0, (0, 0), 1)
HAND = (
    "pine-crane cherry-curtain iris-bridge wisteria-plain-1 peony-plain-1 maple-deer willow-swallow paulownia-plain-1"
)
TABLE = (
    "pine-ribbon cherry-plain-1 plum-plain-1 pampas-plain-1 maple-plain-2 clover-plain-1 clover-plain-2 iris-plain-1"
)
LEVEL = Level("test", 600, 60.0, processes=2)


@pytest.fixture(scope="module")
def pool() -> Iterator[PlayoutPool]:
    pool = PlayoutPool(2)
    pool.warm()
    yield pool
    pool.close()


def position() -> tuple[Round, list[AnyAction]]:
    view = shown_view(HAND, "", TABLE)
    return view, view.legal_actions()


def test_seeds_split_into_contiguous_runs_in_order() -> None:
    seeds = list(range(11))
    runs = split_runs(seeds, 3)
    assert runs == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]
    assert split_runs(seeds[:1], 4) == [[0]]
    assert [s for run in split_runs(seeds, 2) for s in run] == seeds


def test_a_pool_finds_what_one_core_finds_to_the_bit(pool: PlayoutPool) -> None:
    view, legal = position()
    alone = evaluate(view, legal, CONTEXT, LEVEL, 11)
    shared = evaluate(view, legal, CONTEXT, LEVEL, 11, pool=pool)
    assert shared == alone  # every move's chance, points, wins and playouts, as floats compared exactly
    assert sum(v.playouts for v in alone) >= LEVEL.playouts // 2


def test_the_worlds_come_back_in_seed_order(pool: PlayoutPool) -> None:
    view, legal = position()
    player = Playouts(view, legal, CONTEXT, 0.1)
    rng = random.Random(3)
    seeds = [rng.getrandbits(64) for _ in range(7)]
    alive = [0, 2, 5]
    alone = player.play(alive, seeds, float("inf"))
    assert len(set(map(tuple, alone))) > 1  # the worlds differ, so their order shows
    assert pool.play(player, alive, seeds, float("inf")) == alone


def test_a_bot_on_two_processes_plays_the_moves_it_plays_on_one() -> None:
    view, legal = position()
    one = StrongAgent(5, LEVEL, processes=1)
    two = StrongAgent(5, LEVEL, processes=2)
    assert two.processes == min(2, parallel.cores())
    assert [one.choose(view, legal, CONTEXT) for _ in range(3)] == [two.choose(view, legal, CONTEXT) for _ in range(3)]


class DiesInAWorker:
    """A search whose copies in a worker process kill the worker: the pool must finish the search here."""

    def __init__(self, inner: Playouts) -> None:
        self.inner = inner
        self.home = os.getpid()

    def play(self, alive: list[int], seeds: list[int], deadline: float) -> WorldResults:
        if os.getpid() != self.home:
            os._exit(3)
        return self.inner.play(alive, seeds, deadline)


def test_a_worker_that_dies_costs_nothing_but_time() -> None:
    view, legal = position()
    player = Playouts(view, legal, CONTEXT, 0.1)
    seeds = list(range(40, 52))
    pool = PlayoutPool(3)
    try:
        results = pool.play(DiesInAWorker(player), [0, 1], seeds, float("inf"))
        assert results == player.play([0, 1], seeds, float("inf"))
        # The pool is gone: later searches play on this core, with the same results.
        assert pool.play(player, [0, 1], seeds, float("inf")) == results
    finally:
        pool.close()


@pytest.mark.parametrize("step", ["__init__", "warm"])
def test_no_workers_means_one_core(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    def fails(_self: PlayoutPool, *_args: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(PlayoutPool, step, fails)
    monkeypatch.setattr(parallel, "_pools", {})
    assert shared_pool(2) is None
    assert shared_pool(1) is None
    view, legal = position()
    agent = StrongAgent(9, LEVEL, processes=2)
    assert agent.choose(view, legal, CONTEXT) == StrongAgent(9, LEVEL, processes=1).choose(view, legal, CONTEXT)


def test_the_time_cap_still_cuts_a_search_on_a_pool(pool: PlayoutPool) -> None:
    view, legal = position()
    hurried = Level("hurried", 10**7, 0.05, processes=2)
    values = evaluate(view, legal, CONTEXT, hurried, 1, pool=pool)
    assert 0 < sum(v.playouts for v in values) < 10**6
    agent = StrongAgent(1, hurried)
    assert agent.choose(view, legal, CONTEXT) in legal
    assert agent.capped == 1


def test_the_levels_and_the_arena_ask_for_processes() -> None:
    expert = make_agent("strong:expert", 1)
    assert isinstance(expert, StrongAgent)
    assert expert.processes == min(LEVELS["expert"].processes, parallel.cores())
    capped = make_agent("strong:expert", 1, processes=1)
    assert isinstance(capped, StrongAgent) and capped.processes == 1
    normal = make_agent("strong", 1)
    assert isinstance(normal, StrongAgent) and normal.processes == 1
