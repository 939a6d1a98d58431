"""The parts of the table screen, each a pure function from :class:`TableState` to lines.

Top to bottom: the status line (round N of M, the dealer, both scores or pools, the
Koi-Koi calls and what they multiply), the opponent (hand count, captures by kind, yaku
tracker), the table (with the stock count and a drawn card on show), your captures and
tracker, your hand numbered 1 to 8, the log of moves, and a two-line prompt. Every line is
cut to the width; :mod:`p2p_koikoi.ui.render` decides how many lines each part gets.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from p2p_koikoi.app.decision import tracker_words
from p2p_koikoi.app.shobu import koikoi_multiplier
from p2p_koikoi.app.tracker import captured_by_kind
from p2p_koikoi.engine import Card, Kind, Phase, cards_of
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.ui.cards import KIND_NAMES, card_cell, cell_width, short_label
from p2p_koikoi.ui.picker import FocusMode
from p2p_koikoi.ui.state import TableState, waiting_text

__all__ = [
    "capture_rows_wanted",
    "fit",
    "hand_in_words",
    "hand_lines",
    "log_lines",
    "newest_log_rows",
    "player_lines",
    "prompt_lines",
    "rule",
    "status_line",
    "table_lines",
]


def fit(text: Text | str, width: int, style: str = "") -> Text:
    """One screen line: cut to ``width`` with an ellipsis when it is longer."""
    line = Text(text, style=style) if isinstance(text, str) else text.copy()
    line.no_wrap = True
    if line.cell_len > width:
        line.truncate(width, overflow="ellipsis")
    return line


def rule(title: str, width: int, style: str = "bold") -> Text:
    """``── title ──────`` across the width."""
    head = f"── {title} " if title else ""
    return fit(Text(head, style=style) + Text("─" * max(0, width - len(head)), style="dim"), width)


# -- the status line -----------------------------------------------------------------------


def status_line(state: TableState, width: int) -> Text:
    """Round N of M, the dealer, both scores (or pools), and the Koi-Koi calls with what they
    multiply; in fewer words when the full line does not fit."""
    rules = state.rules
    full: list[str] = []
    short: list[str] = []
    tiny: list[str] = []
    if state.round_number and rules is not None:
        full.append(f"Round {state.round_number} of {rules.rounds}")
    elif rules is not None:
        full.append(f"Koi-Koi ({rules.preset})")
    short += full
    if state.dealer is not None:
        dealer = state.name(state.dealer)
        full.append(f"Dealer: {dealer}")
        short.append(f"{dealer} deal{'' if state.dealer == state.seat else 's'}")
    scores: list[str] = []
    if state.points is not None and rules is not None:
        label = "Pools: " if rules.scoring is Scoring.POOL else ""
        me, them = state.seat, 1 - state.seat
        scores.append(f"{label}{state.me} {state.points[me]} · {state.them} {state.points[them]}")
        full += scores
        short += scores
    tiny += short
    # the least: the round as R1/3 and both scores, which every window must show whole (issue 28 item 10)
    least = ([f"R{state.round_number}/{rules.rounds}"] if state.round_number and rules is not None else []) + scores
    if state.view is not None and rules is not None:
        calls, factor = _calls_text(state)
        full.append(f"Koi-Koi: {calls}" + (f" → {factor}" if factor else ""))
        short.append(f"Koi-Koi → {factor}" if factor else "Koi-Koi: none")
        mine = state.me
        tiny.append(short[-1].replace(f"{mine} ×", "you ×").replace(f"{state.them} ×", "them ×"))
        least.append(tiny[-1].replace("Koi-Koi: none", "no Koi-Koi").replace("Koi-Koi → ", "KK "))
    variants = [full, short, tiny, least, least[:-1], scores]
    text = next((t for t in (" " + " │ ".join(v) for v in variants) if len(t) <= width), " " + " │ ".join(least))
    return fit(Text(text.ljust(width), style="bold reverse"), width)


def _calls_text(state: TableState) -> tuple[str, str]:
    """The calls this round (``You 1, Bot 0`` or ``none``) and the multiplier they make (or "")."""
    view, rules = state.view, state.rules
    assert view is not None and rules is not None
    me, them = state.seat, 1 - state.seat
    mine, theirs = view.calls[me], view.calls[them]
    if not mine and not theirs:
        return "none", ""
    ours, _ = koikoi_multiplier(rules, mine, theirs)
    other, _ = koikoi_multiplier(rules, theirs, mine)
    if ours == other:
        factor = f"×{ours}"
    else:  # the multiplier depends on who wins: name the winner it helps
        factor = ", ".join(f"{name} ×{f}" for name, f in ((state.me, ours), (state.them, other)) if f > 1) or "×1"
    return f"{state.me} {mine}, {state.them} {theirs}", factor


# -- a player's captures and yaku tracker ----------------------------------------------------------


def _captures(state: TableState, seat: int) -> int:
    if state.round_end is not None:
        return state.round_end.captures[seat]
    return state.view.captures[seat] if state.view is not None else 0


def capture_rows_wanted(state: TableState, seat: int) -> int:
    """Rows a player's captures need to show each kind on its own line (at least one)."""
    groups = captured_by_kind(_captures(state, seat))
    return max(1, sum(1 for cards in groups.values() if cards))


def _kind_segments(caps: int) -> list[Text]:
    out: list[Text] = []
    for kind, cards in captured_by_kind(caps).items():
        if not cards:
            continue
        label = Text(f"{KIND_NAMES[kind]} {len(cards)}".ljust(11), style="bold")
        names = Text(", ".join(short_label(c) for c in cards), style="dim" if kind is Kind.PLAIN else "")
        out.append(label + names)
    return out


def _tracker_rows(state: TableState, seat: int, width: int, rows: int) -> list[Text]:
    """The tracker's entries packed into lines of ``width``, `` · `` between them; an entry too wide
    for the column alone goes on over lines of its own, broken at spaces: never cut."""
    rules = state.rules
    if rules is None or width < 8:
        return []
    theirs = _captures(state, 1 - seat)
    out: list[Text] = []
    line = Text()
    for item, words in tracker_words(_captures(state, seat), rules, theirs=theirs, short=True):
        style = "bold green" if item.made else "cyan"
        if Text(words).cell_len > width and len(str(item)) + 2 <= width:  # the points go first, not the count
            words = f"✓ {item}" if item.made else str(item)
        parts = textwrap.wrap(words, width, subsequent_indent="  ")
        if line.plain and (len(parts) > 1 or line.cell_len + 3 + Text(words).cell_len > width):
            out.append(line)
            line = Text()
        if len(parts) > 1:
            out += [Text(part, style=style) for part in parts]
            continue
        if line.plain:
            line.append(" · ", style="dim")
        line.append(words, style=style)
    if line.plain:
        out.append(line)
    return out[:rows]


def player_lines(state: TableState, seat: int, width: int, rows: int) -> list[Text]:
    """The header (name, hand count, calls) and ``rows`` lines of captures by kind, with the
    yaku tracker on the right."""
    view = state.view
    header = state.name(seat)
    if view is not None and state.round_end is None:
        if seat != state.seat:
            count = view.hand_size(seat)
            header += f" · {count} card{'' if count == 1 else 's'} in hand"
        if view.calls[seat]:
            times = view.calls[seat]
            header += " · called Koi-Koi" + (f" {times} times" if times > 1 else "")
    if rows == 0:  # a low window: the header alone, with the captures counted and the nearest yaku
        taken = _captures(state, seat).bit_count()
        nearest = _tracker_rows(state, seat, width, 1)
        header += f" · {taken} taken"
        near = f" · {nearest[0].plain.split(' · ')[0]}" if nearest else ""
        header += near if len(header + near) + 4 <= width else ""  # whole, or not at all
        return [rule(header, width)]
    tracker_width = min(34, max(0, width * 3 // 8))
    left_width = width - tracker_width - 1
    segments = _kind_segments(_captures(state, seat))
    if not segments:
        segments = [Text("no captures yet", style="dim")]
    if len(segments) > rows:  # too little room: the last row takes the rest
        head, rest = segments[: rows - 1], segments[rows - 1 :]
        joined = Text(" · ", style="dim").join(rest)
        segments = [*head, joined]
    tracker = _tracker_rows(state, seat, tracker_width, rows)
    lines = [rule(header, width)]
    for i in range(rows):
        left = fit(Text("  ") + segments[i], left_width) if i < len(segments) else Text()
        left.pad_right(left_width - left.cell_len)
        right = tracker[i] if i < len(tracker) else Text()
        left.append(" ")
        left.append_text(right)
        lines.append(fit(left, width))
    return lines


# -- the table and the hand ----------------------------------------------------------------------


def _per_row(width: int) -> int:
    return max(1, width // cell_width(width))


def table_rows(state: TableState, width: int) -> int:
    """Rows of card cells the table needs."""
    view = state.view
    count = view.table.bit_count() if view is not None else 0
    return max(1, -(-count // _per_row(width)))


def _cells(
    cards: list[Card],
    markers: list[Text],
    focused: int | None,
    width: int,
    dim: set[Card],
    *,
    marks: bool = True,
    kinds: bool = True,
) -> list[Text]:
    """Rows of card cells, each a line of markers (unless ``marks`` is off), the plants and the kinds
    (unless ``kinds`` is off)."""
    lines: list[Text] = []
    per_row = _per_row(width)
    cell = cell_width(width)
    for start in range(0, len(cards), per_row):
        chunk = cards[start : start + per_row]
        mark, top, bottom = Text(), Text(), Text()
        for i, card in enumerate(chunk, start):
            upper, lower = card_cell(card, focused=i == focused, dim=card in dim, cell=cell)
            mark.append_text(markers[i])
            mark.append(" " * (cell - markers[i].cell_len))
            top.append_text(upper)
            top.append(" ")
            bottom.append_text(lower)
            bottom.append(" ")
        lines += ([fit(mark, width)] if marks else []) + [fit(top, width)] + ([fit(bottom, width)] if kinds else [])
    return lines


def _drawn_text(state: TableState) -> str:
    card, view = state.drawn, state.view
    if card is None or view is None:
        return ""
    matches = list(cards_of(view.table & month_mask(card.month)))
    if not matches:
        where = "goes to the table"
    elif len(matches) == 2:
        where = "matches two"
    else:
        where = "takes " + ", ".join(c.display_name for c in matches)
    who = "You draw" if view.turn == state.seat else f"{state.them} draws"
    return f" · {who} {card.display_name} → {where}"


def table_lines(state: TableState, width: int, *, compact: bool = False, kinds: bool = True) -> list[Text]:
    """The table's header (stock count, a drawn card on show) and its cards, three lines a row;
    ``compact`` (a low window) leaves out the ``↓`` markers, which the prompt line repeats in words;
    without ``kinds`` (the lowest windows, to keep the last move whole) a row is its plants alone: the
    prompt names in full what the card under the cursor takes, and the choice of two names both."""
    view = state.view
    if view is None:
        return [rule("Table", width), Text(), Text(), Text()]
    header = rule(f"Table · {view.stock_left} in the stock{_drawn_text(state)}", width)
    cards = list(cards_of(view.table))
    if not cards:
        return [header, Text(), Text("  (no cards on the table)", style="dim"), Text()]
    focus = state.focus
    markers = [Text() for _ in cards]
    focused: int | None = None
    pointing = None
    if focus is not None and focus.mode is FocusMode.HAND and focus.hand:
        pointing = focus.hand[focus.index]
    elif state.drawn is not None:
        pointing = state.drawn
    if focus is not None and focus.mode in (FocusMode.TARGET, FocusMode.DRAW):
        for number, target in enumerate(focus.targets, 1):
            i = cards.index(target)
            here = number - 1 == focus.index
            markers[i] = Text(f"{'▶' if here else ' '}{number}", style="bold reverse" if here else "bold")
            if here:
                focused = i
    elif pointing is not None:
        for i, card in enumerate(cards):
            if card.month == pointing.month:
                markers[i] = Text(" ↓", style="bold")
    numbered = focus is not None and focus.mode in (FocusMode.TARGET, FocusMode.DRAW)
    return [header, *_cells(cards, markers, focused, width, set(), marks=numbered or not compact, kinds=kinds)]


def hand_lines(state: TableState, width: int, *, kinds: bool = True) -> list[Text]:
    """Your hand, numbered 1 to 8; ``+`` marks a card that would take something. Without ``kinds`` (the
    last thing the lowest window gives up for the last move) a card shows its plant alone: the prompt
    names the card under the cursor whole, and ``?`` tells its kind and role."""
    view = state.view
    if view is None:
        return [rule("Your hand", width), Text(), Text(), Text()]
    focus = state.focus
    cards = list(focus.hand) if focus is not None and focus.hand else list(cards_of(view.hands[state.seat]))
    header = rule(f"Your hand · {len(cards)} card{'' if len(cards) == 1 else 's'}", width)
    if view.phase is Phase.EXCHANGE:  # the rulebook: nobody has looked at a hand yet
        face_down = "(dealt face down: keep your hand, or exchange it with the dealer's unseen)"
        parts = textwrap.wrap(face_down, max(10, width - 2), initial_indent="  ", subsequent_indent="  ")
        body: list[Text | str] = [Text(), *parts] if len(parts) == 1 else [*parts]  # a row of cells: three lines
        return [rule("Your hand · 8 cards, face down", width), *(fit(p, width, "dim") for p in body), Text()][:4]
    if not cards:
        return [header, Text(), Text("  (your hand is empty)", style="dim"), Text()]
    focused: int | None = None
    dim: set[Card] = set()
    if focus is not None and focus.mode is FocusMode.HAND:
        focused = focus.index
    elif focus is not None and focus.mode is FocusMode.TARGET and focus.card is not None:
        focused = cards.index(focus.card)
        dim = {c for c in cards if c != focus.card}
    markers = []
    for i, card in enumerate(cards):
        takes = bool(view.table & month_mask(card.month))
        here = i == focused
        markers.append(Text(f"{'▶' if here else ' '}{i + 1}{' +' if takes else ''}", style="bold"))
    return [header, *_cells(cards, markers, focused, width, dim, kinds=kinds)]


def hand_in_words(state: TableState, width: int) -> list[Text]:
    """Your hand as a line of names (wrapped, never cut), for while no card can be played (Koi-Koi or
    Shōbu is open): it stays in sight in a third of the room the cells take."""
    view = state.view
    cards = list(cards_of(view.hands[state.seat])) if view is not None else []
    header = rule(f"Your hand · {len(cards)} card{'' if len(cards) == 1 else 's'}", width)
    names = ", ".join(c.display_name for c in cards) or "(empty)"
    return [
        header,
        *(Text(part) for part in textwrap.wrap(names, max(10, width - 2), initial_indent="  ", subsequent_indent="  ")),
    ]


# -- the log and the prompt ----------------------------------------------------------------------------


def _wrapped_entry(entry: str, width: int) -> list[str]:
    return textwrap.wrap(entry, max(10, width - 2), subsequent_indent="  ", break_on_hyphens=False) or [""]


def newest_log_rows(state: TableState, width: int, entries: int = 1) -> int:
    """Lines the newest ``entries`` of the log take whole (0 with an empty log): the last move, which
    even the lowest window shows, or the last turn of each player."""
    return sum(len(_wrapped_entry(entry, width)) for entry in state.log[-entries:]) if entries else 0


def log_lines(state: TableState, width: int, rows: int) -> list[Text]:
    """The newest entries of the log that fit in ``rows`` screen lines, each wrapped at word boundaries
    (never a word cut, never an entry shown in part, unless the newest alone is too long), the newest
    in bold."""
    if rows <= 0:
        return []
    shown: list[Text] = []
    for age, entry in enumerate(reversed(state.log[-rows:])):
        parts = _wrapped_entry(entry, width)
        lines = [fit("  " + part, width, "bold" if age == 0 else "") for part in parts]
        if shown and len(shown) + len(lines) > rows:
            break
        shown = lines + shown
    if len(shown) > rows:  # the newest alone is too long for the room: what fits, marked as cut
        shown = shown[:rows]
        shown[-1] = fit(shown[-1].plain.rstrip() + " …", width, "bold")
    return shown + [Text() for _ in range(rows - len(shown))]


PROMPT_INFO_LINES = 2  # the lines the prompt's first part takes in a narrow window, unless a choice needs more


def _wrapped_rows(text: str, width: int) -> int:
    return len(textwrap.wrap(text, max(10, width), subsequent_indent="  ", break_on_hyphens=False))


def _keys_for(state: TableState) -> tuple[str, ...]:
    """The keys that work now, longest wording first (a narrow window takes the first that fits)."""
    focus = state.focus
    if state.round_end is not None:
        return ("Enter: continue · ? help · q quit",)
    if focus is None:
        return ("? help · q quit",)
    if focus.mode is FocusMode.HAND:
        return (
            "1-8 or ←→ and Enter: play that card · ? the card · h hint · q quit",
            "1-8 or ←→ and Enter: play · ? the card · h hint · q quit",
            "1-8/←→ Enter: play · ? help · h hint · q quit",
            "1-8/←→ Enter: play · ?/h help · q quit",
        )
    if focus.mode in (FocusMode.TARGET, FocusMode.DRAW):
        n = f"1-{len(focus.targets)}"
        back = focus.mode is FocusMode.TARGET
        return (
            f"{n} or ←→ and Enter: take it" + (" · Esc: put the card back" if back else "") + " · ? the card · q quit",
            f"{n}/←→ Enter: take it" + (" · Esc: put it back" if back else "") + " · q quit",
            f"{n}/←→ Enter: take" + (" · Esc: back" if back else "") + " · q quit",
        )
    if focus.mode is FocusMode.DECISION:
        return (
            "s: Shōbu (stop and score) · k: Koi-Koi (play on) · ? help · h hint · q quit",
            "s: Shōbu (stop) · k: Koi-Koi (play on) · h hint · q quit",
            "s: Shōbu · k: Koi-Koi · h hint · q quit",
        )
    n = f"1-{len(focus.options)}"
    return (f"{n} or ←→ and Enter: choose · ? help · q quit", f"{n}/←→ Enter: choose · q quit")


def _fullest(variants: list[str], width: int, rows: int) -> str:
    """The first (fullest) wording that wraps into ``rows`` lines, else the last (shortest)."""
    return next((v for v in variants if _wrapped_rows(v, width) <= rows), variants[-1])


def _target_variants(state: TableState) -> list[str]:
    """The choice of a table card to take, fullest first: every card named whole with its number; where
    more than two may be taken (a wild card) the shortest names the one under the cursor, the others
    being numbered on the table."""
    focus = state.focus
    assert focus is not None
    verb = "drew" if focus.mode is FocusMode.DRAW else "play"
    name = focus.card.display_name if focus.card is not None else "the card"
    listed = ", ".join(f"{i}: {t.display_name}" for i, t in enumerate(focus.targets, 1))
    target = focus.targets[focus.index].display_name
    count = len(focus.targets)
    which = "it matches two" if count == 2 else f"it may take any of {count}"
    variants = [f"▶ You {verb} {name}: {which} ({listed}). Take {target}?", f"▶ {name}: take {listed}?"]
    if count > 2:
        variants.append(f"▶ {name}: take {focus.index + 1}: {target}? (1-{count} on the table)")
    return variants


def _info(state: TableState, spinner: str, width: int, rows: int = PROMPT_INFO_LINES) -> Text:
    """What is going on, or what the choice under the cursor does, in the fullest words that take no more
    than ``rows`` lines (the caller wraps it); the shortest still names every choice whole."""
    focus = state.focus
    if state.round_end is not None:
        result = state.round_end.result
        winner = result.outcome.winner
        paid = result.score.payment if result.score is not None else 0
        scored = (
            f": {state.name(winner)} {'score' if winner == state.seat else 'scores'} {paid}"
            if winner is not None
            else ""
        )
        return Text(f"Round {result.number} is over{scored}.", style="bold")
    if focus is None:
        waiting = waiting_text(state)
        return Text(f"{spinner} {waiting}", style="bold cyan") if waiting else Text()
    if focus.mode is FocusMode.HAND:
        return _hand_info(state, width)
    if focus.mode in (FocusMode.TARGET, FocusMode.DRAW):
        return Text(_fullest(_target_variants(state), width, rows), "bold")
    if focus.mode is FocusMode.DECISION:
        pays = state.decision.payment if state.decision is not None else 0
        variants = [
            f"▶ Shōbu scores {pays} now; Koi-Koi plays on for more, at a risk.",
            f"▶ Shōbu: {pays} now, or Koi-Koi?",
        ]
        return Text(_fullest(variants, width, rows), style="bold")
    return Text("▶ " + " · ".join(f"{i}: {o}" for i, o in enumerate(focus.options, 1)), style="bold")


def prompt_lines(state: TableState, width: int, spinner: str, rows: int = PROMPT_INFO_LINES) -> list[Text]:
    """What is going on (or the card under the cursor), wrapped over up to ``rows`` lines where a wording
    that short names the choices whole (else over as many as the shortest takes: never cut); then the keys that
    work now, in the longest wording that fits the width. With ``rows`` at 1 (the lowest windows, to keep
    the last move whole) a one-line text and its keys share the line when both fit it."""
    info = _info(state, spinner, width, rows)
    parts = textwrap.wrap(info.plain, max(10, width), subsequent_indent="  ", break_on_hyphens=False) or [""]
    style = info.style if isinstance(info.style, str) else ""
    lines = [fit(part, width, style) for part in parts]
    clock = ""
    if state.time_left is not None and state.focus is not None:
        clock = f"{state.time_left} s to choose · "
    variants = _keys_for(state)
    keys = next((k for k in variants if len(clock) + Text(k).cell_len <= width), variants[-1])
    keys_line = Text(keys, style="dim")
    if clock:
        keys_line = Text(clock, style="bold red" if (state.time_left or 0) <= 10 else "bold") + keys_line
    if rows == 1 and len(lines) == 1 and lines[0].plain and lines[0].cell_len + 3 + keys_line.cell_len <= width:
        return [lines[0] + Text(" · ", style="dim") + keys_line]
    return [*lines, fit(keys_line, width)]


def _hand_info(state: TableState, width: int) -> Text:
    """The card under the cursor and what it would take, in the fullest words that fit one line (the
    caller wraps what does not fit even at the shortest)."""
    focus, view = state.focus, state.view
    assert focus is not None and view is not None
    card = focus.hand[focus.index]
    matches = list(cards_of(view.table & month_mask(card.month)))
    if not matches:
        where = "goes to the table"
    elif len(matches) == 2:
        where = "matches two: you choose which to take"
    else:
        where = "takes " + ", ".join(c.display_name for c in matches)
    number, kind = f"▶ {focus.index + 1}: ", f" ({card.kind.name.lower()})"
    variants = [f"{number}{card.display_name}{kind} → {where}", f"{number}{card.display_name} → {where}"]
    variants.append(f"▶ {card.display_name} → {where}")  # the cursor marks the card in the hand
    if len(matches) == 2:  # the next step names both and asks which: a narrow window says so then
        variants.append(f"▶ {card.display_name} → matches two")
    fitting = [v for v in variants if len(v) <= width] or [v for v in variants if _wrapped_rows(v, width) <= 2]
    return Text((fitting or variants[-1:])[0], style="bold")
