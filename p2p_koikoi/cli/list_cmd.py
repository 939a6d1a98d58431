"""``koikoi list``: your recent matches, numbered for ``replay``, ``verify`` and ``resume``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import fail, one_line_errors

if TYPE_CHECKING:
    from p2p_koikoi.app.listing import Listed


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
    from p2p_koikoi.app.identity import replay_dir as folder_of
    from p2p_koikoi.app.listing import list_records

    if replay_dir is not None and not replay_dir.is_dir():  # a folder named by hand: a typo is not "no matches"
        what = "is a file, not a folder" if replay_dir.exists() else "does not exist"
        raise fail(f"--replay-dir {replay_dir} {what}: give the folder your records are in")
    listed = list_records(replay_dir, count)
    command = koikoi_command()
    if not listed:
        typer.echo(f"No matches yet in {folder_of(replay_dir)}. Play one with: {command} play")
        return
    for item in listed:
        resume = "  (resumable)" if item.resumable and not item.says_how_to_resume else ""
        typer.echo(
            f"{item.number:>3}. {item.date}  {item.opponent}  {item.rules}  {item.result}  [{item.verdict}]{resume}"
        )
    typer.echo("")
    typer.echo(f"Records are in {folder_of(replay_dir)}")
    typer.echo(f"Use a number or `last`: {', '.join(footer(listed, command))}")


def footer(listed: list[Listed], command: str) -> list[str]:
    """Commands that work on what is listed: verify names a number that is there, and resume only a match
    that can be taken up again (never a practice match, a finished one, or one whose secret is gone)."""
    shown = [f"{command} replay last", f"{command} verify {2 if len(listed) > 1 else 'last'}"]
    resumable = next((item.number for item in listed if item.resumable), None)
    if resumable is not None:
        shown.append(f"{command} resume {resumable}")
    return shown
