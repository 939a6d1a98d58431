"""The ``koikoi`` command: wires the commands, each of which lives in a module of its own.

A mistake on the command line (an unknown option, a bad value) is one line on stderr, ``koikoi:``
and what was wrong and where to look, with exit code 2, as every other error of ours is."""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from typer.core import TyperArgument

from p2p_koikoi.cli import (
    arena_cmd,
    export_cmd,
    history_cmd,
    host_cmd,
    id_cmd,
    join_cmd,
    list_cmd,
    play_cmd,
    replay_cmd,
    resume_cmd,
    rules_cmd,
    score_cmd,
    verify_cmd,
)

app = typer.Typer(
    name="koikoi",
    help="Koi-Koi (hanafuda) for two people over a direct, trustless connection.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(shown: bool) -> None:
    if shown:
        try:
            typer.echo(f"koikoi {version('p2p-koikoi')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("koikoi (not installed)")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Koi-Koi (hanafuda) for two people over a direct, trustless connection."""


app.command("play")(play_cmd.play)
app.command("rules")(rules_cmd.rules)
app.command("score")(score_cmd.score)
app.command("host")(host_cmd.host)
app.command("join")(join_cmd.join)
app.command("id")(id_cmd.id_)
app.command("resume")(resume_cmd.resume)
app.command("list")(list_cmd.list_)
app.command("history")(history_cmd.history)
app.command("arena")(arena_cmd.arena)
app.command("verify")(verify_cmd.verify)
app.command("replay")(replay_cmd.replay)
app.command("export")(export_cmd.export)


def _usage_name(argument: Any) -> str:
    """An argument in the usage line as man pages write it: ``FILE`` required, ``[FILE]`` optional
    (Typer's own usage wraps a required one in braces, ``{FILE}``, which reads like a placeholder)."""
    name = str(argument.display_name_raw).removesuffix("...")
    if name.startswith("[") and name.endswith("]"):  # one pair only: ``[CODE|HOST[:PORT]]`` keeps its inner one
        name = name[1:-1]
    name += "..." if argument.nargs != 1 else ""
    return name if argument.required else f"[{name}]"


if hasattr(TyperArgument, "_usage_display_name"):  # the hook Typer's usage line calls (0.2x)
    TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign,assignment]


def main() -> None:
    try:
        code = app(standalone_mode=False)
    except typer.TyperException as exc:  # the parser's: a usage error, or no command given
        show = getattr(exc, "show", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and show is not None:
            show()
            sys.exit(2)
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        context = getattr(exc, "ctx", None)
        where = context.command_path if context is not None else "koikoi"
        print(f"koikoi: {message.rstrip('.')} (see `{where} --help`)", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", 2))
    except typer.Abort:
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
