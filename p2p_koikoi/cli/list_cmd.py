"""``koikoi list``: your recent matches, numbered for ``replay``, ``verify`` and ``resume``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import one_line_errors


@one_line_errors
def list_(
    count: Annotated[
        int, typer.Option("--count", "-n", help="How many of the newest matches to show.", **ranged(1, 10_000))
    ] = 10,
    replay_dir: Annotated[
        Path | None, typer.Option("--replay-dir", help="The folder of records (default: the user data dir).")
    ] = None,
) -> None:
    """List your recent matches: date, opponent, rules, result and verdict, the newest first."""
    from p2p_koikoi.app.closing import koikoi_command
    from p2p_koikoi.app.listing import list_records
    from p2p_koikoi.app.netplay import replay_dir as folder_of

    listed = list_records(replay_dir, count)
    command = koikoi_command()
    if not listed:
        typer.echo(f"No matches yet in {folder_of(replay_dir)}. Play one with: {command} play")
        return
    for item in listed:
        resume = "  (resumable)" if item.resumable and " resume " not in item.result else ""
        typer.echo(
            f"{item.number:>3}. {item.date}  {item.opponent}  {item.rules}  {item.result}  [{item.verdict}]{resume}"
        )
    typer.echo("")
    typer.echo(f"Records are in {folder_of(replay_dir)}")
    typer.echo(f"Use a number or `last`: {command} replay last, {command} verify 2, {command} resume 1")
