"""``koikoi history``: each opponent's results against you, from the records ``koikoi verify`` accepts."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import fail, one_line_errors


def _ascii() -> bool:
    """A terminal that cannot show the plot's blocks: ``TERM=dumb``, or output that is not UTF-8."""
    encoding = (sys.stdout.encoding or "").lower().replace("-", "")
    return os.environ.get("TERM", "") == "dumb" or not encoding.startswith("utf")


@one_line_errors
def history(
    who: Annotated[
        str | None,
        typer.Argument(metavar="[NAME|FINGERPRINT]", help="One opponent: your name for its key, or its fingerprint."),
    ] = None,
    ratings: Annotated[
        bool, typer.Option("--ratings", help="Add Glicko-2 ratings: yours and each opponent's.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print everything (ratings too) as one JSON object.")] = False,
    replay_dir: Annotated[
        Path | None, typer.Option("--replay-dir", help="The folder of records (default: the user data dir).")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Processes to check new records (default: every core).", **ranged(1, 256)),
    ] = None,
) -> None:
    """Wins, losses, forfeits, silences and points against each opponent, counting only verified records."""
    from rich.console import Console
    from rich.progress import Progress

    from p2p_koikoi.app.history import find_opponent, load_history
    from p2p_koikoi.app.identity import IdentityError
    from p2p_koikoi.app.records import InputError
    from p2p_koikoi.ui.history_view import render_opponent, render_ratings, render_summary, render_table

    errors = Console(stderr=True)
    try:
        with Progress(console=errors, transient=True, disable=not errors.is_terminal) as progress:
            task = progress.add_task("Checking new records", total=None)
            found = load_history(replay_dir, jobs, on_done=lambda: progress.advance(task))
        opponent = find_opponent(found, who) if who is not None else None
    except (IdentityError, InputError, LookupError) as exc:
        raise fail(str(exc)) from None
    if as_json:
        data = found.to_json()
        if opponent is not None:
            data["opponents"] = [o for o in data["opponents"] if o["key"] == opponent.key]
        typer.echo(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console = Console(highlight=False, soft_wrap=True)
    if opponent is not None:
        for text in render_opponent(found, opponent, ascii=_ascii(), width=max(10, min(60, console.width - 8))):
            console.print(text)
        return
    lines = [*render_summary(found), "", *render_table(found)]
    if ratings:
        lines += ["", *render_ratings(found)]
    for line in lines:
        typer.echo(line)
