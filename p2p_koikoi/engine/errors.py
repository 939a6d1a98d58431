"""Narrow error classes of the rules engine.

Every error a user can cause (a typo in a card name, an unknown option, an
illegal move) has its own class, so the command line can turn it into one
clear line and the peer layer can tell a rule violation from a bug of ours.
"""

from __future__ import annotations

import enum

__all__ = [
    "CardParseError",
    "EngineError",
    "IllegalActionError",
    "RuleId",
    "RuleSetError",
    "ScoreRequestError",
]


class RuleId(enum.StrEnum):
    """Why an action is illegal: the stable id a peer names in ``illegal-move:RULE`` (and the audit in
    ``audit:RULE``). GAME.md's table of rule ids is printed from :data:`~p2p_koikoi.engine.gamedoc.RULE_IDS`,
    keyed by these members, and a test checks the engine raises every one; code above the engine asks
    ``exc.rule is RuleId.GAJI_BLOCKED_BY_HIKI``, never compares the words."""

    ROUND_OVER = "round-over"
    NOT_YOUR_TURN = "not-your-turn"
    WRONG_PHASE = "wrong-phase"
    CARD_NOT_IN_HAND = "card-not-in-hand"
    TARGET_DOES_NOT_MATCH = "target-does-not-match"
    TARGET_NOT_ON_TABLE = "target-not-on-table"
    CHOOSE_CAPTURE = "choose-capture"
    NO_CHOICE = "no-choice"
    GAJI_AFTER_NOVEMBER = "gaji-after-november"
    GAJI_BLOCKED_BY_HIKI = "gaji-blocked-by-hiki"
    WRONG_DRAW = "wrong-draw"
    CARD_ALREADY_SEEN = "card-already-seen"
    TOO_MANY_CARDS = "too-many-cards"
    HAND_YAKU_NOT_CLAIMED = "hand-yaku-not-claimed"
    FALSE_HAND_YAKU = "false-hand-yaku"


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class CardParseError(EngineError, ValueError):
    """A card name that is not one of the 48 canonical ids or their aliases."""


class RuleSetError(EngineError, ValueError):
    """An unknown preset, an unknown option, or a value an option does not take."""


class ScoreRequestError(EngineError, ValueError):
    """A scoring request that cannot happen under the rule set (say two calls under Nintendo's)."""


class IllegalActionError(EngineError):
    """An action the rules do not allow in this state.

    ``rule`` is the :class:`RuleId` of the rule broken (``not-your-turn``,
    ``card-not-in-hand``, ...), so the peer layer can name it in its evidence;
    the message says it in words. The state the action was applied to is left
    unchanged.
    """

    def __init__(self, rule: RuleId, message: str) -> None:
        super().__init__(message)
        self.rule = rule

    def __reduce__(self) -> tuple[type[IllegalActionError], tuple[RuleId, str]]:
        # The default pickling passes only the message back to ``__init__``, so an error raised in a worker
        # process (the arena's jobs, a search's pool) broke the pool instead of reaching the caller.
        return type(self), (self.rule, str(self))
