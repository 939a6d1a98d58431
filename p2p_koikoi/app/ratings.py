"""Glicko-2 ratings over a history's results, in the order they were played (``glicko.py`` is the
arithmetic).

We see only the matches we played, so an opponent's rating here is what its matches against us say, and
ours what all our matches say. Every match is a rating period of its own for its two players, as a server
that rates each game as it ends does (Lichess does so); between its matches against us an opponent's
deviation does not grow, since we cannot know whether it played anyone else. What counts is what the
history counts: a win, a loss or a draw that ``koikoi verify`` accepts, whatever ended it. A win by the
other's silence counts as a win, and the ratings say how many results rest on such a claim (signed by one
seat alone: SPEC.md section 6). Adjourned, declined, disputed and unfinished matches count as nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2p_koikoi.app.glicko import DEFAULT, TAU, Game, Rating, rate

__all__ = ["Ratings", "Scored", "rate_history"]


@dataclass(frozen=True, slots=True)
class Scored:
    """One counted match for the ratings: the opponent's key and our score (1, 0.5, 0)."""

    opponent: str
    score: float
    claimed: bool = False


@dataclass(frozen=True, slots=True)
class Ratings:
    """Our rating and each opponent's (by key) after every counted match; ``claimed``: how many of those
    results rest on a claim of silence."""

    ours: Rating = DEFAULT
    opponents: dict[str, Rating] = field(default_factory=dict)
    games: int = 0
    claimed: int = 0
    tau: float = TAU

    def to_json(self) -> dict[str, Any]:
        return {
            "system": "glicko-2",
            "tau": self.tau,
            "games": self.games,
            "resting_on_a_claim": self.claimed,
            "ours": _rating_json(self.ours),
            "opponents": {key: _rating_json(r) for key, r in self.opponents.items()},
        }


def _rating_json(rating: Rating) -> dict[str, float]:
    return {
        "rating": round(rating.rating, 2),
        "deviation": round(rating.deviation, 2),
        "volatility": round(rating.volatility, 6),
    }


def rate_history(results: Sequence[Scored], tau: float = TAU) -> Ratings:
    """Rate every result in order: each is one rating period for us and for that opponent."""
    ours = DEFAULT
    theirs: dict[str, Rating] = {}
    for result in results:
        before = theirs.get(result.opponent, DEFAULT)
        theirs[result.opponent] = rate(before, [Game(ours, 1 - result.score)], tau)
        ours = rate(ours, [Game(before, result.score)], tau)
    claimed = sum(1 for result in results if result.claimed)
    return Ratings(ours, theirs, len(results), claimed, tau)
