"""Every fixed string a person reads, rendered and checked: no internal id (``rounds-played``, ``no-game``,
``illegal-move:card-not-in-hand``, a bare ``stop``), no ``seat N``, no ``1 points``, ``×`` only before a
multiplier. Whole matches under every preset are told through the plain lines, the table's log and
panels, and the closing summary; the sample records through ``koikoi verify``'s text."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.app.players import event_lines
from p2p_koikoi.app.records import verify_file
from p2p_koikoi.app.words import how_match_ended, how_round_ended, reason_words
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, Event, OutcomeKind, Round, Termination
from p2p_koikoi.session.match_session import SessionEvent
from p2p_koikoi.ui.panels import final_screen, round_end_panel
from p2p_koikoi.ui.render import render, screen_text
from p2p_koikoi.ui.state import RoundEnd, TableState
from p2p_koikoi.ui.telling import Teller, ending_words
from p2p_koikoi.ui.verify_view import render_text

SAMPLES = Path(__file__).resolve().parent.parent / "replays"

IDS = sorted({k.value for k in OutcomeKind if "-" in k.value} | {t.value for t in Termination if "-" in t.value})
BAD = [
    (re.compile(r"\b(" + "|".join(map(re.escape, IDS)) + r")\b"), "an outcome id"),
    (re.compile(r"\b[a-z]+(-[a-z]+)*:[a-z]+-[a-z-]+\b"), "a finding id"),
    (re.compile(r"\((stop|drawn|redeal|forfeit)\)"), "a bare outcome id"),
    (re.compile(r"\bseat \d"), "a seat number"),
    (re.compile(r"(?<![\d.])1 points\b|\b1 (cards|seconds|times)\b"), "a wrong plural"),
    (re.compile(r"×(?!\d)"), "× that is not a multiplier"),
]


def check(text: str) -> None:
    for pattern, what in BAD:
        found = pattern.search(text)
        assert found is None, f"{what} on screen: {found.group(0)!r} in\n{text}"


def test_every_outcome_and_ending_has_words() -> None:
    for kind in OutcomeKind:
        check(how_round_ended(kind))
    for termination in Termination:
        check(how_match_ended(termination))
    text = reason_words("illegal-move:card-not-in-hand: the guest played pine-crane")
    assert text == "illegal move (a card that was not in the hand): the guest played pine-crane"
    check(ending_words(SessionEvent("failed", text="illegal-move:card-not-in-hand: bad"), "Bot"))
    check("\n".join(event_lines([SessionEvent("failed", text="illegal-move:card-not-in-hand: bad")], 0)))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_whole_matches_are_told_in_words(name: str) -> None:
    rules = PRESETS[name].with_option("rounds", "6")
    for seed in range(3):
        told: list[list[Event]] = []
        match = play_local_match(
            rules, (RandomAgent(seed), RandomAgent(seed + 9)), random.Random(seed), on_events=_keep(told)
        )
        for seat in (0, 1):
            names = ("You", "Bot") if seat == 0 else ("Bot", "You")
            log: list[str] = []
            teller = Teller(log, names, seat)
            for events in told:
                for event in events:
                    teller.move(event)
            session = [SessionEvent("moves", events=tuple(e)) for e in told]
            session += [SessionEvent("result", result=r) for r in match.results]
            session.append(SessionEvent("over", outcome=match.outcome))
            check("\n".join(log + event_lines(session, seat, "Bot")))
            state = TableState(seat=seat, names=names, rules=rules, results=list(match.results))
            state.outcome = match.outcome
            for result in match.results:
                if result.outcome.kind is not OutcomeKind.REDEAL:
                    state.round_end = RoundEnd(result, (0, 0))
                    check(screen_text(round_end_panel(state, 80)))
            state.round_end = None
            state.final, state.record = True, Path("/tmp/a.koikoi")
            check(screen_text(final_screen(state, 80)))
            check(screen_text(render(state, 60, 20)))


def _keep(told: list[list[Event]]):  # type: ignore[no-untyped-def]
    def sink(rnd: Round, events: list[Event]) -> None:
        told.append(list(events))

    return sink


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.koikoi")))
def test_verify_tells_the_samples_in_words(sample: str) -> None:
    check("\n".join(render_text(verify_file(SAMPLES / sample))))
