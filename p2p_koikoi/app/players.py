"""Players for the peer runner: a bot, and a person at a plain line-by-line terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import AnyAction, Round, RuleSet
from p2p_koikoi.session.match_session import SessionEvent

__all__ = ["BotPlayer", "event_lines"]


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


def _told(subject: str, text: str) -> str:
    """``You plays X, takes Y`` reads ``You play X, take Y``: the engine tells moves in the third person,
    so every verb that opens a clause turns to the second person for our own seat."""
    if subject != "You":
        return f"{subject} {text}"
    clauses = []
    for clause in text.split(", "):
        verb, _, rest = clause.partition(" ")
        clauses.append(f"{_SECOND_PERSON.get(verb, verb)} {rest}".rstrip())
    return f"{subject} {', '.join(clauses)}"


def event_lines(events: list[SessionEvent], seat: int) -> list[str]:
    """Session events in words, from ``seat``'s side of the table."""

    def who(s: int | None) -> str:
        return "You" if s == seat else "Opponent"

    out: list[str] = []
    for event in events:
        if event.kind == "first-dealer":
            out.append(f"{who(event.seat)} deal{'' if event.seat == seat else 's'} first.")
        elif event.kind == "round":
            number, _, redeal = event.text.partition("/")
            again = " (dealt again)" if redeal != "0" else ""
            out.append(f"Round {number}{again}: {who(event.seat).lower()} deal{'' if event.seat == seat else 's'}.")
        elif event.kind == "moves":
            for e in event.events:
                if e.kind in ("hand-yaku",) and not e.yaku:
                    continue
                if e.kind == "round-over":
                    out.append(f"Round over: {e.text}.")
                elif e.kind == "yaku":
                    made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in e.yaku)
                    out.append(f"{who(e.seat)}: {made}.")
                else:
                    out.append(f"{_told(who(e.seat), e.text)}." if e.seat in (0, 1) else f"{e.text}.")
        elif event.kind == "result" and event.result is not None:
            result = event.result
            score = result.score
            if score is None or result.outcome.winner is None:
                out.append(f"Nobody scores ({result.outcome.kind.value}).")
            else:
                out.append(
                    f"{who(result.outcome.winner)} score{'' if result.outcome.winner == seat else 's'} {score.payment}."
                )
        elif event.kind == "over" and event.outcome is not None:
            outcome = event.outcome
            if outcome.winner is None:
                out.append(f"The match is drawn, {outcome.points[0]} to {outcome.points[1]}.")
            else:
                out.append(
                    f"{who(outcome.winner)} win{'' if outcome.winner == seat else 's'} the match "
                    f"({outcome.termination.value}), {outcome.points[seat]} to {outcome.points[1 - seat]}."
                )
        elif event.kind in ("peer-left", "failed"):
            out.append(event.text)
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

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        return await trio.to_thread.run_sync(self.agent.choose, view, legal, context)

    async def notify(self, events: list[SessionEvent]) -> None:
        if self._say is not None:
            for line in event_lines(events, self.seat):
                self._say(line)


def stderr_say(line: str) -> None:
    print(line, file=sys.stderr)
