"""Narrow error classes of the rules engine.

Every error a user can cause (a typo in a card name, an unknown option, an
illegal move) has its own class, so the command line can turn it into one
clear line and the peer layer can tell a rule violation from a bug of ours.
"""

from __future__ import annotations

__all__ = [
    "CardParseError",
    "EngineError",
    "IllegalActionError",
    "RuleSetError",
    "ScoreRequestError",
]


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

    ``rule`` is a short stable id of the rule broken (``not-your-turn``,
    ``card-not-in-hand``, ...), so the peer layer can name it in its evidence;
    the message says it in words. The state the action was applied to is left
    unchanged.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule

    def __reduce__(self) -> tuple[type[IllegalActionError], tuple[str, str]]:
        # The default pickling passes only the message back to ``__init__``, so an error raised in a worker
        # process (the arena's jobs, a search's pool) broke the pool instead of reaching the caller.
        return type(self), (self.rule, str(self))
