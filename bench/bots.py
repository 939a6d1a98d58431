"""The computer opponents' figures: decision time per level, and the arena targets.

    python bench/bots.py                                  # decision time per move of each bot (mean, p95, max)
    python bench/bots.py --positions 0 --arena --matches 200 --baseline b3b4ec5
                                                          # the arena targets on 200 matches, each beside the
                                                          # same run of the bots of commit b3b4ec5
    python bench/bots.py --positions 0 --arena --full --jobs 2   # the targets at full size (1,000 matches: hours)
    python bench/bots.py --spread 150                     # + the per-round spread of greedy self-play, per preset
    python bench/bots.py --positions 0 --cores 60 --bots strong:expert
                                                          # + a level on one process beside its own count
    python bench/bots.py --positions 0 --regret 60        # + what each search level's choice gives up against
                                                          # a search of 1,500 playouts a move (its noise)
    python bench/bots.py --positions 0 --calibration 40   # + how well the guessed other hand foresees whether
                                                          # a thrown-away bright or animal can be taken
    python bench/bots.py --positions 0 --oracle 200 --jobs 2   # + a search that knows the other hand against
                                                          # the same search that guesses it (800 playouts)

Decision time: the bots answer the same positions, taken from greedy self-play
matches under Nintendo rules (every move with more than one legal choice, from
the first to the last round), each level on the processes it may use (its
workers started before the clock), wall-clock time. Targets: ``strong:normal``
at most 0.5 s per decision at p95, ``strong:expert`` at most 1 s. "capped" counts the decisions the
time cap (a safety net) cut short; it should be 0.

Arena targets, each over mirrored 12-round Nintendo matches: ``strong:normal``
beats ``greedy`` in at least 70% (issue 16; 60% in issue 7), ``strong:expert``
beats ``strong:normal`` in at least 58%, ``greedy`` beats ``random`` in at least
85%. Each run also prints both bots' bright and animal discards per round (a
hand card played that takes nothing) and the share of them the other bot took
on its very next turn, and the points each won in the last two rounds.
``--baseline REV`` plays the same run (same seed, same deals) with the bots of
commit ``REV`` (its tree unpacked in a temporary directory, with today's arena
counting), so the figures of today and of then sit side by side. The full size
is 1,000 matches (``--full``); on a shared 2-core machine that takes hours, so
smaller runs print their sample size and 95% interval, which is what they are.

Calibration: at every bright or animal that ``strong:normal`` throws away
against ``greedy``, the guessed worlds of its search (with the months the other
seat has shown it lacks, and uniform) give the chance that the other hand holds
a card of that month; the bench prints that chance beside how often the real
hand did, in bins. Close figures mean the search sees the risk of a discard
as it is; the bench alone reads the real hand, the bot never does.

Oracle: the same search twice, one given the other seat's real hand (only the
stock order is still guessed), in mirrored pairs of matches on the same decks.
No reading of the other seat's plays can know more than that, so its win rate
is the most a better determinisation could ever add to a level; the bench
alone reads the real hand, the bot never does.

The spread is the standard deviation of one round's point difference, which
:data:`p2p_koikoi.bots.match_value.ROUND_SPREAD` holds per preset.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from p2p_koikoi.app.arena import pair_interval, run_arena
from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import MatchContext
from p2p_koikoi.bots.base import Agent
from p2p_koikoi.bots.determinize import Determinizer
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.inference import lacking_weights
from p2p_koikoi.bots.parallel import shared_pool
from p2p_koikoi.bots.registry import make_agent
from p2p_koikoi.bots.strong import POINT_WEIGHT, Level, StrongAgent, evaluate
from p2p_koikoi.engine import PRESETS, AnyAction, Kind, Match, Play, Round, RoundResult, preset
from p2p_koikoi.engine.cards import month_mask

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
    print(f"decision time per move over {count} positions from greedy self-play (nintendo)")
    print(f"{'bot':<15} {'processes':>9} {'mean':>9} {'p95':>9} {'max':>9}  capped")
    for spec in specs:
        agent = make_agent(spec, seed)
        processes = agent.processes if isinstance(agent, StrongAgent) else 1
        shared_pool(processes)  # the workers start before the clock does, as they would at a table's first move
        times = []
        for view, legal, context in work:
            start = time.perf_counter()
            agent.choose(view, legal, context)
            times.append(time.perf_counter() - start)
        times.sort()
        capped = agent.capped if isinstance(agent, StrongAgent) else 0
        p95 = times[int(0.95 * (len(times) - 1))]
        print(
            f"{spec:<15} {processes:>9} {_ms(statistics.fmean(times)):>9} {_ms(p95):>9} {_ms(times[-1]):>9}  {capped}",
            flush=True,
        )


def core_speedup(specs: list[str], count: int, seed: int) -> None:
    """Each search level on one process beside the same level on its own count, same positions and seed.

    The two runs must choose the same move at every position (the pool adds the
    worlds up in seed order); the bench counts any that differ, which should be 0
    unless the time cap cut a search short (the capped columns).
    """
    work = positions(count, seed)
    print(f"one process against the level's own, over {count} positions (same seed: the moves must match)")
    heads = f"{'mean 1':>9} {'mean N':>9} {'p95 1':>9} {'p95 N':>9} {'ratio':>6}"
    print(f"{'bot':<15} {'processes':>9} {heads}  differ  capped 1/N")
    for spec in specs:
        runs = []
        for processes in (1, None):
            agent = make_agent(spec, seed, processes)
            assert isinstance(agent, StrongAgent)
            shared_pool(agent.processes)
            times, moves = [], []
            for view, legal, context in work:
                start = time.perf_counter()
                moves.append(agent.choose(view, legal, context))
                times.append(time.perf_counter() - start)
            runs.append((agent.processes, sorted(times), moves, agent.capped))
        (_, one, moves_one, capped_one), (n, many, moves_many, capped_many) = runs
        differ = sum(a != b for a, b in zip(moves_one, moves_many, strict=True))
        p95 = int(0.95 * (count - 1))
        ratio = statistics.fmean(one) / statistics.fmean(many)
        print(
            f"{spec:<15} {n:>9} {_ms(statistics.fmean(one)):>9} {_ms(statistics.fmean(many)):>9}"
            f" {_ms(one[p95]):>9} {_ms(many[p95]):>9} {ratio:>5.2f}x  {differ:>6}  {capped_one}/{capped_many}",
            flush=True,
        )


def regrets(specs: list[str], count: int, seed: int) -> None:
    """What each level's choice gives up against a much larger search of the same model (the noise it leaves).

    The reference tries every move with the same 1,500 playouts (no halving);
    a level's regret is the reference's best move's value minus that of the move
    the level chose (match chance plus :data:`POINT_WEIGHT` a point, as the
    search ranks them). It measures only the search's noise, not how good the
    model is: that is what the arena is for.
    """
    work = positions(count, seed)
    print(f"regret per decision against 1,500 playouts a move, {count} positions from greedy self-play (nintendo)")
    agents = {spec: make_agent(spec, seed) for spec in specs}
    found: dict[str, list[float]] = {spec: [] for spec in specs}
    for view, legal, context in work:
        level = Level("reference", 1500 * len(legal), 600.0)
        value = {
            str(v.action): v.chance + POINT_WEIGHT * v.points
            for v in evaluate(view, legal, context, level, seed, prune=False)
        }
        best = max(value.values())
        for spec, agent in agents.items():
            found[spec].append(best - value[str(agent.choose(view, legal, context))])
    print(f"{'bot':<15} {'mean regret':>12} {'chance lost >0.005':>19}")
    for spec, lost in found.items():
        print(
            f"{spec:<15} {statistics.fmean(lost):>12.5f} {sum(x > 0.005 for x in lost):>12} of {len(lost)}", flush=True
        )


class _RealRoundWatcher:
    """Wraps the search bot for a bench that reads the real round: :meth:`see` is ``play_local_match``'s
    ``on_round``, so :attr:`real` is the round being played from before its first move (the bench's eyes only;
    the wrapped bot never reads it)."""

    def __init__(self, inner: StrongAgent, name: str) -> None:
        self.inner = inner
        self.name = name
        self.real: Round | None = None

    def see(self, rnd: Round) -> None:
        self.real = rnd


class _DiscardWatcher(_RealRoundWatcher):
    """Wraps the search bot; at each bright or animal it throws away, notes its guess and the real other hand."""

    SAMPLES = 300

    def __init__(self, inner: StrongAgent) -> None:
        super().__init__(inner, inner.name)
        self.found: list[tuple[float, float, bool]] = []  # (chance with inference, uniform chance, held)

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        action = self.inner.choose(view, legal, context)
        if not isinstance(action, Play):
            return action
        month = month_mask(action.card.month)
        if not view.table & month and action.card.kind in (Kind.BRIGHT, Kind.ANIMAL):
            assert self.real is not None
            seat = context.seat
            held = bool(self.real.hands[1 - seat] & month)
            chances = []
            for weights in (lacking_weights(view, seat), None):
                guess, rng = Determinizer(view, seat, weights), random.Random(len(self.found))
                chances.append(sum(bool(guess.sample(rng)[0] & month) for _ in range(self.SAMPLES)) / self.SAMPLES)
            self.found.append((chances[0], chances[1], held))
        return action


def calibration(matches: int, seed: int) -> None:
    """The search's guessed chance that a thrown-away bright or animal meets a card of its month in the other hand."""
    rules = preset("nintendo")
    found: list[tuple[float, float, bool]] = []
    for i in range(matches):
        watcher = _DiscardWatcher(StrongAgent(seed + i))
        seats = (watcher, GreedyAgent(seed + i)) if i % 2 == 0 else (GreedyAgent(seed + i), watcher)
        play_local_match(rules, seats, random.Random(seed * 7919 + i), on_round=watcher.see)
        found += watcher.found
    print(f"strong:normal against greedy, {matches} matches: {len(found)} brights and animals thrown away")
    print("does the other hand hold a card of the month? the search's guess, and how often it did")
    for label, column in (("months it passed over weigh less", 0), ("uniform guess", 1)):
        held = sum(row[2] for row in found) / max(len(found), 1)
        mean = statistics.fmean(row[column] for row in found) if found else 0.0
        print(f"  {label}: guessed {mean:.3f}, held {held:.3f}")
        for lo, hi in ((0.0, 0.1), (0.1, 0.25), (0.25, 0.5), (0.5, 1.01)):
            bin_ = [row for row in found if lo <= row[column] < hi]
            if bin_:
                guessed = statistics.fmean(row[column] for row in bin_)
                real = sum(row[2] for row in bin_) / len(bin_)
                span = f"{lo:.2f}-{min(hi, 1.0):.2f}"
                print(f"    guessed {span}: {len(bin_):4} discards, guessed {guessed:.3f}, held {real:.3f}")


class _Oracle(_RealRoundWatcher):
    """Wraps the search bot and lets it search with the other seat's real hand, as if it read it perfectly.

    The bench hands it each real round as it is dealt (:meth:`see`; the round
    is played in place). It gives the search a copy of its view with the other
    hand revealed, so every guessed world holds that hand and only the stock
    order is still guessed. Against the same search without it, the win rate
    bounds what any reading of the other hand (the determinisation) could ever
    add.
    """

    def __init__(self, inner: StrongAgent) -> None:
        super().__init__(inner, f"{inner.name}+hand")

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        assert self.real is not None
        other = 1 - context.seat
        known = view.copy()
        if known.hidden[other]:
            known.reveal(other, self.real.hands[other] & ~known.hands[other])
        return self.inner.choose(known, legal, context)


def _oracle_pair(playouts: int, seed: int, pair: int) -> list[float]:
    """One mirrored pair on the same decks: the score of the search that knows the other hand, in each seat."""
    level = Level("oracle", playouts, 60.0)
    scores = []
    for oracle_seat in (0, 1):
        oracle = _Oracle(StrongAgent(seed * 1_000_003 + pair, level))
        plain = StrongAgent(seed * 1_000_033 + pair, level)
        seats: tuple[Agent, Agent] = (oracle, plain) if oracle_seat == 0 else (plain, oracle)
        match = play_local_match(preset("nintendo"), seats, random.Random(seed * 7919 + pair), on_round=oracle.see)
        assert match.outcome is not None
        winner = match.outcome.winner
        scores.append(0.5 if winner is None else float(winner == oracle_seat))
    return scores


def oracle(matches: int, playouts: int, jobs: int, seed: int) -> None:
    """The same search with and without the other seat's real hand: the ceiling of reading that hand."""
    pairs = (matches + 1) // 2
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        found = list(pool.map(_oracle_pair, [playouts] * pairs, [seed] * pairs, range(pairs)))
    means = [statistics.fmean(pair) for pair in found]
    rate = statistics.fmean(means)
    lo, hi = pair_interval(means, rate)
    print(
        f"a search of {playouts} playouts that knows the other hand, against the same search that guesses it: "
        f"{rate:.1%} (95% CI {lo:.1%} to {hi:.1%}) over {2 * pairs} "
        f"nintendo matches ({pairs} mirrored pairs), seed {seed} ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


TARGETS = (("strong:normal", "greedy", 0.70), ("strong:expert", "strong:normal", 0.58), ("greedy", "random", 0.85))


def arena_targets(matches: int, jobs: int, seed: int, baseline: str | None, pairs: list[str]) -> None:
    rules = preset("nintendo")
    for a, b, target in TARGETS:
        if pairs and f"{a}/{b}" not in pairs:
            continue
        if baseline is not None and a in _bots_of(baseline) and b in _bots_of(baseline):
            print(_summary(baseline_arena(baseline, a, b, matches, jobs, seed), target, f"at {baseline}"), flush=True)
        result = run_arena(a, b, rules, matches=matches, seed=seed, jobs=jobs)
        print(_summary(result.to_json(), target, "now"), flush=True)


def _summary(data: dict[str, Any], target: float, label: str) -> str:
    a, b = data["a"], data["b"]
    lo, hi = data["ci95"]
    verdict = "meets" if data["win_rate"] >= target else "below"
    lines = [
        f"[{label}] {a['bot']} vs {b['bot']}: {data['win_rate']:.1%} (95% CI {lo:.1%} to {hi:.1%}) over "
        f"{data['matches']} matches ({data['matches'] // 2} mirrored pairs, {data['rounds']} rounds), "
        f"seed {data['seed']}; target {target:.0%}: {verdict} ({data['seconds']:.0f} s)"
    ]
    for side in (a, b):
        rounds = data["rounds"] or 1
        kinds = []
        for kind in ("bright", "animal", "ribbon"):
            d = side.get("discards", {}).get(kind)
            if d is not None:
                taken = d["taken_next_turn"]
                fed = f"{taken} = {taken / d['discarded']:.0%}" if d["discarded"] else "-"
                kinds.append(f"{kind} {d['discarded'] / rounds:.3f}/round ({d['discarded']}, {fed} taken next turn)")
        timing = side["decision_time"]
        lines.append(
            f"    {side['bot']:<14} discards: {'; '.join(kinds)}; points in the last 2 rounds "
            f"{side.get('late_points', '-')}; per move mean {_ms(timing['mean'])}, p95 {_ms(timing['p95'])}, "
            f"max {_ms(timing['max'])}, capped {timing['capped']}"
        )
    return "\n".join(lines)


def _bots_of(rev: str) -> set[str]:
    """The bot names commit ``rev`` knows (an older commit has no strong:expert)."""
    if rev not in _KNOWN:
        text = subprocess.run(
            ["git", "show", f"{rev}:p2p_koikoi/bots/strong.py"], capture_output=True, text=True, check=True
        ).stdout
        levels = {name for name in ("easy", "normal", "hard", "expert") if f'"{name}": Level(' in text}
        _KNOWN[rev] = {"random", "greedy", "strong", *(f"strong:{level}" for level in levels)}
    return _KNOWN[rev]


_KNOWN: dict[str, set[str]] = {}


def baseline_arena(rev: str, a: str, b: str, matches: int, jobs: int, seed: int) -> dict[str, Any]:
    """The same arena run with the bots of commit ``rev`` (and today's arena, which counts the discards)."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="koikoi-baseline-") as tmp:
        tree = subprocess.run(["git", "-C", str(root), "archive", rev], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=tree, check=True)
        shutil.copy(root / "p2p_koikoi/app/arena.py", Path(tmp) / "p2p_koikoi/app/arena.py")
        args = ["arena", a, b, "--matches", str(matches), "--jobs", str(jobs), "--seed", str(seed), "--json"]
        env = {**os.environ, "PYTHONPATH": tmp}
        out = subprocess.run(
            [sys.executable, "-m", "p2p_koikoi", *args], capture_output=True, text=True, env=env, cwd=tmp
        )
        if out.returncode != 0:
            raise SystemExit(f"the baseline run failed: {out.stderr.strip()}")
        result: dict[str, Any] = json.loads(out.stdout)
        return result


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
    parser.add_argument(
        "--bots", default="greedy,strong:easy,strong:normal,strong:expert,strong:hard", help="comma-separated"
    )
    parser.add_argument("--arena", action="store_true", help="also run the arena targets (long)")
    parser.add_argument("--matches", type=int, default=200, help="matches per arena target")
    parser.add_argument("--full", action="store_true", help="the full size: 1,000 matches per target (hours)")
    parser.add_argument("--baseline", metavar="REV", help="also run each target with the bots of commit REV")
    parser.add_argument("--only", default="", help="comma-separated BOT_A/BOT_B targets to run (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the arena")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", type=int, default=0, metavar="MATCHES", help="measure the round spreads")
    parser.add_argument("--regret", type=int, default=0, metavar="POSITIONS", help="each search level's regret")
    parser.add_argument(
        "--cores", type=int, default=0, metavar="POSITIONS", help="each search level on one process and on its own"
    )
    parser.add_argument(
        "--calibration", type=int, default=0, metavar="MATCHES", help="how well the guessed other hand foresees a feed"
    )
    parser.add_argument(
        "--oracle", type=int, default=0, metavar="MATCHES", help="what knowing the other hand would be worth"
    )
    parser.add_argument("--playouts", type=int, default=800, help="the search's playouts for --oracle")
    args = parser.parse_args()
    if args.positions:
        decision_times(args.bots.split(","), args.positions, args.seed)
    if args.cores:
        core_speedup([b for b in args.bots.split(",") if b.startswith("strong")], args.cores, args.seed)
    if args.spread:
        spreads(args.spread)
    if args.regret:
        regrets([b for b in args.bots.split(",") if b.startswith("strong")], args.regret, args.seed)
    if args.calibration:
        calibration(args.calibration, args.seed)
    if args.oracle:
        oracle(args.oracle, args.playouts, args.jobs, args.seed)
    if args.arena:
        matches = 1000 if args.full else args.matches
        arena_targets(matches, args.jobs, args.seed, args.baseline, [p for p in args.only.split(",") if p])


if __name__ == "__main__":
    main()
