"""The boxes the table opens over itself, as text: help (with the card under the cursor), the
question before leaving, the host's rules for the guest to accept, and a yes/no question."""

from __future__ import annotations

from p2p_koikoi.engine import RuleSet, preset
from p2p_koikoi.engine.ruledoc import OPTIONS, yaku_table_lines
from p2p_koikoi.ui.cards import card_facts
from p2p_koikoi.ui.state import Overlay, TableState

__all__ = ["claim_box", "help_box", "question_box", "quit_box", "rules_box"]

_KEYS = (
    "1-8, or ←→ and Enter    play a hand card",
    "1-2, or ←→ and Enter    take that table card, when two match",
    "Esc                     put the card back",
    "s / k                   after a new yaku: Shōbu (stop, score) / Koi-Koi",
    "?  this help and the yaku table (↑↓ scroll)    q  leave (asks first; leaving forfeits)",
    "h  a hint: what the strong bot would play here, and why",
    "",
    "A card shows its plant (its month) and its kind: Bright 20, Animal 10, Ribbon 5, Plain 1; "
    "Poem rib. and Blue rib. make Akatan and Aotan. '+' on a hand card: it takes a table card "
    "('↓' marks which). Beside the captures: yaku made (✓) and under way.",
)


def help_box(state: TableState) -> Overlay:
    """The keys and the cards explained, after the full facts of the card under the cursor."""
    lines: list[str] = []
    focus = state.focus
    card = focus.focused_card if focus is not None else None
    if card is not None:
        lines += [*card_facts(card, state.rules), ""]
    lines += _KEYS
    if state.rules is not None:
        lines += ["", f"Yaku under these rules ({state.rules.format()}):"]
        lines += [f"  {line}" for line in yaku_table_lines(state.rules)]
        lines.append(f"Every option in words: {state.command} rules {state.rules.preset}")
    return Overlay("Help and the yaku", tuple(lines), "any other key: close")


def quit_box(state: TableState, in_match: bool, *, adjourns: bool = False) -> Overlay:
    """Leaving mid-match forfeits it, so the person is told so before it happens; ``adjourns``: the opponent
    is deciding with no time limit, when leaving adjourns the match instead (nobody wins)."""
    if not in_match or state.outcome is not None:
        return Overlay("Leave?", ("Leave now?",), "y: leave · n: stay")
    them = state.them
    if adjourns:
        lines = (
            f"{them} is deciding, with no time limit: leaving now adjourns the match.",
            "Nobody wins, and either of you can take it up again later (koikoi resume).",
        )
        return Overlay("Leave the match?", lines, "y: leave · n: stay")
    lines = (
        f"Leaving now forfeits the match: {them} wins it.",
        f"{them} is told, and the record keeps the match up to here.",
    )
    return Overlay("Leave the match?", lines, "y: leave · n: stay")


def rules_box(rules: RuleSet) -> Overlay:
    """The host's rules, one option a line with what its value means, the changes from the preset first."""
    lines = [f"{rules.format()}", f"Rules fingerprint (both players see the same): {rules.fingerprint}"]
    changes = rules.differences(preset(rules.preset))
    if changes:
        lines.append("Changed from the preset: " + ", ".join(f"{name}={value}" for name, value, _ in changes))
    lines.append("")
    for name, value in rules.options().items():
        decides, meanings = OPTIONS.get(name, ("", {}))
        lines.append(f"{name} = {value}: {meanings.get(value) or decides}")
    lines += ["", "The yaku under these rules:", *(f"  {line}" for line in yaku_table_lines(rules))]
    return Overlay("Play by these rules?", tuple(lines), "y: play · n: decline")


def claim_box(text: str, seconds: int | None) -> Overlay:
    """The offer made while the opponent owes the next move and stays silent (``text``: what it did, as the
    runner says it, ``the opponent is gone (...)``): claim the match, wait on, or adjourn, with the seconds
    left before the match is claimed. Ctrl-C adjourns: leaving while the opponent owes forfeits nothing."""
    clock = f" Claiming in {seconds} s" if seconds is not None else ""
    lines = (
        f"{text[:1].upper()}{text[1:]}.",
        "",
        f"Claim the match (c), wait (w), or adjourn (a)?{clock}",
        "",
        "c  claim: you win; it can still refute the claim with its record",
        "w  wait: give it more time",
        "a  adjourn: nobody wins; the match can be resumed later",
        "",
        "Ctrl-C adjourns too: leaving now forfeits nothing (the opponent owes).",
    )
    return Overlay("Claim the match?", lines, "c: claim · w: wait · a: adjourn")


def question_box(question: str) -> Overlay:
    return Overlay("Question", (question,), "y: yes · n: no")
