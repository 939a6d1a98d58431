"""``koikoi export``: the readable transcript of a match (``koikoi-transcript/1``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from p2p_koikoi.cli.common import fail, one_line_errors


@one_line_errors
def export(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="A record (or a transcript to normalise); `last` or a list number."),
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the transcript here (default: standard output).")
    ] = None,
) -> None:
    """Write a match as a transcript: the deal, every turn and every count in words, as JSON."""
    from p2p_koikoi.app.listing import resolve_record
    from p2p_koikoi.app.records import InputError, export_file

    try:
        result = export_file(resolve_record(file))
    except InputError as exc:
        raise fail(str(exc)) from None
    text = result.render_json()
    if output is None or str(output) == "-":
        typer.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
        typer.echo(f"Transcript written: {output}", err=True)
    report = result.report
    if not report.ok and report.finding is not None:
        typer.echo(f"koikoi: warning: {report.path}: {report.verdict}: {report.finding.line()}", err=True)
