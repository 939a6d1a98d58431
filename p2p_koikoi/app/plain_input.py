"""Lines typed at a plain terminal (or fed through a pipe), read without ever blocking the match.

One worker thread reads standard input for the whole match and hands each line to the Trio
loop, so a question can be called off (the turn limit ran out, the opponent left) without
leaving a reader behind that would swallow the next answer. ``None`` means the input really
ended (Ctrl-D, or the pipe closed): that, and only that, is read as the person going away.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable

import trio

__all__ = ["LineInput", "stdout_prompt"]


def stdout_prompt(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class LineInput:
    """Answers to prompts, one line each. ``readline`` returns ``""`` at the end of the input
    (as :meth:`io.TextIOBase.readline` does); ``prompt`` writes the question, with no newline."""

    def __init__(
        self,
        readline: Callable[[], str] | None = None,
        prompt: Callable[[str], None] = stdout_prompt,
    ) -> None:
        self._readline = readline if readline is not None else sys.stdin.readline
        self._prompt = prompt
        self._send, self._lines = trio.open_memory_channel[str | None](math.inf)
        self._started = False
        self._ended = False

    def _pump(self, token: trio.lowlevel.TrioToken) -> None:
        while True:
            try:
                line = self._readline()
            except (OSError, ValueError):  # stdin closed under us
                line = ""
            try:
                text = line.rstrip("\r\n") if line else None
                trio.from_thread.run_sync(self._send.send_nowait, text, trio_token=token)
            except (trio.RunFinishedError, trio.BrokenResourceError, trio.ClosedResourceError):
                return
            if not line:
                return

    def type_in(self, text: str) -> None:
        """A line as if the person had typed it: how Ctrl-C answers the question in front of them."""
        self._send.send_nowait(text)

    def forget_typed_ahead(self) -> None:
        """Drop lines typed for a question that is gone (the turn limit took it), so they do not
        answer the next one."""
        while True:
            try:
                line = self._lines.receive_nowait()
            except trio.WouldBlock:
                return
            if line is None:
                self._ended = True
                return

    async def ask(self, prompt: str, *, nudge_at: float | None = None, nudge: str = "") -> str | None:
        """Write ``prompt`` and wait for a line (without its newline); None once the input ended.
        If no line came by ``nudge_at`` (Trio time), ``nudge`` is said and the prompt asked again."""
        if self._ended:
            return None
        if not self._started:
            self._started = True
            token = trio.lowlevel.current_trio_token()
            threading.Thread(target=self._pump, args=(token,), name="koikoi-stdin", daemon=True).start()
        self._prompt(prompt)
        line: str | None = ""
        with trio.move_on_at(nudge_at if nudge_at is not None else math.inf) as waiting:
            line = await self._lines.receive()
        if waiting.cancelled_caught:
            self._prompt(f"\n{nudge}\n{prompt}")
            line = await self._lines.receive()
        if line is None:
            self._ended = True
        return line
