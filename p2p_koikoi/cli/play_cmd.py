"""``koikoi play``: the main job. Until the terminal table exists, a self-play demo of a whole match."""

from __future__ import annotations

import random
from typing import Annotated

import typer

from p2p_koikoi.app.demo import run_demo
from p2p_koikoi.cli.common import RulesOption, SetOption, build_rules, one_line_errors


@one_line_errors
def play(
    rules_name: RulesOption = "nintendo",
    overrides: SetOption = None,
    rounds: Annotated[int | None, typer.Option(help="Rounds in the match: 3, 6 or 12.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for a repeatable match.")] = None,
) -> None:
    """Watch two built-in agents play a whole match (the interactive table comes later)."""
    rules = build_rules(rules_name, overrides)
    if rounds is not None:
        rules = rules.with_option("rounds", str(rounds))
    run_demo(rules, seed if seed is not None else random.SystemRandom().randrange(2**31), typer.echo)
