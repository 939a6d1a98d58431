"""The computer opponents' figures: decision time per level, and the arena targets.

    python bench/bots.py                       # decision time per move of each bot (mean, p95, max)
    python bench/bots.py --arena --jobs 2      # + the two arena targets (long: about an hour on 2 cores)
    python bench/bots.py --spread 150          # + the per-round spread of greedy self-play, per preset

Decision time: the bots answer the same positions, taken from greedy self-play
matches under Nintendo rules (every move with more than one legal choice, from
the first to the last round), one process, wall-clock time. Target:
``strong:normal`` at most 0.5 s per decision. "capped" counts the decisions the
time cap (a safety net) cut short; it should be 0.

Arena targets (issue 7), each over mirrored 12-round Nintendo matches:
``strong:normal`` beats ``greedy`` in at least 60% (1,000 matches) and
``greedy`` beats ``random`` in at least 85%. The same runs are
``koikoi arena strong:normal greedy --matches 1000 --jobs 2`` and
``koikoi arena greedy random --matches 1000 --jobs 2``.

The spread is the standard deviation of one round's point difference, which
:data:`p2p_koikoi.bots.match_value.ROUND_SPREAD` holds per preset.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from p2p_koikoi.app.arena import run_arena
from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import MatchContext
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.registry import make_agent
from p2p_koikoi.bots.strong import StrongAgent
from p2p_koikoi.engine import PRESETS, AnyAction, Match, Round, RoundResult, preset

Position = tuple[Round, list[AnyAction], MatchContext]


class _Recorder:
    """A greedy player that keeps every position in which it had a real choice."""

    def __init__(self, seed: int, positions: list[Position]) -> None:
        self.inner = GreedyAgent(seed)
        self.name = "greedy"
        self.positions = positions

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        if len(legal) > 1:
            self.positions.append((view.copy(), list(legal), context))
        return self.inner.choose(view, legal, context)


def positions(count: int, seed: int) -> list[Position]:
    rules = preset("nintendo")
    found: list[Position] = []
    match_seed = seed
    while len(found) < count:
        rng = random.Random(match_seed)
        play_local_match(rules, (_Recorder(match_seed, found), _Recorder(match_seed + 1, found)), rng)
        match_seed += 2
    return random.Random(seed).sample(found, count)


def decision_times(specs: list[str], count: int, seed: int) -> None:
    work = positions(count, seed)
    print(f"decision time per move over {count} positions from greedy self-play (nintendo), one process")
    print(f"{'bot':<15} {'mean':>9} {'p95':>9} {'max':>9}  capped")
    for spec in specs:
        agent = make_agent(spec, seed)
        times = []
        for view, legal, context in work:
            start = time.perf_counter()
            agent.choose(view, legal, context)
            times.append(time.perf_counter() - start)
        times.sort()
        capped = agent.capped if isinstance(agent, StrongAgent) else 0
        p95 = times[int(0.95 * (len(times) - 1))]
        print(
            f"{spec:<15} {_ms(statistics.fmean(times)):>9} {_ms(p95):>9} {_ms(times[-1]):>9}  {capped}",
            flush=True,
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def arena_targets(matches: int, jobs: int, seed: int) -> None:
    rules = preset("nintendo")
    for a, b, target in (("strong:normal", "greedy", 0.60), ("greedy", "random", 0.85)):
        result = run_arena(a, b, rules, matches=matches, seed=seed, jobs=jobs)
        lo, hi = result.ci95
        verdict = "meets" if result.win_rate >= target else "MISSES"
        timing = f"; {a} per move: mean {_ms(result.bots[0].time_mean)}, max {_ms(result.bots[0].time_max)}"
        print(
            f"{a} vs {b}: {result.win_rate:.1%} (95% CI {lo:.1%} to {hi:.1%}) over {matches} mirrored "
            f"12-round nintendo matches, seed {seed}; target {target:.0%}: {verdict}{timing} ({result.seconds:.0f} s)",
            flush=True,
        )


def spreads(matches: int) -> None:
    print(f"per-round point difference of greedy self-play, {matches} matches per preset")
    for name in PRESETS:
        diffs: list[int] = []

        def on_result(_match: Match, result: RoundResult, diffs: list[int] = diffs) -> None:
            if not result.outcome.counts:
                return
            payment = result.score.payment if result.score is not None else 0
            diffs.append(payment if result.outcome.winner == 0 else -payment)

        for i in range(matches):
            play_local_match(PRESETS[name], (GreedyAgent(i), GreedyAgent(i + 1)), random.Random(i), on_result=on_result)
        print(f"{name:<10} sd {statistics.pstdev(diffs):5.1f} over {len(diffs)} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200, help="positions timed per bot")
    parser.add_argument("--bots", default="greedy,strong:easy,strong:normal,strong:hard", help="comma-separated")
    parser.add_argument("--arena", action="store_true", help="also run the two arena targets (long)")
    parser.add_argument("--matches", type=int, default=1000, help="matches per arena target")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the arena")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", type=int, default=0, metavar="MATCHES", help="measure the round spreads")
    args = parser.parse_args()
    if args.positions:
        decision_times(args.bots.split(","), args.positions, args.seed)
    if args.spread:
        spreads(args.spread)
    if args.arena:
        arena_targets(args.matches, args.jobs, args.seed)


if __name__ == "__main__":
    main()
