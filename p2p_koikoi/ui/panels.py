"""The panels that take over part of the screen: the Koi-Koi/Shōbu count, the end of a round,
the end of the match, and boxes drawn over the table (help, a card's facts, questions).

The count is :meth:`RoundScore.lines`, the very lines ``koikoi score`` prints, so the prompt,
the end of a round and the calculator always agree.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.text import Text

from p2p_koikoi.app.decision import koikoi_risk
from p2p_koikoi.app.narrator import Person
from p2p_koikoi.app.players import outcome_words
from p2p_koikoi.app.tracker import short_name
from p2p_koikoi.app.words import count, how_auto_stop, how_round_ended, score_words
from p2p_koikoi.engine import OutcomeKind, RoundResult, RoundScore, Termination
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.ui.board import fit, rule
from p2p_koikoi.ui.state import Overlay, TableState

__all__ = [
    "RoundEndParts",
    "box",
    "decision_choices",
    "decision_panel",
    "final_screen",
    "match_summary",
    "overlay_onto",
    "round_end_panel",
    "round_end_parts",
]


def _count_lines(score: RoundScore, width: int) -> list[Text]:
    """The count line by line, a line too long for the window going on under its reason: never cut."""
    out: list[Text] = []
    for line in score.lines():
        parts = textwrap.wrap("  " + line, width, subsequent_indent=" " * 18, drop_whitespace=False) or [""]
        out += [fit(part.rstrip(), width) for part in parts] if len(line) + 2 > width else [fit("  " + line, width)]
    return out


def decision_panel(state: TableState, width: int) -> list[Text]:
    """What Shōbu would pay now, line by line: the yaku, each multiplier with its reason, the cap
    and the payment."""
    lines = [rule("You made a yaku: Shōbu or Koi-Koi?", width, "bold yellow"), *decision_choices(state, width)]
    score = state.decision
    return lines + (
        _count_lines(score, width) if score is not None else []
    )  # the count last: a low window cuts it first


def decision_choices(state: TableState, width: int, indent: str = "  ", *, brief: bool = False) -> list[Text]:
    """The two choices whole: what Shōbu pays now, what Koi-Koi risks and promises, and why it can only
    lose when it can (the lowest window shows these and gives up the title and the count, which repeat
    the prompt and the payment). ``brief``: where Koi-Koi can only lose, what it risks without what it
    promises, which the warning says cannot come."""
    score = state.decision
    if score is None:
        return []
    # the decision is always our own seat's, told in the second person: "You score"
    lines = _wrap(f"Shōbu now: {state.me} score {count(score.payment, 'point')}.", width, indent, "bold")
    if state.view is not None and state.rules is not None:
        risk = koikoi_risk(state.view, state.seat, state.rules, state.them)
        risk = risk.split("; ")[0] + "." if brief and state.warning else risk
        lines += _wrap(risk, width, indent)
    if state.warning:
        lines += _wrap(f"{state.warning}.", width, indent, "bold red")
    return lines


def _wrap(text: str, width: int, indent: str, style: str = "") -> list[Text]:
    """Words wrapped to the width (never a word cut), each line indented."""
    room = max(10, width - len(indent))
    parts = textwrap.wrap(text, room, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False)
    return [fit(part, width, style) for part in parts]


def _winner_line(state: TableState, result: RoundResult) -> str:
    outcome = result.outcome
    if outcome.kind is OutcomeKind.REDEAL:
        return "The table showed four of a month: the cards are dealt again."
    if outcome.winner is None or result.score is None:
        return f"Nobody scores ({how_round_ended(outcome.kind)})."
    who = state.name(outcome.winner)
    verb = "win" if state.person(outcome.winner) is Person.YOU else "wins"
    how = {
        OutcomeKind.STOP: "with Shōbu",
        OutcomeKind.AUTO_STOP: f"with {how_auto_stop(outcome, state.rules)}",
        OutcomeKind.HAND_YAKU: "with a hand yaku",
        OutcomeKind.LAST_CALLER: "as the last Koi-Koi caller",
        OutcomeKind.DEALER_BONUS: "with the dealer's bonus",
    }.get(outcome.kind, "")
    return f"{who} {verb} the round {how}: {count(result.score.payment, 'point')}.".replace("  ", " ")


@dataclass(frozen=True, slots=True)
class RoundEndParts:
    """The end-of-round panel in its parts, so a low window can keep what matters whole and give up the
    rest (render's low round end): who won and the next dealer always, then the count, else its brief."""

    title: list[Text]
    winner: list[Text]
    count: list[Text]
    brief: list[Text]
    dealer: list[Text]


def round_end_parts(state: TableState, width: int) -> RoundEndParts:
    end = state.round_end
    assert end is not None
    result = end.result
    score = result.score
    dealer = (
        [] if _last_round(state, result) else [fit(f"  Next dealer: {state.name(result.outcome.next_dealer)}.", width)]
    )
    return RoundEndParts(
        title=[rule(f"Round {result.number} over", width, "bold yellow")],
        winner=_wrap(_winner_line(state, result), width, "  ", "bold"),
        count=_count_lines(score, width) if score is not None else [],
        brief=_wrap(_brief_count(score), width, "  ") if score is not None else [],
        dealer=dealer,
    )


def _brief_count(score: RoundScore) -> str:
    """The count on as few lines as it goes: each yaku by its short name, and the steps that changed the
    value (a doubling, a Koi-Koi's multiplier, a cap), by their reasons."""
    yaku = ", ".join(f"{short_name(y.yaku)} {y.points}" for y in score.yaku) or "no yaku"
    value, changed = score.base, []
    for step in score.steps:
        if step.value != value:
            changed.append(step.reason)
        value = step.value
    return "; ".join([f"Yaku: {yaku}", *changed]) + "."


def round_end_panel(state: TableState, width: int) -> list[Text]:
    """The end of a round: who won and the same count, line by line, and the next dealer.
    (Both players' captures stay on screen above it.)"""
    parts = round_end_parts(state, width)
    return parts.title + parts.winner + parts.count + parts.dealer


def _last_round(state: TableState, result: RoundResult) -> bool:
    """Whether the match ends with this round (every round played, or a pool empty): no next dealer."""
    rules = state.rules
    if rules is None:
        return False
    pool_empty = rules.scoring is Scoring.POOL and min(result.points) <= 0
    return result.number >= rules.rounds or pool_empty


def _match_headline(state: TableState) -> str:
    said = outcome_words(state.ended_by, state.them, state.resume)
    if said is not None:
        return f"{said}."
    outcome = state.outcome
    if outcome is None:
        return f"The match ended: {state.ended}" if state.ended else "The match ended."
    score = score_words(outcome.points, outcome.winner)
    if outcome.winner is None:
        return f"A drawn match, {score}."
    who = state.name(outcome.winner)
    verb = "win" if state.person(outcome.winner) is Person.YOU else "wins"
    if outcome.termination is Termination.FORFEIT:
        why = f": {state.ended}" if state.ended else ""
        return f"{who} {verb} by forfeit{why}."
    if outcome.termination is Termination.POOL_EMPTY:
        empty = "your pool" if outcome.winner != state.seat else f"{state.them}'s pool"
        return f"{who} {verb} the match: {empty} is empty, {score}."
    return f"{who} {verb} the match, {score}."


def match_summary(state: TableState, width: int) -> list[Text]:
    """The winner (over as many lines as it takes: never cut), then the table of rounds: who dealt, who
    won, what was paid, the points after it and the yaku."""
    me, them = state.seat, 1 - state.seat
    headline = _match_headline(state)
    room = max(10, width - 2)
    lines = [
        fit(part, width, "bold")
        for part in textwrap.wrap(headline, room, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False)
    ]
    lines.append(Text())
    name_w = max(6, len(state.me), len(state.them))
    head = (
        f"  {'Round':>5}  {'Dealer':<{name_w}}  {'Winner':<{name_w}}  {'Paid':>4}"
        f"  {state.me:>{name_w}} {state.them:>{name_w}}  Yaku"
    )
    lines.append(fit(head, width, "bold underline"))
    for result in state.results:
        if result.outcome.kind is OutcomeKind.REDEAL:
            continue
        winner = state.name(result.outcome.winner) if result.outcome.winner is not None else "—"
        paid = result.score.payment if result.score is not None else 0
        yaku = ", ".join(f"{short_name(y.yaku)} {y.points}" for y in result.outcome.yaku) or "—"
        row = (
            f"  {result.number:>5}  {state.name(result.dealer):<{name_w}}  {winner:<{name_w}}  {paid:>4}"
            f"  {result.points[me]:>{name_w}} {result.points[them]:>{name_w}}  {yaku}"
        )
        lines.append(fit(row, width))
    if not state.results:
        lines.append(fit("  (no round was finished)", width, "dim"))
    return lines


def final_screen(state: TableState, width: int) -> list[Text]:
    """The end of the match: :func:`match_summary`, where the record is, and the key to leave (and, on offer,
    the key for another match with its seconds left). What became of another match is said at the top, where
    a low window still shows it."""
    lines = [fit(" Match over ".center(width, "═"), width, "bold yellow"), Text()]
    for line in state.after:
        lines += _wrapped(line, width)
    if state.after:
        lines.append(Text())
    lines += match_summary(state, width)
    lines.append(Text())
    if state.record is not None:
        lines += _wrapped(f"Record saved: {state.record}", width)
        lines += _wrapped(f"Check it with: {state.command} verify {state.record}", width)
        lines.append(fit("  (printed again on one line when you leave, to copy)", width, "dim"))
    else:
        lines.append(fit("  Where the record is saved is printed when you leave.", width, "dim"))
    lines.append(Text())
    lines.append(fit(f"  {_final_keys(state, width - 2)}", width, "dim"))
    return lines


def _final_keys(state: TableState, room: int) -> str:
    """The end screen's keys: to leave, and, on offer, another match with its seconds left, in the longest
    wording that fits (a narrow window keeps both keys and the seconds)."""
    if state.answer_awaited:
        return f"waiting for {state.them} to answer…"
    if not state.rematch_offered:
        return "Enter: leave"
    left = state.time_left
    wordings = ["r: play again · Enter: leave", "r: again · Enter: leave"]
    if left is not None:
        wordings = [f"r: play again · Enter: leave · {left} s to answer", f"r: play again · Enter: leave · {left} s"]
        wordings.append(f"r: again · Enter: leave · {left} s")
    return next((w for w in wordings if len(w) <= room), wordings[-1])


def _wrapped(text: str, width: int) -> list[Text]:
    """A long line (a command and a path) over several screen lines, broken at spaces where it can,
    so nothing of it is hidden (the whole line is printed again, unbroken, when the table closes)."""
    room = max(10, width - 2)
    parts = textwrap.wrap(text, room, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    return [Text(part) for part in parts]


def box(overlay: Overlay, width: int, height: int) -> list[Text]:
    """A framed box for ``overlay``, at most ``width`` x ``height``, its text wrapped to fit."""
    inner = max(10, width - 4)
    body: list[str] = []
    for line in overlay.lines:
        body += textwrap.wrap(line, inner, subsequent_indent="  ") or [""]
    room = max(1, height - 2)
    offset = min(overlay.offset, max(0, len(body) - room))
    shown = body[offset : offset + room]
    title, keys = _box_labels(overlay, width, scrolls=len(body) > room)
    top = f"┌─ {title} "
    bottom = f"└─ {keys} "
    out = [fit(top + "─" * max(0, width - len(top) - 1) + "┐", width, "bold")]
    for line in shown:
        out.append(Text("│ ", style="bold") + Text(line.ljust(inner)[:inner]) + Text(" │", style="bold"))
    out.append(fit(bottom + "─" * max(0, width - len(bottom) - 1) + "┘", width, "bold"))
    return out


def _box_labels(overlay: Overlay, width: int, *, scrolls: bool) -> tuple[str, str]:
    """The box's title and keys, with ``↑↓ scroll`` after the keys, or after the title where the keys
    would not fit whole with it (a narrow window must show every key of a question)."""
    if not scrolls:
        return overlay.title, overlay.keys
    if len(f"└─ {overlay.keys} · ↑↓ scroll ─┘") <= width:
        return overlay.title, f"{overlay.keys} · ↑↓ scroll"
    return f"{overlay.title} · ↑↓ scroll", overlay.keys


def overlay_onto(screen: list[Text], panel: list[Text], width: int) -> list[Text]:
    """``panel`` drawn over the middle of ``screen`` (whose lines it replaces in part)."""
    panel_width = max((line.cell_len for line in panel), default=0)
    left = max(0, (width - panel_width) // 2)
    top = max(0, (len(screen) - len(panel)) // 2)
    out = list(screen)
    for i, line in enumerate(panel):
        row = top + i
        if row >= len(out):
            out.append(Text())
        under = out[row].copy()
        under.pad_right(width - under.cell_len)
        out[row] = under[:left] + line + under[left + line.cell_len :]
    return out
