"""What a session tells its player: one small frozen class per kind of event (h11's events).

A player dispatches on the class (``match event: case Moves(): ...`` or ``isinstance``), and reads the fields
by name: no event carries words another layer has to parse back. :data:`SessionEvent` is their union.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2p_koikoi.engine import Event, MatchOutcome, RoundResult, RuleSet

__all__ = [
    "ClaimedAgainst",
    "Failed",
    "FirstDealer",
    "MatchOver",
    "Moves",
    "PeerLeft",
    "Players",
    "RoundBegins",
    "RoundScored",
    "RulesOffered",
    "SessionEnd",
    "SessionEvent",
]


class SessionEnd(enum.StrEnum):
    """How the match ended, from our seat, or how a run stopped before it did (a ``str``: its value is the word
    the tests and the logs know). Compare members (``is``), never their words."""

    MATCH_OVER = "match-over"
    DECLINED = "declined"
    PEER_DECLINED = "peer-declined"
    QUIT = "quit"  # we left: our forfeit
    PEER_QUIT = "peer-quit"  # the peer left (or claimed while it owed the next entry): its forfeit
    VIOLATION = "violation"  # one seat was caught breaking a rule (``failure`` says who)
    PEER_VANISHED = "peer-vanished"  # we claimed the peer's silence: we win, on a claim it may refute
    PEER_CLAIMED = "peer-claimed"  # we lost by our silence: the peer's claim, or our own concession
    ADJOURNED = "adjourned"  # one of us left the match to be resumed while the other owed: nobody won
    # Only the runner's report ends a run so (``MatchReport.ended_by``); the session never does:
    DISCONNECTED = "disconnected"  # the connection was lost mid-match: the session is left to be resumed
    UNKNOWN = "unknown"  # the run stopped before the match ended, with nothing to take it up again

    @property
    def cut_off(self) -> bool:
        """The run stopped before the match ended (``DISCONNECTED`` or ``UNKNOWN``): no ending of the match."""
        return self in (SessionEnd.DISCONNECTED, SessionEnd.UNKNOWN)


@dataclass(frozen=True, slots=True)
class RulesOffered:
    """The host offers these rules (told to the guest, who accepts or declines them)."""

    rules: RuleSet


@dataclass(frozen=True, slots=True)
class FirstDealer:
    """The coin flip chose the first dealer."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundBegins:
    """Round ``number`` begins (``redeal``: how many times it was dealt again before), dealt by ``dealer``."""

    number: int
    redeal: int
    dealer: int


@dataclass(frozen=True, slots=True)
class Moves:
    """What an entry of ``seat`` did to the round: the engine's events, or (with no events) ``text``, a step
    of the match told in words (an objection, a claim answered)."""

    seat: int | None
    events: tuple[Event, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round was settled (a redeal included: its outcome says so)."""

    result: RoundResult


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match is decided (``outcome``), by the count or by an ending the referee ruled (``text``)."""

    outcome: MatchOutcome | None
    text: str = ""


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """The match ended by the peer's goodbye as the referee ruled it, or by our claim of its silence.

    ``ended`` is that ending from our seat (``PEER_VANISHED`` for our claim; None for one the peer wrote that
    is none of ours, such as a dispute, told by its ``text``); ``text`` is the goodbye's or the claim's own."""

    ended: SessionEnd | None
    text: str


@dataclass(frozen=True, slots=True)
class Failed:
    """A seat was caught breaking a rule (``blame``; None for nobody): ``text`` is the finding, its
    ``kind:detail`` id first."""

    blame: int | None
    text: str


@dataclass(frozen=True, slots=True)
class ClaimedAgainst:
    """The peer claimed our silence (``text``, its claim); our program has answered, which refutes it."""

    text: str


@dataclass(frozen=True, slots=True)
class Players:
    """Once the guest accepted: both seats' keys, and the names they sent (None where a seat sent none)."""

    keys: tuple[bytes, bytes]
    names: tuple[str | None, str | None] = (None, None)


SessionEvent = (
    RulesOffered
    | FirstDealer
    | RoundBegins
    | Moves
    | RoundScored
    | MatchOver
    | PeerLeft
    | Failed
    | ClaimedAgainst
    | Players
)
"""Anything a session tells its player."""
