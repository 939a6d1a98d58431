"""The arena as a use case: two bots play many matches in-process, and an :class:`ArenaResult` says who is better.

Koi-Koi is a game of luck as much as skill, so the arena takes the luck out of
the comparison where it can:

* Mirrored deals: matches come in pairs that use the same decks (one deck per
  round number and redeal, drawn from the seed) and the same first dealer seat,
  with the bots in swapped seats, so each bot plays every deal from both seats.
  The first dealer seat alternates from one pair to the next.
* The 95% confidence interval of the win rate is a normal interval over the
  pairs (each pair's mean score is one sample), which is what the mirroring
  makes independent; a drawn match counts half.

Everything a match does follows from ``(seed, pair, mirror)`` (the decks, the
bots' seeds), so a run is deterministic for its seed whatever ``jobs`` says:
pairs run on a pool of worker processes and their results are put back in
order. The decision times are measured on the way and are the one part of the
result that differs from run to run.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from p2p_koikoi.app.local_match import play_round
from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.bots.parallel import cores
from p2p_koikoi.bots.registry import make_agent
from p2p_koikoi.engine import (
    AnyAction,
    Deal,
    Event,
    EventKind,
    Kind,
    Match,
    MatchPhase,
    OutcomeKind,
    Round,
    RuleSet,
    Yaku,
)
from p2p_koikoi.engine.actions import TAKING

__all__ = [
    "ArenaRequestError",
    "ArenaResult",
    "BotStats",
    "DiscardTally",
    "MatchStats",
    "mirrored_pairs_interval",
    "pair_interval",
    "play_arena_match",
    "run_arena",
]

Progress = Callable[[int, int], None]


class ArenaRequestError(ValueError):
    """A run that cannot be made, such as no matches at all."""


# -- one match -----------------------------------------------------------------------


class _Timed:
    """An agent wrapper that records how long each decision takes."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.times: list[float] = []

    @property
    def capped(self) -> int:
        """Decisions the bot's time cap cut short (a search bot counts them; the others have no cap)."""
        return int(getattr(self.agent, "capped", 0))

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        start = time.perf_counter()
        action = self.agent.choose(view, legal, context)
        self.times.append(time.perf_counter() - start)
        return action


# The kinds whose discards the arena counts (a plain given away costs little).
_DISCARD_KINDS = (Kind.BRIGHT, Kind.ANIMAL, Kind.RIBBON)


class DiscardTally:
    """Counts each seat's discards by kind, and how many of them the other seat took on its very next turn.

    A discard is a hand card played that captures nothing. It is "fed" when the
    other seat captures it before the discarder plays again; a discarder that
    takes it back with its own draw has fed nothing. Fed from the events a
    round reports, so it sees exactly what happened at the table.
    """

    def __init__(self) -> None:
        # [seat][kind index] -> [discarded, taken next turn]
        self.counts = [[[0, 0] for _ in _DISCARD_KINDS] for _ in (0, 1)]
        self._open: list[dict[int, int]] = [{}, {}]  # seat -> {card: kind index} waiting for the next turn

    def __call__(self, _rnd: Round, events: list[Event]) -> None:
        for event in events:
            if event.kind is EventKind.PLAY:
                self._open[event.seat].clear()  # the discarder plays again: its last discards were not fed
                card = event.card
                if card is not None and not event.captured and card.kind in _DISCARD_KINDS:
                    k = _DISCARD_KINDS.index(card.kind)
                    self.counts[event.seat][k][0] += 1
                    self._open[event.seat][int(card)] = k
            if event.kind in TAKING and event.captured:
                for seat in (0, 1):
                    for waiting, k in list(self._open[seat].items()):
                        if event.captured >> waiting & 1:
                            del self._open[seat][waiting]
                            self.counts[seat][k][1] += event.seat != seat

    def end_round(self) -> None:
        self._open = [{}, {}]


@dataclass(frozen=True, slots=True)
class MatchStats:
    """One match, from the bots' side: index 0 is BOT_A, index 1 is BOT_B (whatever seats they had)."""

    index: int
    score_a: float  # 1 if BOT_A won the match, 0.5 for a draw, 0 if it lost
    rounds: int
    won: tuple[int, int]  # points each bot was paid over the match
    rounds_won: tuple[int, int]
    koikoi_rounds: tuple[int, int]  # rounds in which the bot called Koi-Koi
    koikoi_won: tuple[int, int]  # ... and won
    yaku: tuple[dict[str, int], dict[str, int]]  # yaku id -> rounds won with it
    times: tuple[tuple[float, ...], tuple[float, ...]]
    capped: tuple[int, int] = (0, 0)  # decisions a bot's time cap cut short (they make a run unrepeatable)
    # per bot, per kind of _DISCARD_KINDS: (discarded, taken by the other seat on its next turn)
    discards: tuple[tuple[tuple[int, int], ...], ...] = ((), ())
    late_points: tuple[int, int] = (0, 0)  # points each bot was paid in the match's last two rounds


def _derived_seed(*parts: object) -> int:
    """A 64-bit seed from its parts (string seeding is stable across processes and platforms)."""
    return random.Random("/".join(str(p) for p in parts)).getrandbits(64)


def _deck(seed: int, pair: int, round_number: int, redeal: int) -> list[int]:
    deck = list(range(48))
    random.Random(f"deck/{seed}/{pair}/{round_number}/{redeal}").shuffle(deck)
    return deck


def play_arena_match(
    spec_a: str, spec_b: str, rules: RuleSet, seed: int, index: int, processes: int | None = None
) -> MatchStats:
    """Match ``index`` of a run: pair ``index // 2``, with BOT_A in seat ``index % 2``.

    ``processes`` caps the processes a search bot plays on (a bot's moves do not depend on it).
    """
    pair, a_seat = divmod(index, 2)
    bots = (
        _Timed(make_agent(spec_a, _derived_seed("bot", seed, pair, "a"), processes)),
        _Timed(make_agent(spec_b, _derived_seed("bot", seed, pair, "b"), processes)),
    )
    seats: tuple[Agent, Agent] = (bots[0], bots[1]) if a_seat == 0 else (bots[1], bots[0])
    match = Match(rules)
    match.set_first_dealer(pair % 2)
    rounds = 0
    won, rounds_won, koikoi_rounds, koikoi_won = [0, 0], [0, 0], [0, 0], [0, 0]
    yaku: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    late_points = [0, 0]
    tally = DiscardTally()
    while match.phase is not MatchPhase.OVER:
        assert match.dealer is not None
        deck = _deck(seed, pair, match.round_number, match.redeal)
        rnd = match.start_round(Deal.from_deck(deck, rules.deal_pattern, match.dealer))
        play_round(rnd, seats, match, tally)
        tally.end_round()
        late = match.round_number > rules.rounds - 2
        result = match.finish_round()
        outcome = result.outcome
        if outcome.kind is OutcomeKind.REDEAL:
            continue
        rounds += 1
        for seat in (0, 1):
            bot = seat if a_seat == 0 else 1 - seat
            if outcome.calls[seat]:
                koikoi_rounds[bot] += 1
                koikoi_won[bot] += outcome.winner == seat
            if outcome.winner == seat:
                rounds_won[bot] += 1
                paid = result.score.payment if result.score is not None else 0
                won[bot] += paid
                late_points[bot] += paid if late else 0
                yaku[bot].update(y.yaku.value for y in outcome.yaku)
    assert match.outcome is not None
    winner = match.outcome.winner
    score_a = 0.5 if winner is None else float(winner == a_seat)
    return MatchStats(
        index=index,
        score_a=score_a,
        rounds=rounds,
        won=(won[0], won[1]),
        rounds_won=(rounds_won[0], rounds_won[1]),
        koikoi_rounds=(koikoi_rounds[0], koikoi_rounds[1]),
        koikoi_won=(koikoi_won[0], koikoi_won[1]),
        yaku=(dict(yaku[0]), dict(yaku[1])),
        times=(tuple(bots[0].times), tuple(bots[1].times)),
        capped=(bots[0].capped, bots[1].capped),
        discards=_by_bot([tuple((n, fed) for n, fed in kinds) for kinds in tally.counts], a_seat),
        late_points=(late_points[0], late_points[1]),
    )


def _by_bot(per_seat: list[tuple[tuple[int, int], ...]], a_seat: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    return (per_seat[0], per_seat[1]) if a_seat == 0 else (per_seat[1], per_seat[0])


def _play_pair(
    spec_a: str, spec_b: str, rules: RuleSet, seed: int, pair: int, matches: int, processes: int | None = None
) -> list[MatchStats]:
    indices = [i for i in (2 * pair, 2 * pair + 1) if i < matches]
    return [play_arena_match(spec_a, spec_b, rules, seed, i, processes) for i in indices]


# -- the run and its result ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's figures over the run."""

    spec: str
    matches_won: int
    points_per_match: float
    points_per_round: float
    rounds_won: int
    koikoi_rounds: int
    koikoi_won: int
    yaku: dict[str, float]  # yaku id -> share of the rounds played that the bot won with it
    moves: int
    time_mean: float
    time_p95: float
    time_max: float
    capped: int
    discards: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (discarded, taken next turn)
    late_points: int = 0  # points won in the matches' last two rounds

    @property
    def koikoi_success(self) -> float | None:
        return self.koikoi_won / self.koikoi_rounds if self.koikoi_rounds else None

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.spec,
            "matches_won": self.matches_won,
            "points_per_match": round(self.points_per_match, 3),
            "points_per_round": round(self.points_per_round, 3),
            "rounds_won": self.rounds_won,
            "koikoi_rounds": self.koikoi_rounds,
            "koikoi_success": None if self.koikoi_success is None else round(self.koikoi_success, 4),
            "yaku": {k: round(v, 4) for k, v in self.yaku.items()},
            "decision_time": {
                "moves": self.moves,
                "mean": round(self.time_mean, 6),
                "p95": round(self.time_p95, 6),
                "max": round(self.time_max, 6),
                "capped": self.capped,
            },
            "discards": {kind: {"discarded": n, "taken_next_turn": fed} for kind, (n, fed) in self.discards.items()},
            "late_points": self.late_points,
        }


@dataclass(frozen=True, slots=True)
class ArenaResult:
    rules: RuleSet
    seed: int
    matches: int
    rounds: int  # rounds played over the whole run (a match can end early under pool scoring)
    draws: int
    win_rate: float
    ci95: tuple[float, float]
    bots: tuple[BotStats, BotStats]
    seconds: float
    per_match: list[MatchStats] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "bot_a": self.bots[0].spec,
            "bot_b": self.bots[1].spec,
            "rules": self.rules.format(),
            "rounds_per_match": self.rules.rounds,
            "seed": self.seed,
            "matches": self.matches,
            "rounds": self.rounds,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(self.ci95[0], 4), round(self.ci95[1], 4)],
            "wins_a": self.bots[0].matches_won,
            "wins_b": self.bots[1].matches_won,
            "draws": self.draws,
            "a": self.bots[0].to_json(),
            "b": self.bots[1].to_json(),
            "seconds": round(self.seconds, 2),
        }

    def render_json(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def render_text(self) -> str:
        a, b = self.bots
        lo, hi = self.ci95
        lines = [
            f"{a.spec} vs {b.spec}: {self.matches} matches ({self.matches // 2} mirrored pairs), "
            f"rules {self.rules.format()} ({self.rules.rounds} rounds), seed {self.seed}",
            f"{a.spec} wins {self.win_rate:.1%} of the matches (95% CI {lo:.1%} to {hi:.1%}): "
            f"{a.matches_won} won, {b.matches_won} lost, {self.draws} drawn",
            "",
            f"{'':<24}{a.spec:>16}{b.spec:>16}",
        ]

        def row(label: str, x: str, y: str) -> None:
            lines.append(f"{label:<24}{x:>16}{y:>16}")

        def pct(value: float | None) -> str:
            return "-" if value is None else f"{value:.1%}"

        row("points per match", f"{a.points_per_match:.2f}", f"{b.points_per_match:.2f}")
        row("points per round", f"{a.points_per_round:.2f}", f"{b.points_per_round:.2f}")
        row("rounds won", pct(a.rounds_won / self.rounds), pct(b.rounds_won / self.rounds))
        row(
            "Koi-Koi success",
            f"{pct(a.koikoi_success)} of {a.koikoi_rounds}",
            f"{pct(b.koikoi_success)} of {b.koikoi_rounds}",
        )
        row("decision time mean", _ms(a.time_mean), _ms(b.time_mean))
        row("decision time p95", _ms(a.time_p95), _ms(b.time_p95))
        row("decision time max", _ms(a.time_max), _ms(b.time_max))
        if a.capped or b.capped:
            row("cut short by time cap", str(a.capped), str(b.capped))
        row("points, last 2 rounds", str(a.late_points), str(b.late_points))
        for kind in a.discards:
            (na, fa), (nb, fb) = a.discards[kind], b.discards[kind]
            row(
                f"{kind} discards/round",
                f"{_per(na, self.rounds)} ({_share(fa, na)} fed)",
                f"{_per(nb, self.rounds)} ({_share(fb, nb)} fed)",
            )
        lines.append("")
        lines.append("yaku won with, per round played:")
        for y in Yaku:
            if y.value in a.yaku or y.value in b.yaku:
                row(f"  {y.value}", pct(a.yaku.get(y.value, 0.0)), pct(b.yaku.get(y.value, 0.0)))
        lines.append(f"({self.seconds:.1f} s)")
        return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _per(count: int, rounds: int) -> str:
    return f"{count / rounds:.3f}" if rounds else "-"


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _bot_stats(spec: str, bot: int, per_match: list[MatchStats], rounds: int) -> BotStats:
    times = sorted(t for m in per_match for t in m.times[bot])
    yaku: Counter[str] = Counter()
    for m in per_match:
        yaku.update(m.yaku[bot])
    won = sum(m.won[bot] for m in per_match)
    wins = sum(1 for m in per_match if m.score_a == (1.0 if bot == 0 else 0.0))
    order = {y.value: i for i, y in enumerate(Yaku)}
    return BotStats(
        spec=spec,
        matches_won=wins,
        points_per_match=won / len(per_match),
        points_per_round=won / rounds if rounds else 0.0,
        rounds_won=sum(m.rounds_won[bot] for m in per_match),
        koikoi_rounds=sum(m.koikoi_rounds[bot] for m in per_match),
        koikoi_won=sum(m.koikoi_won[bot] for m in per_match),
        yaku={k: yaku[k] / rounds for k in sorted(yaku, key=order.__getitem__)} if rounds else {},
        moves=len(times),
        time_mean=statistics.fmean(times) if times else 0.0,
        time_p95=times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)] if times else 0.0,
        time_max=times[-1] if times else 0.0,
        capped=sum(m.capped[bot] for m in per_match),
        discards={
            kind.name.lower(): (
                sum(m.discards[bot][k][0] for m in per_match if m.discards[bot]),
                sum(m.discards[bot][k][1] for m in per_match if m.discards[bot]),
            )
            for k, kind in enumerate(_DISCARD_KINDS)
        },
        late_points=sum(m.late_points[bot] for m in per_match),
    )


def mirrored_pairs_interval(per_match: list[MatchStats], win_rate: float) -> tuple[float, float]:
    """A normal 95% interval from the spread of the mirrored pairs' mean scores."""
    pairs: dict[int, list[float]] = {}
    for m in per_match:
        pairs.setdefault(m.index // 2, []).append(m.score_a)
    return pair_interval([statistics.fmean(scores) for scores in pairs.values()], win_rate)


def pair_interval(means: list[float], win_rate: float) -> tuple[float, float]:
    """A normal 95% interval around ``win_rate`` from the mean scores of mirrored pairs (the unit that is
    independent: the two matches of a pair share their decks)."""
    if len(means) < 2:
        return 0.0, 1.0
    half = 1.96 * statistics.stdev(means) / math.sqrt(len(means))
    return max(0.0, win_rate - half), min(1.0, win_rate + half)


def _pairs(spec_a: str, spec_b: str, rules: RuleSet, seed: int, matches: int, jobs: int) -> Iterator[list[MatchStats]]:
    count = (matches + 1) // 2
    if jobs <= 1:
        for pair in range(count):
            yield _play_pair(spec_a, spec_b, rules, seed, pair, matches)
        return
    processes = max(1, cores() // jobs)  # the jobs share the cores: a search bot in each gets its share
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(_play_pair, spec_a, spec_b, rules, seed, pair, matches, processes) for pair in range(count)
        ]
        for future in futures:
            yield future.result()


def run_arena(
    spec_a: str,
    spec_b: str,
    rules: RuleSet,
    *,
    matches: int,
    seed: int,
    jobs: int = 1,
    progress: Progress | None = None,
) -> ArenaResult:
    """Play ``matches`` matches of BOT_A against BOT_B (in mirrored pairs) on ``jobs`` processes."""
    if matches < 1:
        raise ArenaRequestError(f"the arena needs at least one match, not {matches}")
    if jobs < 1:
        raise ArenaRequestError(f"jobs must be at least 1, not {jobs}")
    for spec in (spec_a, spec_b):
        make_agent(spec, 0)  # an unknown bot fails here, before any worker starts
    start = time.perf_counter()
    per_match: list[MatchStats] = []
    for done in _pairs(spec_a, spec_b, rules, seed, matches, jobs):
        per_match.extend(done)
        if progress is not None:
            progress(len(per_match), matches)
    rounds = sum(m.rounds for m in per_match)
    win_rate = statistics.fmean(m.score_a for m in per_match)
    return ArenaResult(
        rules=rules,
        seed=seed,
        matches=matches,
        rounds=rounds,
        draws=sum(1 for m in per_match if m.score_a == 0.5),
        win_rate=win_rate,
        ci95=mirrored_pairs_interval(per_match, win_rate),
        bots=(_bot_stats(spec_a, 0, per_match, rounds), _bot_stats(spec_b, 1, per_match, rounds)),
        seconds=time.perf_counter() - start,
        per_match=per_match,
    )
