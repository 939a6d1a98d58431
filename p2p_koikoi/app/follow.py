"""Follow a round between our own decisions, from the events the session reports.

The runner hands a player the seat's view only when it must decide; in between, it reports
what happened as engine events (the opponent's play, the cards drawn, the calls). A table
that shows cards moving needs the view after each of those events, so this module turns
each event back into the action that caused it and applies it to a copy of the last view
with the engine's own checked :meth:`Round.apply`: the same step the session took on its
own partial round. An event that cannot be followed (the view is missing, or a hidden card
made it ambiguous) gives ``None``; the next decision hands over a fresh view.
"""

from __future__ import annotations

from p2p_koikoi.engine import (
    CHANCE,
    AnyAction,
    Draw,
    EngineError,
    Event,
    EventKind,
    Round,
)

__all__ = ["action_of", "follow"]


def action_of(view: Round, event: Event) -> AnyAction | None:
    """The action behind ``event`` in the state ``view`` shows, or None for a consequence
    (a yaku made, the round over) that no one chose."""
    if event.action is not None:
        return event.action  # a player's choice: the engine says which
    if event.kind is EventKind.DRAW and event.card is not None:
        return Draw(event.card)  # the stock's card, drawn for the player
    return None


def follow(view: Round | None, event: Event) -> Round | None:
    """The view after ``event``, or None when it cannot be followed."""
    if view is None:
        return None
    action = action_of(view, event)
    if action is None:
        return view
    after = view.copy()
    try:
        after.apply(action, CHANCE if isinstance(action, Draw) else event.seat)
    except EngineError:
        return None
    return after
