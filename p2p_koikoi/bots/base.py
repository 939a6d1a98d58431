"""The agent interface: a seat's view and its legal actions in, one action out.

An agent is handed :meth:`Round.view` of its seat, never the full round, so it
cannot read a card its seat may not see. :class:`MatchContext` (from the engine,
re-exported here) carries what the seat knows of the match around the round
(points, rounds left), which a good agent needs to weigh a Koi-Koi call.
"""

from __future__ import annotations

from typing import Protocol

from p2p_koikoi.engine import AnyAction, MatchContext, Round

__all__ = ["Agent", "MatchContext"]


class Agent(Protocol):
    name: str

    def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        """Pick one of ``legal`` (never empty) for the seat whose view this is."""
        ...
