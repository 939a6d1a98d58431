"""The one narrator tells an engine event from its fields alone, and says what the engine's words say.

Whole matches of every preset are played; every event the engine reports is told by
:func:`p2p_koikoi.app.narrator.says`, which never reads the event's ``text``: in the third person it says
exactly that text (but for a yaku made, which it names, and the round's end, whose reason it passes on),
and in the second person the same with every verb that opens a clause in the second person.
"""

from __future__ import annotations

import random

import pytest

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.app.narrator import DECISIONS, Person, Tense, for_you, says, verb
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, Event, EventKind, Round

_THIRD = {"play": "plays", "draw": "draws", "take": "takes", "call": "calls", "have": "has", "show": "shows"}
_THIRD |= {"exchange": "exchanges", "keep": "keeps"}


def _events(name: str, seeds: range) -> list[Event]:
    told: list[Event] = []

    def keep(_rnd: Round, events: list[Event]) -> None:
        told.extend(events)

    rules = PRESETS[name].with_option("rounds", "6")
    for seed in seeds:
        play_local_match(rules, (RandomAgent(seed), RandomAgent(seed + 5)), random.Random(seed), on_events=keep)
    return told


def _to_third(predicate: str) -> str:
    clauses = []
    for clause in predicate.split(", "):
        word, _, rest = clause.partition(" ")
        clauses.append(f"{_THIRD.get(word, word)} {rest}".rstrip())
    return ", ".join(clauses)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_narrator_says_what_the_engine_says_from_the_fields_alone(name: str) -> None:
    events = _events(name, range(3))
    kinds = {e.kind for e in events}
    assert {EventKind.PLAY, EventKind.DRAW, EventKind.YAKU, EventKind.ROUND_OVER} <= kinds
    for event in events:
        blank = Event(**{f: getattr(event, f) for f in Event.__slots__ if f != "text"})  # type: ignore[arg-type]
        if event.kind is EventKind.ROUND_OVER:
            assert says(event) == event.text
            continue
        told = says(blank)  # the text is not there to read
        if event.kind is EventKind.YAKU:
            assert all(f"{y.yaku.display_name} {y.points} point" in told for y in event.yaku), told
            assert event.count >= max(y.points for y in event.yaku)
            continue
        assert told == event.text
        assert _to_third(says(blank, Person.YOU)) == event.text
        if event.kind in DECISIONS:
            assert for_you(blank).startswith("Time's up: the game ") and " for you" in for_you(blank)


def test_the_forms_of_a_verb() -> None:
    assert [verb("take", Person.YOU), verb("take", Person.THEY), verb("take", Person.YOU, Tense.PAST)] == [
        "take",
        "takes",
        "took",
    ]
