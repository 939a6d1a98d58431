"""Where a person plays: the terminal table, or ``--plain`` lines (shared by play, host and join)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

__all__ = ["PlainOption", "table_trouble", "use_table"]

PlainOption = Annotated[
    bool,
    typer.Option(
        "--plain",
        help="Line-by-line announcements and numbered choices, no redraws (for screen readers and dumb "
        "terminals); what runs anyway when the output is not a terminal or the terminal cannot redraw.",
    ),
]

_CANNOT_REDRAW = ("", "dumb", "unknown", "emacs")


def table_trouble() -> str | None:
    """Why this terminal cannot show the table (it cannot move the cursor), or None if it can."""
    term = os.environ.get("TERM", "")
    if term.lower() in _CANNOT_REDRAW:
        return f"this terminal (TERM={term or 'unset'}) cannot redraw the table"
    return None


def use_table(plain: bool) -> bool:
    """The table needs a terminal to draw on and a keyboard to read; anything else gets plain lines.
    A terminal that cannot redraw gets plain lines too, and is told so (on stderr)."""
    if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    trouble = table_trouble()
    if trouble is not None:
        print(f"koikoi: {trouble}; playing in plain mode (as with --plain).", file=sys.stderr, flush=True)
        return False
    return True
