"""A person at the terminal table: the :class:`~p2p_koikoi.net.runner.Player` behind ``koikoi
play``, ``host`` and ``join``.

The runner must never wait on the screen, so :meth:`TablePlayer.notify` only queues what
happened; an *animator* task shows it at a person's pace (the opponent's play, a short
pause, the card drawn and what it takes) while the protocol runs on. :meth:`choose` waits
until the screen has caught up, then opens a :class:`~p2p_koikoi.ui.picker.Picker` and
waits for the keys. Keys arrive on a channel (from the terminal's key reader, or a test)
and a *spinner* task keeps the waiting line alive. ``q`` asks first, then leaves through
the runner's ``quit_requested`` event or :class:`PlayerQuit`, so the goodbye forfeits the
match (or, while the opponent decides with no time limit, adjourns it), tells the opponent and
is recorded. When the opponent owes the next move and stays silent, :meth:`TablePlayer.offer_claim`
opens a box with a countdown: claim the match, wait, or adjourn (Ctrl-C adjourns too).
"""

from __future__ import annotations

import contextlib
import enum
import math
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import trio
from rich.text import Text

from p2p_koikoi.app.closing import koikoi_command
from p2p_koikoi.app.coach import hint, pointless_koikoi
from p2p_koikoi.app.dial_back import incomplete
from p2p_koikoi.app.follow import follow
from p2p_koikoi.app.player_labels import seen_opponent
from p2p_koikoi.app.players import wait_for_interrupt
from p2p_koikoi.app.shobu import shobu_now
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Event, EventKind, OutcomeKind, Round, RuleSet, Termination
from p2p_koikoi.engine.match import Match, RoundResult
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.net.countdown import Countdown
from p2p_koikoi.net.rematch import REMATCH_WAIT
from p2p_koikoi.net.runner import ClaimChoice, PlayerQuit
from p2p_koikoi.net.timing import SCALE
from p2p_koikoi.session.events import (
    Failed,
    FirstDealer,
    MatchOver,
    Moves,
    PeerLeft,
    Players,
    RoundBegins,
    RoundScored,
    RulesOffered,
    SessionEnd,
    SessionEvent,
)
from p2p_koikoi.ui.boxes import claim_box, help_box, question_box, quit_box, rules_box
from p2p_koikoi.ui.glyphs import SPINNER_ASCII, SPINNER_UNICODE
from p2p_koikoi.ui.picker import FocusMode, Picker
from p2p_koikoi.ui.render import render
from p2p_koikoi.ui.state import Overlay, RoundEnd, TableState, waiting_text
from p2p_koikoi.ui.telling import Teller, ending_words

__all__ = ["Screen", "TablePlayer"]


class _Leave:
    """What a decision answers when the person leaves instead."""


class BoxKind(enum.Enum):
    """Which box is open over the table: the keys it takes and when it closes follow from its kind."""

    CLAIM = enum.auto()
    QUIT = enum.auto()
    HELP = enum.auto()
    QUESTION = enum.auto()


_TYPED_MOST = 600  # longer than any answer code: what a paste gone wrong may fill, and no more
_CLAIM_KEYS = {"c": ClaimChoice.CLAIM, "w": ClaimChoice.WAIT, "a": ClaimChoice.ADJOURN}


class Screen(Protocol):
    """Where frames go: the terminal, or a test's recorder."""

    def size(self) -> tuple[int, int]: ...

    def draw(self, lines: list[Text]) -> None: ...


class TablePlayer:
    """The table screen and the person's decisions (see the module docstring)."""

    def __init__(
        self,
        screen: Screen,
        *,
        seat: int = 0,
        names: tuple[str, str] = ("You", "Opponent"),  # ours, theirs
        pause: float = 0.5,
        ascii_only: bool = False,
        rules: RuleSet | None = None,
        waiting: str = "Connecting…",
        assume_yes: bool = False,
    ) -> None:
        self.screen = screen
        by_seat = names if seat == 0 else (names[1], names[0])
        self.state = TableState(seat=seat, names=by_seat, phase_text=waiting, command=koikoi_command())
        self.assume_yes = assume_yes
        self.pause = pause
        self.ascii_only = ascii_only
        self.quit_requested = trio.Event()
        self.in_match = False
        self.rematch = False  # the person pressed r for another match at the end screen (read by :meth:`again`)
        self.earlier: list[TableState] = []  # the screens of the matches played before this one on its connection
        self._left_at_end = False  # the person said no to another match at the end screen: they are done
        self.interrupted = False  # the person left with Ctrl-C at the rules: no end screen
        self._spinner = SPINNER_ASCII if ascii_only else SPINNER_UNICODE
        self._events: deque[SessionEvent | Round] = deque()
        self._wake = trio.Event()
        self._idle = trio.Event()
        self._idle.set()
        self._picker: Picker | None = None
        self._coach: tuple[Round, list[AnyAction], MatchContext] | None = None  # the open decision, for `h`
        self._answer: trio.MemorySendChannel[AnyAction | _Leave] | None = None
        self._overlays: list[tuple[BoxKind, Overlay]] = []
        self._question: trio.MemorySendChannel[bool | None] | None = None
        self._dismiss: trio.Event | None = None
        self._deadline: float | None = None  # when the game moves for the person, while they decide
        self._claim: trio.MemorySendChannel[ClaimChoice] | None = None  # the open offer to claim the match
        self._claim_text = ""
        self._time_limit: bool | None = None  # whether the match limits thinking (known at our first decision)
        self._countdown: Countdown | None = None  # the notice on show, when its seconds run (reconnecting)
        self._typed_lines: trio.MemorySendChannel[str] | None = None  # while the host waits for a pasted line
        self._teller = Teller(self.state.log, self.state.names, seat)
        if rules is not None:
            self.set_rules(rules)

    # -- the tasks -------------------------------------------------------------------------------

    async def run(self, keys: trio.MemoryReceiveChannel[str]) -> None:
        """Read keys, animate events and spin the spinner until cancelled."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._animate)
            nursery.start_soon(self._spin)
            self.redraw()
            async for key in keys:
                self.press(key)
                self.redraw()

    def redraw(self) -> None:
        width, height = self.screen.size()
        now = trio.current_time()
        if self._deadline is not None:
            self.state.time_left = max(0, math.ceil(self._deadline - now))
        self._count_claim_down()
        if self._countdown is not None and self.state.notice:
            self.state.notice = self._countdown.at(now).strip()
        frame = self._spinner[int(now * 10) % len(self._spinner)]
        self.screen.draw(render(self.state, width, height, spinner=frame, ascii_only=self.ascii_only))

    def _count_claim_down(self) -> None:
        """The offer to claim says the seconds left, as they run."""
        for i, (kind, _overlay) in enumerate(self._overlays):
            if kind is BoxKind.CLAIM:
                self._overlays[i] = (kind, claim_box(self._claim_text, self.state.time_left))
        self.state.overlay = self._overlays[-1][1] if self._overlays else None

    async def _spin(self) -> None:
        while True:
            await trio.sleep(0.1)
            if waiting_text(self.state) is not None or self._deadline is not None:
                self.redraw()

    async def _animate(self) -> None:
        while True:
            if not self._events:
                self._idle.set()
                await self._wake.wait()
                self._wake = trio.Event()
                continue
            await self._show(self._events.popleft())
            self.redraw()

    async def settle(self) -> None:
        """Wait until the screen has shown every event queued (and the person closed any round's panel)."""
        while not self._idle.is_set():
            await self._idle.wait()

    # -- the Player protocol ------------------------------------------------------------------------

    async def accept_rules(self, rules: RuleSet) -> bool:
        self.in_match = True
        self.set_rules(rules)
        if self.assume_yes:
            return True
        async with trio.open_nursery() as nursery:
            await nursery.start(self._leave_on_interrupt)  # Ctrl-C at the rules declines: no match began
            answer = await self._ask(rules_box(rules))
            nursery.cancel_scope.cancel()
        if self.interrupted:
            raise PlayerQuit("the player left at the rules (Ctrl-C)")
        if answer is None:
            raise PlayerQuit("the player left")
        return answer

    async def _leave_on_interrupt(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Ctrl-C while the rules are asked: the person leaves (the match is declined, and the end screen
        is not shown: Ctrl-C means out)."""
        await wait_for_interrupt(task_status=task_status)
        self.interrupted = True
        self._leave()

    async def choose(
        self, view: Round, legal: list[AnyAction], context: MatchContext, *, deadline: float | None = None
    ) -> AnyAction:
        """Wait for the person's keys; ``deadline`` (Trio time) is when the game moves for them, counted
        down on screen, and the move it makes is then told as the game's, not theirs."""
        self.in_match = True
        await self.settle()
        if self.quit_requested.is_set():  # the person left while the screen caught up
            raise PlayerQuit("the player left")
        state = self.state
        if state.rules is None:
            self.set_rules(context.rules)
        if not state.round_number:  # a resumed match: the round's start was told before the crash
            state.round_number, state.dealer = context.round_number, view.dealer
        state.view = view
        state.points = context.points
        picker = Picker(view, legal, state.seat)
        if picker.focus.mode is FocusMode.DECISION:
            state.decision = shobu_now(view, state.seat, context.rules, context.points)
            state.warning = pointless_koikoi(view, state.seat, context, state.them) or ""
        send, receive = trio.open_memory_channel[AnyAction | _Leave](1)
        self._picker, self._answer, self._coach = picker, send, (view, legal, context)
        state.focus = picker.focus
        self._deadline = deadline
        self._time_limit = deadline is not None
        self.redraw()
        try:
            answer = await receive.receive()
        finally:
            self._picker = self._answer = self._coach = None
            state.focus = None
            state.decision = None
            state.warning = ""
            self._deadline = state.time_left = None
            if deadline is not None and trio.current_time() >= deadline:
                self._teller.timed_out = True
            self.redraw()
        if isinstance(answer, _Leave):
            raise PlayerQuit("the player left")
        return answer

    async def offer_claim(self, text: str, deadline: float) -> ClaimChoice:
        """The opponent owes the next move and stayed silent (``text`` says how): a box over the table offers
        to claim the match (``c``), wait on (``w``) or adjourn (``a``), counting down to ``deadline`` (Trio
        time), when the match is claimed. Ctrl-C adjourns: leaving while the opponent owes forfeits nothing.
        ``q`` does nothing here: leaving must say which of the two it is."""
        send, receive = trio.open_memory_channel[ClaimChoice](1)
        choice = ClaimChoice.CLAIM  # no answer by the deadline claims
        self._claim, self._claim_text, self._deadline = send, text, deadline
        try:
            with trio.move_on_at(deadline):
                async with trio.open_nursery() as nursery:
                    await nursery.start(self._adjourn_on_interrupt, send)  # Ctrl-C is ours from here
                    self._push(BoxKind.CLAIM, claim_box(text, None))
                    self.redraw()
                    choice = await receive.receive()
                    nursery.cancel_scope.cancel()
        finally:
            self._claim = None
            self._deadline = self.state.time_left = None
            self._overlays = [(k, o) for k, o in self._overlays if k is not BoxKind.CLAIM]
            self.state.overlay = self._overlays[-1][1] if self._overlays else None
        if choice is ClaimChoice.WAIT:
            self._teller.line(f"You wait for {self.state.them} a while longer.")
        elif choice is ClaimChoice.ADJOURN:
            self._teller.line("You adjourn the match: nobody won.")
        self.redraw()
        return choice

    @staticmethod
    async def _adjourn_on_interrupt(
        send: trio.MemorySendChannel[ClaimChoice], task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        await wait_for_interrupt(task_status=task_status)
        with contextlib.suppress(trio.WouldBlock):  # a key answered first
            send.send_nowait(ClaimChoice.ADJOURN)

    async def notify(self, events: list[SessionEvent]) -> None:
        self.in_match = True
        for event in events:
            if isinstance(event, Players):
                self._meet(event)
        self._queue(events)

    def _meet(self, event: Players) -> None:
        """The setup is signed: the opponent is called by its name (unless we were told what to call it,
        as practice calls the bot "Bot"); a name two keys share is said in the log."""
        state = self.state
        label, note = seen_opponent(event.keys, event.names, state.seat)
        if state.them == "Opponent":
            names = list(state.names)
            names[1 - state.seat] = label
            state.names = self._teller.names = (names[0], names[1])
        if note is not None:
            state.log.append(f"Note: {note}.")

    def see(self, view: Round) -> None:
        """The runner's view of our seat after the events before it: the table as it truly is now."""
        self._queue([view])

    def _queue(self, items: Sequence[SessionEvent | Round]) -> None:
        if not items:
            return
        self._events.extend(items)
        if self._idle.is_set():
            self._idle = trio.Event()
        self._wake.set()

    # -- for the host and join use cases ------------------------------------------------------------------

    def set_rules(self, rules: RuleSet) -> None:
        self.state.rules = rules
        if not self.state.results:  # the points a match starts with: both pools, or nothing yet
            start = rules.pool if rules.scoring is Scoring.POOL else 0
            self.state.points = (start, start)

    def caught_up(self, match: Match, rules: RuleSet | None) -> None:
        """A resumed match so far: its rounds (for the end table), points, round number and dealer."""
        if rules is not None:
            self.set_rules(rules)
        state = self.state
        state.results = list(match.results)
        state.points = (match.points[0], match.points[1])
        state.round_number = match.round_number
        state.dealer = match.dealer

    def say(self, line: str) -> None:
        """A message from the use case (hosting on a port, reconnecting...): into the log, and beside the
        spinner during a match (where it says what is being waited for) until the next event."""
        self._teller.line(line.strip())
        if self.in_match:
            self.state.notice = line.strip()
            self._countdown = line if isinstance(line, Countdown) else None  # its seconds run at each redraw
        self.redraw()

    async def confirm(self, question: str) -> bool:
        return bool(await self._ask(question_box(question)))

    async def finish(
        self,
        record: Path | None,
        *,
        ended_by: SessionEnd | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        """Show the end-of-match screen (the rounds, the winner, the record) until the person leaves (another
        match is asked by :meth:`again`, while the connection is held for it). ``ended_by`` is how the run
        ended (the runner's report: a :class:`SessionEnd`, ``DISCONNECTED`` among them); it words the
        headline; ``notes`` say why no other match follows on the connection. A person who left with Ctrl-C
        at the rules is not kept at it, nor one who already said no to another match at this very screen,
        and a decline is no match: no "Match over" screen for it."""
        if self.interrupted or ended_by is SessionEnd.DECLINED or self._left_at_end:
            return
        await self.settle()
        if self.earlier and record is not None and record == self.earlier[-1].record:  # the next never began
            self.state = self.earlier.pop()
            self._teller = Teller(self.state.log, self.state.names, self.state.seat)
        state = self.state
        state.after, state.answer_awaited = tuple(notes), False
        if ended_by is not None and not ended_by.cut_off:  # cut off: the events said what happened
            state.ended_by = ended_by
        if state.ended_by is SessionEnd.ADJOURNED and record is not None:
            from p2p_koikoi.app.listing import resume_name

            state.resume = f"{state.command} resume {resume_name(record)}"
        state.rematch_offered = False
        state.record = record
        state.final = True
        state.leaving = False
        self._overlays.clear()
        state.overlay = None
        self._dismiss = trio.Event()
        self.redraw()
        await self._dismiss.wait()

    async def again(self, record: Path | None) -> bool:
        """Another match on this connection? Asked at the end screen of a match played out, its seconds
        counted down: ``r`` is a yes (the screen then waits for the opponent's answer), Enter or ``q`` a no.
        Cancelled when the opponent said no first or time ran out; the end screen then stays up for
        :meth:`finish`, which says why."""
        await self.settle()  # the last round's panel is closed first
        state = self.state
        state.ended_by = SessionEnd.MATCH_OVER
        state.record, state.final, state.leaving = record, True, False
        state.rematch_offered, state.after = True, ()
        self._overlays.clear()
        state.overlay = None
        self._dismiss = trio.Event()
        self._deadline = trio.current_time() + REMATCH_WAIT * SCALE  # the wait began as the match ended
        self.redraw()
        try:
            await self._dismiss.wait()
        finally:
            self._dismiss = self._deadline = state.time_left = None
            state.rematch_offered = False
            yes, self.rematch = self.rematch, False  # taken: the next end screen asks afresh
            state.answer_awaited = yes
            self.redraw()
        self._left_at_end = not yes
        return yes

    async def pasted(self) -> str | None:
        """A line typed or pasted while the host waits (a guest's answer code, ``kka1:...``): the keys from
        a ``k`` on, up to Enter (Backspace and Esc edit it; ``q`` and ``?`` keep their meaning until a ``k``
        starts the line; Enter ends it once a code is whole). Never None: the keyboard does not end while the
        table is up."""
        send, receive = trio.open_memory_channel[str](1)
        self._typed_lines = send
        try:
            return await receive.receive()
        finally:
            self._typed_lines = None
            self.state.typed = ""
            self.redraw()

    def _type(self, key: str) -> None:
        """A key of the line being typed; Enter on a code cut short (a wrapped copy's line break) goes on
        typing, so its next line joins it rather than being taken as keys of the table."""
        state = self.state
        if key == "enter" and self._typed_lines is not None and not incomplete(state.typed):
            line, state.typed = state.typed, ""
            with contextlib.suppress(trio.WouldBlock):
                self._typed_lines.send_nowait(line)
        elif key == "backspace":
            state.typed = state.typed[:-1]
        elif key == "esc":
            state.typed = ""
        elif len(key) == 1 and len(state.typed) < _TYPED_MOST:
            state.typed += key

    def for_match(self, seat: int) -> TablePlayer:
        """The player of the connection's next match (``seat`` is ours): this table, cleared for it once the
        last one ended, that match's screen kept in :attr:`earlier` for the summary printed afterwards."""
        if self.state.final:
            done = self.state
            self.earlier.append(done)
            self.state = TableState(seat=seat, names=done.names, phase_text="Shuffling…", command=done.command)
            self._teller = Teller(self.state.log, self.state.names, seat)
            self._time_limit = None
            if done.rules is not None:
                self.set_rules(done.rules)
            self._teller.line(f"Match {len(self.earlier) + 1} on this connection: both wanted another.")
        return self

    # -- keys ----------------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        """One key, wherever the person is: a box on top takes it first, then the decision."""
        state = self.state
        if self._overlays:
            self._press_in_overlay(key)
        elif state.final:
            if key == "r" and state.rematch_offered and self._dismiss is not None:
                self.rematch = True
                self._dismiss.set()
            elif key in ("enter", "space", "esc", "q") and self._dismiss is not None:
                self._dismiss.set()
        elif self._typed_lines is not None and (state.typed or key == "k"):
            self._type(key)
        elif key == "q":
            self._push(BoxKind.QUIT, quit_box(self.state, self.in_match, adjourns=self._leaving_adjourns()))
        elif key == "?":
            self._push(BoxKind.HELP, help_box(self.state))
        elif key == "h" and self._coach is not None:
            self._push(
                BoxKind.HELP, Overlay("Hint", tuple(hint(*self._coach, them=state.them)), "any other key: close")
            )
        elif state.round_end is not None:
            if key in ("enter", "space", "esc") and self._dismiss is not None:
                self._dismiss.set()
        elif self._picker is not None and self._answer is not None:
            action = self._picker.press(key)
            state.focus = self._picker.focus
            if action is not None:
                self._answer.send_nowait(action)
                self._picker = self._answer = None  # one answer: keys typed ahead wait for the next decision

    def interrupt(self) -> None:
        """Ctrl-C, as ``q``: the first opens the box that asks whether to leave; a second, with that box
        up, leaves."""
        if self._overlays and self._overlays[-1][0] is BoxKind.QUIT:
            self.press("y")
        else:
            self._push(BoxKind.QUIT, quit_box(self.state, self.in_match, adjourns=self._leaving_adjourns()))
        self.redraw()

    def _leaving_adjourns(self) -> bool:
        """Leaving now adjourns rather than forfeits (the runner's rule): the opponent owes the next entry
        (no decision of ours is open) in a match with no time limit on thinking."""
        return self._time_limit is False and self._picker is None and self.state.round_end is None

    def _press_in_overlay(self, key: str) -> None:
        kind = self._overlays[-1][0]
        if kind is BoxKind.CLAIM:
            choice = _CLAIM_KEYS.get(key)
            if choice is not None and self._claim is not None:
                with contextlib.suppress(trio.WouldBlock):
                    self._claim.send_nowait(choice)
                self._claim = None
        elif kind is BoxKind.QUIT:
            if key == "y":
                self._pop()
                self._leave()
            elif key in ("n", "esc", "q"):
                self._pop()
        elif kind is BoxKind.QUESTION:
            if key in ("up", "down"):
                self._scroll(key)
            elif key in ("y", "n", "esc") and self._question is not None:
                self._question.send_nowait(key == "y")
                self._question = None
            elif key == "q":
                self._push(BoxKind.QUIT, quit_box(self.state, self.in_match, adjourns=self._leaving_adjourns()))
        elif key in ("up", "down"):
            self._scroll(key)
        else:  # help: any other key closes it
            self._pop()

    def _scroll(self, key: str) -> None:
        kind, overlay = self._overlays[-1]
        offset = max(0, min(len(overlay.lines) - 1, overlay.offset + (1 if key == "down" else -1)))
        self._overlays[-1] = (kind, Overlay(overlay.title, overlay.lines, overlay.keys, offset))
        self.state.overlay = self._overlays[-1][1]

    def _push(self, kind: BoxKind, overlay: Overlay) -> None:
        self._overlays.append((kind, overlay))
        self.state.overlay = overlay

    def _pop(self) -> None:
        self._overlays.pop()
        self.state.overlay = self._overlays[-1][1] if self._overlays else None

    def _leave(self) -> None:
        self.quit_requested.set()
        self.state.leaving = True
        if self._answer is not None:
            self._answer.send_nowait(_Leave())
            self._picker = self._answer = None
        if self._question is not None:
            self._question.send_nowait(None)
            self._question = None
        if self._dismiss is not None:
            self._dismiss.set()

    async def _ask(self, overlay: Overlay) -> bool | None:
        """A yes/no box: True or False, or None if the person chose to leave."""
        await self.settle()
        if self.quit_requested.is_set():
            return None
        send, receive = trio.open_memory_channel[bool | None](1)
        self._question = send
        self._push(BoxKind.QUESTION, overlay)
        self.redraw()
        try:
            return await receive.receive()
        finally:
            self._question = None
            self._overlays = [(k, o) for k, o in self._overlays if k is not BoxKind.QUESTION]
            self.state.overlay = self._overlays[-1][1] if self._overlays else None
            self.redraw()

    # -- showing events ---------------------------------------------------------------------------------

    async def _show(self, event: SessionEvent | Round) -> None:
        state = self.state
        state.notice = ""
        if isinstance(event, Round):
            state.view = event
            return
        if isinstance(event, RoundBegins | Moves | RoundScored) and state.ended_by is SessionEnd.PEER_VANISHED:
            state.ended_by, state.ended, state.outcome = None, "", None  # the peer came back: our claim fell
        match event:
            case RulesOffered(rules=rules):
                self.set_rules(rules)
            case FirstDealer(seat=seat):
                self._teller.deals(seat, suffix=" first")
            case RoundBegins(number=number, redeal=redeal, dealer=dealer):
                state.round_number, state.redeal, state.dealer = number, redeal, dealer
                state.view, state.drawn, state.phase_text = None, None, "Shuffling…"
                again = " (dealt again)" if redeal else ""
                self._teller.deals(dealer, prefix=f"Round {number}{again}: ")
            case Moves(events=moves, text=text):
                for move in moves:
                    await self._show_move(move)
                if not moves and text:
                    self._teller.line(text[0].upper() + text[1:] + ".")
            case RoundScored(result=result):
                await self._show_result(result)
            case MatchOver(outcome=outcome) if outcome is not None:
                state.outcome = outcome
                if outcome.termination is Termination.FORFEIT and outcome.winner != state.seat:
                    state.ended = state.ended or "you left the match"
            case PeerLeft() | Failed():
                if isinstance(event, PeerLeft):
                    state.ended_by = event.ended
                state.ended = ending_words(event, state.them)
                self._teller.line(state.ended[0].upper() + state.ended[1:] + ".")

    async def _show_result(self, result: RoundResult) -> None:
        state = self.state
        state.results.append(result)
        state.points = result.points
        if result.outcome.kind is OutcomeKind.REDEAL:
            return
        view = state.view
        captures = (view.captures[0], view.captures[1]) if view is not None else (0, 0)
        state.round_end = RoundEnd(result, captures)
        self._dismiss = trio.Event()
        self.redraw()
        await self._dismiss.wait()
        self._dismiss = None
        state.round_end = None
        state.view = None
        state.phase_text = "Shuffling…"

    async def _show_move(self, move: Event) -> None:
        """One engine event: the table follows it and the log tells it. A drawn card is on show for
        a moment before it lands or takes; the opponent's play and Koi-Koi stay a moment too."""
        state = self.state
        theirs = move.seat != state.seat
        if move.kind is EventKind.DRAW and move.card is not None and state.view is not None:
            state.drawn = move.card
            self.redraw()
            await trio.sleep(self.pause)
            state.drawn = None
        state.view = follow(state.view, move)
        self._teller.move(move)
        if theirs and move.kind in (EventKind.PLAY, EventKind.KOIKOI):
            self.redraw()
            await trio.sleep(self.pause)
