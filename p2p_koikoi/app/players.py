"""Players for the peer runner: a bot, and a person at a plain line-by-line terminal."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable

import trio

from p2p_koikoi.app.narrator import DECISIONS, Person, for_you, says
from p2p_koikoi.app.words import count, how_match_ended, how_round_ended, reason_words, score_words
from p2p_koikoi.bots.base import Agent, MatchContext
from p2p_koikoi.engine import AnyAction, EventKind, Round, RuleSet, Termination
from p2p_koikoi.session.events import (
    ClaimedAgainst,
    Failed,
    FirstDealer,
    MatchOver,
    Moves,
    PeerLeft,
    RoundBegins,
    RoundScored,
    SessionEnd,
    SessionEvent,
)

__all__ = [
    "BotPlayer",
    "claim_words",
    "event_lines",
    "left_words",
    "outcome_words",
    "wait_for_interrupt",
]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def claim_words(them: str) -> str:
    """Our claim of the peer's silence, as its winner reads it."""
    return f"You win: {them} went silent (claimed: {them} can still refute it with its record)"


def outcome_words(ended: SessionEnd | None, them: str, resume: str = "") -> str | None:
    """How the match ended for us, in one sentence, when the count did not end it: ``You win ...``, ``You
    lose ...``, ``Adjourned ...`` (with ``resume``, the command that takes it up again). None for a match
    played out (its score says it) or a violation (its finding says it)."""
    if ended is SessionEnd.PEER_VANISHED:
        return claim_words(them)
    if ended is SessionEnd.PEER_CLAIMED:
        return f"You lose: you went silent and {them} claimed the match"
    if ended is SessionEnd.PEER_QUIT:
        return f"You win by forfeit: {them} left the match"
    if ended is SessionEnd.QUIT:
        return "You lose by forfeit: you left the match"
    if ended is SessionEnd.ADJOURNED:
        return "Adjourned: nobody won" + (f"; resume it with {resume}" if resume else "")
    if ended is SessionEnd.DECLINED:
        return "You declined the rules: no match was played"
    if ended is SessionEnd.PEER_DECLINED:
        return f"{_cap(them)} declined the rules: no match was played"
    return None


def left_words(event: PeerLeft, them: str) -> str:
    """A :class:`PeerLeft` as a line of the log: what the peer did, or what we claimed."""
    ended, text = event.ended, event.text
    if ended is SessionEnd.PEER_VANISHED:
        return f"You claim the match: {text}"
    if ended is SessionEnd.PEER_QUIT:
        return f"{them} left the match"
    if ended is SessionEnd.PEER_DECLINED:
        return f"{them} declined the rules"
    if ended is SessionEnd.ADJOURNED:
        return f"{them} adjourned the match: nobody won"
    if ended is SessionEnd.PEER_CLAIMED:
        return f"{them} claimed the match: you went silent"
    if ended is SessionEnd.MATCH_OVER:
        return f"{them} left after the match was decided"
    return f"{them} ended the match ({reason_words(text)})"


async def wait_for_interrupt(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Return when Ctrl-C is pressed (SIGINT), which then raises no KeyboardInterrupt: for a question that
    Ctrl-C answers. Started with ``nursery.start``, it is listening once started. Off the main thread, where
    no signal can be caught, it never returns (Ctrl-C stays a KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        task_status.started()
        await trio.sleep_forever()
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        task_status.started()
        async for _ in signals:
            return


def event_lines(
    events: list[SessionEvent],
    seat: int,
    them: str = "Opponent",
    *,
    timed_out: bool = False,
    claimed: bool = False,
) -> list[str]:
    """Session events in words, from ``seat``'s side of the table; ``them`` names the opponent.
    With ``timed_out``, our first move among them is the one the turn limit made for us; with ``claimed``,
    we claimed the peer's silence before them (a ``peer-left`` among them says so too), so the match
    they end is won by that claim, not by a forfeit."""

    def who(s: int | None) -> str:
        return "You" if s == seat else them

    out: list[str] = []
    for event in events:
        if isinstance(event, Moves | RoundBegins):
            claimed = False  # the peer came back and refuted it: the match goes on
        match event:
            case FirstDealer(seat=first):
                out.append(f"{who(first)} deal{'' if first == seat else 's'} first.")
            case RoundBegins(number=number, redeal=redeal, dealer=dealer):
                again = " (dealt again)" if redeal else ""
                dealing = "you deal" if dealer == seat else f"{them} deals"
                out.append(f"Round {number}{again}: {dealing}.")
            case Moves(events=moves):
                for e in moves:
                    if e.kind is EventKind.HAND_YAKU and not e.yaku:
                        continue
                    if timed_out and e.seat == seat and e.kind in DECISIONS:
                        out.append(for_you(e))
                        timed_out = False
                    elif e.kind is EventKind.ROUND_OVER:
                        out.append(f"Round over: {e.text}.")
                    elif e.seat in (0, 1):
                        out.append(f"{who(e.seat)} {says(e, Person.YOU if e.seat == seat else Person.THEY)}.")
                    else:
                        out.append(f"{says(e)}.")
            case RoundScored(result=result):
                score = result.score
                if score is None or result.outcome.winner is None:
                    out.append(f"Nobody scores ({how_round_ended(result.outcome.kind)}).")
                else:
                    out.append(
                        f"{who(result.outcome.winner)} score{'' if result.outcome.winner == seat else 's'} "
                        f"{count(score.payment, 'point')}."
                    )
            case MatchOver(outcome=outcome) if outcome is not None:
                if claimed and outcome.winner == seat and outcome.termination is Termination.FORFEIT:
                    out.append(f"{claim_words(them)}.")
                elif outcome.winner is None:
                    out.append(f"The match is drawn, {outcome.points[0]} to {outcome.points[1]}.")
                else:
                    out.append(
                        f"{who(outcome.winner)} win{'' if outcome.winner == seat else 's'} the match "
                        f"({how_match_ended(outcome.termination)}), {score_words(outcome.points, outcome.winner)}."
                    )
            case PeerLeft():
                claimed = claimed or event.ended is SessionEnd.PEER_VANISHED
                out.append(f"{left_words(event, them)}.")
            case Failed(text=text):
                out.append(reason_words(text))
            case ClaimedAgainst():
                out.append(f"{them} claimed you had gone silent; your program answered at once, so play goes on.")
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
