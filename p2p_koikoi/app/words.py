"""The engine's kinds and outcomes in a player's words, one wording for every screen.

The engine and the records name outcomes by stable ids (``no-game``, ``rounds-played``,
``illegal-move:card-not-in-hand``); those are for programs. Everything a person reads (the
table, plain mode, the closing lines) goes through here, so a new id is worded once and a test
can check that no id reaches the screen.
"""

from __future__ import annotations

from p2p_koikoi.engine import OutcomeKind, Termination

__all__ = ["count", "how_match_ended", "how_round_ended", "reason_words"]


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 point``, ``2 points``, ``1 card``; ``plural`` for irregular words."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


_ROUND = {
    OutcomeKind.STOP: "Shōbu",
    OutcomeKind.AUTO_STOP: "a yaku that ends the round by the rules",
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
