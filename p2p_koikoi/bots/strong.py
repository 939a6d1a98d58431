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

The worlds are not quite uniform: the other seat's plays show months it
probably lacks (:mod:`~p2p_koikoi.bots.inference`), and the guesses of its hand
lean that way. The rollouts weigh what a discard offers the other seat and play
a rise by the match when the match decides it (:mod:`~p2p_koikoi.bots.rollout`).

How the playouts are spent:

* moves that play out the same (two plain cards of one month) are tried once
  (:mod:`~p2p_koikoi.bots.twins`), so the playouts are not split between twins;
* every candidate is tried in the same worlds with the same rollout seed
  (common random numbers), so two moves are compared on the same luck;
* successive halving: the budget is split over ``ceil(log2(moves))`` stages,
  and each stage drops the worse half of the moves, so the playouts go to the
  moves that are close;
* the rank of a move is its mean match chance with a little weight on the
  round's points, and exact ties keep the card worth more to the other seat in
  the hand (:meth:`_Search._rank`);
* a level may play its worlds on several processes (:mod:`~p2p_koikoi.bots.parallel`):
  the worlds come from the same seeds and are added up in the same order, so
  the findings and the move are the same as on one.

A level is a playout budget, so a bot is deterministic for a given seed. The
time cap is only a safety net for an overloaded machine (at p95 the budgets
take about half of normal's and three quarters of expert's here); when it cuts a search short the choice depends on the
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
from p2p_koikoi.bots.inference import lacking_weights
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.bots.parallel import PlayoutPool, cores, shared_pool
from p2p_koikoi.bots.rollout import MatchDecider, Rollout
from p2p_koikoi.bots.twins import twin_groups
from p2p_koikoi.engine import AnyAction, CallStop, Exchange, IllegalActionError, Phase, Play, Round
from p2p_koikoi.engine.cards import month_mask

__all__ = ["LEVELS", "Level", "MoveValue", "Playouts", "StrongAgent", "evaluate"]


@dataclass(frozen=True, slots=True)
class Level:
    """A strength: how many playouts a decision may use, the wall-clock safety cap in seconds, and how many
    processes may play them (no more than the machine has cores)."""

    name: str
    playouts: int
    time_cap: float
    processes: int = 1


# Budgets measured with bench/bots.py on the 2-core development machine (150 positions): normal takes 124 ms a
# decision on average, 210 ms at p95, on one core; expert on both cores 476 ms, 776 ms at p95. So their 0.5 s and
# 1 s caps (the promises issue 16 makes) only bite under heavy load. More playouts are worth having: with 800,
# normal won 67.5% of 1,000 matches against greedy, and against a search of 1,500 playouts a move its choice gave
# up 0.0014 of match chance a decision (``python bench/bots.py --positions 0 --regret 40``).
LEVELS: dict[str, Level] = {
    "easy": Level("easy", 200, 0.5),
    "normal": Level("normal", 2000, 0.5),
    "expert": Level("expert", 12000, 1.0, processes=2),
    "hard": Level("hard", 32000, 3.0, processes=4),
}


# What one point of the round's result adds to a move's rank beside its match chance. Mid-match a point moves
# the chance by about 0.013 (nintendo, 11 rounds to go), so this weighs little until the chance stops moving.
POINT_WEIGHT = 0.001


@dataclass(frozen=True, slots=True)
class MoveValue:
    """What the search found for one move: the match chance, the round's points and how often the round was won."""

    action: AnyAction
    chance: float  # mean estimated chance of winning the match after this move
    points: float  # mean points the round paid this seat (negative when the other seat was paid)
    round_won: float  # share of the playouts in which this seat won the round
    playouts: int
    # The round's points in each world the move was tried in, in the search's order of worlds (None where it
    # could not be played), so that two moves, tried in the same worlds, can be compared world by world: the
    # spread of the differences is the noise of the comparison (the review will not call a move worse by less).
    samples: tuple[int | None, ...] = ()


class StrongAgent:
    """The search bot at one :class:`Level`; deterministic for a seed while the time cap is not hit."""

    def __init__(
        self,
        seed: int | None = None,
        level: Level = LEVELS["normal"],
        epsilon: float = 0.1,
        processes: int | None = None,
    ) -> None:
        self.name = f"strong:{level.name}"
        self.level = level
        self._rng = random.Random(seed)
        self._epsilon = epsilon
        # The processes the searches play on: the level's, or fewer when asked (the arena shares the cores out).
        # The choice of move does not depend on it; only the time a decision takes does.
        self.processes = max(1, min(level.processes if processes is None else processes, cores()))
        self.capped = 0  # decisions the time cap cut short (for the bench and the arena)

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        if len(set(twin_groups(legal))) == 1:
            return legal[0]  # one move, or twins that all play out the same
        if view.phase is Phase.EXCHANGE:
            # Nobody has seen either hand yet: swapping changes nothing a seat can know.
            return Exchange(False) if Exchange(False) in legal else legal[0]
        seed = self._rng.getrandbits(64)
        pool = shared_pool(self.processes)  # started on the first search that needs it, then kept
        search = _Search(view, legal, context, self.level, self._epsilon, seed, pool)
        best = search.best()
        self.capped += search.capped
        return best


def evaluate(
    view: Round,
    legal: list[AnyAction],
    context: MatchContext,
    level: Level,
    seed: int,
    *,
    prune: bool = True,
    pool: PlayoutPool | None = None,
) -> list[MoveValue]:
    """Every move of ``legal`` with what the search found for it, best first (the coach's view of a decision).

    ``prune=False`` gives every move the same playouts (a fair comparison of
    any two moves, as a review needs); otherwise the search halves as it plays.
    ``pool`` plays the worlds on more processes, with the same findings.
    """
    search = _Search(view, legal, context, level, 0.1, seed, pool)
    search.best(prune=prune)
    return search.values()


class Playouts:
    """The playing half of a search: the guessed worlds, the rollout and the match value, with no running totals.

    It pickles, so a worker process can play some of a search's worlds
    (:mod:`~p2p_koikoi.bots.parallel`); :meth:`play` gives each world's results
    and the search adds them up in seed order.
    """

    __slots__ = ("determinizer", "legal", "rollout", "seat", "value")

    def __init__(self, view: Round, legal: list[AnyAction], context: MatchContext, epsilon: float) -> None:
        seat = context.seat
        self.legal = legal
        self.seat = seat
        self.determinizer = Determinizer(view, seat, lacking_weights(view, seat))
        self.value = MatchValue(context)
        mine, theirs = view.captures[seat], view.captures[1 - seat]
        worths = [card_worths(view.rules, mine, theirs), card_worths(view.rules, theirs, mine)]
        if seat == 1:
            worths.reverse()
        self.rollout = Rollout((worths[0], worths[1]), view.rules.gaji, epsilon, MatchDecider(self.value, seat))

    def worths(self, seat: int) -> list[float]:
        """What each card is worth to ``seat`` in this position (what the rollouts play by)."""
        return self.rollout.worths[seat]

    def play(self, alive: list[int], seeds: list[int], deadline: float) -> list[list[Outcome | None]]:
        """For each world seed in turn, every move of ``alive`` tried in it; stops after the world that passes
        ``deadline`` (a :func:`time.monotonic` instant)."""
        results = []
        for world_seed in seeds:
            hand, stock = self.determinizer.sample(random.Random(world_seed))
            results.append([self._try(i, hand, stock, world_seed) for i in alive])
            if time.monotonic() > deadline:
                break
        return results

    def _try(self, i: int, hand: int, stock: list[int], rollout_seed: int) -> Outcome | None:
        """Move ``i`` in the world where the other seat holds ``hand``, rolled out: (chance, points, won)."""
        world = self.determinizer.world(hand)
        try:
            world.apply(self.legal[i], self.seat)
        except IllegalActionError:
            return None  # a Gaji pick this world's other hand refuses (Hiki): the move is not there to play
        outcome = self.rollout.play(world, stock, random.Random(rollout_seed))
        return self.value.of_outcome(outcome), self.value.points(outcome), outcome.winner == self.seat


# One rollout's result for one move: the match chance, the round's points to this seat, and whether it won.
Outcome = tuple[float, int, bool]


class _Search:
    """One decision's search: the world seeds, the halving, and the running score of each move."""

    def __init__(
        self,
        view: Round,
        legal: list[AnyAction],
        context: MatchContext,
        level: Level,
        epsilon: float,
        seed: int,
        pool: PlayoutPool | None = None,
    ) -> None:
        self.legal = legal
        self.level = level
        self.pool = pool
        self.capped = 0
        self.rng = random.Random(seed)
        self.playouts = Playouts(view, legal, context, epsilon)
        # What each move leaves on the table for the other seat: a discard's worth to it (0 for any other move).
        their = self.playouts.worths(1 - context.seat)
        self.exposed = [
            their[a.card] if isinstance(a, Play) and not view.table & month_mask(a.card.month) else 0.0 for a in legal
        ]
        self.totals = [0.0] * len(legal)
        self.points = [0] * len(legal)
        self.won = [0] * len(legal)
        self.counts = [0] * len(legal)
        self.samples: list[list[int | None]] = [[] for _ in legal]
        self.twin_of = twin_groups(legal)  # a move that plays out as an earlier one is not tried itself
        self.alive = [i for i, first in enumerate(self.twin_of) if first == i]  # the moves still in the running

    def best(self, *, prune: bool = True) -> AnyAction:
        alive = self.alive
        stages = max(1, math.ceil(math.log2(len(alive)))) if prune else 1
        deadline = time.monotonic() + self.level.time_cap
        for stage in range(stages):
            worlds = max(1, self.level.playouts // (stages * len(alive)))
            seeds = [self.rng.getrandbits(64) for _ in range(worlds)]
            if self.pool is not None:
                results = self.pool.play(self.playouts, alive, seeds, deadline)
            else:
                results = self.playouts.play(alive, seeds, deadline)
            self._add(alive, results)
            if len(results) < worlds or time.monotonic() > deadline:
                self.capped = 1
                break
            if stage < stages - 1:
                alive.sort(key=self._rank, reverse=True)
                alive = self.alive = sorted(alive[: max(2, (len(alive) + 1) // 2)])
        return self.legal[max(alive, key=self._rank)]

    def _add(self, alive: list[int], results: list[list[Outcome | None]]) -> None:
        """Add the worlds' results in order (so the sums are the same however many processes played them)."""
        for world in results:
            for i, found in zip(alive, world, strict=True):
                self.samples[i].append(found[1] if found is not None else None)
                if found is not None:
                    chance, points, won = found
                    self.totals[i] += chance
                    self.points[i] += points
                    self.won[i] += won
                    self.counts[i] += 1

    def values(self) -> list[MoveValue]:
        """Each move's findings, best first: the moves that lasted the halving, then the others, each by rank."""
        twin = self.twin_of
        order = sorted(range(len(self.legal)), key=lambda i: (twin[i] in self.alive, self._rank(twin[i])), reverse=True)
        return [
            MoveValue(
                self.legal[i],
                self.totals[t] / n if (n := self.counts[t := twin[i]]) else 0.0,
                self.points[t] / n if n else 0.0,
                self.won[t] / n if n else 0.0,
                n,
                tuple(self.samples[t]),
            )
            for i in order
        ]

    def _rank(self, i: int) -> tuple[float, bool, float]:
        """A move's mean match chance, plus a thousandth for each point it wins on average (:data:`POINT_WEIGHT`).

        The points only break near-ties: when the match is all but decided
        (ahead by a lot in the last round, say) every move has the same chance,
        and without them the search would play the first move in the list. On an
        exact tie a Shobu wins, since a sure result beats an equal gamble, and of
        two discards the one worth less to the other seat goes: holding both cards
        of a month, throwing either away plays out the same in every world, and
        the bright then stays in the hand instead of on the table.
        """
        n = self.counts[i]
        mean = (self.totals[i] + POINT_WEIGHT * self.points[i]) / n if n else -1.0
        return mean, isinstance(self.legal[i], CallStop), -self.exposed[i]
