"""A fast, plausible playout of the rest of a round in a full world: the search bot's leaf evaluation.

Uniformly random play makes a poor model of an opponent (it throws away
brights and ignores yaku a move away), so a rollout plays each seat by the
cheap judgement of :mod:`~p2p_koikoi.bots.heuristics`: the capture worth most,
or the discard that costs least, with a small chance of a random card so that
the rollouts of one position differ.

A discard costs what the card is worth to the seat plus what it offers the
other seat: the card's worth to the other seat times the chance that a card of
its month is among those the discarding seat cannot see (the other hand and the
stock), which is the chance it is taken back at once (:data:`FEED`). The random
card never throws away a bright or an animal that takes nothing: a real player
does not, and rollouts that do make every discard look cheap.

A rise is decided by the simple Koi-Koi rule of the greedy bot, unless the
match decides it (:class:`MatchDecider`): a seat whose Shōbu would win the
match stops, and one whose Shōbu in the last round would still lose the match
calls Koi-Koi, since it has nothing to lose; that is how a real opponent plays
the last rounds, and how the search learns to fear it.

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
from p2p_koikoi.bots.match_value import MatchValue
from p2p_koikoi.engine import (
    ALL_CARDS,
    CHANCE,
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    Draw,
    Kind,
    Phase,
    Play,
    Round,
    RoundOutcome,
)

__all__ = ["FEED", "MatchDecider", "Rollout"]

_CARDS: tuple[Card, ...] = tuple(Card)
_MONTH = tuple(0b1111 << (4 * (c >> 2)) for c in range(48))
_LIGHTNING_BIT = 1 << Card.WILLOW_LIGHTNING
# Brights and animals: the cards an exploring rollout never throws away for nothing.
_PRECIOUS = sum(1 << c for c in range(48) if _CARDS[c].kind in (Kind.BRIGHT, Kind.ANIMAL))

# How much of a discard's worth to the other seat, weighed by the chance it is taken, counts against it.
FEED = 1.0


class MatchDecider:
    """Koi-Koi or Shōbu in a rollout, for either seat, by the match when it is clear and the simple rule otherwise.

    ``value`` is the searching seat's :class:`MatchValue`; the other seat's
    chance is its complement (a drawn match counts half to both).
    """

    __slots__ = ("_last", "_matters", "_seat", "_value")

    def __init__(self, value: MatchValue, seat: int) -> None:
        self._value = value
        self._seat = seat
        self._last = value.rounds_after == 0
        # Early in an even match one round cannot settle it: the simple rule then decides, with no scoring
        # to do (the check below costs a copy of the world, and rollouts meet a rise in most rounds).
        even = 0.05 < value.of_payment(None, 0) < 0.95
        self._matters = value.rounds_after <= 1 or not even

    def koikoi(self, world: Round, seat: int) -> bool:
        if not self._matters:
            return _simple_koikoi(world, seat)
        if not world.hand_size(seat):
            return False
        stop = world.copy()
        stop._do_decide(False, None)
        assert stop.outcome is not None
        chance = self._value.of_outcome(stop.outcome)
        if seat != self._seat:
            chance = 1.0 - chance
        if chance >= 0.99:
            return False  # the Shōbu all but wins the match: take it
        if self._last or chance <= 0.01:
            return True  # the Shōbu loses the match anyway: only more points can save it
        return _simple_koikoi(world, seat)


def _simple_koikoi(world: Round, seat: int) -> bool:
    mine, theirs = world.captures[seat], world.captures[1 - seat]
    return koikoi_pays(world.rules, world.hand_size(seat), world.total(seat), mine, theirs)


class Rollout:
    """Plays worlds to the end of the round; ``worths[seat][card]`` is what a card is worth to that seat."""

    __slots__ = ("_decider", "_epsilon", "_gaji", "_worths")

    def __init__(
        self,
        worths: tuple[list[float], list[float]],
        gaji: bool,
        epsilon: float = 0.1,
        decider: MatchDecider | None = None,
    ) -> None:
        self._worths = worths
        self._gaji = gaji
        self._epsilon = epsilon
        self._decider = decider

    @property
    def worths(self) -> tuple[list[float], list[float]]:
        return self._worths

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
                card, taken = self.pick_play(world, seat, explore, rng)
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
                decider = self._decider
                koikoi = decider.koikoi(world, seat) if decider is not None else _simple_koikoi(world, seat)
                if record is not None:
                    record.append((seat, CallKoiKoi() if koikoi else CallStop()))
                world._do_decide(koikoi, None)
            elif phase is Phase.OVER:
                assert world.outcome is not None
                return world.outcome
            else:
                self._checked_step(world, rng, record)

    def pick_play(self, world: Round, seat: int, explore: bool, rng: random.Random) -> tuple[int, int]:
        """The hand card to play and the table cards it takes: the best by worth, or (exploring) a random card."""
        hand, table = world.hands[seat], world.table
        worth = self._worths[seat]
        if explore:
            pick = hand
            for _ in range(rng.randrange(hand.bit_count())):
                pick &= pick - 1
            card = (pick & -pick).bit_length() - 1
            taken = _best_take(table & _MONTH[card], worth)
            if taken or not (_PRECIOUS >> card & 1):
                return card, taken
        # What this seat cannot see: the other hand and the stock (the world knows them; the seat does not).
        other = 1 - seat
        unseen = ALL_CARDS & ~(table | world.captures[0] | world.captures[1] | hand)
        takers = world.hand_size(other) + 1  # the other seat's hand, and the draw after its play
        feed = FEED * min(1.0, takers / unseen.bit_count()) if unseen else 0.0
        their = self._worths[other]
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
                value = -worth[card] - min(1.0, feed * (unseen & _MONTH[card]).bit_count()) * their[card]
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
