"""What a person needs to weigh Koi-Koi against Shōbu: the count Shōbu would pay now, and the
multiplier the calls made so far give each side.

Both come from the engine's scoring pipeline (:func:`~p2p_koikoi.engine.score_yaku`), so the
prompt shows exactly what the round's result will say, step by step, under any rule set.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_koikoi.engine import Round, RoundScore, RuleSet, ScoreRequestError, StepName, Yaku, YakuScore, score_yaku
from p2p_koikoi.engine.rules import Scoring

__all__ = ["Factors", "count_factors", "koikoi_multiplier", "shobu_now"]


def shobu_now(view: Round, seat: int, rules: RuleSet, points: tuple[int, int]) -> RoundScore:
    """The count if ``seat`` called Shōbu now: its yaku, each multiplier with its reason, the cap
    (under pool scoring, what the other player has left) and the payment."""
    other = 1 - seat
    left = points[other] if rules.scoring is Scoring.POOL else None
    return score_yaku(
        view.yaku(seat),
        rules,
        winner_calls=view.calls[seat],
        loser_calls=view.calls[other],
        loser_points=left if left is None or left > 0 else None,
    )


_PROBE = (YakuScore(Yaku.KASU, 1, 0),)  # one point: below every doubling threshold
_LARGEST_PROBE = 60  # more than any yaku pile scores: a doubling for size starts below it, if at all


@dataclass(frozen=True, slots=True)
class Factors:
    """What a round's count multiplies a winner's yaku by, with these calls: ``small`` below the doubling
    for size, ``large`` from ``threshold`` points on (``threshold`` None: the rules never double)."""

    small: int
    threshold: int | None = None
    large: int | None = None

    def words(self) -> str:
        """``×2 (×4 with 7 points or more)``, ``×2``, ``×2 with 7 points or more`` (×1 below goes unsaid)."""
        head = f"×{self.small}"
        if self.threshold is None:
            return head
        doubled = f"×{self.large} with {self.threshold} points or more"
        return doubled if self.small == 1 else f"{head} ({doubled})"


def count_factors(rules: RuleSet, winner_calls: int, loser_calls: int) -> Factors:
    """The factors the engine's count gives a winner's yaku with these calls, by size of the yaku.

    Found by running the engine's own pipeline on probes of 1, 2, ... points (the first size whose
    factor differs is where the doubling starts), never by restating its rules, so a warning made from
    them says the very count the round's result will."""

    def factor(points: int) -> int:
        probe = (YakuScore(Yaku.KASU, points, 0),)
        return score_yaku(probe, rules, winner_calls=winner_calls, loser_calls=loser_calls).total // points

    try:
        small = factor(1)
    except ScoreRequestError:
        return Factors(1)
    for points in range(2, _LARGEST_PROBE):
        large = factor(points)
        if large != small:
            return Factors(small, points, large)
    return Factors(small)


def koikoi_multiplier(rules: RuleSet, winner_calls: int, loser_calls: int) -> tuple[int, str]:
    """The factor Koi-Koi calls give a winner with these calls against a loser with those, and why.

    It runs the engine's pipeline on a one-point probe rather than restating the four multiplier
    rules here, so the status line can never disagree with the count.
    """
    try:
        probe = score_yaku(_PROBE, rules, winner_calls=winner_calls, loser_calls=loser_calls)
    except ScoreRequestError:
        return 1, "no Koi-Koi multiplier"
    step = next(s for s in probe.steps if s.step is StepName.KOIKOI)
    return step.value, step.reason
