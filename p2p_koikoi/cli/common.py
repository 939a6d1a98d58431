"""What every command shares: the rules options, and turning our errors into one clear line."""

from __future__ import annotations

import difflib
import functools
import sys
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

import typer

from p2p_koikoi.engine import PRESETS, EngineError, RuleSet, preset

P = ParamSpec("P")
R = TypeVar("R")

RulesOption = Annotated[
    str, typer.Option("--rules", "-r", help="Rule preset: nintendo, lemme, rulebook, qdan or gameweave.")
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="NAME=VALUE", help="Override one rule option; repeat for more."),
]


def build_rules(name: str, overrides: list[str] | None) -> RuleSet:
    """The preset with the overrides; a misspelt preset fails with the closest name to try."""
    known = {key.lower() for key in PRESETS}
    if name.strip().lower() not in known:
        close = difflib.get_close_matches(name.strip().lower(), sorted(known), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise fail(f"unknown rule preset {name!r}{hint}; choose one of {', '.join(PRESETS)}")
    return preset(name).with_overrides(overrides or [])


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``koikoi: message`` on stderr and return the exit to raise."""
    print(f"koikoi: {message}", file=sys.stderr)
    return typer.Exit(code)


def one_line_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the errors a user can cause into one line on stderr and exit code 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except EngineError as exc:
            raise fail(str(exc)) from None

    return wrapper
