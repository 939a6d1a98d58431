"""Options shared by ``koikoi host`` and ``koikoi join``, and how their result is printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.app.closing import record_lines
from p2p_koikoi.cli.common import fail

if TYPE_CHECKING:
    from p2p_koikoi.app.netplay import NetMatchResult
    from p2p_koikoi.net.runner import Player

BotOption = Annotated[
    str | None, typer.Option("--bot", help="Let a built-in agent play this seat (random, greedy, strong[:level]).")
]
ReplayDirOption = Annotated[
    Path | None, typer.Option("--replay-dir", help="Where to save the match record (default: the user data dir).")
]
SeedOption = Annotated[int | None, typer.Option(help="Seed for the bot.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the outcome.")]


def print_result(result: NetMatchResult) -> int:
    """The closing lines of a networked match; returns the exit code."""
    report = result.report
    for note in result.notes:
        typer.echo(note, err=True)
    if report is None:
        return 1
    for line in record_lines(result.record, finished=report.ended_by == "match-over"):
        typer.echo(line)
    typer.echo(f"Sent {report.bytes_sent} bytes, received {report.bytes_received}, {report.entries} entries.")
    if report.ended_by == "match-over":
        return 0
    typer.echo(f"koikoi: the match did not finish: {report.text}", err=True)
    return 1


class Seat:
    """Who plays our seat in host, join and resume: a bot from ``--bot``, or a person at plain lines
    (the table is seated by the commands themselves, which need a terminal)."""

    def __init__(self, bot: str | None, seed: int | None, quiet: bool, *, assume_yes: bool = False) -> None:
        import random

        from p2p_koikoi.app.plain_player import stderr_write
        from p2p_koikoi.bots.registry import UnknownBotError, make_agent

        self.say: Callable[[str], None] = (lambda line: None) if quiet else stderr_write
        self._quiet = quiet
        self._assume_yes = assume_yes
        try:
            self.agent = make_agent(bot, seed if seed is not None else random.randrange(2**31)) if bot else None
        except UnknownBotError as exc:
            raise fail(str(exc)) from None

    def player_for(self, seat: int) -> Player:
        from p2p_koikoi.app.plain_player import PlainPlayer
        from p2p_koikoi.app.players import BotPlayer

        if self.agent is not None:
            return BotPlayer(self.agent, seat, None if self._quiet else self.say)
        return PlainPlayer(seat, write=self.say, assume_yes=self._assume_yes)

    async def confirm(self, question: str) -> bool:
        """A yes/no question for the person; a bot never trusts a changed key."""
        import trio

        if self.agent is not None:
            return False
        answer = await trio.to_thread.run_sync(input, f"{question} [y/N] ")
        return answer.strip().lower() in ("y", "yes")
