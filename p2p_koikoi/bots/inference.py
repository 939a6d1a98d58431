"""What the other seat's plays say about its hand: the months it has shown it probably lacks.

A card in a hand was there from the deal (a hand only shrinks), so every play
the other seat made tells something about the cards it still holds. A seat that
leaves a table card on the table while it could have taken it gives something
away; one that throws a card away for nothing while a bright lay there to be
taken almost certainly had no card of that month. So for every unseen card of a
month that was on the table when the other seat passed it over, the chance that
the card sits in that hand is multiplied by a likelihood below one: small when
the play took nothing at all, larger when the seat took something else (it may
have preferred that), smaller again when the card passed over was a bright or
an animal.

The reading is soft on purpose (a player may hold a card back for later), and
it reads only the public history of the view (:attr:`Round.history`): the table
is replayed from the cards that are public now, so nothing hidden is touched.
If the history does not replay cleanly (a view built without one), every card
keeps the weight 1 and the guess is uniform, as before.
"""

from __future__ import annotations

from p2p_koikoi.engine import CHANCE, ChooseCapture, Draw, Kind, Play, Round, cards_of

__all__ = ["lacking_weights"]

_MONTH = tuple(0b1111 << (4 * (c >> 2)) for c in range(48))

# The likelihood of passing over a table card while holding one of its month.
_PASSED_BY_DISCARD = 0.3  # the play took nothing
_PASSED_BY_CAPTURE = 0.7  # the play took something else
_PRECIOUS_FACTOR = 0.5  # and again if the card passed over was a bright or an animal


def _initial_table(view: Round) -> int | None:
    """The table as dealt: every public card now, minus those that came from a hand or the stock."""
    public = view.table | view.captures[0] | view.captures[1]
    pending = view.pending_draw
    if pending is not None:
        public |= pending.bit
    for _seat, action in view.history:
        if isinstance(action, Play | Draw):
            public &= ~action.card.bit
    return public if public.bit_count() == 8 else None


def lacking_weights(view: Round, seat: int) -> list[float]:
    """Per card: the relative chance it sits in the other seat's hand rather than in the stock (1: no evidence)."""
    weights = [1.0] * 48
    table = _initial_table(view)
    if table is None:
        return weights
    other = 1 - seat
    for who, action in view.history:
        if isinstance(action, Play):
            matches = table & _MONTH[action.card]
            if who == other:
                _passed_over(weights, table & ~_MONTH[action.card], bool(matches))
            taken = action.target.bit if action.target is not None else matches
            table = table ^ taken if taken else table | action.card.bit
        elif isinstance(action, Draw) and who == CHANCE:
            matches = table & _MONTH[action.card]
            if matches.bit_count() != 2:
                table = table ^ matches if matches else table | action.card.bit
        elif isinstance(action, ChooseCapture):
            table ^= action.target.bit
    unseen = view.unseen
    return [w if unseen >> c & 1 else 1.0 for c, w in enumerate(weights)]


def _passed_over(weights: list[float], left: int, captured: bool) -> None:
    """The other seat played elsewhere while ``left`` lay on the table: it probably lacks their months."""
    factor = _PASSED_BY_CAPTURE if captured else _PASSED_BY_DISCARD
    months = 0
    precious = 0
    for card in cards_of(left):
        months |= _MONTH[card]
        if card.kind in (Kind.BRIGHT, Kind.ANIMAL):
            precious |= _MONTH[card]
    for card in cards_of(months & ~left):
        weights[card] *= factor * (_PRECIOUS_FACTOR if precious >> card & 1 else 1.0)
