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
from p2p_koikoi.app.replay import load_replay
from p2p_koikoi.app.words import how_auto_stop, how_match_ended, how_round_ended, reason_words
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import PRESETS, Event, OutcomeKind, Round, RoundOutcome, RoundResult, Termination
from p2p_koikoi.session.events import Failed, MatchOver, Moves, RoundScored, SessionEvent
from p2p_koikoi.ui.panels import final_screen, round_end_panel
from p2p_koikoi.ui.render import render, screen_text
from p2p_koikoi.ui.replay_view import plain_lines
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
    (re.compile(r"a rise on|ends it by the rules|by the rules\b"), "words a newcomer could not parse (issue 28)"),
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
    check(ending_words(Failed(None, "illegal-move:card-not-in-hand: bad"), "Bot"))
    check("\n".join(event_lines([Failed(None, "illegal-move:card-not-in-hand: bad")], 0)))


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
            session: list[SessionEvent] = [Moves(None, tuple(e)) for e in told]
            session += [RoundScored(r) for r in match.results]
            session.append(MatchOver(match.outcome))
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


def test_a_round_ended_by_a_yaku_says_why_it_ended() -> None:
    """Issue 28 item 15: "a rise on the last card stops the round" and "a yaku that ends it by the rules"
    said why in words a newcomer could not parse; each of the two causes is now said as what happened."""
    nintendo, lemme = PRESETS["nintendo"], PRESETS["lemme"]
    after_call = RoundOutcome(OutcomeKind.AUTO_STOP, 1, (), (1, 0), 1, True)
    last_card = RoundOutcome(OutcomeKind.AUTO_STOP, 1, (), (0, 0), 1, True)
    assert how_auto_stop(after_call, nintendo) == "a yaku after a Koi-Koi (these rules end the round there)"
    assert how_auto_stop(last_card, nintendo) == "a yaku on the last card in hand (no Koi-Koi without cards to play on)"
    assert how_auto_stop(after_call, lemme) == how_auto_stop(last_card, lemme)  # lemme's rules never stop at a call
    state = TableState(seat=0, names=("You", "Bot"), rules=nintendo)
    state.round_end = RoundEnd(RoundResult(2, 0, 0, last_card, last_card.score(nintendo), (0, 6)), (0, 0))
    for width in (80, 40):  # the panel wraps the line: every word of it on screen
        panel = " ".join(screen_text(round_end_panel(state, width)).split())
        assert "Bot wins the round with a yaku on the last card in hand (no Koi-Koi without cards to play on)" in panel


def _outcome_said(lines: list[str]) -> re.Match[str] | None:
    return next(
        (
            m
            for line in lines
            if (m := re.search(r"(host|guest|you|bot) wins?,? .*?(\d+) to (\d+)", line, re.IGNORECASE))
        ),
        None,
    )


@pytest.mark.parametrize("sample", ["ending-quit.koikoi", "lemme.koikoi", "nintendo.koikoi", "qdan.koikoi"])
def test_verify_and_replay_say_the_winners_points_first(sample: str) -> None:
    """Issue 28 item 15: verify said "the guest wins, 5 to 33", the loser's points first."""
    report = verify_file(SAMPLES / sample)
    assert report.ending is not None and report.ending.outcome is not None
    outcome = report.ending.outcome
    assert outcome.winner is not None
    winners, losers = outcome.points[outcome.winner], outcome.points[1 - outcome.winner]
    for lines in (render_text(report), plain_lines(load_replay(SAMPLES / sample))):
        said = _outcome_said(lines)
        assert said is not None, lines
        assert (int(said.group(2)), int(said.group(3))) == (winners, losers), said.group(0)


def test_replay_names_the_seat_that_was_to_write_as_verify_does() -> None:
    """Issue 28 item 15: replay said "seat 0 was to write it" where verify says "the host was to write it"."""
    sample = SAMPLES / "crash-killed-guest.koikoi"
    told = plain_lines(load_replay(sample))
    assert any("the host was to write it" in line for line in told), told[:3]
    assert any("the host was to write it" in line for line in render_text(verify_file(sample)))
    check("\n".join(told))
