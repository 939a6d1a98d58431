"""A round's score as a pipeline of steps, each with its value and its reason.

The steps are the ones the scoring page (004) counts "line by line": the base
(the winner's yaku added up), the doubling for size, the Koi-Koi multiplier,
the pool cap, and the payment. Each step is a :class:`Step`; the whole count is
a :class:`RoundScore`, which the points calculator, the Koi-Koi prompt, the end
of a round and the record all show the same way.

>>> from p2p_koikoi.engine.rules import preset
>>> from p2p_koikoi.engine.cards import parse_cards
>>> s = score_captures(parse_cards(["pampas-moon chrysanthemum-sake cherry-curtain"]), preset("lemme"),
...                    winner_calls=1, loser_points=25)
>>> [(str(step.step), step.value) for step in s.steps]
[('base', 10), ('doubling', 20), ('koikoi', 40), ('cap', 25), ('payment', 25)]
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p_koikoi.engine.cards import cards_of
from p2p_koikoi.engine.errors import ScoreRequestError
from p2p_koikoi.engine.rules import AfterKoiKoi, Doubling, KoiKoiMultiplier, RuleSet, Scoring
from p2p_koikoi.engine.yaku import YakuScore, YakuTable, hand_yaku

__all__ = ["RoundScore", "Step", "StepName", "score_captures", "score_hand", "score_yaku"]


class StepName(enum.StrEnum):
    """The lines of the count, in their order (JSON and the printed count write the word)."""

    BASE = "base"
    DOUBLING = "doubling"
    KOIKOI = "koikoi"
    CAP = "cap"
    PAYMENT = "payment"


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the count: its name, the running value after it, and why."""

    step: StepName
    value: int
    reason: str


@dataclass(frozen=True, slots=True)
class RoundScore:
    """The whole count of a round for its winner."""

    yaku: tuple[YakuScore, ...]
    steps: tuple[Step, ...]
    base: int
    total: int
    payment: int

    def lines(self) -> list[str]:
        """The count in words, one line a step, as the calculator and the prompts print it."""
        out = [f"  {y.yaku.display_name}: {y.points}" for y in self.yaku]
        if not self.yaku:
            out.append("  no yaku")
        out += [f"{s.step:>8}  {s.value:>4}  {s.reason}" for s in self.steps]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "yaku": [
                {"name": y.yaku.value, "points": y.points, "cards": [c.id for c in cards_of(y.cards)]}
                for y in self.yaku
            ],
            "base": self.base,
            "steps": [{"step": s.step, "value": s.value, "reason": s.reason} for s in self.steps],
            "total": self.total,
            "payment": self.payment,
        }


def check_calls(rules: RuleSet, winner_calls: int, loser_calls: int) -> None:
    """Reject call counts that cannot happen under ``rules``."""
    if winner_calls < 0 or loser_calls < 0:
        raise ScoreRequestError("Koi-Koi calls cannot be negative")
    if winner_calls > 8 or loser_calls > 8:
        raise ScoreRequestError("a player makes at most 8 turns a round, so at most 8 Koi-Koi calls")
    if rules.after_koikoi is AfterKoiKoi.NEXT_YAKU_ENDS and winner_calls + loser_calls > 1:
        raise ScoreRequestError(
            f"under {rules.preset} rules the first yaku after a Koi-Koi ends the round, so a round has at most one call"
        )


def score_yaku(
    yaku: Sequence[YakuScore],
    rules: RuleSet,
    *,
    winner_calls: int = 0,
    loser_calls: int = 0,
    loser_points: int | None = None,
) -> RoundScore:
    """Run the scoring pipeline over yaku already found.

    ``loser_points`` is what the loser has left of the pool; it only matters
    under pool scoring, where it defaults to the full pool.
    """
    check_calls(rules, winner_calls, loser_calls)
    base = sum(y.points for y in yaku)
    steps: list[Step] = []
    reason = " + ".join(f"{y.yaku.value} {y.points}" for y in yaku) if yaku else "no yaku"
    steps.append(Step(StepName.BASE, base, reason))

    value = base
    threshold = {Doubling.AT_7: 7, Doubling.AT_8: 8, Doubling.NEVER: None}[rules.doubling]
    if threshold is None:
        steps.append(Step(StepName.DOUBLING, value, "no doubling for size in these rules"))
    elif value >= threshold:
        value *= 2
        steps.append(Step(StepName.DOUBLING, value, f"{threshold} or more: x2"))
    else:
        steps.append(Step(StepName.DOUBLING, value, f"below {threshold}: x1"))

    factor, why = _koikoi_factor(rules.koikoi_multiplier, winner_calls, loser_calls)
    value *= factor
    steps.append(Step(StepName.KOIKOI, value, why))
    total = value

    payment = total
    if rules.scoring is Scoring.POOL:
        left = rules.pool if loser_points is None else loser_points
        if left <= 0:
            raise ScoreRequestError("a loser with no points left has already lost the match")
        if left > 2 * rules.pool:
            raise ScoreRequestError(f"a player can hold at most {2 * rules.pool} points of a {rules.pool} pool")
        payment = min(total, left)
        if payment < total:
            steps.append(Step(StepName.CAP, payment, f"the loser has only {left} left"))
        else:
            steps.append(Step(StepName.CAP, payment, f"the loser has {left}: no cap"))
    elif loser_points is not None:
        raise ScoreRequestError(f"{rules.preset} rules add scores up with no pool, so --loser-points does not apply")
    steps.append(
        Step(
            StepName.PAYMENT,
            payment,
            "paid by the loser" if rules.scoring is Scoring.POOL else "added to the winner's score",
        )
    )
    return RoundScore(yaku=tuple(yaku), steps=tuple(steps), base=base, total=total, payment=payment)


def _koikoi_factor(mode: KoiKoiMultiplier, winner_calls: int, loser_calls: int) -> tuple[int, str]:
    if mode is KoiKoiMultiplier.NONE:
        return 1, "Koi-Koi calls do not multiply in these rules"
    if mode is KoiKoiMultiplier.ALL_CALLS:
        calls = winner_calls + loser_calls
        if calls == 0:
            return 1, "no Koi-Koi call: x1"
        return 1 + calls, f"{calls} Koi-Koi call{'s' if calls > 1 else ''} this round: x{1 + calls}"
    if mode is KoiKoiMultiplier.LOSER_CALLED:
        if loser_calls:
            return 2, "the loser had called Koi-Koi: x2"
        if winner_calls:
            return 1, "only the winner called Koi-Koi: x1"
        return 1, "no Koi-Koi call: x1"
    # The rulebook: each call of the winner raises its own multiplier; a loser who called doubles it.
    factor = 1 + winner_calls
    parts = [f"winner's {winner_calls} call{'s' if winner_calls != 1 else ''}: x{factor}"]
    if loser_calls:
        factor *= 2
        parts.append("the loser had called: x2")
    return factor, "; ".join(parts)


def score_captures(
    caps: int,
    rules: RuleSet,
    *,
    winner_calls: int = 0,
    loser_calls: int = 0,
    loser_points: int | None = None,
) -> RoundScore:
    """Captures + rule set -> the whole count (the points calculator)."""
    return score_yaku(
        YakuTable(rules).score(caps),
        rules,
        winner_calls=winner_calls,
        loser_calls=loser_calls,
        loser_points=loser_points,
    )


def score_hand(hand: int, rules: RuleSet, *, loser_points: int | None = None) -> RoundScore:
    """A dealt hand's Teshi or Kuttsuki through the same pipeline (no calls can have been made)."""
    if not rules.hand_yaku:
        raise ScoreRequestError(f"hand yaku are off in {rules.preset} rules (set hand-yaku=on)")
    if hand.bit_count() != 8:
        raise ScoreRequestError(f"a dealt hand has 8 cards, not {hand.bit_count()}")
    found = hand_yaku(hand)
    return score_yaku([found] if found else [], rules, loser_points=loser_points)
