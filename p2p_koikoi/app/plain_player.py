"""A person at a plain terminal: announcements line by line, choices by number.

This is the ``--plain`` table (for screen readers and dumb terminals) and what runs when the
output is not a terminal, so it is the gentlest way to play: an empty line or a word it does not
know asks again, and only ``q`` (confirmed) or the real end of the input leaves the match (a
forfeit the opponent is told of). Each turn says the table, both players' captures and yaku
under way, your hand, and what each choice would take; ``r`` says it again and ``?`` gives the
yaku table. Input is read by :class:`~p2p_koikoi.app.plain_input.LineInput` in a worker thread,
so the connection keeps answering keepalives while the person thinks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from p2p_koikoi.app.coach import hint, pointless_koikoi
from p2p_koikoi.app.decision import choice_words, decision_order, koikoi_risk, tracker_words
from p2p_koikoi.app.plain_input import LineInput
from p2p_koikoi.app.player_labels import seen_opponent
from p2p_koikoi.app.players import event_lines, wait_for_interrupt
from p2p_koikoi.app.shobu import shobu_now
from p2p_koikoi.app.words import count, how_round_ended
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Round, RuleSet, cards_of, preset
from p2p_koikoi.engine.match import Match, RoundResult
from p2p_koikoi.engine.round import OutcomeKind, Phase
from p2p_koikoi.engine.ruledoc import describe, yaku_table_lines
from p2p_koikoi.net.runner import ClaimChoice, PlayerQuit
from p2p_koikoi.session.events import (
    MatchOver,
    Moves,
    PeerLeft,
    Players,
    RoundBegins,
    RoundScored,
    SessionEnd,
    SessionEvent,
)

__all__ = ["PlainPlayer", "stderr_write", "stdout_write"]

WARN_AT = 10.0  # seconds left when plain mode says how long is left
CLAIM_WARN_AT = 5.0  # seconds left when plain mode says the match is about to be claimed
_CLAIM_WORDS = {
    "1": ClaimChoice.CLAIM,
    "c": ClaimChoice.CLAIM,
    "claim": ClaimChoice.CLAIM,
    "2": ClaimChoice.WAIT,
    "w": ClaimChoice.WAIT,
    "wait": ClaimChoice.WAIT,
    "3": ClaimChoice.ADJOURN,
    "a": ClaimChoice.ADJOURN,
    "adjourn": ClaimChoice.ADJOURN,
}


class PlainPlayer:
    """The plain-lines player (see the module docstring); ``them`` names the opponent everywhere."""

    def __init__(
        self,
        seat: int,
        *,
        write: Callable[[str], None] = print,
        lines: LineInput | None = None,
        assume_yes: bool = False,
        them: str = "Opponent",
    ) -> None:
        self.seat = seat
        self.them = them
        self._write = write
        self._lines = lines if lines is not None else LineInput()
        self._assume_yes = assume_yes
        self._confirming = False  # the "Leave the match?" question is open
        self._results: list[RoundResult] = []
        self._rules: RuleSet | None = None
        self._timed_out = False
        self._claimed = False  # we claimed the opponent's silence: the match it ends is won by that claim

    async def accept_rules(self, rules: RuleSet) -> bool:
        self._rules = rules
        self._write(describe(rules))
        changes = rules.differences(preset(rules.preset))
        if changes:
            self._write("Changed from the preset: " + ", ".join(f"{k}={v}" for k, v, _ in changes))
        if self._assume_yes:
            return True
        answer: list[bool | str] = []  # a string: why the person left, which declines (no match began)
        async with trio.open_nursery() as nursery:

            async def interrupted(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
                await wait_for_interrupt(task_status=task_status)
                self._write("")  # end the question's line
                self._lines.forget_typed_ahead()
                answer.append("the player left at the rules (Ctrl-C)")
                nursery.cancel_scope.cancel()

            await nursery.start(interrupted)
            said = await self._rules_answer(rules)
            answer.append("the input ended" if said is None else said)
            nursery.cancel_scope.cancel()
        if isinstance(answer[0], str):
            raise PlayerQuit(answer[0])
        return answer[0]

    async def _rules_answer(self, rules: RuleSet) -> bool | None:
        """y or n; None when the input ended."""
        while True:
            answer = await self._lines.ask("Play by these rules? [y/n, ? for the yaku] ")
            if answer is None:
                return None
            word = answer.strip().lower()
            if word in ("y", "yes", "n", "no"):
                return word.startswith("y")
            if word == "?":
                self._say_yaku(rules)
            else:
                self._write("Type y to play by these rules, n to decline, or ? for the yaku table.")

    # -- a decision ----------------------------------------------------------------------------------

    async def choose(
        self, view: Round, legal: list[AnyAction], context: MatchContext, *, deadline: float | None = None
    ) -> AnyAction:
        """Ask until the person answers; ``deadline`` (Trio time) is when the game moves for them."""
        self._rules = context.rules
        ordered = decision_order(legal) if view.phase is Phase.DECISION else legal
        self._say_turn(view, ordered, context, deadline)
        answered = False
        try:
            action = await self._answer(view, ordered, context, deadline)
            answered = True
            return action
        finally:
            if not answered:
                self._write("")  # the question was called off: end its line before what comes next
            if deadline is not None and trio.current_time() >= deadline:
                self._timed_out = True
                self._lines.forget_typed_ahead()

    async def _answer(
        self, view: Round, ordered: list[AnyAction], context: MatchContext, deadline: float | None
    ) -> AnyAction:
        n = len(ordered)
        nudge_at = deadline - WARN_AT if deadline is not None else None
        while True:
            if nudge_at is not None and trio.current_time() >= nudge_at:
                nudge_at = None  # said once
            text = await self._lines.ask(
                f"Your choice [1-{n}, h for a hint, q to leave]: ",
                nudge_at=nudge_at,
                nudge=f"{WARN_AT:g} seconds left to choose.",
            )
            if text is None:
                raise PlayerQuit("the input ended")
            word = text.strip().lower()
            if word.isdigit() and 1 <= int(word) <= n:
                return ordered[int(word) - 1]
            if word == "q":
                if await self._confirm_leaving():
                    raise PlayerQuit("the player left")
                continue
            if word == "?":
                self._say_yaku(context.rules)
            elif word == "h":
                for line in hint(view, ordered, context, self.them):
                    self._write(line)
            elif word == "r":
                self._say_turn(view, ordered, context, deadline)
            elif word:
                self._write(f"{text.strip()!r} is not a choice here.")
            self._write(f"Type a number from 1 to {n}; r: the table again, ?: the yaku table, h: a hint, q: leave.")

    # -- the opponent went silent ------------------------------------------------------------------

    async def offer_claim(self, text: str, deadline: float) -> ClaimChoice:
        """The opponent owes the next move and stayed silent (``text`` says how): claim the match (1 or c),
        wait on (2 or w) or adjourn (3 or a), asked until ``deadline`` (Trio time), when the match is claimed.
        Ctrl-C adjourns (leaving while the opponent owes forfeits nothing); ``q`` only says the ways out
        again. The end of the input claims, as no answer does."""
        self._write(f"{text[:1].upper()}{text[1:]}.")
        self._write("  1. c: claim the match: you win by its silence (it can still refute the claim with its record)")
        self._write("  2. w: wait a while longer")
        self._write("  3. a: adjourn: nobody wins; the match can be resumed later")
        self._write("Ctrl-C adjourns too: leaving now forfeits nothing (the opponent owes).")
        choice = ClaimChoice.CLAIM  # no answer by the deadline claims
        answered = False
        try:
            with trio.move_on_at(deadline):
                async with trio.open_nursery() as nursery:
                    answer: list[ClaimChoice] = []

                    async def interrupted(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
                        await wait_for_interrupt(task_status=task_status)
                        self._write("")  # end the question's line
                        answer.append(ClaimChoice.ADJOURN)
                        nursery.cancel_scope.cancel()

                    await nursery.start(interrupted)
                    answer.append(await self._claim_answer(deadline))
                    nursery.cancel_scope.cancel()
                choice = answer[0]
                answered = True
        finally:
            if not answered:
                self._write("")  # the question was called off: end its line before what comes next
                self._lines.forget_typed_ahead()
        if choice is ClaimChoice.WAIT:
            self._write(f"You wait for {self.them} a while longer.")
        elif choice is ClaimChoice.ADJOURN:
            self._write("You adjourn the match: nobody won.")
        return choice

    async def _claim_answer(self, deadline: float) -> ClaimChoice:
        while True:
            now = trio.current_time()
            left = max(0, round(deadline - now))
            text = await self._lines.ask(
                f"Claim the match (c), wait (w), or adjourn (a)? Claiming in {left} s [1-3]: ",
                nudge_at=deadline - CLAIM_WARN_AT if now < deadline - CLAIM_WARN_AT else None,
                nudge=f"{CLAIM_WARN_AT:g} seconds left, then the match is claimed.",
            )
            if text is None:
                return ClaimChoice.CLAIM  # the input ended: nobody will answer
            word = text.strip().lower()
            choice = _CLAIM_WORDS.get(word)
            if choice is not None:
                return choice
            if word == "q":
                self._write("Leaving now is adjourning (a): nobody wins. Or claim the match (c), or wait (w).")
            elif word:
                self._write(f"{text.strip()!r} is not a choice here.")
            self._write("Type 1 or c to claim the match, 2 or w to wait, 3 or a to adjourn.")

    async def _confirm_leaving(self) -> bool:
        self._confirming = True
        try:
            answer = await self._lines.ask(f"Leave the match? Leaving forfeits it: {self.them} wins. [y/n] ")
        finally:
            self._confirming = False
        if answer is None:
            return True
        return answer.strip().lower() in ("y", "yes")

    def interrupt(self) -> None:
        """Ctrl-C, as ``q``: the first asks whether to leave (at the next choice, if none is open), a
        second, with that question open, leaves."""
        self._lines.type_in("y" if self._confirming else "q")

    # -- what the person hears -------------------------------------------------------------------------

    def _say_turn(self, view: Round, ordered: list[AnyAction], context: MatchContext, deadline: float | None) -> None:
        me, other = self.seat, 1 - self.seat
        rules = context.rules
        if deadline is not None:
            left = max(0, round(deadline - trio.current_time()))
            self._write(f"Your turn: {count(left, 'second')} to choose, then the game plays for you.")
        table = ", ".join(c.display_name for c in cards_of(view.table)) or "no cards"
        self._write(f"Table: {table} ({view.stock_left} in the stock)")
        self._say_player(self.them, view, other, rules, hand_count=True)
        self._say_player("You", view, me, rules, hand_count=False)
        if view.phase is Phase.EXCHANGE:
            self._write("Your hand: 8 cards, dealt face down.")
        else:
            self._write(f"Your hand: {', '.join(c.display_name for c in cards_of(view.hands[me]))}")
        if view.phase is Phase.DECISION:
            self._write("Shōbu would score now:")
            for line in shobu_now(view, me, rules, context.points).lines():
                self._write(line)
            self._write(koikoi_risk(view, me, rules, self.them))
            warning = pointless_koikoi(view, me, context, self.them)
            if warning is not None:
                self._write(f"Careful: {warning}.")
        for number, action in enumerate(ordered, 1):
            self._write(f"  {number}. {choice_words(action, view)}")

    def _say_player(self, name: str, view: Round, seat: int, rules: RuleSet, *, hand_count: bool) -> None:
        caps = view.captures[seat]
        held = f"{count(view.hand_size(seat), 'card')} in hand; " if hand_count else ""
        taken = ", ".join(c.display_name for c in cards_of(caps)) or "none yet"
        self._write(f"{name}: {held}captures: {taken}")
        tracked = [words for _, words in tracker_words(caps, rules, theirs=view.captures[1 - seat])]
        if tracked:
            self._write(f"{name} yaku: " + "; ".join(w.replace("✓ ", "made ") for w in tracked))

    def _say_yaku(self, rules: RuleSet) -> None:
        self._write(f"Yaku under these rules ({rules.format()}):")
        for line in yaku_table_lines(rules):
            self._write(f"  {line}")

    def _meet(self, event: Players) -> None:
        """The setup is signed: the opponent is called by its name from now on (unless we were told what
        to call it, as practice calls the bot "Bot"), and a name two keys share is said once."""
        label, note = seen_opponent(event.keys, event.names, self.seat)
        if self.them == "Opponent":
            self.them = label
            self._write(f"You play {label}.")
        if note is not None:
            self._write(f"Note: {note}.")

    def caught_up(self, match: Match, rules: RuleSet | None) -> None:
        """A resumed match: the rounds played before, for the table of rounds at the end."""
        self._rules = rules or self._rules
        self._results = [r for r in match.results if r.outcome.kind is not OutcomeKind.REDEAL]

    async def notify(self, events: list[SessionEvent]) -> None:
        for event in events:
            if isinstance(event, Players):
                self._meet(event)
            timed_out = self._timed_out and isinstance(event, Moves)
            for line in event_lines([event], self.seat, self.them, timed_out=timed_out, claimed=self._claimed):
                self._write(line)
            if isinstance(event, PeerLeft):
                self._claimed = event.ended is SessionEnd.PEER_VANISHED
            elif isinstance(event, Moves | RoundBegins):
                self._claimed = False  # the opponent came back and refuted our claim
            if timed_out and isinstance(event, Moves) and any(e.seat == self.seat for e in event.events):
                self._timed_out = False
            if isinstance(event, RoundScored) and event.result.outcome.kind is not OutcomeKind.REDEAL:
                result = event.result
                self._results.append(result)
                if result.score is not None:
                    for line in result.score.lines():
                        self._write(line)
            if isinstance(event, MatchOver):
                for line in self._rounds_table():
                    self._write(line)

    def _rounds_table(self) -> list[str]:
        me, other = self.seat, 1 - self.seat
        out = ["Rounds:"]
        for result in self._results:
            outcome = result.outcome
            if outcome.winner is None:
                what = f"nobody scores ({how_round_ended(outcome.kind)})"
            else:
                who = "you" if outcome.winner == me else self.them
                made = ", ".join(f"{y.yaku.display_name} {y.points}" for y in outcome.yaku)
                paid = result.score.payment if result.score is not None else 0
                what = f"{who} {'score' if outcome.winner == me else 'scores'} {count(paid, 'point')}"
                what += f" ({made})" if made else ""
            out.append(
                f"  Round {result.number}: {what}; then you {result.points[me]}, {self.them} {result.points[other]}"
            )
        if not self._results:
            out.append("  (no round was finished)")
        return out


def stdout_write(line: str) -> None:
    print(line, flush=True)


def stderr_write(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
