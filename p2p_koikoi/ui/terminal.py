"""The table in a real terminal: the alternate screen, cbreak keys, resizes, and the way out.

:func:`run_at_table` runs a use case (practice, host, join) with a :class:`TablePlayer` on
the terminal and puts everything back afterwards, whatever happens (an error, Ctrl-C): the
terminal mode, the main screen, the cursor. It then prints the match's outcome and table of
rounds on the ordinary screen, where they stay in the scrollback.

``KOIKOI_PAUSE`` sets the visible pauses (a drawn card on show, the opponent's play) in
seconds; 0.5 unless set. Tests and benchmarks make it short.
"""

from __future__ import annotations

import math
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

import trio
from rich.console import Console
from rich.live import Live
from rich.text import Text

from p2p_koikoi.app.closing import record_lines
from p2p_koikoi.app.netplay import NetMatchResult
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.session.match_session import SessionEnd
from p2p_koikoi.ui.keys import KeyReader, cbreak
from p2p_koikoi.ui.panels import match_summary
from p2p_koikoi.ui.state import TableState
from p2p_koikoi.ui.table_player import TablePlayer

__all__ = ["LiveScreen", "run_at_table", "terminal_pause"]

UseCase = Callable[[TablePlayer], Awaitable[NetMatchResult]]
# Endings the closing summary tells even when no round was played (a decline is not a match to sum up).
_TOLD = (SessionEnd.QUIT, SessionEnd.PEER_QUIT, SessionEnd.PEER_VANISHED, SessionEnd.PEER_CLAIMED, SessionEnd.ADJOURNED)


def terminal_pause() -> float:
    try:
        return max(0.0, float(os.environ.get("KOIKOI_PAUSE", "0.5")))
    except ValueError:
        return 0.5


class LiveScreen:
    """Frames on the terminal's alternate screen, drawn only when asked (no refresh thread)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._live = Live(
            console=console,
            screen=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def size(self) -> tuple[int, int]:
        width, height = self.console.size
        return width, height

    def draw(self, lines: list[Text]) -> None:
        frame = Text("\n").join(lines)
        frame.no_wrap = True
        frame.overflow = "crop"
        self._live.update(frame, refresh=True)

    def __enter__(self) -> LiveScreen:
        self._live.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._live.stop()


async def _redraw_on_resize(player: TablePlayer) -> None:
    with trio.open_signal_receiver(signal.SIGWINCH) as signals:
        async for _ in signals:
            player.redraw()


async def _until_left(use_case: UseCase, player: TablePlayer) -> NetMatchResult | None:
    """Run the use case; a person who leaves before the match has started (waiting for a guest,
    say) stops it at once, since there is no match to forfeit."""
    done: list[NetMatchResult] = []
    async with trio.open_nursery() as nursery:

        async def leave_early() -> None:
            await player.quit_requested.wait()
            if not player.in_match:
                nursery.cancel_scope.cancel()

        nursery.start_soon(leave_early)
        done.append(await use_case(player))
        nursery.cancel_scope.cancel()
    return done[0] if done else None


Played = list[tuple[NetMatchResult | None, TablePlayer]]


async def _at_table(use_case: UseCase, setting: dict[str, Any]) -> Played:
    """Run the use case at the table: its match, and any other its connection plays (the table's
    :meth:`~TablePlayer.again` and :meth:`~TablePlayer.for_match`), then the end screen."""
    console = Console(highlight=False)
    ascii_only = not (console.encoding or "").lower().startswith("utf")
    keys_in, keys_out = trio.open_memory_channel[str](math.inf)
    token = trio.lowlevel.current_trio_token()

    def deliver(key: str) -> None:
        trio.from_thread.run_sync(keys_in.send_nowait, key, trio_token=token)

    fd = sys.stdin.fileno()
    reader = KeyReader(deliver, fd)
    played: Played = []
    with cbreak(fd), LiveScreen(console) as screen:
        reader.start()
        try:
            player = TablePlayer(screen, pause=terminal_pause(), ascii_only=ascii_only, **setting)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(player.run, keys_out)
                nursery.start_soon(_redraw_on_resize, player)
                result = await _until_left(use_case, player)
                played.append((result, player))
                if result is not None and result.report is not None:
                    await player.finish(result.record, ended_by=result.report.ended_by, notes=result.notes)
                nursery.cancel_scope.cancel()
        finally:
            reader.stop()
    return played


def _plain_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error the command should see from the table's tasks: Ctrl-C as itself, and a use case's
    own error (the host unreachable, say) unwrapped from the nurseries around it."""
    if group.subgroup(KeyboardInterrupt) is not None:
        return KeyboardInterrupt()
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def run_at_table(
    use_case: UseCase,
    *,
    seat: int = 0,
    names: tuple[str, str] = ("You", "Opponent"),
    rules: RuleSet | None = None,
    waiting: str = "Connecting…",
    assume_yes: bool = False,
) -> NetMatchResult | None:
    """Run ``use_case`` at the terminal table, the person in ``seat``; None if they left before the
    match began. ``names`` are ours and the opponent's; ``waiting`` says what the screen waits for
    until the match starts. When the use case plays several matches on its connection (another match,
    ``r`` at the end screen), the last match's result is returned, and every match is summed up here."""
    setting = {"seat": seat, "names": names, "rules": rules, "waiting": waiting, "assume_yes": assume_yes}
    try:
        played = trio.run(_at_table, use_case, setting)
    except BaseExceptionGroup as group:
        raise _plain_error(group) from None
    console = Console(highlight=False, soft_wrap=True)
    width = min(console.size.width, 100)
    screens: list[tuple[TableState, NetMatchResult | None]] = []
    for result, player in played:  # the matches one connection played before each run's last, then that one
        screens += [(state, None) for state in player.earlier] + [(player.state, result)]
    for number, (state, result) in enumerate(screens, 1):
        if len(screens) > 1:
            console.print(f"Match {number} of {len(screens)}:", style="bold")
        if state.results or state.outcome is not None or state.ended or state.ended_by in _TOLD:
            for row in match_summary(state, width):
                console.print(row)
        if number < len(screens) and result is not None:  # the last one's lines are the command's to print
            for text in record_lines(result.record, finished=result.ok):
                console.print(text, markup=False, highlight=False)
    return played[-1][0]
