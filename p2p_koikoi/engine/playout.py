"""Fast random playouts: a round played to its end by random choices, for search and benchmarks.

A playout drives the same core steps as :meth:`Round.apply` (so the rules are
written once), but skips what only a checked, told move needs: the legality
checks of choices it makes itself from the legal ones, action objects, events
and history. Pass ``record`` to get the moves as actions; replaying them through
``apply`` gives the same outcome, which the tests check.
"""

from __future__ import annotations

import random

from p2p_koikoi.engine.actions import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    ClaimHandYaku,
    Draw,
    PassHandYaku,
    Play,
)
from p2p_koikoi.engine.cards import Card
from p2p_koikoi.engine.errors import EngineError
from p2p_koikoi.engine.round import CHANCE, Phase, Round, RoundOutcome
from p2p_koikoi.engine.yaku import hand_yaku

__all__ = ["random_playout"]

_CARDS: tuple[Card, ...] = tuple(Card)
_LIGHTNING_BIT = 1 << Card.WILLOW_LIGHTNING
_MONTH = tuple(0b1111 << (4 * (c >> 2)) for c in range(48))


def _nth_bit(mask: int, n: int) -> int:
    """The index of the ``n``-th set bit of ``mask`` (0-based)."""
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def random_playout(
    rnd: Round,
    rng: random.Random,
    *,
    koikoi_rate: float = 0.5,
    record: list[tuple[int, AnyAction]] | None = None,
) -> RoundOutcome:
    """Play ``rnd`` (changed in place) to its end; every card must be known.

    Hand cards are chosen uniformly, then the table card uniformly when two
    match; a decision calls Koi-Koi with probability ``koikoi_rate``. Phases
    before play (exchange, hand yaku) and the rulebook's Gaji go through the
    checked path.
    """
    if rnd.hidden[0] or rnd.hidden[1] or rnd.unseen:
        raise EngineError("a playout needs every card known: determinise the view first")
    random_float = rng.random
    gaji = rnd.rules.gaji
    phase_play, phase_draw, phase_choice, phase_decision, phase_over, phase_hand_yaku = (
        Phase.PLAY,
        Phase.DRAW,
        Phase.DRAW_CHOICE,
        Phase.DECISION,
        Phase.OVER,
        Phase.HAND_YAKU,
    )
    stock = rnd._stock
    while True:
        phase = rnd.phase
        if phase is phase_draw:
            card = stock[rnd.stock_index]
            assert card is not None
            if record is not None:
                record.append((CHANCE, Draw(card)))
            rnd._do_draw(card, None)
        elif phase is phase_play and not (gaji and rnd.hands[rnd.turn] & _LIGHTNING_BIT):
            seat = rnd.turn
            hand = rnd.hands[seat]
            card_index = _nth_bit(hand, int(random_float() * hand.bit_count()))
            matches = rnd.table & _MONTH[card_index]
            if matches.bit_count() == 2:
                taken = 1 << _nth_bit(matches, int(random_float() * 2))
                target: Card | None = _CARDS[taken.bit_length() - 1]
            else:
                taken, target = matches, None
            if record is not None:
                record.append((seat, Play(_CARDS[card_index], target)))
            rnd._do_play(seat, card_index, taken, False, None)
        elif phase is phase_choice:
            pending = rnd._pending
            assert pending is not None
            target_index = _nth_bit(rnd.table & _MONTH[pending], int(random_float() * 2))
            if record is not None:
                record.append((rnd.turn, ChooseCapture(_CARDS[target_index])))
            rnd._do_choose(target_index, None)
        elif phase is phase_decision:
            koikoi = random_float() < koikoi_rate
            if record is not None:
                record.append((rnd.to_act, CallKoiKoi() if koikoi else CallStop()))
            rnd._do_decide(koikoi, None)
        elif phase is phase_hand_yaku:
            seat = rnd.to_act
            found = hand_yaku(rnd.hands[seat])
            claim: ClaimHandYaku | PassHandYaku = ClaimHandYaku(found.yaku, found.cards) if found else PassHandYaku()
            if record is not None:
                record.append((seat, claim))
            rnd._declare(seat, claim)
        elif phase is phase_over:
            assert rnd.outcome is not None
            return rnd.outcome
        else:
            legal = rnd.legal_actions()
            action = legal[int(random_float() * len(legal))]
            seat = rnd.to_act
            if record is not None:
                record.append((seat, action))
            rnd.apply(action)
