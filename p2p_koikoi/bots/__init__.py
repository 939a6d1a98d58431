"""Agents that choose an action from a seat's view of the round."""

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.bots.random_agent import RandomAgent

__all__ = ["Agent", "MatchContext", "RandomAgent"]
