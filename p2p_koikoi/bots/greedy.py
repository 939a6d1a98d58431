"""``greedy``: the rule-based baseline, one look at the table and no look ahead.

It is the yardstick the search bot must beat and a fair opponent for a
beginner, so its rules are the ones a new player learns first:

* take the most valuable capture, where a card's value grows with how close it
  brings this seat to a yaku (and how much it denies the other seat; see
  :mod:`~p2p_koikoi.bots.heuristics`), and a capture that makes a yaku at once
  beats everything;
* with nothing to take, throw away the card worth least to either seat;
* on a new yaku, stop, unless a simple rule says Koi-Koi pays: this seat is one
  card from another rise, the other seat is at least two cards from any, there
  are cards enough left to play, and the yaku is still below the doubling line.

It never looks at the match score; the search bot does.
"""

from __future__ import annotations

import random

from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.bots.heuristics import card_worths, koikoi_pays
from p2p_koikoi.engine import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    Exchange,
    Phase,
    Play,
    Round,
    YakuTable,
)
from p2p_koikoi.engine.cards import month_mask

__all__ = ["GreedyAgent"]

# A point of yaku made now outweighs any amount of progress towards one.
_YAKU_NOW = 10.0


def _mask_worth(worth: list[float], mask: int) -> float:
    total = 0.0
    while mask:
        low = mask & -mask
        total += worth[low.bit_length() - 1]
        mask ^= low
    return total


class GreedyAgent:
    """The baseline; ``seed`` only breaks ties between equally good moves."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase is Phase.EXCHANGE:
            # Nobody has seen either hand yet: swapping changes nothing a seat can know.
            return Exchange(False) if Exchange(False) in legal else legal[0]
        seat = context.seat
        mine, theirs = view.captures[seat], view.captures[1 - seat]
        if phase is Phase.DECISION:
            pays = koikoi_pays(view.rules, view.hand_size(seat), view.total(seat), mine, theirs)
            return CallKoiKoi() if pays else CallStop()
        table = YakuTable(view.rules)
        worth = card_worths(view.rules, mine, theirs)
        now = table.total(mine)

        def capture_value(cards: int) -> float:
            return _mask_worth(worth, cards) + _YAKU_NOW * (table.total(mine | cards) - now)

        scored: list[tuple[float, float, AnyAction]] = []
        for action in legal:
            if isinstance(action, Play):
                taken = self._taken(view, action)
                value = capture_value(taken | action.card.bit) if taken else -worth[action.card]
            elif isinstance(action, ChooseCapture):
                pending = view.pending_draw
                assert pending is not None
                value = capture_value(action.target.bit | pending.bit)
            else:
                value = 0.0
            scored.append((value, self._rng.random(), action))
        return max(scored, key=lambda item: (item[0], item[1]))[2]

    @staticmethod
    def _taken(view: Round, action: Play) -> int:
        """The table cards ``action`` takes (a named target, the Gaji's pick, or the month's matches)."""
        if action.target is not None:
            return action.target.bit
        return view.table & month_mask(action.card.month)
