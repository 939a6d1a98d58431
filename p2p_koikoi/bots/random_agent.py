"""``random``: uniform over the legal actions, from its own seeded generator."""

from __future__ import annotations

import random

from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Round


class RandomAgent:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        return self._rng.choice(legal)
