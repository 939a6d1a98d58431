"""The sample matches in ``replays/``: what each shows, verified in parallel; the replay built from them,
its plain text and its keys."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.app.replay import load_replay
from p2p_koikoi.engine import PRESETS
from p2p_koikoi.ui.replay_view import Cursor, plain_lines, render_step

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


@pytest.fixture(scope="module")
def reports() -> dict[str, object]:
    return {Path(r.path).stem: r for r in verify_paths([REPLAYS], jobs=2)}


def test_there_is_a_sample_per_preset_and_each_verifies(reports: dict) -> None:  # type: ignore[type-arg]
    for name in PRESETS:
        report = reports[name]
        assert report.verdict == "verified", (name, report.finding)
        assert report.rules.split()[0] == name
        assert report.ending.how == "finished" and len(report.rounds) >= 3


def test_the_cheat_sample_is_caught_by_the_verifier_as_the_honest_player_caught_it(reports: dict) -> None:  # type: ignore[type-arg]
    report = reports["cheat-stacked-deck"]
    assert report.verdict == "failed"
    finding = report.finding
    assert (finding.reason, finding.blame) == ("bad-shuffle-proof", 0)  # on the stacked deck's own entry
    assert finding.entry == report.entries - 2  # the last entry before the guest's goodbye
    assert report.writer_seat == 1
    (note,) = report.notes
    assert (note.note.reason, note.note.blame, note.agrees) == ("bad-shuffle-proof", 0, True)


def test_the_crash_sample_verifies_up_to_its_end_and_says_it_is_incomplete(reports: dict) -> None:  # type: ignore[type-arg]
    report = reports["crash-killed-guest"]
    assert report.verdict == "incomplete"
    assert report.finding.reason == "incomplete" and report.finding.entry == report.entries
    assert report.next_writer in (0, 1)
    assert len(report.rounds) >= 1


def test_the_replay_shows_every_card_once_the_secrets_are_out_and_words_for_every_action() -> None:
    replay = load_replay(REPLAYS / "nintendo.koikoi")
    assert replay.report is not None and replay.report.verdict == "verified"
    text = "\n".join(plain_lines(replay))
    assert "Each drew a card" in text and "deals first" in text
    assert "(every card face up)" in text and "Stock: 24 left: " in text
    assert " plays " in text and " draws " in text and "Points: Host" in text
    assert all(step.board.hidden == (0, 0) for step in replay.steps)
    counts = [r for r in replay.rounds if r.played.result is not None]
    assert all(any("payment" in line or "Nobody" in line or "dealt again" in line for line in r.count) for r in counts)


def test_a_round_cut_short_is_replayed_with_what_was_known() -> None:
    replay = load_replay(REPLAYS / "crash-killed-guest.koikoi")
    last = replay.rounds[-1]
    assert last.played.deal is None
    board = replay.steps[last.first_step].board
    assert board.hidden == (8, 8) and all(card is None for card in board.stock)
    assert "order unknown" in "\n".join(plain_lines(replay))


def test_keys_move_through_steps_and_rounds() -> None:
    replay = load_replay(REPLAYS / "lemme.koikoi")
    cursor = Cursor(replay)
    assert cursor.press("n") and cursor.index == 1
    cursor.press("left")
    assert cursor.index == 0
    cursor.press("]")
    assert cursor.index == replay.rounds[1].first_step
    cursor.press("[")
    assert cursor.index == 0
    cursor.press("3")
    assert replay.rounds[replay.round_of(cursor.index)].played.number == 3
    cursor.press("e")
    assert cursor.index == len(replay.steps) - 1
    cursor.press("n")
    assert cursor.index == len(replay.steps) - 1
    cursor.press("s")
    assert cursor.index == 0
    assert not cursor.press("q")


def test_a_step_renders_the_board_and_the_story() -> None:
    replay = load_replay(REPLAYS / "gameweave.koikoi")
    console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
    console.print(render_step(replay, 5))
    screen = console.export_text()
    assert "Table" in screen and "Stock" in screen and "what happened" in screen
    assert "Round 1" in screen and "step 6/" in screen
