"""``koikoi verify``: audit saved matches; 0 verified, 1 failed verification, 2 unreadable."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import fail, one_line_errors


@one_line_errors
def verify(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE...", help="Records, transcripts, or folders of them; `last` or numbers from `koikoi list`."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the reports as a JSON list, one object per file (errors too).")
    ] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Processes to use (default: every core).", **ranged(1, 256))
    ] = None,
) -> None:
    """Audit matches, trusting nothing in the file: signatures, the chain, every deal, move and count."""
    from rich.console import Console
    from rich.progress import Progress

    from p2p_koikoi.app.listing import resolve_record
    from p2p_koikoi.app.records import InputError, expand_paths, verify_paths
    from p2p_koikoi.record.verify import Verdict
    from p2p_koikoi.ui.verify_view import error_json, render_json, render_text

    try:
        files = [resolve_record(f) for f in files]
        count = len(expand_paths(files))
        console = Console(stderr=True)
        with Progress(console=console, transient=True, disable=count < 2 or not console.is_terminal) as progress:
            task = progress.add_task("Verifying", total=count)
            reports = verify_paths(files, jobs, on_done=lambda _: progress.advance(task))
    except InputError as exc:
        if as_json:
            typer.echo(error_json(str(exc)))
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(render_json(reports))
    else:
        from p2p_koikoi.ui.record_header import header_line

        for report in reports:
            header = header_line(report) if report.verdict is not Verdict.UNREADABLE else None
            for line in [*render_text(report), *([header] if header is not None else [])]:
                typer.echo(line, err=report.verdict is Verdict.UNREADABLE)
    if count > 1 and not as_json:
        bad = sum(1 for r in reports if not r.ok)
        print(f"{count - bad} of {count} verified.", file=sys.stderr)
    raise typer.Exit(max(report.exit_code for report in reports))
