"""A fast, plausible playout of the rest of a round in a full world: the search bot's leaf evaluation.

Uniformly random play makes a poor model of an opponent (it throws away
brights and ignores yaku a move away), so a rollout plays each seat by the
cheap judgement of :mod:`~p2p_koikoi.bots.heuristics`: the capture worth most,
or the discard worth least, with a small chance of a uniformly random card so
that the rollouts of one position differ. A rise stops by the simple Koi-Koi
rule of the greedy bot.

Speed matters more than anything else here (the search runs hundreds of these
per decision), so, like :func:`p2p_koikoi.engine.playout.random_playout`, the
loop drives the engine's own core steps (``_do_play``, ``_do_draw``,
``_do_choose``, ``_do_decide``) with moves it picked from the legal ones,
instead of the checked :meth:`Round.apply` with its events; the rules stay
written once, in the engine. The Gaji and the phases before play are rare and
go through the checked path. ``record`` gives the moves as actions, so a test
can replay them through ``apply`` and check they were legal.
"""

from __future__ import annotations

import random

from p2p_koikoi.bots.heuristics import koikoi_pays
from p2p_koikoi.engine import (
    CHANCE,
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    Draw,
    Phase,
    Play,
    Round,
    RoundOutcome,
)

__all__ = ["Rollout"]

_CARDS: tuple[Card, ...] = tuple(Card)
_MONTH = tuple(0b1111 << (4 * (c >> 2)) for c in range(48))
_LIGHTNING_BIT = 1 << Card.WILLOW_LIGHTNING


class Rollout:
    """Plays worlds to the end of the round; ``worths[seat][card]`` is what a card is worth to that seat."""

    __slots__ = ("_epsilon", "_gaji", "_worths")

    def __init__(self, worths: tuple[list[float], list[float]], gaji: bool, epsilon: float = 0.1) -> None:
        self._worths = worths
        self._gaji = gaji
        self._epsilon = epsilon

    def play(
        self,
        world: Round,
        stock: list[int],
        rng: random.Random,
        record: list[tuple[int, AnyAction]] | None = None,
    ) -> RoundOutcome:
        """Play ``world`` (changed in place) to its end, drawing ``stock`` in order; return the outcome."""
        random_float = rng.random
        epsilon = self._epsilon
        worths = self._worths
        gaji = self._gaji
        drawn = 0
        while True:
            phase = world.phase
            if phase is Phase.DRAW:
                card = stock[drawn]
                drawn += 1
                if record is not None:
                    record.append((CHANCE, Draw(_CARDS[card])))
                world._do_draw(card, None)
            elif phase is Phase.PLAY and not (gaji and world.hands[world.turn] & _LIGHTNING_BIT):
                seat = world.turn
                explore = random_float() < epsilon
                card, taken = self._pick_play(world.hands[seat], world.table, worths[seat], explore, rng)
                if record is not None:
                    two = (world.table & _MONTH[card]).bit_count() == 2
                    record.append((seat, Play(_CARDS[card], _CARDS[taken.bit_length() - 1] if two else None)))
                world._do_play(seat, card, taken, False, None)
            elif phase is Phase.DRAW_CHOICE:
                pending = world.pending_draw
                assert pending is not None
                worth = worths[world.turn]
                low, high = _two_bits(world.table & _MONTH[pending])
                pick = high if worth[high] > worth[low] else low
                if record is not None:
                    record.append((world.turn, ChooseCapture(_CARDS[pick])))
                world._do_choose(pick, None)
            elif phase is Phase.DECISION:
                seat = world.to_act
                mine, theirs = world.captures[seat], world.captures[1 - seat]
                koikoi = koikoi_pays(world.rules, world.hand_size(seat), world.total(seat), mine, theirs)
                if record is not None:
                    record.append((seat, CallKoiKoi() if koikoi else CallStop()))
                world._do_decide(koikoi, None)
            elif phase is Phase.OVER:
                assert world.outcome is not None
                return world.outcome
            else:
                self._checked_step(world, rng, record)

    @staticmethod
    def _pick_play(hand: int, table: int, worth: list[float], explore: bool, rng: random.Random) -> tuple[int, int]:
        """The hand card to play and the table cards it takes: the best by worth, or (exploring) a random card."""
        if explore:
            n = rng.randrange(hand.bit_count())
            for _ in range(n):
                hand &= hand - 1
            card = (hand & -hand).bit_length() - 1
            return card, _best_take(table & _MONTH[card], worth)
        best_card, best_taken, best_value = -1, 0, -1e9
        while hand:
            low = hand & -hand
            hand ^= low
            card = low.bit_length() - 1
            taken = _best_take(table & _MONTH[card], worth)
            if taken:
                value = worth[card]
                t = taken
                while t:
                    tl = t & -t
                    value += worth[tl.bit_length() - 1]
                    t ^= tl
            else:
                value = -worth[card]
            if value > best_value:
                best_card, best_taken, best_value = card, taken, value
        return best_card, best_taken

    def _checked_step(self, world: Round, rng: random.Random, record: list[tuple[int, AnyAction]] | None) -> None:
        """A move by the checked path: a play holding the Gaji (ranked by worth), or a phase before play."""
        seat = world.to_act
        legal = world.legal_actions()
        if world.phase is Phase.PLAY and len(legal) > 1:
            worth = self._worths[seat]
            table = world.table

            def value(action: AnyAction) -> float:
                assert isinstance(action, Play)
                taken = action.target.bit if action.target is not None else table & _MONTH[action.card]
                if not taken:
                    return -worth[action.card]
                return worth[action.card] + sum(worth[c] for c in range(48) if taken >> c & 1)

            action = max(legal, key=value)
        else:
            action = legal[0]
        if record is not None:
            record.append((seat, action))
        world.apply(action)


def _two_bits(mask: int) -> tuple[int, int]:
    low = mask & -mask
    high = mask ^ low
    return low.bit_length() - 1, high.bit_length() - 1


def _best_take(matches: int, worth: list[float]) -> int:
    """What a card takes from its month's table cards: nothing, the one, all three, or the better of two."""
    if matches.bit_count() != 2:
        return matches
    low, high = _two_bits(matches)
    return 1 << (high if worth[high] > worth[low] else low)
