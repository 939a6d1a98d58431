"""The table's question of another match (issue 29 item 1), without a terminal: frames to a recorder, keys
from a channel. ``r`` at the end screen is a yes, and the screen then waits for the opponent's answer; the
next match clears the table and keeps the last one's screen for the summary; Enter is a no and the end
screen is not shown again; a question called off (the opponent's no, the time running out) leaves the end
screen up, saying why in one line, with no ``r`` on offer. The seconds left are counted down, and a narrow
window keeps both keys and the seconds."""

from __future__ import annotations

from pathlib import Path

import trio

from p2p_koikoi.net.rematch import Verdict
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.ui.render import render, screen_text
from p2p_koikoi.ui.state import TableState
from tests.test_ui_table import BACKGROUND, at_table

RECORD = Path("/tmp/some-record.koikoi")


async def test_r_is_a_yes_then_the_next_match_clears_the_table() -> None:
    async with at_table() as (player, screen, keys):
        answers: list[bool] = []

        async def ask() -> None:
            answers.append(await player.again(RECORD))

        BACKGROUND[player].start_soon(ask)
        text = await screen.shows("s to answer")
        assert "Match over" in text and "r: play again · Enter: leave · " in text
        await keys.send("r")
        text = await screen.shows("waiting for Bot to answer…")
        assert answers == [True] and "r: play again" not in text
        assert player.for_match(0) is player
        assert len(player.earlier) == 1 and player.earlier[0].record == RECORD
        assert not player.state.final and any("both wanted another" in line for line in player.state.log)
        assert player.state.names == player.earlier[0].names and player.state.rules is not None


async def test_enter_is_a_no_and_the_end_screen_is_not_shown_again() -> None:
    async with at_table() as (player, screen, keys):
        answers: list[bool] = []

        async def ask() -> None:
            answers.append(await player.again(RECORD))

        BACKGROUND[player].start_soon(ask)
        await screen.shows("s to answer")
        await keys.send("enter")
        with trio.fail_after(5):
            while not answers:
                await trio.sleep(0.01)
            await player.finish(RECORD, ended_by=SessionEnd.MATCH_OVER, notes=[Verdict.WE_DECLINED.line])
        assert answers == [False]


async def test_a_question_called_off_leaves_the_end_screen_saying_why() -> None:
    async with at_table() as (player, screen, keys):
        with trio.move_on_after(0.2):  # the opponent's no, or the time out: the question is called off
            await player.again(RECORD)
        done = trio.Event()

        async def finish() -> None:
            await player.finish(RECORD, ended_by=SessionEnd.MATCH_OVER, notes=[Verdict.TIMED_OUT.line])
            done.set()

        BACKGROUND[player].start_soon(finish)
        text = await screen.shows(Verdict.TIMED_OUT.line[:40])
        assert "Enter: leave" in text and "r: play again" not in text and "s to answer" not in text
        await keys.send("r")  # no longer on offer
        await keys.send("enter")
        with trio.fail_after(5):
            await done.wait()
        assert player.rematch is False and not player.earlier


def test_a_narrow_end_screen_keeps_both_keys_and_the_seconds() -> None:
    state = TableState(names=("You", "Bot"), final=True, rematch_offered=True, time_left=27, record=RECORD)
    for width, height in ((80, 24), (60, 20), (40, 12)):
        last = screen_text(render(state, width, height)).rstrip().splitlines()[-1]
        assert "r:" in last and "Enter: leave" in last and "27 s" in last, (width, last)
    state.rematch_offered, state.time_left, state.answer_awaited = False, None, True
    assert "waiting for Bot to answer…" in screen_text(render(state, 40, 12))
