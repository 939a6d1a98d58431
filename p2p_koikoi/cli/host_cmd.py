"""``koikoi host``: wait for one opponent and play a match as seat 0."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.checks import check_own_name, check_replay_dir, ranged
from p2p_koikoi.cli.common import RulesOption, SetOption, build_rules, fail, one_line_errors, run_trio, say_interrupted
from p2p_koikoi.cli.netopts import (
    DEFAULT_STUN,
    BotOption,
    QuietOption,
    ReplayDirOption,
    Seat,
    SeedOption,
    StunOption,
    print_result,
    stun_servers,
)
from p2p_koikoi.cli.tableopts import PlainOption, use_table
from p2p_koikoi.net import DEFAULT_PORT, DEFAULT_TURN_LIMIT

if TYPE_CHECKING:
    pass


@one_line_errors
def host(
    port: Annotated[
        int, typer.Option(help="TCP port to listen on (0 picks a free one).", **ranged(0, 65535))
    ] = DEFAULT_PORT,
    bind: Annotated[str | None, typer.Option(help="Address to listen on (default: every IPv4 and IPv6 one).")] = None,
    rules_name: RulesOption = "nintendo",
    overrides: SetOption = None,
    rounds: Annotated[int | None, typer.Option(help="Rounds in the match: 3, 6 or 12.", **ranged(3, 12))] = None,
    turn_limit: Annotated[
        int, typer.Option(help="Seconds a player has for each decision (0: no limit).", **ranged(0, 3600))
    ] = DEFAULT_TURN_LIMIT,
    bot: BotOption = None,
    seed: SeedOption = None,
    replay_dir: ReplayDirOption = None,
    quiet: QuietOption = False,
    lan: Annotated[bool, typer.Option("--lan", help="Announce the game on the LAN (mDNS/DNS-SD).")] = False,
    guest: Annotated[
        str | None, typer.Option(metavar="FINGERPRINT", help="Admit only the guest whose key has this fingerprint.")
    ] = None,
    invite_only: Annotated[
        bool, typer.Option("--invite-only", help="Admit only guests who join with this run's invite code.")
    ] = False,
    upnp: Annotated[
        bool, typer.Option("--upnp/--no-upnp", help="Ask the router to forward the port (UPnP IGD, NAT-PMP).")
    ] = True,
    plain: PlainOption = False,
    stun: StunOption = DEFAULT_STUN,
) -> None:
    """Host a match: listen for one opponent on IPv4 and IPv6, then play."""

    from p2p_koikoi.app.netplay import HostOptions, host_match
    from p2p_koikoi.net.framed import ConnectionLost
    from p2p_koikoi.net.invite import InviteError, parse_fingerprint

    rules = build_rules(rules_name, overrides)
    if rounds is not None:
        rules = rules.with_option("rounds", str(rounds))
    seat_player = Seat(bot, seed, quiet, assume_yes=False)
    agent = seat_player.agent
    say = seat_player.say

    player_for = seat_player.player_for

    try:
        expected = parse_fingerprint(guest) if guest is not None else None
    except InviteError as exc:
        raise fail(f"--guest: {exc}") from None
    check_replay_dir(replay_dir)  # before the invite is printed: no guest is seated to be failed
    check_own_name()
    servers = stun_servers(stun)
    options = HostOptions(
        rules, port, bind, turn_limit, replay_dir, lan, expected, invite_only, upnp=upnp, stun=servers
    )
    try:
        if agent is None and use_table(plain):
            from p2p_koikoi.ui.terminal import run_at_table

            at_table = run_at_table(
                lambda table: host_match(options, table.for_match, table.say, table.again, table.pasted),
                rules=rules,
                waiting="Waiting for a guest…",
            )
            if at_table is None:
                raise fail("you left before a guest came", 1)
            result = at_table
        else:
            result = run_trio(host_match, options, player_for, say, seat_player.again, seat_player.pasted)
    except OSError as exc:
        if exc.filename is not None:  # a file of ours (the record, its secret), not the socket
            raise fail(f"cannot write {exc.filename}: {exc.strerror or exc}", 1) from None
        raise fail(f"cannot listen on port {port}: {exc.strerror or exc}") from None
    except ConnectionLost as exc:
        raise fail(str(exc), 1) from None
    except KeyboardInterrupt:
        say_interrupted(replay_dir)  # where the record is, and how to resume
        raise fail("interrupted", 130) from None
    raise typer.Exit(print_result(result))
