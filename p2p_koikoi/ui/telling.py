"""The table's log: what happened, in words, from the person's side of the table.

A turn is one line, as a person would tell it: ``Bot plays Pine poem ribbon, takes Pine crane;
draws Pampas plain.`` The engine reports a turn as several events (the play, the draw, a
capture of a drawn card), so :class:`Teller` starts a line at a play and adds the rest to it.
"""

from __future__ import annotations

from p2p_koikoi.app.narrator import DECISIONS, Person, for_you, says, verb
from p2p_koikoi.app.players import left_words
from p2p_koikoi.app.words import reason_words
from p2p_koikoi.engine import Event, EventKind
from p2p_koikoi.session.events import Failed, PeerLeft

__all__ = ["LOG_KEPT", "Teller", "ending_words"]

LOG_KEPT = 50


def ending_words(event: PeerLeft | Failed, them: str) -> str:
    """How the match ended when it was not played out (the peer left, or a seat was caught), in words."""
    if isinstance(event, Failed):
        return f"the match stopped: {reason_words(event.text)}"
    words = left_words(event, them)
    return words if words.startswith(them) else words[:1].lower() + words[1:]


class Teller:
    """Writes the log (a list it shares with the screen's state) for the seat ``seat``."""

    def __init__(self, log: list[str], names: tuple[str, str], seat: int) -> None:
        self.log = log
        self.names = names
        self.seat = seat
        self._turn: int | None = None  # whose turn the last line tells, to add to it
        self.timed_out = False  # our next move is the one the turn limit made for us

    def line(self, text: str, seat: int | None = None) -> None:
        self.log.append(text)
        del self.log[:-LOG_KEPT]
        self._turn = seat

    def _person(self, seat: int) -> Person:
        return Person.YOU if seat == self.seat else Person.THEY

    def _tell(self, seat: int, what: str, *, new_turn: bool = False) -> None:
        """``what`` the seat did, added to its turn's line unless it begins a turn."""
        if not new_turn and self._turn == seat and self.log:
            self.log[-1] = self.log[-1].rstrip(".") + f"; {what}."
        else:
            self.line(f"{self.names[seat]} {what}.", seat)

    def deals(self, seat: int, prefix: str = "", suffix: str = "") -> None:
        """``Round 2: Bot deals.``, ``You deal first.``"""
        name = "you" if prefix and self._person(seat) is Person.YOU else self.names[seat]
        self.line(f"{prefix}{name} {verb('deal', self._person(seat))}{suffix}.")

    def move(self, move: Event) -> None:
        """One engine event in words (a yaku made or the round's end on a line of its own)."""
        seat, kind = move.seat, move.kind
        name = self.names[seat] if seat in (0, 1) else ""
        if self.timed_out and seat == self.seat and kind in DECISIONS:
            self.timed_out = False
            self.line(for_you(move), seat)
            return
        if kind is EventKind.ROUND_OVER:
            self.line(f"Round over: {move.text}.")
            return
        what = says(move, self._person(seat), brief=True)
        if (kind in (EventKind.PLAY, EventKind.DRAW) and move.card is not None) or (
            kind is EventKind.CAPTURE and move.captured
        ):
            self._tell(seat, what, new_turn=kind is EventKind.PLAY)
        elif kind is EventKind.EXCHANGE:
            self._tell(seat, what, new_turn=True)
        elif kind is EventKind.KOIKOI:
            self.line(f"{name} {what}")
        elif kind is EventKind.STOP or (kind in (EventKind.YAKU, EventKind.HAND_YAKU) and move.yaku):
            self.line(f"{name} {what}.")
