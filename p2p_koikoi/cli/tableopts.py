"""Where a person plays: the terminal table, or ``--plain`` lines (shared by play, host and join)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

__all__ = ["PlainOption", "use_table"]

PlainOption = Annotated[
    bool,
    typer.Option(
        "--plain",
        help="Line-by-line announcements and numbered choices, no redraws (for screen readers and dumb "
        "terminals); what runs anyway when the output is not a terminal.",
    ),
]


def use_table(plain: bool) -> bool:
    """The table needs a terminal to draw on and a keyboard to read; anything else gets plain lines."""
    return not plain and sys.stdin.isatty() and sys.stdout.isatty()
