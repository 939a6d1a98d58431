"""``strong``: determinised Monte Carlo search over the engine, scored by the chance of winning the match.

For each decision the bot samples worlds consistent with its view
(:mod:`~p2p_koikoi.bots.determinize`: the other hand and the stock dealt from
the unseen cards), plays each candidate move in a world, plays the rest of the
round out with the fast heuristic policy of :mod:`~p2p_koikoi.bots.rollout`,
and scores the end by :class:`~p2p_koikoi.bots.match_value.MatchValue`, the
estimated chance of winning the match from the points that result. Koi-Koi and
Shobu are two candidate moves like any other, so the call weighs the pool, the
rounds left and the other seat's threats (in the rollouts, a threat is a yaku
the other seat completes) instead of the round's points alone.

How the playouts are spent:

* every candidate is tried in the same worlds with the same rollout seed
  (common random numbers), so two moves are compared on the same luck;
* successive halving: the budget is split over ``ceil(log2(moves))`` stages,
  and each stage drops the worse half of the moves, so the playouts go to the
  moves that are close.

A level is a playout budget, so a bot is deterministic for a given seed. The
time cap is only a safety net for an overloaded machine (the budgets take about
half of it here); when it cuts a search short the choice depends on the
machine's speed, so :attr:`StrongAgent.capped` counts those decisions and the
arena reports them: a run with none is reproducible move for move.

``choose`` is plain synchronous code with no shared state beyond the bot's own
generator: the network layer runs it in a worker thread (``trio.to_thread``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.bots.determinize import Determinizer
from p2p_koikoi.bots.heuristics import card_worths
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.bots.rollout import Rollout
from p2p_koikoi.engine import AnyAction, CallStop, Exchange, IllegalActionError, Phase, Round

__all__ = ["LEVELS", "Level", "StrongAgent"]


@dataclass(frozen=True, slots=True)
class Level:
    """A strength: how many playouts a decision may use, and the wall-clock safety cap in seconds."""

    name: str
    playouts: int
    time_cap: float


# Budgets measured with bench/bots.py on the 2-core development machine: normal's slowest decision takes
# about 0.2 s of one quiet core, so its 0.5 s cap (the promise the issue makes) only bites under heavy load.
LEVELS: dict[str, Level] = {
    "easy": Level("easy", 200, 0.5),
    "normal": Level("normal", 800, 0.5),
    "hard": Level("hard", 4000, 3.0),
}


class StrongAgent:
    """The search bot at one :class:`Level`; deterministic for a seed while the time cap is not hit."""

    def __init__(self, seed: int | None = None, level: Level = LEVELS["normal"], epsilon: float = 0.1) -> None:
        self.name = f"strong:{level.name}"
        self.level = level
        self._rng = random.Random(seed)
        self._epsilon = epsilon
        self.capped = 0  # decisions the time cap cut short (for the bench and the arena)

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        if len(legal) == 1:
            return legal[0]
        if view.phase is Phase.EXCHANGE:
            # Nobody has seen either hand yet: swapping changes nothing a seat can know.
            return Exchange(False) if Exchange(False) in legal else legal[0]
        seed = self._rng.getrandbits(64)
        return _Search(view, legal, context, self.level, self._epsilon, seed, self).best()


class _Search:
    """One decision's search: the worlds, the rollouts, and the running score of each move."""

    def __init__(
        self,
        view: Round,
        legal: list[AnyAction],
        context: MatchContext,
        level: Level,
        epsilon: float,
        seed: int,
        agent: StrongAgent,
    ) -> None:
        seat = context.seat
        self.view = view
        self.legal = legal
        self.seat = seat
        self.level = level
        self.agent = agent
        self.rng = random.Random(seed)
        self.determinizer = Determinizer(view, seat)
        self.value = MatchValue(context)
        mine, theirs = view.captures[seat], view.captures[1 - seat]
        worths = [card_worths(view.rules, mine, theirs), card_worths(view.rules, theirs, mine)]
        if seat == 1:
            worths.reverse()
        self.rollout = Rollout((worths[0], worths[1]), view.rules.gaji, epsilon)
        self.totals = [0.0] * len(legal)
        self.counts = [0] * len(legal)

    def best(self) -> AnyAction:
        alive = list(range(len(self.legal)))
        stages = max(1, math.ceil(math.log2(len(alive))))
        deadline = time.perf_counter() + self.level.time_cap
        for stage in range(stages):
            worlds = max(1, self.level.playouts // (stages * len(alive)))
            for _ in range(worlds):
                world_seed = self.rng.getrandbits(64)
                hand, stock = self.determinizer.sample(random.Random(world_seed))
                for i in alive:
                    self._try(i, hand, stock, world_seed)
                if time.perf_counter() > deadline:
                    self.agent.capped += 1
                    return self.legal[max(alive, key=self._rank)]
            if stage < stages - 1:
                alive.sort(key=self._rank, reverse=True)
                alive = sorted(alive[: max(2, (len(alive) + 1) // 2)])
        return self.legal[max(alive, key=self._rank)]

    def _rank(self, i: int) -> tuple[float, bool]:
        """A move's mean match chance; on a tie a Shobu wins, since a sure result beats an equal gamble."""
        mean = self.totals[i] / self.counts[i] if self.counts[i] else -1.0
        return mean, isinstance(self.legal[i], CallStop)

    def _try(self, i: int, hand: int, stock: list[int], rollout_seed: int) -> None:
        """Play move ``i`` in the world where the other seat holds ``hand``, roll the round out, add the chance."""
        world = self.determinizer.world(hand)
        try:
            world.apply(self.legal[i], self.seat)
        except IllegalActionError:
            return  # a Gaji pick this world's other hand refuses (Hiki): the move is not there to play
        outcome = self.rollout.play(world, stock, random.Random(rollout_seed))
        self.totals[i] += self.value.of_outcome(outcome)
        self.counts[i] += 1
