"""A match as a reader tells it: the events every consumer of a match is built on.

Two sources read a match, and both tell it through the same :class:`MatchVisitor`:

- a signed record, through :class:`~p2p_koikoi.referee.Referee`, which
  checks every entry as it goes (the live session tells its player through the
  same referee);
- a transcript, through :func:`~p2p_koikoi.record.transcript.read_transcript`,
  which checks legality and scores.

The consumers (the transcript exporter, the replay, the verifier's summary) are
visitors, so each works on records and transcripts alike, as python-chess's
exporters and builders work on any game its reader parses. A round is told once
its cards are known (at its audit); a round cut short is told at the end with
what was known, and ``deal`` is then ``None``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from p2p_koikoi.engine import AnyAction, Card, Deal, Event, MatchOutcome, Play, RoundResult, RuleSet

__all__ = [
    "ChoiceMethod",
    "Claim",
    "Ending",
    "FirstDealerChoice",
    "HikiAnswer",
    "MatchEnd",
    "MatchFanout",
    "MatchInfo",
    "MatchVisitor",
    "PlayedRound",
]


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a match is: its rules and its players (keys are ``None`` in a transcript without them)."""

    rules: RuleSet
    keys: tuple[bytes | None, bytes | None]
    names: tuple[str, str] = ("host", "guest")
    match_id: bytes | None = None
    software: str = ""
    turn_limit: int = 0


class ChoiceMethod(enum.StrEnum):
    """How the first dealer was chosen (a transcript's ``by``)."""

    COIN = "coin"  # a coin flip
    DRAW = "draw"  # each seat drew a card


@dataclass(frozen=True, slots=True)
class FirstDealerChoice:
    """Who deals first, and how: by a coin flip or by drawing (``draws`` holds seat 0's and seat 1's card
    of every draw, ties drawing again)."""

    seat: int
    method: ChoiceMethod
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


class Ending(enum.StrEnum):
    """How a match ended, as every observer rules it (``protocol/RECORD.md`` section 6)."""

    FINISHED = "finished"  # played out: both said goodbye, or the count settled it
    DECLINED = "declined"  # the guest refused the rules: no match
    FORFEIT = "forfeit"  # ``seat`` lost by leaving: a quit, a claim (or concession) while it owed the next entry,
    #                      or an accusation the record shows baseless
    SILENCE = "silence"  # ``owed`` went silent and loses: ``seat`` claimed it, a claim about time, which one
    #                      copy cannot prove, so the accused may still refute it (``claimed``)
    ADJOURNED = "adjourned"  # nobody won: ``seat``, waiting on ``owed``, left the match to be resumed later
    ABANDONED = "abandoned"  # version 2 records only: a claim that the other vanished, nobody won
    VIOLATION = "violation"  # ``seat`` caught the other breaking a rule, and the record proves it
    DISPUTED = "disputed"  # ``seat`` accused the other of something the record cannot decide
    UNFINISHED = "unfinished"  # the entries stop before the match ended
    FAILED = "failed"  # the reader found something wrong and stopped


class Claim(enum.StrEnum):
    """What a ``goodbye`` says (its first field; a violation adds ``:REASON``)."""

    MATCH_OVER = "match-over"
    QUIT = "quit"
    ADJOURN = "adjourn"
    PEER_GONE = "peer-gone"
    STALLED = "stalled"
    VIOLATION = "violation"

    @classmethod
    def parse(cls, text: str) -> tuple[Claim, str]:
        """The claim a goodbye's reason field makes, and the violation's reason id ('' for others).
        An unknown word is a plain quit: leaving without a reason still forfeits."""
        head, _, rest = text.partition(":")
        try:
            claim = cls(head)
        except ValueError:
            return cls.QUIT, ""
        return claim, rest if claim is cls.VIOLATION else ""


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How the match ended.

    ``how`` is the :class:`Ending`; ``seat`` the seat that ended it (the one that
    quit, claimed, or accused; ``None`` when both or nobody did); ``owed`` the seat
    that held the floor when a claim was made; ``outcome`` the match's result
    when the rules settle one (a forfeit or a proven violation gives the other
    seat the match, a claim of silence the claimant; an adjourned or declined match has none).
    """

    how: Ending
    seat: int | None = None
    text: str = ""
    outcome: MatchOutcome | None = None
    owed: int | None = None

    @property
    def winner(self) -> int | None:
        return self.outcome.winner if self.outcome is not None else None

    @property
    def claimed(self) -> bool:
        """The ending rests on a claim about time (the other seat's silence), which one copy cannot prove:
        the accused may still refute it with an entry chained after it."""
        return self.how is Ending.SILENCE and self.seat is not None and self.seat != self.owed

    @property
    def resumable(self) -> bool:
        """An adjourned match can be taken up again (``koikoi resume``), by either player, at any time."""
        return self.how is Ending.ADJOURNED

    @property
    def refutable(self) -> bool:
        """The next entry may still void this ending: an adjournment, or a claim of the other's silence."""
        return self.resumable or self.claimed


class MatchVisitor:
    """Receives a match as a reader tells it; every method does nothing unless overridden."""

    def begin_match(self, info: MatchInfo) -> None:
        """The match entry was read (or the transcript's header)."""

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        """The first dealer is known."""

    def begin_round(self, number: int, redeal: int, dealer: int) -> None:
        """A deal starts (a round, or a redeal of it)."""

    def moves(self, seat: int | None, events: tuple[Event, ...], text: str) -> None:
        """The engine's events of one action of ``seat`` (or a note in ``text``), as they happen."""

    def match_decided(self, outcome: MatchOutcome | None) -> None:
        """The count of the last round decided the match."""

    def round_played(self, played: PlayedRound) -> None:
        """A deal is over and counted, or (last of all) one was cut short."""

    def match_paused(self, end: MatchEnd) -> None:
        """An ending the next entry may still void (a claim of silence, an adjournment); ``end_match`` follows
        if the entries stop there, else the match goes on."""

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

    def begin_round(self, number: int, redeal: int, dealer: int) -> None:
        for visitor in self.visitors:
            visitor.begin_round(number, redeal, dealer)

    def moves(self, seat: int | None, events: tuple[Event, ...], text: str) -> None:
        for visitor in self.visitors:
            visitor.moves(seat, events, text)

    def match_decided(self, outcome: MatchOutcome | None) -> None:
        for visitor in self.visitors:
            visitor.match_decided(outcome)

    def round_played(self, played: PlayedRound) -> None:
        for visitor in self.visitors:
            visitor.round_played(played)

    def match_paused(self, end: MatchEnd) -> None:
        for visitor in self.visitors:
            visitor.match_paused(end)

    def end_match(self, end: MatchEnd) -> None:
        for visitor in self.visitors:
            visitor.end_match(end)
