"""A match as a reader tells it: the events every consumer of a match is built on.

Two sources read a match, and both tell it through the same :class:`MatchVisitor`:

- a signed record, through :class:`~p2p_koikoi.record.referee.Referee`, which
  checks every entry as it goes;
- a transcript, through :func:`~p2p_koikoi.record.transcript.read_transcript`,
  which checks legality and scores.

The consumers (the transcript exporter, the replay, the verifier's summary) are
visitors, so each works on records and transcripts alike, as python-chess's
exporters and builders work on any game its reader parses. A round is told once
its cards are known (at its audit); a round cut short is told at the end with
what was known, and ``deal`` is then ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.engine import AnyAction, Card, Deal, MatchOutcome, Play, RoundResult, RuleSet

__all__ = ["FirstDealerChoice", "HikiAnswer", "MatchEnd", "MatchFanout", "MatchInfo", "MatchVisitor", "PlayedRound"]


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a match is: its rules and its players (keys are ``None`` in a transcript without them)."""

    rules: RuleSet
    keys: tuple[bytes | None, bytes | None]
    names: tuple[str, str] = ("host", "guest")
    match_id: bytes | None = None
    software: str = ""
    turn_limit: int = 0


@dataclass(frozen=True, slots=True)
class FirstDealerChoice:
    """Who deals first, and how: ``coin`` (a coin flip) or ``draw`` (each seat drew a card;
    ``draws`` holds seat 0's and seat 1's card of every draw, ties drawing again)."""

    seat: int
    method: str
    draws: tuple[tuple[Card, Card], ...] = ()


@dataclass(frozen=True, slots=True)
class HikiAnswer:
    """A Gaji play onto a month of three, made void because the other seat showed the fourth card.

    It happened just before ``actions[at]`` of its round; ``seat`` is the Gaji player.
    """

    at: int
    seat: int
    play: Play
    card: Card


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """One deal of a round (a redeal is a deal of its own, with no actions).

    ``actions`` is the engine's history, the chance draws included (seat
    :data:`~p2p_koikoi.engine.CHANCE`). ``deal`` is every card as dealt (before
    any hand exchange), once the round's secrets are out. ``result`` is the
    count as the reader recomputed it, ``None`` for a round cut short.
    """

    number: int
    redeal: int
    dealer: int
    table: int
    deal: Deal | None
    actions: tuple[tuple[int, AnyAction], ...]
    hiki: tuple[HikiAnswer, ...] = ()
    result: RoundResult | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How the match ended.

    ``how``: ``finished`` (played out, both said goodbye), ``declined`` (the
    guest refused the rules), ``quit`` (``seat`` left), ``peer-gone`` (``seat``
    said the other one vanished), ``violation`` (``seat`` caught the other one
    cheating, in its words ``text``), ``unfinished`` (the record stops there),
    or ``failed`` (the reader found something wrong and stopped).
    ``outcome`` is the match's result when the rules settle it.
    """

    how: str
    seat: int | None = None
    text: str = ""
    outcome: MatchOutcome | None = None


class MatchVisitor:
    """Receives a match as a reader tells it; every method does nothing unless overridden."""

    def begin_match(self, info: MatchInfo) -> None:
        """The match entry was read (or the transcript's header)."""

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        """The first dealer is known."""

    def round_played(self, played: PlayedRound) -> None:
        """A deal is over and counted, or (last of all) one was cut short."""

    def end_match(self, end: MatchEnd) -> None:
        """The reader is done: the match ended, stopped, or failed a check."""


class MatchFanout(MatchVisitor):
    """Tells every event to several visitors in turn, so one reading feeds many consumers."""

    def __init__(self, visitors: Sequence[MatchVisitor]) -> None:
        self.visitors = tuple(visitors)

    def begin_match(self, info: MatchInfo) -> None:
        for visitor in self.visitors:
            visitor.begin_match(info)

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        for visitor in self.visitors:
            visitor.first_dealer(choice)

    def round_played(self, played: PlayedRound) -> None:
        for visitor in self.visitors:
            visitor.round_played(played)

    def end_match(self, end: MatchEnd) -> None:
        for visitor in self.visitors:
            visitor.end_match(end)
