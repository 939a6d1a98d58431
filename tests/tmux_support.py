"""The end of a ``koikoi`` program run in a tmux pane by the tests that start it as
``COMMAND; echo "[exit $?]"; sleep 600`` (:class:`tests.test_ui_tmux.Pane`); this module holds no test itself."""

from __future__ import annotations

import re
import time

from tests.test_ui_tmux import Pane, Seen, first_taking_card

__all__ = ["ended", "exit_code", "play_both"]


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


def _key(screen: str, seen: Seen) -> str | None:
    """What the beginner of :func:`tests.test_ui_tmux.play_until` presses at this screen, None when it
    waits (for the other seat, the deal, the end)."""
    keys_line = screen.rstrip().splitlines()[-1] if screen.strip() else ""
    if "k: Koi-Koi" in keys_line:
        seen.koikoi.append(screen)
        return "s" if len(seen.koikoi) > 1 else "k"
    if "Enter: continue" in keys_line:
        return "Enter"
    if "Enter: take" in keys_line:
        return "1"
    if "Enter: play" in keys_line:
        return first_taking_card(screen)
    return None


def play_both(panes: tuple[Pane, Pane], done: str) -> None:
    """Both seats played by keys, a pane at a time, until both screens show ``done``."""
    seen = (Seen(), Seen())
    deadline = time.monotonic() + 300
    while True:
        assert time.monotonic() < deadline, "the match did not end in time:\n" + "\n".join(p.screen() for p in panes)
        finished = 0
        for pane, kept in zip(panes, seen, strict=True):
            screen = pane.settled()
            if done in screen:
                finished += 1
                continue
            key = _key(screen, kept)
            if key is not None:
                pane.keys(key)
                pane.wait(lambda s, b=screen: s != b, 30, f"the screen to answer {key!r}")
        if finished == len(panes):
            return
