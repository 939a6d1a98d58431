"""``koikoi rules [PRESET] [--set K=V]...``: a rule set in words, and its yaku table."""

from __future__ import annotations

from typing import Annotated

import typer

from p2p_koikoi.cli.common import SetOption, build_rules, one_line_errors


@one_line_errors
def rules(
    preset_name: Annotated[str, typer.Argument(metavar="PRESET", help="The preset to show.")] = "nintendo",
    overrides: SetOption = None,
) -> None:
    """Print a rule set in words, every option with what it means, then its yaku and their points."""
    from p2p_koikoi.engine.ruledoc import describe, yaku_table_lines

    rule_set = build_rules(preset_name, overrides)
    typer.echo(describe(rule_set))
    typer.echo("")
    typer.echo("Yaku (what a pile of captures scores under these rules):")
    for line in yaku_table_lines(rule_set):
        typer.echo(f"  {line}")
