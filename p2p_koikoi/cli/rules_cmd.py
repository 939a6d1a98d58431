"""``koikoi rules [PRESET] [--set K=V]...``: a rule set in words."""

from __future__ import annotations

from typing import Annotated

import typer

from p2p_koikoi.cli.common import SetOption, build_rules, one_line_errors
from p2p_koikoi.engine.ruledoc import describe


@one_line_errors
def rules(
    preset_name: Annotated[str, typer.Argument(metavar="PRESET", help="The preset to show.")] = "nintendo",
    overrides: SetOption = None,
) -> None:
    """Print a rule set in words, every option with what it means."""
    typer.echo(describe(build_rules(preset_name, overrides)))
