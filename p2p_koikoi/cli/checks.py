"""Options checked before anything is offered to anyone: every number has a range, and the replay folder
is a folder we can write to. A bad one is refused in one line with exit code 2, before any network
activity (no router discovery, no name lookup, no socket) and before a guest could be seated.

Numbers are parsed here rather than by Typer's own ``min``/``max`` so that ``nan`` and ``inf`` are refused
in words that say so; the range is still given to Typer as ``min``/``max``, which ``--help`` shows (and a
test reads, so that a new number option without a range fails it).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from p2p_koikoi.cli.common import fail

__all__ = ["SEED_MAX", "check_own_name", "check_replay_dir", "ranged"]

SEED_MAX = 2**32 - 1


def ranged(low: float, high: float, *, whole: bool = True) -> dict[str, Any]:
    """The keywords of a number option taking ``low`` to ``high`` (whole numbers, or any finite number):
    ``typer.Option(help=..., **ranged(0, 65535))``."""
    return {"parser": _parser(low, high, whole), "min": low, "max": high}


def _parser(low: float, high: float, whole: bool) -> Callable[[Any], Any]:
    span = f"{low:g} to {high:g}" if not whole else f"{int(low)} to {int(high)}"

    def parse(text: Any) -> int | float:
        if isinstance(text, (int, float)) and not isinstance(text, bool):  # a default, already a number
            value: int | float = text
        else:
            try:
                value = int(str(text), 10) if whole else float(str(text))
            except ValueError:
                kind = "a whole number" if whole else "a number"
                raise typer.BadParameter(f"{text!r} is not {kind}: give {span}") from None
        if not math.isfinite(value):
            raise typer.BadParameter(f"{text} is not a finite number: give {span}")
        if not low <= value <= high:
            raise typer.BadParameter(f"{text} is out of range: give {span}")
        return value

    return parse


def check_replay_dir(option: Path | None, *, has_option: bool = True) -> Path:
    """The folder records go to (``--replay-dir``, else the default), made if missing, and proven writable
    by writing a file in it; else exit 2 with one line naming the option and what to do. ``has_option``:
    the command takes ``--replay-dir`` (``play`` does not: its records go to the default folder)."""
    from p2p_koikoi.app.identity import replay_dir

    folder = replay_dir(option)
    if option is not None:
        named, instead = f"--replay-dir {folder}", "give a folder you can write to (it is made if missing)"
    else:
        named = f"the record folder {folder}"
        instead = "choose another with --replay-dir, or set KOIKOI_HOME" if has_option else "set KOIKOI_HOME"
        instead += " to a folder you can write to"
    if folder.exists() and not folder.is_dir():
        raise fail(f"{named}: that is a file, not a folder; {instead}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"{named}: cannot make that folder ({exc.strerror or exc}); {instead}") from None
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".koikoi-check-"):
            pass
    except OSError as exc:
        raise fail(f"{named}: cannot write there ({exc.strerror or exc}); {instead}") from None
    return folder


def check_own_name() -> None:
    """The name we send (``koikoi id --name``) must keep the rule the peer holds it to: a hand-edited file
    that breaks it is refused here, in one line, rather than dropped by the peer as ``bad-body``."""
    from p2p_koikoi.app.identity import IdentityError
    from p2p_koikoi.app.own_name import load_own_name

    try:
        load_own_name()
    except IdentityError as exc:
        raise fail(str(exc)) from None
