"""Bots by name: ``random``, ``greedy``, ``strong`` and ``strong:easy|normal|expert|hard``.

The command line, the arena and the network layer name a bot by a short spec
string, which also crosses process boundaries (the arena's workers build their
own bots from it), so a bot is always built here from ``(spec, seed)``.
"""

from __future__ import annotations

from p2p_koikoi.bots.base import Agent
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.random_agent import RandomAgent
from p2p_koikoi.bots.strong import LEVELS, StrongAgent

__all__ = ["BOT_NAMES", "DEFAULT_LEVEL", "UnknownBotError", "canonical_spec", "make_agent"]

# The level ``strong`` alone means, and the one ``koikoi play`` uses: it answers well within a second.
DEFAULT_LEVEL = "normal"

BOT_NAMES: tuple[str, ...] = ("random", "greedy", "strong", *(f"strong:{level}" for level in LEVELS))


class UnknownBotError(ValueError):
    """A bot spec that names no bot; the message lists the ones there are."""


def make_agent(spec: str, seed: int, processes: int | None = None) -> Agent:
    """The bot ``spec`` names, seeded with ``seed`` (the same spec and seed always play the same way).

    ``processes`` caps the processes a search bot may play on (its level's count
    otherwise); it changes how long a move takes, never which move.
    """
    name, colon, level = spec.strip().lower().partition(":")
    if name == "random" and not colon:
        return RandomAgent(seed)
    if name == "greedy" and not colon:
        return GreedyAgent(seed)
    if name == "strong" and (level if colon else DEFAULT_LEVEL) in LEVELS:
        return StrongAgent(seed, LEVELS[level if colon else DEFAULT_LEVEL], processes=processes)
    raise UnknownBotError(f"unknown bot {spec!r}; choose one of {', '.join(BOT_NAMES)}")


def canonical_spec(spec: str) -> str:
    """The one spelling of the bot ``spec`` names (``Strong`` and ``strong:normal`` are one bot), from
    :data:`BOT_NAMES`; an unknown spec raises :class:`UnknownBotError`, as :func:`make_agent` does."""
    name, colon, level = spec.strip().lower().partition(":")
    canonical = f"{name}:{level if colon else DEFAULT_LEVEL}" if name == "strong" else spec.strip().lower()
    if canonical not in BOT_NAMES:
        raise UnknownBotError(f"unknown bot {spec!r}; choose one of {', '.join(BOT_NAMES)}")
    return canonical
