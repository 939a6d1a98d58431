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
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    EngineError,
    Event,
    Exchange,
    PassHandYaku,
    Play,
    Round,
    cards_of,
)
from p2p_koikoi.engine.cards import month_mask

__all__ = ["action_of", "follow"]


def action_of(view: Round, event: Event) -> AnyAction | None:
    """The action behind ``event`` in the state ``view`` shows, or None for a consequence
    (a yaku made, the round over) that no one chose."""
    kind = event.kind
    if kind == "play" and event.card is not None:
        matches = view.table & month_mask(event.card.month)
        taken = event.captured
        if taken.bit_count() == 1 and (matches.bit_count() == 2 or not taken & matches):
            return Play(event.card, next(cards_of(taken)))  # a choice of two, or the Gaji's wildcard pick
        return Play(event.card)
    if kind == "draw" and event.card is not None:
        return Draw(event.card)
    if kind == "capture" and event.captured:
        return ChooseCapture(next(cards_of(event.captured)))
    if kind == "koikoi":
        return CallKoiKoi()
    if kind == "stop":
        return CallStop()
    if kind == "hand-yaku":
        return ClaimHandYaku(event.yaku[0].yaku, event.yaku[0].cards) if event.yaku else PassHandYaku()
    if kind == "exchange":
        return Exchange(event.text.startswith("exchanges"))
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
