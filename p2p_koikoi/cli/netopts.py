"""Options shared by ``koikoi host`` and ``koikoi join``, and how their result is printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.checks import SEED_MAX, ranged
from p2p_koikoi.cli.common import fail

if TYPE_CHECKING:
    from p2p_koikoi.app.netplay import NetMatchResult
    from p2p_koikoi.net.runner import Player
    from p2p_koikoi.net.turn import Relay

BotOption = Annotated[
    str | None, typer.Option("--bot", help="Let a built-in agent play this seat (random, greedy, strong[:level]).")
]
ReplayDirOption = Annotated[
    Path | None, typer.Option("--replay-dir", help="Where to save the match record (default: the user data dir).")
]
SeedOption = Annotated[int | None, typer.Option(help="Seed for the bot.", **ranged(0, SEED_MAX))]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the outcome.")]
StunOption = Annotated[
    str,
    typer.Option(
        "--stun",
        metavar="HOST:PORT[,...]|none",
        envvar="KOIKOI_STUN",
        help="STUN server(s) over TCP (HOST:PORT[,HOST:PORT]) for a hole punch when neither side can be reached; "
        "none: no punching.",
    ),
]
DEFAULT_STUN = "default"
RelayOption = Annotated[
    str | None,
    typer.Option(
        "--relay",
        metavar="turn:HOST[:PORT]",
        help="TURN server to relay through when nothing direct works (with --relay-user and --relay-password).",
    ),
]
RelayUserOption = Annotated[str | None, typer.Option("--relay-user", help="The TURN server's user name.")]
RelayPasswordOption = Annotated[
    str | None,
    typer.Option("--relay-password", envvar="KOIKOI_RELAY_PASSWORD", help="The TURN server's password."),
]


def relay_server(text: str | None, user: str | None, password: str | None) -> Relay | None:
    """``--relay`` and its credentials, checked before anything is offered to anyone (one line if wrong)."""
    from p2p_koikoi.net.tcp import parse_address
    from p2p_koikoi.net.turn import Credentials, Relay

    if text is None:
        if user is not None:
            raise fail("--relay-user is for a --relay turn:HOST[:PORT]")
        return None
    if not text.lower().startswith("turn:"):
        raise fail(f"--relay: {text!r} is not a TURN server; write turn:HOST[:PORT]")
    try:
        address = parse_address(text[5:], 3478)
    except ValueError as exc:
        raise fail(f"--relay: {exc}") from None
    if not user or password is None:
        raise fail("--relay needs --relay-user and --relay-password (or KOIKOI_RELAY_PASSWORD)")
    return Relay((address.host, address.port), Credentials(user, password))


def stun_servers(text: str) -> tuple[tuple[str, int], ...]:
    """``--stun``'s servers: the default ones, none, or HOST[:PORT] (3478 unless said), several separated by
    commas (a second one tells an endpoint-dependent NAT, app/punching.py); a bad one exits
    with one line, before anything is offered to anyone."""
    from p2p_koikoi.app.punching import DEFAULT_STUN as SERVERS
    from p2p_koikoi.net.tcp import parse_address

    if text.strip().lower() == "none":
        return ()
    try:
        names = SERVERS if text == DEFAULT_STUN else tuple(t.strip() for t in text.split(",") if t.strip())
        addresses = [parse_address(t, 3478) for t in names]
    except ValueError as exc:
        raise fail(f"--stun: {exc}") from None
    return tuple((a.host, a.port) for a in addresses)


def print_result(result: NetMatchResult) -> int:
    """The closing lines of a networked match; returns the exit code: 0 for a match played out, for a
    win by the opponent's forfeit or silence and for our own decline of the rules, 1 otherwise (a loss by
    leaving or silence, an adjournment, a violation, a lost connection)."""
    from p2p_koikoi.app.closing import record_lines
    from p2p_koikoi.app.players import outcome_words
    from p2p_koikoi.session.match_session import SessionEnd

    report = result.report
    for number, earlier in enumerate(result.earlier, 1):  # the matches before the last on one connection
        typer.echo(f"Match {number}:")
        for line in record_lines(earlier.record, finished=True):
            typer.echo(line)
    if result.earlier:
        typer.echo(f"Match {len(result.earlier) + 1}:")
    for note in result.notes:
        typer.echo(note, err=True)
    if report is None:
        return 1
    ended = None if report.ended_by.cut_off else report.ended_by
    if ended is SessionEnd.DECLINED:  # our own choice, not a failure: no match, no record, nothing to sum up
        typer.echo(f"{outcome_words(ended, 'the host')}.")
        return 0
    finished = ended is SessionEnd.MATCH_OVER
    for line in record_lines(result.record, finished=finished or ended is SessionEnd.ADJOURNED):  # see below
        typer.echo(line)
    typer.echo(f"Sent {report.bytes_sent} bytes, received {report.bytes_received}, {report.entries} entries.")
    if finished:
        return 0
    resume = ""
    if ended is SessionEnd.ADJOURNED and result.record is not None:
        from p2p_koikoi.app.closing import koikoi_command
        from p2p_koikoi.app.listing import resume_name

        resume = f"{koikoi_command()} resume {resume_name(result.record)}"  # the line says how to resume it
    declined = ended is SessionEnd.PEER_DECLINED  # no match: the reason is the line to read
    said = None if declined else outcome_words(ended, "the opponent", resume)
    if declined:  # the rules were not accepted: no match began, so nothing is left to resume
        typer.echo(f"koikoi: no match was played: {report.text}", err=True)
        return 1
    if said is None:
        typer.echo(f"koikoi: the match did not finish: {report.text}", err=True)
        return 1
    typer.echo(f"{said}.")
    return 0 if ended in (SessionEnd.PEER_QUIT, SessionEnd.PEER_VANISHED) else 1  # its forfeit, or its silence


class Seat:
    """Who plays our seat in host, join and resume: a bot from ``--bot``, or a person at plain lines
    (the table is seated by the commands themselves, which need a terminal)."""

    def __init__(self, bot: str | None, seed: int | None, quiet: bool, *, assume_yes: bool = False) -> None:
        import random

        from p2p_koikoi.app.plain_input import LineInput
        from p2p_koikoi.app.plain_player import stderr_write
        from p2p_koikoi.bots.registry import UnknownBotError, make_agent

        self.say: Callable[[str], None] = (lambda line: None) if quiet else stderr_write
        self._lines = LineInput()  # one reader of the person's lines for every match and question of the run
        self._quiet = quiet
        self._assume_yes = assume_yes
        try:
            self.agent = make_agent(bot, seed if seed is not None else random.randrange(2**31)) if bot else None
        except UnknownBotError as exc:
            raise fail(str(exc)) from None

    def player_for(self, seat: int) -> Player:
        from p2p_koikoi.app.plain_player import PlainPlayer
        from p2p_koikoi.app.players import BotPlayer

        if self.agent is not None:
            return BotPlayer(self.agent, seat, None if self._quiet else self.say)
        return PlainPlayer(seat, write=self.say, assume_yes=self._assume_yes, lines=self._lines)

    async def again(self, record: Path | None) -> bool:
        """Another match on the same connection? A person answers ``r`` (Enter, ``q`` or the end of the input
        is a no). A bot's seat asks the person who started it, when one is at a terminal to answer (they
        chose to watch it play); run from a script, it says no at once rather than keep the peer waiting."""
        import sys

        if self.agent is not None and (self._quiet or not sys.stdin.isatty()):
            return False
        if record is not None:
            self.say(f"Record saved: {record}")
        answered = False
        try:
            answer = await self._lines.ask("Another match? [r: yes, Enter: no] ")
            answered = True
        finally:
            if not answered:  # called off (the peer's no, the timeout): the line that ends it starts afresh
                sys.stdout.write("\n")
                sys.stdout.flush()
        return answer is not None and answer.strip().lower() in ("r", "y", "yes")

    async def pasted(self) -> str | None:
        """A line pasted while the host waits (a guest's answer code); a bot's seat reads them too, so a
        script can hand the host the code. None once the input ended."""
        return await self._lines.ask("")

    async def confirm(self, question: str) -> bool:
        """A yes/no question for the person; a bot never trusts a changed key."""
        import trio

        if self.agent is not None:
            return False
        answer = await trio.to_thread.run_sync(input, f"{question} [y/N] ")
        return answer.strip().lower() in ("y", "yes")
