"""``koikoi play``: the main job, a practice match against the built-in bot at the terminal table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.cli.checks import SEED_MAX, check_own_name, check_replay_dir, ranged
from p2p_koikoi.cli.common import RulesOption, SetOption, build_rules, fail, one_line_errors, run_trio, say_interrupted
from p2p_koikoi.cli.netopts import print_result
from p2p_koikoi.cli.tableopts import PlainOption, use_table

if TYPE_CHECKING:
    from pathlib import Path

    from p2p_koikoi.app.netplay import NetMatchResult
    from p2p_koikoi.app.practice import PracticeOptions


@one_line_errors
def play(
    rules_name: RulesOption = "nintendo",
    overrides: SetOption = None,
    rounds: Annotated[int | None, typer.Option(help="Rounds in the match: 3, 6 or 12.", **ranged(3, 12))] = None,
    bot: Annotated[
        str,
        typer.Option(
            help="The bot to play: random, greedy, strong (= strong:normal) or strong:easy|normal|expert|hard."
            " Expert and hard think on several cores."
        ),
    ] = "strong",
    seed: Annotated[
        int | None, typer.Option(help="Seed for the bot (the deal is always fair and random).", **ranged(0, SEED_MAX))
    ] = None,
    plain: PlainOption = False,
) -> None:
    """Practice against the built-in bot, a second peer over loopback TCP through the full protocol."""

    from p2p_koikoi.app.practice import PracticeOptions, practice_match
    from p2p_koikoi.bots.registry import UnknownBotError, make_agent

    rules = build_rules(rules_name, overrides)
    if rounds is not None:
        rules = rules.with_option("rounds", str(rounds))
    try:
        make_agent(bot, 0)
    except UnknownBotError as exc:
        raise fail(str(exc)) from None
    check_replay_dir(None, has_option=False)  # where the record goes: a folder we can write to, said before the match
    check_own_name()
    options = PracticeOptions(rules, bot, seed)
    try:
        if use_table(plain):
            from p2p_koikoi.ui.terminal import run_at_table

            at_table = run_at_table(
                lambda table: practice_match(options, table.for_match, table.say, table.again),
                names=("You", "Bot"),
                rules=rules,
            )
            if at_table is None:
                raise fail("you left before the match began", 1)
            result = at_table
        else:
            result = run_trio(_plain_matches, options)
    except KeyboardInterrupt:
        say_interrupted()
        raise fail("interrupted: a practice match cannot be taken up again", 130) from None
    raise typer.Exit(print_result(result))


async def _plain_matches(options: PracticeOptions) -> NetMatchResult:
    """Practice in plain lines; after a match played out, ``r`` plays another under the same rules, on the
    same connection (the bot always wants one; the 30 s of SPEC.md section 9 hold here too)."""
    import sys

    from p2p_koikoi.app.plain_input import LineInput
    from p2p_koikoi.app.plain_player import PlainPlayer, stdout_write
    from p2p_koikoi.app.practice import practice_match

    lines = LineInput()

    def player_for(seat: int) -> PlainPlayer:
        return PlainPlayer(seat, write=stdout_write, them="Bot", lines=lines)

    async def again(record: Path | None) -> bool:
        answer: str | None = None
        try:
            answer = await lines.ask("Another match under the same rules? [r: yes, Enter: leave] ")
        finally:
            if answer is None:  # called off (the time ran out), or the input ended: the next line starts afresh
                sys.stdout.write("\n")
                sys.stdout.flush()
        return answer is not None and answer.strip().lower() in ("r", "y", "yes")

    return await practice_match(options, player_for, stdout_write, again)
