"""Choosing a move with the keyboard: keys in, one legal action out.

A :class:`Picker` is made for one decision from the seat's view and its legal actions. It
knows nothing of the screen: it keeps a :class:`Focus` (what is highlighted) that the
renderer draws, and :meth:`Picker.press` returns the action once the keys have chosen one.

- a hand card: ``1``-``8``, or the arrows and Enter (or Space); if two table cards match
  it (or the Gaji may take any), the table cards to take are chosen the same way, and
  ``Esc`` puts the card back;
- a drawn card that matches two table cards: the same, without ``Esc``;
- Koi-Koi or Shōbu: ``k`` or ``s``;
- anything else (the rulebook's hand exchange): a numbered menu.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from p2p_koikoi.engine import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    Card,
    ChooseCapture,
    Exchange,
    Phase,
    Play,
    Round,
    cards_of,
)

__all__ = ["Focus", "FocusMode", "Picker", "menu_words"]

_NEXT = {"right", "down", "tab"}
_PREVIOUS = {"left", "up"}
_PICK = {"enter", "space"}


class FocusMode(enum.StrEnum):
    """What kind of choice is open: a hand card, a table card for it, a table card for the drawn card,
    Koi-Koi or Shōbu, or a numbered menu."""

    HAND = "hand"
    TARGET = "target"
    DRAW = "draw"
    DECISION = "decision"
    MENU = "menu"


@dataclass(frozen=True, slots=True)
class Focus:
    """What the screen highlights while a decision is open.

    ``mode`` is ``hand`` (a hand card, at ``index``), ``target`` (a table card to take with
    ``card``), ``draw`` (a table card to take with the drawn ``card``), ``decision``
    (Koi-Koi or Shōbu) or ``menu`` (the numbered ``options``).
    """

    mode: FocusMode
    index: int = 0
    hand: tuple[Card, ...] = ()
    card: Card | None = None
    targets: tuple[Card, ...] = ()
    options: tuple[str, ...] = field(default=())

    @property
    def focused_card(self) -> Card | None:
        """The card under the cursor (what ``?`` explains)."""
        if self.mode is FocusMode.HAND and self.hand:
            return self.hand[self.index]
        if self.mode in (FocusMode.TARGET, FocusMode.DRAW) and self.targets:
            return self.targets[self.index]
        return None


def menu_words(action: AnyAction) -> str:
    """An action as a menu line (only the rare decisions without keys of their own reach a menu)."""
    if isinstance(action, Exchange):
        return "Exchange hands with the dealer" if action.swap else "Keep the hands as dealt"
    return str(action)


class Picker:
    """One decision, driven by keys (see the module docstring)."""

    def __init__(self, view: Round, legal: list[AnyAction], seat: int) -> None:
        self.legal = legal
        if view.phase is Phase.PLAY and all(isinstance(a, Play) for a in legal):
            hand = tuple(sorted({a.card for a in legal if isinstance(a, Play)} | set(cards_of(view.hands[seat]))))
            self.focus = Focus(FocusMode.HAND, hand=hand)
        elif view.phase is Phase.DRAW_CHOICE and all(isinstance(a, ChooseCapture) for a in legal):
            targets = tuple(a.target for a in legal if isinstance(a, ChooseCapture))
            self.focus = Focus(FocusMode.DRAW, card=view.pending_draw, targets=targets)
        elif view.phase is Phase.DECISION:
            self.focus = Focus(FocusMode.DECISION)
        else:
            self.focus = Focus(FocusMode.MENU, options=tuple(menu_words(a) for a in legal))

    def press(self, key: str) -> AnyAction | None:
        """Take one key; return the action it completes, or None (the focus may have moved)."""
        focus = self.focus
        if focus.mode is FocusMode.DECISION:
            if key == "k":
                return self._find(CallKoiKoi())
            if key == "s":
                return self._find(CallStop())
            return None
        count = len(focus.hand) if focus.mode is FocusMode.HAND else len(focus.targets or focus.options)
        if key in _NEXT or key in _PREVIOUS:
            step = 1 if key in _NEXT else -1
            self.focus = replace(focus, index=(focus.index + step) % max(count, 1))
            return None
        if key == "esc" and focus.mode is FocusMode.TARGET:
            self.focus = Focus(FocusMode.HAND, index=focus.hand.index(focus.card) if focus.card else 0, hand=focus.hand)
            return None
        if key.isdigit() and 1 <= int(key) <= count:
            self.focus = replace(focus, index=int(key) - 1)
            return self._pick()
        if key in _PICK and count:
            return self._pick()
        return None

    def _pick(self) -> AnyAction | None:
        focus = self.focus
        if focus.mode is FocusMode.HAND:
            card = focus.hand[focus.index]
            plays = [a for a in self.legal if isinstance(a, Play) and a.card == card]
            if len(plays) == 1:
                return plays[0]
            targets = tuple(a.target for a in plays if a.target is not None)
            self.focus = Focus(FocusMode.TARGET, hand=focus.hand, card=card, targets=targets)
            return None
        if focus.mode is FocusMode.TARGET:
            target = focus.targets[focus.index]
            return next(a for a in self.legal if isinstance(a, Play) and a.card == focus.card and a.target == target)
        if focus.mode is FocusMode.DRAW:
            return ChooseCapture(focus.targets[focus.index])
        return self.legal[focus.index]

    def _find(self, wanted: AnyAction) -> AnyAction | None:
        return wanted if wanted in self.legal else None
