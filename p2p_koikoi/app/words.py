"""The engine's kinds and outcomes in a player's words, one wording for every screen.

The engine and the records name outcomes by stable ids (``no-game``, ``rounds-played``,
``illegal-move:card-not-in-hand``); those are for programs. Everything a person reads (the
table, plain mode, the closing lines) goes through here, so a new id is worded once and a test
can check that no id reaches the screen.
"""

from __future__ import annotations

from p2p_koikoi.engine import OutcomeKind, RoundOutcome, RuleSet, Termination
from p2p_koikoi.engine.rules import AfterKoiKoi

__all__ = ["count", "how_auto_stop", "how_match_ended", "how_round_ended", "reason_words", "score_words"]


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 point``, ``2 points``, ``1 card``; ``plural`` for irregular words."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def score_words(points: tuple[int, int], winner: int | None) -> str:
    """A match's points as said after who won it: the winner's first (``wins, 33 to 5``, never ``5 to
    33``), whichever seat won; a draw's in seat order (they are equal)."""
    first = 0 if winner is None else winner
    return f"{points[first]} to {points[1 - first]}"


_ROUND = {
    OutcomeKind.STOP: "Shōbu",
    OutcomeKind.AUTO_STOP: "a yaku that ends the round at once, with no Koi-Koi to call",
    OutcomeKind.HAND_YAKU: "a dealt hand yaku",
    OutcomeKind.HAND_YAKU_DRAW: "both were dealt a hand yaku: a drawn round",
    OutcomeKind.DRAWN: "the hands ran out: a drawn round",
    OutcomeKind.NO_GAME: "the hands ran out: no game, the deal passes",
    OutcomeKind.LAST_CALLER: "the hands ran out: the last Koi-Koi caller scores",
    OutcomeKind.DEALER_BONUS: "the hands ran out: the dealer's bonus",
    OutcomeKind.REDEAL: "four of a month on the table: dealt again",
}

_MATCH = {
    Termination.ROUNDS_PLAYED: "every round played",
    Termination.POOL_EMPTY: "a pool ran empty",
    Termination.FORFEIT: "by forfeit",
}


def how_round_ended(kind: OutcomeKind) -> str:
    return _ROUND[kind]


def how_auto_stop(outcome: RoundOutcome, rules: RuleSet | None) -> str:
    """Why a yaku ended the round with no Shōbu or Koi-Koi to choose, in the terms a newcomer meets it:
    the first yaku after a Koi-Koi (under rules that stop there), or a yaku on the last card in hand
    (nothing is left to play on with). Any other outcome: :func:`how_round_ended`."""
    if outcome.kind is not OutcomeKind.AUTO_STOP:
        return how_round_ended(outcome.kind)
    if rules is not None and rules.after_koikoi is AfterKoiKoi.NEXT_YAKU_ENDS and any(outcome.calls):
        return "a yaku after a Koi-Koi (these rules end the round there)"
    return "a yaku on the last card in hand (no Koi-Koi without cards to play on)"


def how_match_ended(termination: Termination) -> str:
    return _MATCH[termination]


_REASONS = {
    "card-not-in-hand": "a card that was not in the hand",
    "not-your-turn": "a move out of turn",
    "wrong-draw": "a draw that was not the top of the stock",
    "card-already-seen": "a card that had been seen already",
    "gaji-blocked-by-hiki": "a Gaji play blocked by the fourth card of its month, Hiki",
    "hand-yaku-not-claimed": "a pass while holding a hand yaku",
}


def reason_words(text: str) -> str:
    """A finding's text with any ``kind:detail`` id at its front put into words
    (``illegal-move:card-not-in-hand: ...`` reads ``an illegal move (a card that was not in the hand): ...``)."""
    head, sep, rest = text.partition(": ")
    if ":" not in head or " " in head:
        return text
    kind, _, detail = head.partition(":")
    what = _REASONS.get(detail, detail.replace("-", " "))
    return f"{kind.replace('-', ' ')} ({what})" + (f": {rest}" if sep else "")
