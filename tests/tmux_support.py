"""The end of a ``koikoi`` program run in a tmux pane by the tests that start it as
``COMMAND; echo "[exit $?]"; sleep 600`` (:class:`tests.test_ui_tmux.Pane`); this module holds no test itself."""

from __future__ import annotations

import re

from tests.test_ui_tmux import Pane

__all__ = ["ended", "exit_code"]


def ended(pane: Pane, *, history: bool = False) -> str:
    """The whole pane once the program ended (looked for in the lines scrolled off the top too, if
    ``history``), lines the terminal wrapped put back together."""
    pane.wait(lambda s: "[exit" in s, 60, "the program to end", history=history)
    return pane.screen(joined=True, history=True)


def exit_code(screen: str) -> int:
    """The program's exit code, as the pane's ``[exit N]`` line shows it."""
    found = re.search(r"\[exit (\d+)\]", screen)
    assert found is not None, screen
    return int(found.group(1))
