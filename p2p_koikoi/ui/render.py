"""The whole screen from a :class:`TableState`: which parts show, and how many lines each gets.

The layout fits 80x24: the status line, the two prompt lines, the table and your hand
always show; each player's captures get a line per kind when there is room (fewer,
joined, when there is not); the log gets what is left, and at least two lines. While
Koi-Koi or Shōbu is open the count (and what Koi-Koi risks) takes the place of the log; at the end
of a round its count takes the place of the table. Boxes (help, questions) are drawn over
the middle. :func:`render` is pure: the same state and size give the same lines.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from p2p_koikoi.ui.board import (
    capture_rows_wanted,
    hand_in_words,
    hand_lines,
    log_lines,
    newest_log_rows,
    player_lines,
    prompt_lines,
    status_line,
    table_lines,
)
from p2p_koikoi.ui.glyphs import SPINNER_ASCII, SPINNER_UNICODE, ascii_line
from p2p_koikoi.ui.panels import box, decision_panel, final_screen, overlay_onto, round_end_panel
from p2p_koikoi.ui.state import TableState

__all__ = ["render", "screen_text"]

MIN_LOG = 3  # the last turn of each player, most often
MIN_WIDTH, MIN_HEIGHT = 40, 12  # the least window that shows the table, your hand and the prompt


def _too_small(width: int, height: int) -> list[Text]:
    """What a window too small for the table shows instead: how big to make it (q still leaves)."""
    words = f"Make the window at least {MIN_WIDTH}×{MIN_HEIGHT} (it is {width}×{height}). q: leave"
    return [Text(line) for line in textwrap.wrap(words, max(1, width))][:height]


def _grow(rows: list[int], wanted: list[int], spare: int) -> int:
    """Give ``spare`` lines to ``rows`` one at a time, in turn, up to ``wanted``; return what is left."""
    while spare > 0 and any(r < w for r, w in zip(rows, wanted, strict=True)):
        for i in range(len(rows)):
            if spare > 0 and rows[i] < wanted[i]:
                rows[i] += 1
                spare -= 1
    return spare


def _board(state: TableState, width: int, height: int, spinner: str) -> list[Text]:
    me, them = state.seat, 1 - state.seat
    top = [status_line(state, width)]
    bottom = prompt_lines(state, width, spinner)
    wanted = [capture_rows_wanted(state, them), capture_rows_wanted(state, me)]
    rows = [1, 1]
    if state.round_end is not None:
        panel = round_end_panel(state, width)
        room = height - len(top) - len(bottom) - 2 - sum(rows)
        spare = _grow(rows, wanted, room - len(panel))
        middle = player_lines(state, them, width, rows[0]) + player_lines(state, me, width, rows[1])
        middle += panel[: max(0, height - len(top) - len(bottom) - len(middle))]
        return _stack(top, middle, bottom, height, max(0, spare))
    table = table_lines(state, width)
    hand = hand_lines(state, width)
    if state.focus is not None and state.focus.mode == "decision":  # the count, and the hand still in sight
        hand = hand_in_words(state, width)
        panel = decision_panel(state, width)
        room = height - len(top) - len(bottom) - len(table) - len(hand) - 2 - sum(rows)
        if room < len(panel):  # a low window: the compact table, and the players' headers alone
            table, rows = table_lines(state, width, compact=True), [0, 0]
            room = height - len(top) - len(bottom) - len(table) - len(hand) - 2
        spare = _grow(rows, wanted, room - len(panel))
        middle = player_lines(state, them, width, rows[0]) + table + player_lines(state, me, width, rows[1])
        middle += panel[: max(0, height - len(top) - len(bottom) - len(middle) - len(hand))] + hand
        return _stack(top, middle, bottom, height, max(0, spare))
    room = height - len(top) - len(bottom) - len(table) - len(hand) - 2  # the two players' headers
    least_log = max(MIN_LOG, newest_log_rows(state, width, 2))  # each player's last move, whole
    if room < sum(rows) + least_log:  # a low window: see _low_board
        return _low_board(state, width, height, top, bottom)
    log_rows = _grow(rows, wanted, room - sum(rows) - least_log) + least_log
    players = [player_lines(state, them, width, rows[0]), player_lines(state, me, width, rows[1])]
    middle = players[0] + table + players[1] + hand + log_lines(state, width, log_rows)
    return _stack(top, middle, bottom, height, 0)


def _low_board(state: TableState, width: int, height: int, top: list[Text], bottom: list[Text]) -> list[Text]:
    """A window too low for everything: the table (compact) and the hand's cards always; then, as room
    allows, the last move whole (the newest entry of the log), the table's and the hand's headers, the
    players' headers, a line of captures each, and the rest of the log. What goes first is what a person
    cannot find out by pressing ``?``."""
    me, them = state.seat, 1 - state.seat
    table, hand = table_lines(state, width, compact=True), hand_lines(state, width)
    room = height - len(top) - len(bottom) - (len(table) - 1) - (len(hand) - 1)
    last = min(newest_log_rows(state, width), max(0, room))
    room -= last
    headers = [room >= 1, room >= 2]  # the table's header, then the hand's
    room -= sum(headers)
    rows = [0, 0]
    players: list[list[Text]] = [[], []]
    if room >= 2:  # the players' headers (each with its captures counted and its nearest yaku)
        room -= 2
        if room >= 2:  # a line of captures each, with the tracker
            rows, room = [1, 1], room - 2
        players = [player_lines(state, them, width, rows[0]), player_lines(state, me, width, rows[1])]
    table = table if headers[0] else table[1:]
    hand = hand if headers[1] else hand[1:]
    middle = players[0] + table + players[1] + hand + log_lines(state, width, last + max(0, room))
    return _stack(top, middle, bottom, height, 0)


def _stack(top: list[Text], middle: list[Text], bottom: list[Text], height: int, gap: int) -> list[Text]:
    room = max(0, height - len(top) - len(bottom))
    body = (middle + [Text() for _ in range(gap)])[:room]
    body += [Text() for _ in range(room - len(body))]
    return (top + body + bottom)[:height]


def render(
    state: TableState, width: int, height: int, *, spinner: str | None = None, ascii_only: bool = False
) -> list[Text]:
    """The screen, ``height`` lines of at most ``width`` cells each; ``spinner`` is the frame of the
    waiting spinner to show."""
    if spinner is None:
        spinner = (SPINNER_ASCII if ascii_only else SPINNER_UNICODE)[0]
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        lines = _too_small(width, height)
    elif state.final:
        lines = final_screen(state, width)
        if len(lines) > height:  # a low window: the key to leave stays on its last line
            lines = [*lines[: height - 1], lines[-1]]
    else:
        lines = _board(state, width, height, spinner)
    if state.overlay is not None:
        lines = overlay_onto(lines, box(state.overlay, min(width - 2, 76), height - 2), width)
    lines = (lines + [Text() for _ in range(height)])[:height]
    for line in lines:
        line.no_wrap = True
        line.overflow = "crop"
    return [ascii_line(line) for line in lines] if ascii_only else lines


def screen_text(lines: list[Text]) -> str:
    """The screen as plain text, one line each (for tests and the closing summary)."""
    return "\n".join(line.plain.rstrip() for line in lines)
