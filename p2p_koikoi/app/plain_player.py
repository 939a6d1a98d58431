"""A person at a plain terminal: announcements line by line, choices by number.

This is the ``--plain`` table (for screen readers and dumb terminals) and what
runs when the output is not a terminal. Input is read in a worker thread, so
the connection keeps answering keepalives while the person thinks. Typing ``q``
leaves the match (a forfeit the opponent is told of), and so does the end of
the input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from p2p_koikoi.app.coach import hint, pointless_koikoi
from p2p_koikoi.app.players import event_lines
from p2p_koikoi.app.shobu import shobu_now
from p2p_koikoi.app.tracker import progress
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import (
    AnyAction,
    CallKoiKoi,
    CallStop,
    ChooseCapture,
    Exchange,
    Play,
    Round,
    RuleSet,
    cards_of,
    preset,
)
from p2p_koikoi.engine.match import RoundResult
from p2p_koikoi.engine.round import OutcomeKind, Phase
from p2p_koikoi.engine.ruledoc import describe
from p2p_koikoi.net.runner import PlayerQuit
from p2p_koikoi.session.match_session import SessionEvent

__all__ = ["PlainPlayer", "action_words"]


def action_words(action: AnyAction) -> str:
    if isinstance(action, Play):
        take = f", taking {action.target.display_name}" if action.target is not None else ""
        return f"play {action.card.display_name}{take}"
    if isinstance(action, ChooseCapture):
        return f"take {action.target.display_name}"
    if isinstance(action, CallKoiKoi):
        return "Koi-Koi (play on)"
    if isinstance(action, CallStop):
        return "Shobu (stop and score)"
    if isinstance(action, Exchange):
        return "exchange hands with the dealer" if action.swap else "keep the hands as dealt"
    return str(action)


class PlainPlayer:
    def __init__(
        self,
        seat: int,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        assume_yes: bool = False,
    ) -> None:
        self.seat = seat
        self._read = read
        self._write = write
        self._assume_yes = assume_yes
        self._results: list[RoundResult] = []

    async def _ask(self, prompt: str) -> str:
        try:
            return await trio.to_thread.run_sync(self._read, prompt)
        except EOFError:
            return ""

    async def accept_rules(self, rules: RuleSet) -> bool:
        self._write(describe(rules))
        changes = rules.differences(preset(rules.preset))
        if changes:
            self._write("Changed from the preset: " + ", ".join(f"{k}={v}" for k, v, _ in changes))
        if self._assume_yes:
            return True
        answer = (await self._ask("Play by these rules? [y/N] ")).strip().lower()
        return answer in ("y", "yes")

    async def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
        me = self.seat
        self._write(
            f"Table: {', '.join(c.display_name for c in cards_of(view.table))} ({view.stock_left} in the stock)"
        )
        self._write(f"Your hand: {', '.join(c.display_name for c in cards_of(view.hands[me]))}")
        if view.captures[me]:
            self._write(f"Your captures: {', '.join(c.display_name for c in cards_of(view.captures[me]))}")
        tracker = progress(view.captures[me], context.rules)
        if tracker:
            self._write("Your yaku: " + ", ".join(str(p) for p in tracker))
        if view.phase is Phase.DECISION:
            self._write("Shobu would score now:")
            for line in shobu_now(view, me, context.rules, context.points).lines():
                self._write(line)
            warning = pointless_koikoi(view, me, context, "the opponent")
            if warning is not None:
                self._write(f"Careful: {warning}.")
        for number, action in enumerate(legal, 1):
            self._write(f"  {number}. {action_words(action)}")
        while True:
            text = (await self._ask(f"Your choice [1-{len(legal)}, h for a hint, q to leave]: ")).strip().lower()
            if not text:
                raise PlayerQuit("the input ended")
            if text == "q":
                raise PlayerQuit("the player left")
            if text == "h":
                for line in hint(view, legal, context, "the opponent"):
                    self._write(line)
                continue
            if text.isdigit() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            self._write(
                f"Type a number from 1 to {len(legal)}, h for a hint, or q to leave (which forfeits the match)."
            )

    async def notify(self, events: list[SessionEvent]) -> None:
        for event in events:
            for line in event_lines([event], self.seat):
                self._write(line)
            result = event.result
            if event.kind == "result" and result is not None and result.outcome.kind is not OutcomeKind.REDEAL:
                self._results.append(result)
                if result.score is not None:
                    for line in result.score.lines():
                        self._write(line)
            if event.kind == "over":
                for line in self._rounds_table():
                    self._write(line)

    def _rounds_table(self) -> list[str]:
        me, other = self.seat, 1 - self.seat
        out = ["Rounds:"]
        for result in self._results:
            outcome = result.outcome
            if outcome.winner is None:
                what = f"nobody scores ({outcome.kind.value})"
            else:
                who = "you" if outcome.winner == me else "the opponent"
                made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in outcome.yaku)
                paid = result.score.payment if result.score is not None else 0
                what = f"{who} {paid}" + (f" ({made})" if made else "")
            out.append(
                f"  Round {result.number}: {what}; then you {result.points[me]}, opponent {result.points[other]}"
            )
        return out


def stdout_write(line: str) -> None:
    print(line, flush=True)


def stderr_write(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
