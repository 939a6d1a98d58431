"""The points calculator as a use case: a request in, a :class:`ScoreReport` out, rendered apart."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from p2p_koikoi.engine import RoundScore, RuleSet, ScoreRequestError, parse_cards, score_captures, score_hand
from p2p_koikoi.engine.rules import Scoring


@dataclass(frozen=True, slots=True)
class ScoreReport:
    rules: RuleSet
    cards: int
    hand: bool
    score: RoundScore

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.format(), **self.score.to_json()}

    def render_json(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def render_text(self) -> str:
        what = "dealt hand" if self.hand else "captures"
        head = f"Rules: {self.rules.format()}  ({self.cards.bit_count()} cards in the {what})"
        if self.rules.scoring is Scoring.CUMULATIVE:
            tail = f"Total {self.score.total}; the winner scores {self.score.payment}."
        else:
            tail = f"Total {self.score.total}; the loser pays {self.score.payment}."
        return "\n".join([head, *self.score.lines(), tail])


def calculate(
    rules: RuleSet,
    card_names: list[str],
    *,
    winner_calls: int = 0,
    loser_calls: int = 0,
    loser_points: int | None = None,
    hand: bool = False,
) -> ScoreReport:
    """Score ``card_names`` as a winner's captures (or, with ``hand``, as a dealt hand)."""
    cards = parse_cards(card_names)
    if hand:
        if winner_calls or loser_calls:
            raise ScoreRequestError("a dealt hand yaku ends the round before anyone can call Koi-Koi")
        score = score_hand(cards, rules, loser_points=loser_points)
    else:
        score = score_captures(
            cards, rules, winner_calls=winner_calls, loser_calls=loser_calls, loser_points=loser_points
        )
    return ScoreReport(rules, cards, hand, score)
