"""``koikoi arena BOT_A BOT_B``: measure one bot against another over many mirrored matches."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from p2p_koikoi.bots.registry import BOT_NAMES, UnknownBotError
from p2p_koikoi.cli.checks import SEED_MAX, ranged
from p2p_koikoi.cli.common import RulesOption, SetOption, build_rules, fail, one_line_errors

if TYPE_CHECKING:
    from p2p_koikoi.app.arena import Progress

_BOTS = ", ".join(BOT_NAMES)


@contextmanager
def _progress_bar(matches: int) -> Iterator[Progress | None]:
    """A rich progress bar on stderr when stderr is a terminal; nothing otherwise (stdout stays clean)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=Console(stderr=True)
    ) as bar:
        task = bar.add_task("matches", total=matches)
        yield lambda done, _total: bar.update(task, completed=done)


@one_line_errors
def arena(
    bot_a: Annotated[str, typer.Argument(metavar="BOT_A", help=f"The bot measured: {_BOTS}.")],
    bot_b: Annotated[str, typer.Argument(metavar="BOT_B", help="The bot it plays against.")],
    rules_name: RulesOption = "nintendo",
    overrides: SetOption = None,
    matches: Annotated[
        int,
        typer.Option(help="Matches to play, in mirrored pairs (same deals, seats swapped).", **ranged(1, 1_000_000)),
    ] = 100,
    rounds: Annotated[int | None, typer.Option(help="Rounds in a match: 3, 6 or 12.", **ranged(3, 12))] = None,
    seed: Annotated[
        int, typer.Option(help="Seed of the deals and the bots; a run is repeatable.", **ranged(0, SEED_MAX))
    ] = 1,
    jobs: Annotated[int, typer.Option(help="Worker processes.", **ranged(1, 256))] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Play BOT_A against BOT_B and print the win rate with its 95% interval, points, Koi-Koi and yaku."""
    from p2p_koikoi.app.arena import ArenaRequestError, run_arena

    rules = build_rules(rules_name, overrides)
    if rounds is not None:
        rules = rules.with_option("rounds", str(rounds))
    try:
        with _progress_bar(matches) as progress:
            result = run_arena(bot_a, bot_b, rules, matches=matches, seed=seed, jobs=jobs, progress=progress)
    except (UnknownBotError, ArenaRequestError) as exc:
        raise fail(str(exc)) from None
    typer.echo(result.render_json() if as_json else result.render_text())
