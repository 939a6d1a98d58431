"""What a person needs to weigh Koi-Koi against Shōbu: the count Shōbu would pay now, and the
multiplier the calls made so far give each side.

Both come from the engine's scoring pipeline (:func:`~p2p_koikoi.engine.score_yaku`), so the
prompt shows exactly what the round's result will say, step by step, under any rule set.
"""

from __future__ import annotations

from p2p_koikoi.engine import Round, RoundScore, RuleSet, ScoreRequestError, Yaku, YakuScore, score_yaku
from p2p_koikoi.engine.rules import Scoring

__all__ = ["koikoi_multiplier", "shobu_now"]


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


def koikoi_multiplier(rules: RuleSet, winner_calls: int, loser_calls: int) -> tuple[int, str]:
    """The factor Koi-Koi calls give a winner with these calls against a loser with those, and why.

    It runs the engine's pipeline on a one-point probe rather than restating the four multiplier
    rules here, so the status line can never disagree with the count.
    """
    try:
        probe = score_yaku(_PROBE, rules, winner_calls=winner_calls, loser_calls=loser_calls)
    except ScoreRequestError:
        return 1, "no Koi-Koi multiplier"
    step = next(s for s in probe.steps if s.step == "koikoi")
    return step.value, step.reason
