"""``koikoi replay`` on screen: the whole match as text, or stepped through with the keyboard.

The replay itself (the steps, each with its board and its words) is built by
``app/replay.py``; this module only shows it. :func:`plain_lines` gives the
whole match as text (``--plain``, and whenever the terminal is not
interactive). :func:`render_step` draws one step with rich, and
:class:`Cursor` turns keys into moves between steps; both are pure, so tests
drive them without a terminal. :func:`run_interactive` is the thin loop that
reads keys in cbreak mode and redraws.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from p2p_koikoi.app.replay import Board, Replay
from p2p_koikoi.engine import Card, Kind, cards_of
from p2p_koikoi.record.verify import Verdict
from p2p_koikoi.ui.verify_view import finding_words

__all__ = ["KEYS_HELP", "Cursor", "plain_lines", "render_step", "run_interactive"]

KEYS_HELP = "n/→ next · p/← back · ]/[ next/previous round · 1-9 or r go to round · s start · e end · q quit"
_STYLE = {Kind.BRIGHT: "bold yellow", Kind.ANIMAL: "green", Kind.RIBBON: "red", Kind.PLAIN: ""}


# ---------------------------------------------------------------- plain text


def _whose(replay: Replay, seat: int) -> str:
    """``Your`` for the seat told in the second person (ours, in our practice record), else ``Bot's``."""
    return "Your" if seat == replay.you else f"{replay.names[seat]}'s"


def _names(mask: int) -> str:
    return ", ".join(card.display_name for card in cards_of(mask)) or "-"


def _hand(board: Board, seat: int) -> str:
    known = _names(board.hands[seat]) if board.hands[seat] else ""
    hidden = board.hidden[seat]
    unknown = f"{hidden} unknown" if hidden else ""
    return ", ".join(part for part in (known, unknown) if part) or "-"


def _stock(board: Board) -> str:
    if not board.stock:
        return "empty"
    if all(card is None for card in board.stock):
        return f"{len(board.stock)} left, order unknown"
    shown = ", ".join(card.display_name if card is not None else "?" for card in board.stock)
    return f"{len(board.stock)} left: {shown}"


def plain_lines(replay: Replay) -> list[str]:
    """The whole match as text: every round's deal face up, each action in words, each count."""
    lines = list(replay.opening)
    report = replay.report
    if report is not None:
        status = {
            Verdict.VERIFIED: "verified: every signature, link, deal and move checks out",
            Verdict.CONSISTENT: "a transcript: its moves are legal and its counts right, but it is not signed",
        }.get(report.verdict, report.verdict)
        lines.insert(0, f"Match: {report.path} ({status})")
        if report.finding is not None and report.verdict is not Verdict.VERIFIED:
            lines.insert(1, f"  {finding_words(report.finding)}")
    for number, rnd in enumerate(replay.rounds):
        end = replay.rounds[number + 1].first_step if number + 1 < len(replay.rounds) else len(replay.steps)
        steps = replay.steps[rnd.first_step : end]
        board = steps[0].board
        lines.append("")
        lines.append(f"== {steps[0].lines[0]}")
        for seat in (0, 1):
            lines.append(f"   {_whose(replay, seat)} hand: {_hand(board, seat)}")
        lines.append(f"   Table: {_names(board.table)}")
        lines.append(f"   Stock: {_stock(board)}")
        for step in steps[1:]:
            lines.extend(f"   {line}" for line in step.lines)
    lines.append("")
    lines.extend(replay.closing)
    return lines


# ---------------------------------------------------------------- rich


def _cards(mask: int) -> Text:
    text = Text()
    for card in cards_of(mask):
        if text:
            text.append(", ")
        text.append(card.display_name, style=_STYLE[card.kind])
    return text if text else Text("-", style="dim")


def _stock_text(stock: tuple[Card | None, ...]) -> Text:
    text = Text(f"{len(stock)} left", style="dim")
    for card in stock[:6]:
        text.append(", ")
        text.append(card.display_name if card is not None else "?", style=_STYLE[card.kind] if card else "dim")
    if len(stock) > 6:
        text.append(", ...", style="dim")
    return text


def render_step(replay: Replay, index: int) -> RenderableType:
    """One step of the replay: the board as it stands, the last lines of the story, the keys."""
    step = replay.steps[index]
    board = step.board
    rnd = replay.rounds[step.round_index]
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for seat in (1, 0):
        hand = _cards(board.hands[seat])
        if board.hidden[seat]:
            hand.append(f" + {board.hidden[seat]} unknown", style="dim")
        grid.add_row(f"{_whose(replay, seat)} hand", hand)
        grid.add_row("captures", _cards(board.captures[seat]))
        yaku = ", ".join(board.yaku[seat]) or "-"
        calls = f"   Koi-Koi calls: {board.calls[seat]}" if board.calls[seat] else ""
        grid.add_row("yaku", Text(yaku + calls))
        if seat == 1:
            grid.add_row("", "")
            grid.add_row("Table", _cards(board.table))
            grid.add_row("Stock", _stock_text(board.stock))
            grid.add_row("", "")
    story = Text()
    first = max(rnd.first_step, index - 7)
    for number in range(first, index + 1):
        for line in replay.steps[number].lines:
            story.append(line + "\n", style="bold" if number == index else "dim")
    status = replay.report.verdict if replay.report is not None else ""
    title = f"{rnd.title} · step {index + 1}/{len(replay.steps)} · {status}"
    return Group(
        Panel(grid, title=title, title_align="left"), Panel(story, title="what happened"), Text(KEYS_HELP, style="dim")
    )


# ---------------------------------------------------------------- keys


@dataclass
class Cursor:
    """Where the replay stands, and what each key does to it."""

    replay: Replay
    index: int = 0

    def press(self, key: str) -> bool:
        """Move for ``key``; returns False when the key means quit."""
        last = len(self.replay.steps) - 1
        if key in ("q", "Q", "\x1b", "\x03"):
            return False
        if key in ("n", " ", "l", "right", "down", "\r", "\n"):
            self.index = min(last, self.index + 1)
        elif key in ("p", "h", "left", "up", "\x7f"):
            self.index = max(0, self.index - 1)
        elif key in ("e", "G", "end"):
            self.index = last
        elif key in ("s", "g", "home"):
            self.index = 0
        elif key in ("]", "pagedown"):
            self.index = self._round_start(self.replay.round_of(self.index) + 1, last)
        elif key in ("[", "pageup"):
            current = self.replay.round_of(self.index)
            start = self.replay.rounds[current].first_step if self.replay.rounds else 0
            self.index = self._round_start(current - 1 if self.index == start else current, last)
        elif key.isdigit() and key != "0":
            self.go_to_round(int(key))
        return True

    def _round_start(self, round_index: int, last: int) -> int:
        rounds = self.replay.rounds
        if not rounds:
            return 0
        if round_index >= len(rounds):
            return last
        return rounds[max(0, round_index)].first_step

    def go_to_round(self, number: int) -> None:
        """The start of round ``number`` (its first deal, if it was dealt again)."""
        for rnd in self.replay.rounds:
            if rnd.played.number == number:
                self.index = rnd.first_step
                return


_ESCAPES = {
    "\x1b[C": "right",
    "\x1b[D": "left",
    "\x1b[A": "up",
    "\x1b[B": "down",
    "\x1b[5~": "pageup",
    "\x1b[6~": "pagedown",
    "\x1b[H": "home",
    "\x1b[F": "end",
    "\x1bOH": "home",
    "\x1bOF": "end",
}


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[Callable[[], str]]:
    """Keys one at a time, unechoed, for as long as the context lasts (terminal restored after)."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)

        def read_key() -> str:
            raw = os.read(fd, 8).decode("utf-8", "replace")
            return _ESCAPES.get(raw, raw[:1] if raw else "q")

        yield read_key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def run_interactive(replay: Replay, console: Console | None = None) -> None:
    """Step through the replay until the user quits."""
    console = console or Console()
    cursor = Cursor(replay)
    fd = sys.stdin.fileno()
    with _cbreak(fd) as read_key:
        while True:
            console.clear()
            console.print(render_step(replay, cursor.index))
            key = read_key()
            if key == "r":
                console.print("Go to round: ", end="")
                digits = ""
                while (typed := read_key()).isdigit():
                    digits += typed
                    console.print(typed, end="")
                if digits:
                    cursor.go_to_round(int(digits))
                continue
            if not cursor.press(key):
                return
