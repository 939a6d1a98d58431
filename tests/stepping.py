"""Two of our own sessions (a :class:`~p2p_koikoi.testing.SessionPair`) played a step at a time up to a
chosen point, as the referee and resume tests stop a match to cut it there; this module holds no test itself.
Each file passes its own agents: a seeded agent's choices depend on every choice it made before."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2p_koikoi.bots.base import Agent
from p2p_koikoi.testing import SessionPair, decide

__all__ = ["play_until", "step"]


def step(pair: SessionPair, agents: Sequence[Agent]) -> bool:
    """Deliver every entry in flight and make every decision due (seat ``n`` by ``agents[n]``), once; False
    when nothing moved."""
    moved = False
    for seat, session in enumerate(pair.sessions):
        for signed in session.take_outgoing():
            other = pair.sessions[1 - seat]
            if other.takes_entries:
                other.receive(signed)
                moved = True
    if moved:
        return True  # decide only when nothing is in flight, so a stop point sees a settled chain
    for seat, session in enumerate(pair.sessions):
        moved = decide(session, agents[seat]) or moved
    return moved


def play_until(
    pair: SessionPair,
    stop: Callable[[SessionPair], bool],
    agents: Sequence[Agent],
    limit: int = 5_000,
    *,
    settled: bool = True,
) -> None:
    """Play until ``stop`` holds (when ``settled``, only at a moment with nothing in flight)."""
    for _ in range(limit):
        quiet = not settled or not any(session.outgoing for session in pair.sessions)
        if quiet and stop(pair):
            return
        assert step(pair, agents), "the sessions are stuck"
    raise AssertionError("the stop point never came")
