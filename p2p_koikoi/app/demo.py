"""The self-play demo: two built-in agents play a whole match, told in words."""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import CHANCE, Event, Match, Round, RoundResult, RuleSet
from p2p_koikoi.engine.cards import format_cards

Write = Callable[[str], None]


def seat_name(seat: int) -> str:
    return f"Player {seat + 1}"


def run_demo(rules: RuleSet, seed: int, write: Write) -> Match:
    """Play a match between two seeded random agents and tell it through ``write``."""
    rng = random.Random(seed)
    agents = (RandomAgent(rng.randrange(2**32)), RandomAgent(rng.randrange(2**32)))
    write(f"Self-play demo: {rules.format()}, {rules.rounds} rounds, seed {seed}")
    started: set[int] = set()

    def on_events(rnd: Round, events: list[Event]) -> None:
        if id(rnd) not in started:
            started.add(id(rnd))
            write("")
            write(f"-- {seat_name(rnd.dealer)} deals. Table: {format_cards(rnd.table)}")
        for event in events:
            who = "" if event.seat == CHANCE else seat_name(event.seat) + " "
            if event.kind == "round-over":
                write(f"   Round over: {event.text}.")
            elif event.kind == "yaku":
                made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in event.yaku)
                write(f"   {who}has {made}")
            elif event.kind != "hand-yaku" or event.yaku:
                write(f"   {who}{event.text}")

    def on_result(match: Match, result: RoundResult) -> None:
        outcome = result.outcome
        if outcome.winner is None:
            write(f"   {outcome.kind.value}: nobody scores.")
        elif result.score is not None:
            write(f"   {seat_name(outcome.winner)} wins the round:")
            for line in result.score.lines():
                write(f"   {line}")
        write(
            f"   Round {result.number} over. Points: {seat_name(0)} {match.points[0]}, {seat_name(1)} {match.points[1]}"
        )

    match = play_local_match(rules, agents, rng, on_events=on_events, on_result=on_result)
    outcome = match.outcome
    assert outcome is not None
    write("")
    winner = "a drawn match" if outcome.winner is None else f"{seat_name(outcome.winner)} wins the match"
    write(f"Match over ({outcome.termination.value}): {winner}, {outcome.points[0]} to {outcome.points[1]}.")
    return match
