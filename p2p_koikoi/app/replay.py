"""``koikoi replay`` as a use case: a match turned into steps to show, one per action.

:class:`ReplayBuilder` is a match visitor: the same walk that verifies a record
(or checks a transcript) tells it each round once the round's secrets are out,
and it replays the round through the engine with every card known, keeping the
board after each action and the action in words. A round cut short (its
secrets never came out) is shown with what was known: the table, the cards
played and drawn. Rendering is elsewhere (``ui/replay_view.py``): this builds
data only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from p2p_koikoi.app.call_names import CallNames
from p2p_koikoi.app.closing import koikoi_command
from p2p_koikoi.app.identity import IdentityError
from p2p_koikoi.app.narrator import Person, says, verb
from p2p_koikoi.app.player_labels import labels
from p2p_koikoi.app.records import read_match
from p2p_koikoi.app.words import how_auto_stop, how_match_ended, score_words
from p2p_koikoi.engine import CHANCE, Card, Event, EventKind, OutcomeKind, Round, RoundResult, RuleSet
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.record.format import SUFFIX, secret_path
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.reader import RecordError, read_record
from p2p_koikoi.record.transcript import replay_round, start_round
from p2p_koikoi.record.verify import VerifyReport
from p2p_koikoi.referee.events import (
    ChoiceMethod,
    Ending,
    FirstDealerChoice,
    MatchEnd,
    MatchInfo,
    MatchVisitor,
    PlayedRound,
)
from p2p_koikoi.wire.bodies import EntryKind, MatchBody
from p2p_koikoi.wire.sent_names import sent_names

__all__ = ["Board", "Replay", "ReplayBuilder", "ReplayRound", "Step", "ending_told", "load_replay"]


def _person(seat: int | None, you: int | None) -> Person:
    """Our own practice record tells our seat (``you``) to us; every other seat is told by its name."""
    return Person.YOU if seat is not None and seat == you else Person.THEY


def ending_told(end: MatchEnd, names: tuple[str, str], resume: str = "", you: int | None = None) -> str | None:
    """A silence or an adjournment, the seats named by ``names`` (``the host``, ``Guest``; ``You`` for the
    seat ``you``, told in the second person): ``the host wins by the guest's silence (claimed: ...)``,
    ``adjourned: nobody won; resume it with ...`` (``resume``: the command, when the match can be taken
    up). None for any other ending."""
    if end.how is Ending.SILENCE and end.owed is not None:
        silent, winner = names[end.owed], names[1 - end.owed]
        silent_is_you = _person(end.owed, you) is Person.YOU
        whose = "your" if silent_is_you else f"{silent}'s"
        wins = f"{winner} {verb('win', _person(1 - end.owed, you))} by {whose} silence"
        if not end.claimed:
            return f"{wins} ({silent} conceded)"
        refutes = (
            "you can still refute it with your record"
            if silent_is_you
            else f"{silent} can still refute it with its record"
        )
        return f"{wins} (claimed: {refutes})"
    if end.how is Ending.ADJOURNED:
        return "adjourned: nobody won" + (f"; resume it with {resume}" if resume else "")
    return None


@dataclass(frozen=True, slots=True)
class Board:
    """What the table shows after a step: every card, face up when known."""

    hands: tuple[int, int]
    hidden: tuple[int, int]  # hand cards not known (a round whose secrets never came out)
    table: int
    captures: tuple[int, int]
    stock: tuple[Card | None, ...]  # the cards still to draw, in order (None: unknown)
    yaku: tuple[tuple[str, ...], tuple[str, ...]]
    calls: tuple[int, int]

    @classmethod
    def of(cls, rnd: Round, stock: tuple[Card | None, ...]) -> Board:
        yaku = tuple(tuple(f"{y.yaku.display_name} {y.points}" for y in rnd.yaku(seat)) for seat in (0, 1))
        return cls(
            (rnd.hands[0], rnd.hands[1]),
            (rnd.hidden[0], rnd.hidden[1]),
            rnd.table,
            (rnd.captures[0], rnd.captures[1]),
            stock[rnd.stock_index :],
            (yaku[0], yaku[1]),
            (rnd.calls[0], rnd.calls[1]),
        )


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happened, in words, and the board after it."""

    round_index: int
    lines: tuple[str, ...]
    board: Board


@dataclass(frozen=True, slots=True)
class ReplayRound:
    """A round (or redeal) of the replay: its title, where its steps start, and its count in words."""

    title: str
    first_step: int
    played: PlayedRound
    count: tuple[str, ...]


@dataclass
class Replay:
    """A whole match to step through."""

    rules: RuleSet | None = None
    names: tuple[str, str] = ("Host", "Guest")
    you: int | None = None  # the seat told in the second person ("You deal"): ours, in our practice record
    opening: list[str] = field(default_factory=list)
    rounds: list[ReplayRound] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)
    report: VerifyReport | None = None

    def round_of(self, step: int) -> int:
        return self.steps[step].round_index if self.steps else 0


class ReplayBuilder(MatchVisitor):
    """Builds a :class:`Replay` from the match it is told."""

    def __init__(self, names: tuple[str, str] | None = None, resume: str = "", you: int | None = None) -> None:
        self.replay = Replay(you=you)
        self._names = names  # the players' names when we know better than the record's roles
        self._resume = resume  # the command that takes an adjourned match up again, when ours can be

    def _does(self, seat: int, base: str) -> str:
        """``Bot deals``, ``You deal``: the seat's name and the verb in its person."""
        return f"{self.replay.names[seat]} {verb(base, _person(seat, self.replay.you))}"

    def begin_match(self, info: MatchInfo) -> None:
        replay = self.replay
        replay.rules = info.rules
        replay.names = self._names or (info.names[0].capitalize(), info.names[1].capitalize())
        replay.opening.append(f"Rules: {info.rules.format()}")

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        deals = self._does(choice.seat, "deal")
        if choice.method is ChoiceMethod.DRAW:
            drawn = "; ".join(f"{a.display_name} against {b.display_name}" for a, b in choice.draws)
            self.replay.opening.append(f"Each drew a card ({drawn}): {deals} first.")
        else:
            self.replay.opening.append(f"A coin flip: {deals} first.")

    def round_played(self, played: PlayedRound) -> None:
        replay, rules = self.replay, self.replay.rules
        assert rules is not None
        names = replay.names
        index = len(replay.rounds)
        again = f", dealt again ({played.redeal})" if played.redeal else ""
        title = f"Round {played.number}{again}: {self._does(played.dealer, 'deal')}"
        first = len(replay.steps)
        rnd = start_round(rules, played)
        stock = played.deal.stock if played.deal is not None else (None,) * 24
        known = "every card face up" if played.deal is not None else "its secrets never came out: hidden cards unknown"
        replay.steps.append(Step(index, (f"{title} ({known}).",), Board.of(rnd, stock)))
        hiki = {answer.at: answer for answer in played.hiki}
        for at, (seat, action, events, after) in enumerate(replay_round(rules, played)):
            lines: list[str] = []
            answer = hiki.get(at)
            if answer is not None and answer.play.target is not None:
                lines.append(
                    f"{self._does(answer.seat, 'play')} the Gaji onto {answer.play.target.display_name}; "
                    f"{self._does(1 - answer.seat, 'show')} {answer.card.display_name} (Hiki): the play is void."
                )
            lines.extend(_event_lines(events, names, replay.you))
            if not lines:
                lines.append(f"{names[seat] if seat != CHANCE else 'The stock'}: {action}.")
            replay.steps.append(Step(index, tuple(lines), Board.of(after, stock)))
        count = (
            _count_lines(played.result, rules, names, replay.you)
            if played.result is not None
            else ("The round was cut short.",)
        )
        replay.rounds.append(ReplayRound(title, first, played, count))
        last = replay.steps[-1]
        replay.steps.append(Step(index, count, last.board))

    def end_match(self, end: MatchEnd) -> None:
        names, closing = self.replay.names, self.replay.closing
        who = names[end.seat] if end.seat is not None else ""
        said = {
            Ending.FINISHED: "The match was played out.",
            Ending.DECLINED: f"{who} declined the rules.",
            Ending.FORFEIT: f"{who} left the match and forfeited it ({end.text}).",
            Ending.ABANDONED: f"{who} said the other player was gone ({end.text}): the match is abandoned, "
            "nobody won, and it can be resumed.",
            Ending.VIOLATION: f"{who} ended the match: {end.text}",
            Ending.DISPUTED: f"{who} accused the other of something the record cannot decide: {end.text}",
        }
        told = ending_told(end, names, self._resume, self.replay.you)
        if told is not None:
            closing.append(f"{told[:1].upper()}{told[1:]}.")
        else:
            closing.append(said.get(end.how, f"The match stops here: {end.text}"))
        outcome = end.outcome
        if outcome is not None:
            points = score_words(outcome.points, outcome.winner)
            if end.how is Ending.SILENCE and outcome.winner is not None:
                how = "claimed" if end.claimed else "conceded"
                closing.append(f"{self._does(outcome.winner, 'win')}, {points} ({how}).")
            elif outcome.winner is None:
                closing.append(f"Drawn, {points} ({how_match_ended(outcome.termination)}).")
            else:
                ended = how_match_ended(outcome.termination)
                closing.append(f"{self._does(outcome.winner, 'win')}, {points} ({ended}).")


def _event_lines(events: list[Event], names: tuple[str, str], you: int | None) -> list[str]:
    out = []
    for event in events:
        who = names[event.seat] if event.seat in (0, 1) else ""
        person = _person(event.seat, you) if event.seat in (0, 1) else Person.THEY
        if event.kind is EventKind.ROUND_OVER:
            out.append(f"Round over: {event.text}.")
        elif event.kind is EventKind.YAKU:
            made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in event.yaku)
            out.append(f"{who} {verb('make', person)} {made} (yaku worth {event.count}).")
        else:
            out.append(f"{who} {says(event, person)}.".strip())
    return out


def _count_lines(result: RoundResult, rules: RuleSet, names: tuple[str, str], you: int | None) -> tuple[str, ...]:
    outcome, score = result.outcome, result.score
    lines = [f"Round {result.number} ends: {how_auto_stop(outcome, rules)}."]
    if outcome.kind is OutcomeKind.REDEAL:
        lines = ["Four of a month on the table: dealt again."]
    elif score is None or outcome.winner is None:
        lines.append("Nobody scores.")
    else:
        lines.append(f"{names[outcome.winner]} {verb('score', _person(outcome.winner, you))}:")
        lines.extend(score.lines())
    label = "Pools" if rules.scoring is Scoring.POOL else "Points"
    lines.append(f"{label}: {names[0]} {result.points[0]}, {names[1]} {result.points[1]}.")
    return tuple(lines)


def load_replay(path: Path) -> Replay:
    """Read, check and lay out the match at ``path`` (a record or a transcript) for replaying. Our own
    practice record tells the match as we played it: "You" and "Bot", not the host and the guest."""
    practice = _practice_seat(path)
    names = (("You", "Bot") if practice == 0 else ("Bot", "You")) if practice is not None else _sent_names(path)
    resume = ""
    if path.suffix == SUFFIX and secret_path(path).exists():
        from p2p_koikoi.app.listing import resume_name

        resume = f"{koikoi_command()} resume {resume_name(path)}"
    builder = ReplayBuilder(names, resume, you=practice)
    builder.replay.report = read_match(path, builder)
    return builder.replay


def _sent_names(path: Path) -> tuple[str, str] | None:
    """The seats by name, by seat, where the record's setup names them (or we named their keys): our name for
    a key first, then the name it sent (with its fingerprint when another key goes by it too); a seat named
    neither way stays "Host" or "Guest". None when neither seat has a name."""
    if path.suffix != SUFFIX:
        return None
    try:
        entries = read_record(path).entries
    except (RecordError, OSError):
        return None
    sent = sent_names(entries)
    if not entries or entries[0].entry.kind != EntryKind.MATCH:
        return None
    keys = MatchBody.from_list(entries[0].entry.body).keys
    try:
        called: CallNames | None = CallNames()
    except (IdentityError, OSError):
        called = None

    def has_name(seat: int) -> bool:
        ours = called.name_of(fingerprint(keys[seat]).replace(":", "")) if called is not None else None
        return sent[seat] is not None or ours is not None

    named = (has_name(0), has_name(1))
    if not any(named):
        return None
    shown = labels(keys, sent, called)
    return (shown[0] if named[0] else "Host", shown[1] if named[1] else "Guest")


def _practice_seat(path: Path) -> int | None:
    """Our seat in a practice record (one with no peer address), else None."""
    if path.suffix != SUFFIX:
        return None
    try:
        record = read_record(path)
    except (RecordError, OSError):
        return None
    if record.peer_address:
        return None
    return record.writer_seat
