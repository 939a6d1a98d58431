"""Everything the screen shows, as plain data: the renderer draws a :class:`TableState` and
nothing else, so a test can build one by hand and read the text that comes out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from p2p_koikoi.app.narrator import Person
from p2p_koikoi.engine import CHANCE, Card, MatchOutcome, Round, RoundResult, RoundScore, RuleSet
from p2p_koikoi.session.match_session import SessionEnd
from p2p_koikoi.ui.picker import Focus

__all__ = ["Overlay", "RoundEnd", "TableState", "waiting_text"]


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A finished round as its panel shows it: the result, and both piles of captures as they
    stood (the next round's deal must not wipe them while the person reads)."""

    result: RoundResult
    captures: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Overlay:
    """A box drawn over the table: help, a card's facts, a question, the rules, a notice."""

    title: str
    lines: tuple[str, ...]
    keys: str
    offset: int = 0  # the first line shown, for text longer than the box


@dataclass
class TableState:
    seat: int = 0
    names: tuple[str, str] = ("You", "Opponent")  # by seat
    rules: RuleSet | None = None
    round_number: int = 0
    redeal: int = 0
    dealer: int | None = None
    points: tuple[int, int] | None = None
    view: Round | None = None
    drawn: Card | None = None  # a drawn card on show, before it lands or takes
    log: list[str] = field(default_factory=list)
    phase_text: str = "Connecting…"  # what is being waited for when no round is on the table
    focus: Focus | None = None
    decision: RoundScore | None = None  # what Shōbu pays now, while Koi-Koi or Shōbu is open
    warning: str = ""  # said plainly under the decision: why a Koi-Koi can only lose, when it can
    round_end: RoundEnd | None = None
    results: list[RoundResult] = field(default_factory=list)
    outcome: MatchOutcome | None = None
    ended: str = ""  # how the match ended, in words, when it did not end by playing it out
    ended_by: SessionEnd | None = None  # how the match ended from our seat, once known
    resume: str = ""  # the command that takes an adjourned match up again
    overlay: Overlay | None = None
    final: bool = False  # the end-of-match screen
    record: Path | None = None
    leaving: bool = False
    notice: str = ""  # a message from the use case (reconnecting...), shown until the next event
    rematch_offered: bool = False  # the end screen offers another match under the same rules (r)
    answer_awaited: bool = False  # we asked for another match and wait for the opponent's answer
    after: tuple[str, ...] = ()  # under the end screen: why no other match follows (the opponent's no...)
    command: str = "koikoi"  # how to run this program again (see app.closing.koikoi_command)
    time_left: int | None = None  # seconds until the game moves for the person, under a turn limit
    typed: str = ""  # an answer code being typed or pasted while the host waits (from its k on)

    def name(self, seat: int) -> str:
        return self.names[seat]

    def person(self, seat: int) -> Person:
        """How the table tells ``seat``: our own in the second person ("You win"), the other by its name."""
        return Person.YOU if seat == self.seat else Person.THEY

    @property
    def me(self) -> str:
        return self.names[self.seat]

    @property
    def them(self) -> str:
        return self.names[1 - self.seat]


TYPED_SHOWN = 24


def waiting_text(state: TableState) -> str | None:
    """What the screen is waiting for, for the spinner; None when it waits for the person."""
    if state.focus is not None or state.overlay is not None or state.round_end is not None or state.final:
        return None
    if state.leaving:
        return "Leaving the match…"
    if state.typed:  # the tail, so the end of a long paste shows
        return f"Answer code: …{state.typed[-TYPED_SHOWN:]}  (Enter once whole: dial it · Esc: clear)"
    if state.notice:
        return state.notice
    if state.outcome is not None or state.ended:
        return None
    view = state.view
    if view is None:
        return state.phase_text
    if view.over:
        return "Checking the deal…"
    if view.to_act == CHANCE:
        return "Turning over the stock card…"
    if view.to_act != state.seat:
        return f"{state.them} is choosing…"
    return None
