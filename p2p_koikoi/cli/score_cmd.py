"""``koikoi score``: the points calculator."""

from __future__ import annotations

from typing import Annotated

import typer

from p2p_koikoi.cli.checks import ranged
from p2p_koikoi.cli.common import RulesOption, SetOption, build_rules, fail, one_line_errors


@one_line_errors
def score(
    cards: Annotated[
        list[str] | None, typer.Argument(metavar="CARD...", help="The winner's captures (canonical ids).")
    ] = None,
    rules_name: RulesOption = "nintendo",
    overrides: SetOption = None,
    winner_calls: Annotated[int, typer.Option(help="Koi-Koi calls the winner made this round.", **ranged(0, 99))] = 0,
    loser_calls: Annotated[int, typer.Option(help="Koi-Koi calls the loser made this round.", **ranged(0, 99))] = 0,
    loser_points: Annotated[
        int | None,
        typer.Option(help="What the loser has left of the pool (pool scoring only).", **ranged(0, 1_000_000)),
    ] = None,
    hand: Annotated[bool, typer.Option("--hand", help="Score the cards as a dealt hand (Teshi, Kuttsuki).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Count a round's score line by line: yaku, base, doubling, Koi-Koi, cap, payment."""
    if not cards:  # "Total 0" would read as an answer to a question nobody asked
        from p2p_koikoi.app.closing import koikoi_command

        example = f"{koikoi_command()} score pampas-moon sake-cup cherry-curtain"
        raise fail(f"no cards given: name the winner's captures (card ids, as in `{example}`)")
    from p2p_koikoi.app.calculator import calculate

    report = calculate(
        build_rules(rules_name, overrides),
        cards,
        winner_calls=winner_calls,
        loser_calls=loser_calls,
        loser_points=loser_points,
        hand=hand,
    )
    typer.echo(report.render_json() if as_json else report.render_text())
