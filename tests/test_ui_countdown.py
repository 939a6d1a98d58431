"""The turn limit as a person meets it: a countdown on the table and in plain mode, and, when it runs
out, the move the game made told as the game's ("Time's up: the game played X for you"), never as
"You play X". Time is Trio's autojump clock, so a 30-second limit takes no real time.

The runner is played here by hand, as it plays a turn limit: the decision runs under
``move_on_at(deadline)`` with ``deadline`` passed to ``choose``, and ``legal[0]`` is played for the
player when the deadline passes."""

from __future__ import annotations

import re
import threading

import pytest
import trio
import trio.testing
from test_ui_table import BACKGROUND, at_table, context, deal

from p2p_koikoi.app.plain_input import LineInput
from p2p_koikoi.app.plain_player import PlainPlayer
from p2p_koikoi.engine import AnyAction, Round
from p2p_koikoi.net.countdown import Countdown
from p2p_koikoi.session.events import Moves

LIMIT = 30.0


async def run_out_the_clock(player: object, view: Round, rnd: Round) -> AnyAction | None:
    """What the runner does under a turn limit: ask with a deadline, and play ``legal[0]`` when it passes;
    then tell the player what happened. Returns the person's answer, or None when the clock ran out."""
    legal = view.legal_actions()
    deadline = trio.current_time() + LIMIT
    answer: AnyAction | None = None
    with trio.move_on_at(deadline):
        answer = await player.choose(view, legal, context(), deadline=deadline)  # type: ignore[attr-defined]
    events = rnd.apply(answer if answer is not None else legal[0])
    await player.notify([Moves(None, tuple(events))])  # type: ignore[attr-defined]
    return answer


@pytest.fixture
def autojump() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def test_the_table_counts_down_and_tells_the_games_move_as_the_games(autojump: trio.testing.MockClock) -> None:
    rnd = deal(dealer=0)
    view = rnd.view(0)
    played = view.legal_actions()[0]
    async with at_table() as (player, screen, _keys):
        shown: list[str] = []

        async def watch() -> None:
            while True:
                await trio.sleep(1)
                shown.append(screen.text)

        BACKGROUND[player].start_soon(watch)
        assert await run_out_the_clock(player, view, rnd) is None
        await player.settle()
        after = screen.text
    countdown = [int(s.splitlines()[-1].split()[0]) for s in shown if " s to choose · " in s]
    assert countdown[0] >= 29 and min(countdown) <= 2 and countdown == sorted(countdown, reverse=True), countdown
    assert "Time's up: the game played " + played.card.display_name + " for you" in after  # type: ignore[union-attr]
    assert "You play" not in after
    assert " s to choose" not in after


async def test_no_countdown_without_a_turn_limit() -> None:
    rnd = deal(dealer=0)
    view = rnd.view(0)
    async with at_table() as (player, screen, keys):
        BACKGROUND[player].start_soon(lambda: player.choose(view, view.legal_actions(), context()))
        text = await screen.shows("play that card")
        assert " s to choose" not in text
        await keys.send("1")


class Silent:
    """Standard input of a person who never answers: readline blocks until the test ends."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def readline(self) -> str:
        self.done.wait()
        return ""


async def test_plain_mode_counts_down_and_tells_the_games_move_as_the_games(autojump: trio.testing.MockClock) -> None:
    rnd = deal(dealer=0)
    view = rnd.view(0)
    played = view.legal_actions()[0]
    said: list[str] = []
    stdin = Silent()
    player = PlainPlayer(0, write=said.append, lines=LineInput(stdin.readline, said.append), them="Bot")
    try:
        assert await run_out_the_clock(player, view, rnd) is None
    finally:
        stdin.done.set()
    text = "\n".join(said)
    assert "Your turn: 30 seconds to choose, then the game plays for you." in text
    assert "10 seconds left to choose." in text
    assert f"Time's up: the game played {played.card.display_name} for you" in text  # type: ignore[union-attr]
    assert "You play" not in text


async def test_plain_mode_answered_in_time_is_the_persons_move() -> None:  # real time: lines come from a thread
    rnd = deal(dealer=0)
    view = rnd.view(0)
    said: list[str] = []
    lines = iter(["\n", "2\n"])  # an empty line asks again
    player = PlainPlayer(0, write=said.append, lines=LineInput(lambda: next(lines, ""), said.append), them="Bot")
    answer = await run_out_the_clock(player, view, rnd)
    assert answer == view.legal_actions()[1]
    text = "\n".join(said)
    assert "You play" in text and "Time's up" not in text


async def test_connection_lost_counts_its_seconds_down_on_the_table(autojump: trio.testing.MockClock) -> None:
    """Issue 28 item 13: "Connection lost, retrying (58 s)..." still said 58 at 3, 8, 30 and 55 s. The
    runner says the line once (a Countdown); the table says the seconds left each time it redraws."""
    rnd = deal(dealer=1)
    async with at_table() as (player, screen, _keys):
        player.in_match = True
        player.see(rnd.view(0))  # the opponent is to move: the table waits, spinner on
        await player.settle()
        now = trio.current_time()
        player.say(Countdown("Connection lost, retrying ({seconds} s)...", now + 58, now))
        shown: list[int] = []
        for _ in range(62):
            await trio.sleep(1)
            waiting = screen.text.splitlines()[-2]  # the spinner's line (the log keeps the line as said)
            found = re.search(r"Connection lost, retrying \((\d+) s\)\.\.\.", waiting)
            if found:
                shown.append(int(found.group(1)))
    assert shown[0] >= 56 and shown[-1] == 0, shown
    assert shown == sorted(shown, reverse=True) and len(set(shown)) > 50, shown
