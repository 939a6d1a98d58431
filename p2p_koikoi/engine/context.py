"""What a seat knows of the match around the round it plays: the rules, its seat, the points so far
and the round number. A good decision (a Koi-Koi call) weighs them; the view of the round alone
does not say them.

It lives in the engine, not with the bots, because everyone who asks a seat for a decision builds
one: the network runner, the practice table and the bots alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_koikoi.engine.rules import RuleSet

__all__ = ["MatchContext"]


@dataclass(frozen=True, slots=True)
class MatchContext:
    rules: RuleSet
    seat: int
    points: tuple[int, int]
    round_number: int
