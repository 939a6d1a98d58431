"""Agents that choose an action from a seat's view of the round: ``random``, ``greedy`` and ``strong``.

Build one by name with :func:`make_agent` (``"strong:easy"``, ...). ``choose``
is synchronous and pure CPU work: an async caller runs it in a worker thread.
"""

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.random_agent import RandomAgent
from p2p_koikoi.bots.registry import BOT_NAMES, DEFAULT_LEVEL, UnknownBotError, make_agent
from p2p_koikoi.bots.strong import LEVELS, Level, StrongAgent

__all__ = [
    "BOT_NAMES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "Agent",
    "GreedyAgent",
    "Level",
    "MatchContext",
    "RandomAgent",
    "StrongAgent",
    "UnknownBotError",
    "make_agent",
]
