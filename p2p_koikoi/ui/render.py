"""The whole screen from a :class:`TableState`: which parts show, and how many lines each gets.

The layout fits 80x24: the status line, the two prompt lines, the table and your hand
always show; each player's captures get a line per kind when there is room (fewer,
joined, when there is not); the log gets what is left, and at least two lines. While
Koi-Koi or Shōbu is open the count (and what Koi-Koi risks) sits under the table, the last move
under the hand; at the end of a round its count takes the place of the table. A low window (down to
40x12) keeps the scores, the prompt's choices and the last move whole, giving up the rest first.
Boxes (help, questions) are drawn over the middle. :func:`render` is pure: the same state and size give the same lines.
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
from p2p_koikoi.ui.panels import (
    box,
    decision_choices,
    decision_panel,
    final_screen,
    overlay_onto,
    round_end_panel,
    round_end_parts,
)
from p2p_koikoi.ui.picker import FocusMode
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
        if room < len(panel):
            return _low_round_end(state, width, height, top, bottom)
        spare = _grow(rows, wanted, room - len(panel))
        middle = player_lines(state, them, width, rows[0]) + player_lines(state, me, width, rows[1])
        middle += panel[: max(0, height - len(top) - len(bottom) - len(middle))]
        return _stack(top, middle, bottom, height, max(0, spare))
    if state.focus is not None and state.focus.mode is FocusMode.DECISION:
        return _decision_board(state, width, height, top, spinner)
    table = table_lines(state, width)
    hand = hand_lines(state, width)
    room = height - len(top) - len(bottom) - len(table) - len(hand) - 2  # the two players' headers
    least_log = max(MIN_LOG, newest_log_rows(state, width, 2))  # each player's last move, whole
    if room < sum(rows) + least_log:  # a low window: see _low_board
        return _low_board(state, width, height, top, spinner)
    log_rows = _grow(rows, wanted, room - sum(rows) - least_log) + least_log
    players = [player_lines(state, them, width, rows[0]), player_lines(state, me, width, rows[1])]
    middle = players[0] + table + players[1] + hand + log_lines(state, width, log_rows)
    return _stack(top, middle, bottom, height, 0)


def _decision_board(state: TableState, width: int, height: int, top: list[Text], spinner: str) -> list[Text]:
    """Koi-Koi or Shōbu: the count in the place of the table's lower half, the hand in words under it
    and the last move (the one that made the yaku) under that, whole; a window too low for all of it
    gets :func:`_low_decision`."""
    me, them = state.seat, 1 - state.seat
    bottom = prompt_lines(state, width, spinner)
    table, hand, panel = table_lines(state, width), hand_in_words(state, width), decision_panel(state, width)
    last = newest_log_rows(state, width)
    rows, wanted = [1, 1], [capture_rows_wanted(state, them), capture_rows_wanted(state, me)]
    room = height - len(top) - len(bottom) - len(table) - len(hand) - 2 - sum(rows) - len(panel) - last
    if room < 0:
        return _low_decision(state, width, height, top, spinner)
    log_rows = _grow(rows, wanted, room) + last
    middle = player_lines(state, them, width, rows[0]) + table + player_lines(state, me, width, rows[1])
    middle += panel + hand + log_lines(state, width, log_rows)
    return _stack(top, middle, bottom, height, 0)


def _low_decision(state: TableState, width: int, height: int, top: list[Text], spinner: str) -> list[Text]:
    """Koi-Koi or Shōbu in a low window: the two choices whole (what Shōbu pays, what Koi-Koi risks) over
    the full width, the last move whole, and the keys, after a line of prompt where there is room; then,
    as room allows, the hand in words, the panel's title, the count line by line, the table's cards and
    the players' headers."""
    me, them = state.seat, 1 - state.seat
    bottom = prompt_lines(state, width, spinner, rows=1)
    choices, panel = decision_choices(state, width, indent=""), decision_panel(state, width)
    last = newest_log_rows(state, width)
    if len(top) + len(choices) + last + len(bottom) > height:
        choices = decision_choices(state, width, indent="", brief=True)
    if len(top) + len(choices) + last + len(bottom) > height:  # the choices above say what the prompt does
        bottom = bottom[-1:]
    heads = player_lines(state, them, width, 0) + player_lines(state, me, width, 0)
    count = panel[1 + len(decision_choices(state, width)) :]
    optional = [hand_in_words(state, width), panel[:1], count, table_lines(state, width, compact=True), heads]
    (hand, title, count, table, heads), spare = _fitting(
        optional, height - len(top) - len(bottom) - len(choices) - last
    )
    middle = heads[:1] + table + heads[1:] + title + choices + count + hand + log_lines(state, width, last + spare)
    return _stack(top, middle, bottom, height, 0)


def _low_round_end(state: TableState, width: int, height: int, top: list[Text], bottom: list[Text]) -> list[Text]:
    """The end of a round in a window too low for the whole panel under the players: who won and the
    next dealer whole, always; then, as room allows, the count line by line (else the count in brief),
    the panel's title and the players' headers. The status line keeps the points."""
    parts = round_end_parts(state, width)
    heads = player_lines(state, 1 - state.seat, width, 0) + player_lines(state, state.seat, width, 0)
    room = height - len(top) - len(bottom) - len(parts.winner) - len(parts.dealer)
    (count, brief, title, heads), _ = _fitting([parts.count, parts.brief, parts.title, heads], room)
    if count:
        brief = []
    elif brief:  # the count gave way to its brief: the title may still fit where the count did not
        (title, heads), _ = _fitting([parts.title, heads], room - len(brief))
    middle = heads + title + parts.winner + (count or brief) + parts.dealer
    return _stack(top, middle, bottom, height, 0)


def _fitting(blocks: list[list[Text]], room: int) -> tuple[list[list[Text]], int]:
    """Each block, in the order given (what matters most first), whole if it fits the room left, else
    none of it (a part shown would look whole); and the room left over, negative when none was."""
    shown: list[list[Text]] = []
    for block in blocks:
        fits = 0 <= len(block) <= room
        shown.append(block if fits else [])
        room -= len(block) if fits else 0
    return shown, room


def _low_essentials(
    state: TableState, width: int, spinner: str, room: int
) -> tuple[list[Text], list[Text], list[Text]]:
    """The prompt, the table's cards and the hand's for a low window, fitting ``room`` (the window less
    the status line and the last move) by giving up, in turn: the prompt's longer wording, then (while a
    table card is chosen, a choice the prompt names whole with the card it is for) the hand, then the
    table's row of kinds, then the hand's. Issue 28 item 10: the last move, the scores and the choices
    are never given up."""
    choosing = state.focus is not None and state.focus.mode in (FocusMode.TARGET, FocusMode.DRAW)
    table, hand = table_lines(state, width, compact=True)[1:], hand_lines(state, width)[1:]
    short = prompt_lines(state, width, spinner, rows=1)
    steps = [(prompt_lines(state, width, spinner), table, hand), (short, table, hand)]
    if choosing:
        steps.append((short, table, []))
    plants = table_lines(state, width, compact=True, kinds=False)[1:]
    steps.append((short, plants, [] if choosing else hand))
    if not choosing:
        steps.append((short, plants, hand_lines(state, width, kinds=False)[1:]))
    return next((step for step in steps if sum(len(part) for part in step) <= room), steps[-1])


def _low_board(state: TableState, width: int, height: int, top: list[Text], spinner: str) -> list[Text]:
    """A window too low for everything: the last move whole (the newest entry of the log), the prompt and
    the cards of the table and the hand (see :func:`_low_essentials` for what gives way to the last move);
    then, as room allows, the table's and the hand's headers, the players' headers, a line of captures
    each, and the rest of the log. What goes first is what a person cannot find out by pressing ``?``."""
    me, them = state.seat, 1 - state.seat
    last = newest_log_rows(state, width)
    bottom, table, hand = _low_essentials(state, width, spinner, height - len(top) - last)
    room = height - len(top) - len(bottom) - len(table) - len(hand) - last
    headers = [room >= 1, room >= 2 and bool(hand)]  # the table's header, then the hand's
    room -= sum(headers)
    rows = [0, 0]
    players: list[list[Text]] = [[], []]
    if room >= 2:  # the players' headers (each with its captures counted and its nearest yaku)
        room -= 2
        if room >= 2:  # a line of captures each, with the tracker
            rows, room = [1, 1], room - 2
        players = [player_lines(state, them, width, rows[0]), player_lines(state, me, width, rows[1])]
    table = table_lines(state, width, compact=True)[:1] + table if headers[0] else table
    hand = hand_lines(state, width)[:1] + hand if headers[1] else hand
    middle = players[0] + table + players[1] + hand + log_lines(state, width, last + room)
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
