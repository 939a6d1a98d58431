"""Options shared by ``koikoi host`` and ``koikoi join``, and how their result is printed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from p2p_koikoi.app.netplay import NetMatchResult

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
    if result.record is not None:
        typer.echo(f"Record saved: {result.record}")
        typer.echo(f"Check it with: koikoi verify {result.record}")
    typer.echo(f"Sent {report.bytes_sent} bytes, received {report.bytes_received}, {report.entries} entries.")
    if report.ended_by == "match-over":
        return 0
    typer.echo(f"koikoi: the match did not finish: {report.text}", err=True)
    return 1
