"""Play a match in one process, with no network: the self-play demo, tests and (later) the arena.

Cards are shuffled by a seeded generator of ours; that is fine here because
both seats are our own agents. A match between two people uses the fair-deal
protocol instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import (
    CHANCE,
    Card,
    Deal,
    Event,
    IllegalActionError,
    Match,
    MatchPhase,
    Round,
    RoundResult,
    RuleId,
    RuleSet,
    first_dealer_by_draw,
)
from p2p_koikoi.engine.rules import FirstDealer

EventSink = Callable[[Round, list[Event]], None]
RoundSink = Callable[[Round], None]
ResultSink = Callable[[Match, RoundResult], None]


def choose_first_dealer(rules: RuleSet, rng: random.Random) -> int:
    """A coin flip, or each seat turning over a card until the draw decides, as the rules say."""
    if rules.first_dealer is FirstDealer.COIN:
        return rng.randrange(2)
    while True:
        a, b = rng.sample(range(48), 2)
        seat = first_dealer_by_draw(rules.first_dealer, Card(a), Card(b))
        if seat is not None:
            return seat


def play_round(rnd: Round, agents: tuple[Agent, Agent], match: Match, on_events: EventSink | None = None) -> None:
    """Drive one round to its end, each agent seeing only its own view."""
    while not rnd.over:
        seat = rnd.to_act
        if seat == CHANCE:
            events = rnd.apply(rnd.legal_actions()[0])
        else:
            view = rnd.view(seat)
            legal = view.legal_actions()
            context = MatchContext(match.rules, seat, (match.points[0], match.points[1]), match.round_number)
            while True:
                action = agents[seat].choose(view, legal, context)
                try:
                    events = rnd.apply(action, seat)
                    break
                except IllegalActionError as exc:
                    # Only a Hiki declaration (a fact the view could not show) may refuse a view-legal move.
                    if exc.rule is not RuleId.GAJI_BLOCKED_BY_HIKI or action not in legal or len(legal) < 2:
                        raise
                    legal = [a for a in legal if a != action]
        if on_events is not None:
            on_events(rnd, events)


def play_local_match(
    rules: RuleSet,
    agents: tuple[Agent, Agent],
    rng: random.Random,
    *,
    on_events: EventSink | None = None,
    on_result: ResultSink | None = None,
    on_round: RoundSink | None = None,
) -> Match:
    """A whole match; the deck of each round comes from ``rng``.

    ``on_round`` gets each round as it is dealt, before its first move (the
    round is then played in place): a bench that must see the real cards at
    every move, the first one included, holds on to it.
    """
    match = Match(rules)
    match.set_first_dealer(choose_first_dealer(rules, rng))
    while match.phase is not MatchPhase.OVER:
        deck = list(range(48))
        rng.shuffle(deck)
        assert match.dealer is not None
        rnd = match.start_round(Deal.from_deck(deck, rules.deal_pattern, match.dealer))
        if on_round is not None:
            on_round(rnd)
        play_round(rnd, agents, match, on_events)
        result = match.finish_round()
        if on_result is not None:
            on_result(match, result)
    return match
