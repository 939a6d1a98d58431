"""A notice that counts down: "Connection lost, retrying (58 s)..." said once, read at any moment.

The runner tells the player of a lost connection once, but the seconds in it run on: a line that still
said 58 s after half a minute told the player nothing. A :class:`Countdown` is the line as said when it
was made (a plain ``str``, so every ``say`` that prints a line prints it unchanged) that also carries
the Trio time it counts to, so a screen that redraws says the seconds left each time it does.
"""

from __future__ import annotations

import math

__all__ = ["Countdown"]


class Countdown(str):
    """``template`` with ``{seconds}`` filled in: the seconds from ``now`` to ``deadline`` (Trio time)."""

    template: str
    deadline: float

    def __new__(cls, template: str, deadline: float, now: float) -> Countdown:
        made = super().__new__(cls, template.format(seconds=_left(deadline, now)))
        made.template = template
        made.deadline = deadline
        return made

    def at(self, now: float) -> str:
        """The line with the seconds left at ``now`` (never below 0)."""
        return self.template.format(seconds=_left(self.deadline, now))


def _left(deadline: float, now: float) -> int:
    return max(0, math.ceil(deadline - now))
