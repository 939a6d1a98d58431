"""The table's log: what happened, in words, from the person's side of the table.

A turn is one line, as a person would tell it: ``Bot plays Pine poem ribbon, takes Pine crane;
draws Pampas plain.`` The engine reports a turn as several events (the play, the draw, a
capture of a drawn card), so :class:`Teller` starts a line at a play and adds the rest to it.
"""

from __future__ import annotations

from p2p_koikoi.app.players import DECISIONS, left_words, played_for_you
from p2p_koikoi.app.words import reason_words
from p2p_koikoi.engine import Event, EventKind, Exchange, cards_of
from p2p_koikoi.session.events import Failed, PeerLeft

__all__ = ["LOG_KEPT", "Teller", "ending_words"]

LOG_KEPT = 50
_THIRD_PERSON = {"play": "plays", "draw": "draws", "take": "takes", "call": "calls", "show": "shows", "keep": "keeps"}


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

    def _verb(self, seat: int, verb: str) -> str:
        return verb if seat == self.seat else _THIRD_PERSON.get(verb, verb + "s")

    def _tell(self, seat: int, verb: str, rest: str, *, new_turn: bool = False) -> None:
        word = self._verb(seat, verb)
        if not new_turn and self._turn == seat and self.log:
            self.log[-1] = self.log[-1].rstrip(".") + f"; {word} {rest}."
        else:
            self.line(f"{self.names[seat]} {word} {rest}.", seat)

    def deals(self, seat: int, prefix: str = "", suffix: str = "") -> None:
        """``Round 2: Bot deals.``, ``You deal first.``"""
        name = "you" if prefix and seat == self.seat and self.names[seat] == "You" else self.names[seat]
        self.line(f"{prefix}{name} {self._verb(seat, 'deal')}{suffix}.")

    def move(self, move: Event) -> None:
        """One engine event in words (a yaku made or the round's end on a line of its own)."""
        seat, kind = move.seat, move.kind
        name = self.names[seat] if seat in (0, 1) else ""
        if self.timed_out and seat == self.seat and kind in DECISIONS:
            self.timed_out = False
            self.line(played_for_you(move), seat)
            return
        if kind in (EventKind.PLAY, EventKind.DRAW) and move.card is not None:
            self._tell(seat, kind.value, self._card_and_take(move), new_turn=kind is EventKind.PLAY)
        elif kind is EventKind.CAPTURE and move.captured:
            self._tell(seat, "take", next(cards_of(move.captured)).display_name)
        elif kind is EventKind.YAKU and move.yaku:
            made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in move.yaku)
            self.line(f"{name} {'have' if seat == self.seat else 'has'} {made}.")
        elif kind is EventKind.KOIKOI:
            self.line(f"{name} {self._verb(seat, 'call')} Koi-Koi!")
        elif kind is EventKind.STOP:
            self.line(f"{name} {self._verb(seat, 'call')} Shōbu.")
        elif kind is EventKind.HAND_YAKU and move.yaku:
            self.line(f"{name} {self._verb(seat, 'show')} {move.yaku[0].yaku.display_name}.")
        elif kind is EventKind.EXCHANGE:
            if isinstance(move.action, Exchange) and move.action.swap:
                self._tell(seat, "exchange", "hands with the dealer", new_turn=True)
            else:
                self._tell(seat, "keep", "the hands", new_turn=True)
        elif kind is EventKind.ROUND_OVER:
            self.line(f"Round over: {move.text}.")

    def _card_and_take(self, move: Event) -> str:
        card = move.card
        assert card is not None
        if move.captured:
            taken = ", ".join(c.display_name for c in cards_of(move.captured))
            return f"{card.display_name}, {self._verb(move.seat, 'take')} {taken}"
        if move.choice:
            return f"{card.display_name}, which matches two"
        return card.display_name
