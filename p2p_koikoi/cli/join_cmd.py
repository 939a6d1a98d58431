"""``koikoi join CODE`` or ``koikoi join HOST[:PORT]``: dial a host and play a match as seat 1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.checks import check_own_name, check_replay_dir, ranged
from p2p_koikoi.cli.common import fail, one_line_errors, run_trio, say_interrupted
from p2p_koikoi.cli.netopts import (
    DEFAULT_STUN,
    BotOption,
    QuietOption,
    RelayOption,
    RelayPasswordOption,
    RelayUserOption,
    ReplayDirOption,
    Seat,
    SeedOption,
    StunOption,
    print_result,
    relay_server,
    stun_servers,
)
from p2p_koikoi.cli.tableopts import PlainOption, use_table
from p2p_koikoi.net import DEFAULT_PORT

if TYPE_CHECKING:
    from pathlib import Path

    from p2p_koikoi.app.answer_back import AnswerBack
    from p2p_koikoi.app.netplay import JoinOptions
    from p2p_koikoi.net.lan import LanGame


@one_line_errors
def join(
    address: Annotated[
        str | None,
        typer.Argument(
            metavar="[CODE|HOST[:PORT]]",
            help="The invite code koikoi host printed (kk1:...), or the host: name, IPv4, or [IPv6]:port.",
        ),
    ] = None,
    bot: BotOption = None,
    seed: SeedOption = None,
    replay_dir: ReplayDirOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Accept the host's rules without asking.")] = False,
    timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the connection.", **ranged(0.1, 600, whole=False))
    ] = 15.0,
    quiet: QuietOption = False,
    lan: Annotated[
        bool, typer.Option("--lan", help="With no address: list the games on the LAN and pick one.")
    ] = False,
    plain: PlainOption = False,
    port: Annotated[
        int,
        typer.Option(
            help="Should the host be unreachable: the TCP port to listen on for it to dial back (0 picks a free one).",
            **ranged(0, 65535),
        ),
    ] = DEFAULT_PORT,
    bind: Annotated[
        str | None, typer.Option(help="Should the host be unreachable: the address to listen on for it.")
    ] = None,
    upnp: Annotated[
        bool,
        typer.Option("--upnp/--no-upnp", help="Should the host be unreachable: ask the router to forward our port."),
    ] = True,
    stun: StunOption = DEFAULT_STUN,
    relay: RelayOption = None,
    relay_user: RelayUserOption = None,
    relay_password: RelayPasswordOption = None,
) -> None:
    """Join a hosted match; shows the host's rules and asks before playing. When no address in the invite
    code answers, prints an answer code for the host to paste, and waits for the host to dial back."""

    from p2p_koikoi.app.answer_back import AnswerBack
    from p2p_koikoi.app.netplay import join_match
    from p2p_koikoi.net.framed import ConnectionLost
    from p2p_koikoi.wire import RemoteProtocolError

    seat_player = Seat(bot, seed, quiet, assume_yes=yes)
    agent, say = seat_player.agent, seat_player.say
    if address is None and not lan:
        raise fail("give the invite code (kk1:...) or the host as HOST[:PORT], or --lan to look on the LAN")
    check_replay_dir(replay_dir)  # before anyone is dialled or looked for
    check_own_name()
    if address is None:
        from p2p_koikoi.cli.lan_picker import pick_lan_game

        game = pick_lan_game(say)
        if game is None:
            raise fail("no game found on the LAN; ask the host for its invite code", 1)
        options = lan_options(game, replay_dir, timeout)
    else:
        back = AnswerBack(
            port, bind, upnp, stun=stun_servers(stun), relay=relay_server(relay, relay_user, relay_password)
        )
        options = target_options(address, replay_dir, timeout, back)

    player_for = seat_player.player_for

    confirm = seat_player.confirm

    try:
        if agent is None and use_table(plain):
            from p2p_koikoi.ui.terminal import run_at_table

            at_table = run_at_table(
                lambda table: join_match(options, table.for_match, table.say, table.confirm, table.again),
                seat=1,
                assume_yes=yes,
            )
            if at_table is None:
                raise fail("you left before the match began", 1)
            result = at_table
        else:
            result = run_trio(join_match, options, player_for, say, confirm, seat_player.again)
    except ConnectionLost as exc:
        raise fail(str(exc), 1) from None
    except RemoteProtocolError as exc:
        raise fail(f"the host broke the protocol: {exc}", 1) from None
    except OSError as exc:
        if exc.filename is None:
            raise
        raise fail(f"cannot write {exc.filename}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt:
        say_interrupted(replay_dir)  # where the record is, and how to resume
        raise fail("interrupted", 130) from None
    raise typer.Exit(print_result(result))


def target_options(text: str, replay_dir: Path | None, timeout: float, back: AnswerBack | None = None) -> JoinOptions:
    """An invite code, or a single address, as what to dial; ``back``: how to listen should the invite's
    host be unreachable."""
    from p2p_koikoi.app.netplay import JoinOptions
    from p2p_koikoi.net.invite import PREFIX, Invite, InviteError
    from p2p_koikoi.net.tcp import parse_address

    if text.strip().lower().startswith(PREFIX):
        try:
            return JoinOptions.from_invite(Invite.parse(text), replay_dir, timeout, back)
        except InviteError as exc:
            raise fail(f"bad invite code: {exc}") from None
    try:
        return JoinOptions((parse_address(text),), replay_dir, timeout)
    except ValueError as exc:
        raise fail(f"bad address: {exc}") from None


def lan_options(game: LanGame, replay_dir: Path | None, timeout: float) -> JoinOptions:
    """Every address the game was announced at; the announced fingerprint is checked after the greeting."""
    from p2p_koikoi.app.netplay import JoinOptions
    from p2p_koikoi.net.tcp import Address

    addresses = tuple(Address(host, game.port) for host in game.addresses)
    return JoinOptions(addresses, replay_dir, timeout, announced=game.fingerprint or None)
