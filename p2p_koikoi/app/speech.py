"""How the app layer talks to the player, whatever the screen: a line said, and a yes-or-no question.

The terminal table, the plain line interface and the tests each pass their own; the net code that
hosts, joins, dials back and checks keys takes them as these two types, declared once here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

__all__ = ["Confirm", "Say"]

Say = Callable[[str], None]
"""Tell the player one line."""

Confirm = Callable[[str], Awaitable[bool]]
"""Ask the player a yes-or-no question; True for yes."""
