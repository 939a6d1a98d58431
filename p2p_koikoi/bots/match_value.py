"""What a round's result is worth to a seat in the match: its chance of winning the match afterwards.

A bot that maximises the points of one round plays the last round of a match
badly: behind by ten with five in hand, a Shobu loses the match for sure, and a
Koi-Koi is the only chance left. So the search scores every finished round by
the seat's estimated chance of winning the match from the points that result,
with a drawn match counting half (as the arena counts it).

The model is deliberately simple: each later round moves the point difference
by a random amount with mean zero and a standard deviation per rule set
(:data:`ROUND_SPREAD`, measured from greedy self-play with ``python bench/bots.py
--positions 0 --spread 150``), so after ``n`` more rounds the difference is roughly normal with
spread ``sigma * sqrt(n)``. Under pool scoring a payment moves the difference
twice over (one side gains what the other loses), and emptying the other pool
wins outright. Early in a match the chance is nearly linear in points, so the
bot then simply plays for points; near the end it plays for the match.
"""

from __future__ import annotations

import math

from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import RoundOutcome
from p2p_koikoi.engine.rules import Scoring

__all__ = ["ROUND_SPREAD", "MatchValue"]

# Standard deviation of one round's point difference between two sound players, per preset
# (a rule set built with --set keeps its preset's figure; it only needs to be about right).
ROUND_SPREAD: dict[str, float] = {"nintendo": 9.0, "lemme": 9.5, "rulebook": 15.0, "qdan": 9.0, "gameweave": 9.0}
_DEFAULT_SPREAD = 10.0


class MatchValue:
    """Maps a finished round to the chance that ``context.seat`` wins the match; built once per decision."""

    __slots__ = ("_cache", "_context", "_diff", "_payments", "_pool", "_rounds_after", "_spread")

    def __init__(self, context: MatchContext) -> None:
        rules = context.rules
        me = context.seat
        self._context = context
        self._pool = rules.scoring is Scoring.POOL
        self._diff = context.points[me] - context.points[1 - me]
        self._rounds_after = max(rules.rounds - context.round_number, 0)
        self._spread = ROUND_SPREAD.get(rules.preset, _DEFAULT_SPREAD) * (2.0 if self._pool else 1.0)
        self._cache: dict[tuple[int | None, int], float] = {}
        self._payments: dict[tuple[object, ...], int] = {}

    @property
    def rounds_after(self) -> int:
        """Rounds still to play after this one (0: this is the last)."""
        return self._rounds_after

    def points(self, outcome: RoundOutcome) -> int:
        """What ``outcome`` pays the seat: its payment if the seat won, minus it if the other seat did."""
        winner = outcome.winner
        if winner is None:
            return 0
        payment = self._payment(outcome)
        return payment if winner == self._context.seat else -payment

    def of_outcome(self, outcome: RoundOutcome) -> float:
        """The match chance after ``outcome``, a finished round of this match."""
        winner = outcome.winner
        if winner is None:
            return self.of_payment(None, 0)
        return self.of_payment(winner, self._payment(outcome))

    def _payment(self, outcome: RoundOutcome) -> int:
        winner = outcome.winner
        assert winner is not None
        # The search meets the same few results over and over: count each one once.
        key = (winner, outcome.kind, outcome.calls, outcome.bonus, *((y.yaku, y.points) for y in outcome.yaku))
        payment = self._payments.get(key)
        if payment is None:
            loser_points = self._context.points[1 - winner] if self._pool else None
            score = outcome.score(self._context.rules, loser_points)
            assert score is not None
            payment = self._payments[key] = score.payment
        return payment

    def of_payment(self, winner: int | None, payment: int) -> float:
        """The match chance when ``winner`` (None: nobody) is paid ``payment`` points this round."""
        key = (winner, payment)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._chance(winner, payment)
        return cached

    def _chance(self, winner: int | None, payment: int) -> float:
        me = self._context.seat
        if winner is None:
            diff = self._diff
        else:
            sign = 1 if winner == me else -1
            diff = self._diff + sign * payment * (2 if self._pool else 1)
            if self._pool and payment >= self._context.points[1 - winner]:
                return 1.0 if winner == me else 0.0  # the loser's pool is empty: the match is over
        if self._rounds_after == 0:
            return 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        z = diff / (self._spread * math.sqrt(self._rounds_after))
        return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
