"""Players for the peer runner: a bot, and a person at a plain line-by-line terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from p2p_koikoi.app.words import count, how_match_ended, how_round_ended, reason_words
from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import AnyAction, Event, Round, RuleSet, cards_of
from p2p_koikoi.session.match_session import SessionEvent

__all__ = ["BotPlayer", "event_lines", "played_for_you", "told"]


_SECOND_PERSON = {
    "plays": "play",
    "draws": "draw",
    "takes": "take",
    "calls": "call",
    "has": "have",
    "shows": "show",
    "exchanges": "exchange",
    "keeps": "keep",
}


def told(subject: str, text: str) -> str:
    """``You plays X, takes Y`` reads ``You play X, take Y``: the engine tells moves in the third person,
    so every verb that opens a clause turns to the second person for our own seat."""
    if subject != "You":
        return f"{subject} {text}"
    clauses = []
    for clause in text.split(", "):
        verb, _, rest = clause.partition(" ")
        clauses.append(f"{_SECOND_PERSON.get(verb, verb)} {rest}".rstrip())
    return f"{subject} {', '.join(clauses)}"


def played_for_you(move: Event) -> str:
    """Our own move that the game made when the turn limit ran out, told as such (never as
    ``You play ...``, which would read as if the person had chosen it)."""
    card = move.card.display_name if move.card is not None else ""
    if move.kind == "play":
        taken = ", ".join(c.display_name for c in cards_of(move.captured))
        what = f"played {card} for you" + (f", taking {taken}" if taken else ", to the table")
    elif move.kind == "capture" and move.captured:
        what = f"took {next(cards_of(move.captured)).display_name} for you"
    elif move.kind == "koikoi":
        what = "called Koi-Koi for you"
    elif move.kind == "stop":
        what = "called Shōbu for you"
    elif move.kind == "exchange":
        what = "exchanged hands for you" if move.text.startswith("exchanges") else "kept the hands for you"
    else:
        what = f"chose for you: {move.text}"
    return f"Time's up: the game {what}."


def event_lines(events: list[SessionEvent], seat: int, them: str = "Opponent", *, timed_out: bool = False) -> list[str]:
    """Session events in words, from ``seat``'s side of the table; ``them`` names the opponent.
    With ``timed_out``, our first move among them is the one the turn limit made for us."""

    def who(s: int | None) -> str:
        return "You" if s == seat else them

    out: list[str] = []
    for event in events:
        if event.kind == "first-dealer":
            out.append(f"{who(event.seat)} deal{'' if event.seat == seat else 's'} first.")
        elif event.kind == "round":
            number, _, redeal = event.text.partition("/")
            again = " (dealt again)" if redeal != "0" else ""
            dealer = "you deal" if event.seat == seat else f"{them} deals"
            out.append(f"Round {number}{again}: {dealer}.")
        elif event.kind == "moves":
            for e in event.events:
                if e.kind in ("hand-yaku",) and not e.yaku:
                    continue
                if timed_out and e.seat == seat and e.kind in ("play", "capture", "koikoi", "stop", "exchange"):
                    out.append(played_for_you(e))
                    timed_out = False
                elif e.kind == "round-over":
                    out.append(f"Round over: {e.text}.")
                elif e.kind == "yaku":
                    made = ", ".join(f"{y.yaku.display_name} {count(y.points, 'point')}" for y in e.yaku)
                    out.append(f"{who(e.seat)} {'have' if e.seat == seat else 'has'} {made}.")
                else:
                    out.append(f"{told(who(e.seat), e.text)}." if e.seat in (0, 1) else f"{e.text}.")
        elif event.kind == "result" and event.result is not None:
            result = event.result
            score = result.score
            if score is None or result.outcome.winner is None:
                out.append(f"Nobody scores ({how_round_ended(result.outcome.kind)}).")
            else:
                out.append(
                    f"{who(result.outcome.winner)} score{'' if result.outcome.winner == seat else 's'} "
                    f"{count(score.payment, 'point')}."
                )
        elif event.kind == "over" and event.outcome is not None:
            outcome = event.outcome
            if outcome.winner is None:
                out.append(f"The match is drawn, {outcome.points[0]} to {outcome.points[1]}.")
            else:
                out.append(
                    f"{who(outcome.winner)} win{'' if outcome.winner == seat else 's'} the match "
                    f"({how_match_ended(outcome.termination)}), {outcome.points[seat]} to {outcome.points[1 - seat]}."
                )
        elif event.kind in ("peer-left", "failed"):
            out.append(reason_words(event.text))
    return out


class BotPlayer:
    """A built-in agent in our seat. It thinks in a worker thread, so the Trio loop keeps
    answering keepalives however long it thinks; it accepts the host's rules without asking."""

    def __init__(self, agent: Agent, seat: int, say: Callable[[str], None] | None = None) -> None:
        self.agent = agent
        self.seat = seat
        self._say = say

    async def accept_rules(self, rules: RuleSet) -> bool:
        return True

    async def choose(
        self, view: Round, legal: list[AnyAction], context: MatchContext, *, deadline: float | None = None
    ) -> AnyAction:
        """The agent's move; ``deadline`` (the turn limit, as every player is told it) does not hurry a bot,
        whose own time cap is far below any turn limit."""
        return await trio.to_thread.run_sync(self.agent.choose, view, legal, context)

    async def notify(self, events: list[SessionEvent]) -> None:
        if self._say is not None:
            for line in event_lines(events, self.seat):
                self._say(line)


def stderr_say(line: str) -> None:
    print(line, file=sys.stderr)
