"""The ``koikoi`` command: wires the commands, each of which lives in a module of its own."""

from __future__ import annotations

import typer

from p2p_koikoi.cli import (
    arena_cmd,
    export_cmd,
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
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("play")(play_cmd.play)
app.command("rules")(rules_cmd.rules)
app.command("score")(score_cmd.score)
app.command("host")(host_cmd.host)
app.command("join")(join_cmd.join)
app.command("id")(id_cmd.id_)
app.command("resume")(resume_cmd.resume)
app.command("arena")(arena_cmd.arena)
app.command("verify")(verify_cmd.verify)
app.command("replay")(replay_cmd.replay)
app.command("export")(export_cmd.export)
app.command("list")(list_cmd.list_)


def main() -> None:
    app()
