"""A match as a state machine over rounds: first dealer, deals, results, the end.

The rules of the machine
------------------------
* ``FIRST_DEALER``: someone (a coin flip or drawn cards, see
  :func:`first_dealer_by_draw`) calls :meth:`Match.set_first_dealer`.
* ``DEAL``: :meth:`Match.start_round` takes the next deal as data and returns
  the :class:`~p2p_koikoi.engine.round.Round` to play.
* ``ROUND``: the round is played; when it is over, :meth:`Match.finish_round`
  scores it (capping payments at the loser's pool), moves the deal, and goes
  back to ``DEAL`` or to ``OVER``. A redeal goes back to ``DEAL`` with the same
  round number and dealer.
* ``OVER``: :attr:`Match.outcome` says who won and why.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.engine.cards import Card
from p2p_koikoi.engine.deal import Deal
from p2p_koikoi.engine.errors import EngineError
from p2p_koikoi.engine.round import OutcomeKind, Round, RoundOutcome
from p2p_koikoi.engine.rules import FirstDealer, RuleSet, Scoring
from p2p_koikoi.engine.scoring import RoundScore
from p2p_koikoi.engine.yaku import YakuTable

__all__ = ["Match", "MatchOutcome", "MatchPhase", "RoundResult", "Termination", "first_dealer_by_draw"]


class MatchPhase(enum.Enum):
    FIRST_DEALER = "first-dealer"
    DEAL = "deal"
    ROUND = "round"
    OVER = "over"


class Termination(enum.Enum):
    ROUNDS_PLAYED = "rounds-played"
    POOL_EMPTY = "pool-empty"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round (or redeal) as the match counted it."""

    number: int
    redeal: int
    dealer: int
    outcome: RoundOutcome
    score: RoundScore | None
    points: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    winner: int | None
    points: tuple[int, int]
    termination: Termination


def first_dealer_by_draw(rule: FirstDealer, card0: Card, card1: Card) -> int | None:
    """The seat that deals first when each seat turned over a card, or None to draw again.

    The earlier month deals. In the same month the rulebook (``draw-month``)
    draws again; Nintendo's way (``draw-month-rank``) lets the higher kind deal,
    and two plains draw again.
    """
    if rule is FirstDealer.COIN:
        raise EngineError("these rules choose the first dealer by a coin flip, not by drawing cards")
    if card0.month != card1.month:
        return 0 if card0.month < card1.month else 1
    if rule is FirstDealer.DRAW_MONTH or card0.kind == card1.kind:
        return None
    return 0 if card0.kind > card1.kind else 1


class Match:
    """Rounds, points and the dealer, over a whole match."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        start = rules.pool if rules.scoring is Scoring.POOL else 0
        self.points = [start, start]
        self.dealer: int | None = None
        self.results: list[RoundResult] = []
        self.round: Round | None = None
        self.round_number = 1
        self.redeal = 0
        self.outcome: MatchOutcome | None = None
        self.phase = MatchPhase.FIRST_DEALER
        self._yaku_table = YakuTable(rules)

    def set_first_dealer(self, seat: int) -> None:
        if self.phase is not MatchPhase.FIRST_DEALER:
            raise EngineError("the first dealer is already chosen")
        if seat not in (0, 1):
            raise EngineError("the dealer is seat 0 or 1")
        self.dealer = seat
        self.phase = MatchPhase.DEAL

    def start_round(self, deal: Deal) -> Round:
        """Start the next round (or redeal) from ``deal``."""
        if self.phase is not MatchPhase.DEAL or self.dealer is None:
            raise EngineError(f"cannot deal in the {self.phase.value} phase")
        self.round = Round.start(
            self.rules, self.dealer, deal.hands, deal.table, deal.stock, yaku_table=self._yaku_table
        )
        self.phase = MatchPhase.ROUND
        return self.round

    def begin_round(self, rnd: Round) -> Round:
        """Start the next round from a round built elsewhere: a peer's partial view of a fair deal,
        where only some cards are known. Its rules and dealer must be the match's."""
        if self.phase is not MatchPhase.DEAL or self.dealer is None:
            raise EngineError(f"cannot deal in the {self.phase.value} phase")
        if rnd.rules != self.rules or rnd.dealer != self.dealer:
            raise EngineError("the round does not follow this match's rules and dealer")
        self.round = rnd
        self.phase = MatchPhase.ROUND
        return rnd

    def finish_round(self) -> RoundResult:
        """Score the round that just ended and move on."""
        rnd = self.round
        if self.phase is not MatchPhase.ROUND or rnd is None or rnd.outcome is None:
            raise EngineError("no finished round to score")
        outcome = rnd.outcome
        assert self.dealer is not None
        score = self._score(outcome)
        result = RoundResult(
            number=self.round_number,
            redeal=self.redeal,
            dealer=self.dealer,
            outcome=outcome,
            score=score,
            points=(self.points[0], self.points[1]),
        )
        self.results.append(result)
        self.round = None
        self.dealer = outcome.next_dealer
        if outcome.kind is OutcomeKind.REDEAL:
            self.redeal += 1
            self.phase = MatchPhase.DEAL
            return result
        self.redeal = 0
        if self.rules.scoring is Scoring.POOL and 0 in self.points:
            loser = self.points.index(0)
            self._end(1 - loser, Termination.POOL_EMPTY)
        elif self.round_number >= self.rules.rounds:
            self._end(self._leader(), Termination.ROUNDS_PLAYED)
        else:
            self.round_number += 1
            self.phase = MatchPhase.DEAL
        return result

    def _score(self, outcome: RoundOutcome) -> RoundScore | None:
        if outcome.winner is None:
            return None
        loser = 1 - outcome.winner
        pool = self.rules.scoring is Scoring.POOL
        score = outcome.score(self.rules, self.points[loser] if pool else None)
        if score is not None:
            self.points[outcome.winner] += score.payment
            if pool:
                self.points[loser] -= score.payment
        return score

    def forfeit(self, seat: int) -> MatchOutcome:
        """``seat`` gives up or vanished: the other seat wins the match."""
        if self.phase is MatchPhase.OVER:
            raise EngineError("the match is over")
        self.round = None
        return self._end(1 - seat, Termination.FORFEIT)

    def _leader(self) -> int | None:
        if self.points[0] == self.points[1]:
            return None
        return 0 if self.points[0] > self.points[1] else 1

    def _end(self, winner: int | None, why: Termination) -> MatchOutcome:
        self.outcome = MatchOutcome(winner, (self.points[0], self.points[1]), why)
        self.phase = MatchPhase.OVER
        return self.outcome
