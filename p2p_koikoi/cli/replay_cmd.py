"""``koikoi replay``: step through a saved match, or print it whole."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.common import fail, one_line_errors

if TYPE_CHECKING:
    from p2p_koikoi.record.verify import VerifyReport


@one_line_errors
def replay(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="A record or a transcript; `last` or a number from `koikoi list`.")
    ],
    plain: Annotated[bool, typer.Option("--plain", help="Print the whole match as text, with no keys.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the match as a transcript, each round's result recomputed.")
    ] = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review", help="Mark the moves where the strong bot's choice was worth clearly more, in expected points."
        ),
    ] = False,
) -> None:
    """Replay a match: every card face up once a round's secrets are out, each action in words."""
    from p2p_koikoi.app.listing import resolve_record
    from p2p_koikoi.app.records import InputError, export_file
    from p2p_koikoi.app.replay import load_replay
    from p2p_koikoi.ui.replay_view import plain_lines, run_interactive
    from p2p_koikoi.ui.verify_view import finding_words

    report: VerifyReport | None
    try:
        file = resolve_record(file)
        if review:
            report = _review(file)
        elif as_json:
            result = export_file(file)
            typer.echo(result.render_json(), nl=False)
            report = result.report
        else:
            shown = load_replay(file)
            report = shown.report
            if plain or not shown.steps or not (sys.stdin.isatty() and sys.stdout.isatty()):
                for line in plain_lines(shown):
                    typer.echo(line)
            else:
                run_interactive(shown)
    except InputError as exc:
        raise fail(str(exc)) from None
    if report is not None and not report.ok and report.finding is not None:
        typer.echo(f"koikoi: warning: {report.path}: {report.verdict}: {finding_words(report.finding)}", err=True)


def _review(file: Path) -> VerifyReport | None:
    """Print every move of the match where the bot's choice was worth clearly more, one line each."""
    from p2p_koikoi.app.coach import REVIEW_MARGIN, REVIEW_NOISE_Z, REVIEW_PLAYOUTS_PER_MOVE, review
    from p2p_koikoi.app.replay import load_replay

    shown = load_replay(file)
    typer.echo(
        f"Each move of both players against the strong bot's search ({REVIEW_PLAYOUTS_PER_MOVE} playouts a move, "
        f"from the player's own view); marked when the bot's choice was worth {REVIEW_MARGIN:.1f} points or more, "
        f"and more than {REVIEW_NOISE_Z:.0f} standard errors of the difference (a close call is played again, longer):"
    )
    marks = 0
    for mark in review(shown):
        typer.echo("  " + mark.line(shown.names))
        marks += 1
    reviewed = sum(1 for r in shown.rounds if r.played.deal is not None and r.played.result is not None)
    typer.echo(f"{marks} moves marked over {reviewed} rounds reviewed (rounds cut short cannot be).")
    return shown.report
