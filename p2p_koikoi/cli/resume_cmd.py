"""``koikoi resume FILE [ADDRESS] [--bot NAME]``: take a match up again from our record."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import fail, one_line_errors, run_trio
from p2p_koikoi.cli.netopts import BotOption, QuietOption, Seat, SeedOption, print_result
from p2p_koikoi.cli.tableopts import PlainOption, use_table


@one_line_errors
def resume(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="Our record of the match (as `koikoi host/join` saved it); `last` or a list number."
        ),
    ],
    address: Annotated[
        str | None, typer.Argument(metavar="[ADDRESS]", help="The host's address if it changed (guest); a port (host).")
    ] = None,
    bot: BotOption = None,
    seed: SeedOption = None,
    grace: Annotated[
        float,
        typer.Option(
            help="Seconds to wait for the opponent to come back (0: no limit).", **ranged(0, 86400, whole=False)
        ),
    ] = 60.0,
    quiet: QuietOption = False,
    plain: PlainOption = False,
) -> None:
    """Resume a match after a crash or a dropped connection: reconnect and play on."""

    from p2p_koikoi.app.resume import ResumeError, resume_match
    from p2p_koikoi.net.framed import ConnectionLost
    from p2p_koikoi.net.tcp import parse_address
    from p2p_koikoi.record.reader import RecordError
    from p2p_koikoi.wire import RemoteProtocolError

    seat_player = Seat(bot, seed, quiet)
    agent, say, player_for = seat_player.agent, seat_player.say, seat_player.player_for
    from p2p_koikoi.app.listing import resolve_record
    from p2p_koikoi.app.records import InputError

    try:
        file = resolve_record(file)
    except InputError as exc:
        raise fail(str(exc)) from None
    try:
        target = None
        if address is not None:
            target = parse_address(f"localhost:{address}" if address.isdigit() else address)
    except ValueError as exc:
        raise fail(str(exc)) from None

    try:
        if agent is None and use_table(plain):
            from p2p_koikoi.record.reader import read_record
            from p2p_koikoi.ui.terminal import run_at_table

            seat = read_record(file).writer_seat
            at_table = run_at_table(
                lambda table: resume_match(file, target, table.for_match, table.say, grace=grace, again=table.again),
                seat=seat,
                waiting="Reconnecting…",
            )
            if at_table is None:
                raise fail("you left before the match went on", 1)
            result = at_table
        else:
            result = run_trio(lambda: resume_match(file, target, player_for, say, grace=grace, again=seat_player.again))
    except (ResumeError, RecordError) as exc:
        raise fail(str(exc)) from None
    except ConnectionLost as exc:
        raise fail(str(exc), 1) from None
    except RemoteProtocolError as exc:
        raise fail(f"the opponent broke the protocol while resuming: {exc}", 1) from None
    except KeyboardInterrupt:
        from p2p_koikoi.app.closing import record_lines

        for line in record_lines(file, finished=False):
            typer.echo(line, err=True)
        raise fail("interrupted", 130) from None
    raise typer.Exit(print_result(result))
