"""Every deadline of a match run, in one value, with the reasons for its figures.

A person must never wait on a peer without being told, and a peer must never
hold a match forever; but a slow network, a loaded machine or a person reading
the table must not end it either. The figures:

- ``keepalive`` 1 s: each side pings every second and answers each ping at
  once, so a live peer is heard from at least once a second (its pongs), even
  when nobody writes an entry, whatever the peer's own ping interval is.
- ``quiet_after`` 2 s: no bytes for 2 s is two missed pongs in a row, which a
  healthy link (even at 300 ms round trips and a lost packet or two) does not
  produce; the player is told "connection lost, retrying (N s)..." within 2 s
  of the last bytes heard, and "back" when a frame comes again. It only
  informs: the connection is kept. (Silence is counted in bytes, not frames,
  so a large frame crawling over a slow link is not taken for an outage.)
- ``dead_after``: a connection silent this long is given up. With reconnect on
  (a match against a person, :data:`RECONNECTING`), 5 s: ten pongs missed. A
  fresh connection then gets through as soon as the network is back, where the
  old one's retransmissions back off (after a 10 s outage, TCP may wait seconds
  more before it tries again), and the reconnect grace still runs from the
  first silent moment. Without reconnect (practice, tests), giving up is final,
  so 20 s.
- ``step_deadline`` 60 s: an automatic protocol step (keys, a secret) takes a
  program milliseconds; a minute is for a machine under heavy load.
- ``turn_grace`` 10 s: the peer's player has the match's decision time limit,
  plus this much for the network and its own clock, before we claim a stall.
- ``reconnect_grace`` 60 s: how long a lost peer may take to come back, counted
  from the first silent moment, before the match is left abandoned (it can
  still be resumed later with ``koikoi resume``).
- ``linger`` 2 s: at the end of a match we send our EOF and read on until the
  peer's, for up to this long, so closing never resets a connection whose last
  entry the peer has not read yet (a ping of the peer's meeting a closed socket
  would make its kernel drop what it had not read).

:data:`DEFAULT_TURN_LIMIT` is the decision time limit a host offers unless it
says otherwise: 90 s is enough to read the table, look up a yaku and weigh a
Koi-Koi call, and short enough that a stalled match is over in under two minutes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import trio

__all__ = ["DEFAULT_TURN_LIMIT", "RECONNECTING", "FloorClock", "Timing"]

DEFAULT_TURN_LIMIT = 90


@dataclass(frozen=True, slots=True)
class Timing:
    """Every deadline of one match run, in seconds (see the module docstring for the figures)."""

    keepalive: float = 1.0
    quiet_after: float = 2.0
    dead_after: float = 20.0
    step_deadline: float = 60.0
    turn_grace: float = 10.0
    reconnect_grace: float = 60.0
    linger: float = 2.0

    def peer_patience(self, turn_limit: int, decides: bool) -> float:
        """How long the peer may hold the floor before we claim: its decision time limit plus the grace
        when its player decides (no limit when the match has none), ``step_deadline`` for an automatic
        step, so a peer that stalls instead of revealing is found out."""
        if decides:
            return turn_limit + self.turn_grace if turn_limit else math.inf
        return self.step_deadline


RECONNECTING = Timing(dead_after=5.0)


class FloorClock:
    """How long the peer has held the floor at one point of the chain, over every connection of the match.

    A peer that drops the connection before its time is up must not get its whole time again on the
    next one (it could stall forever, a minute at a time): the time it held the floor on earlier
    connections counts. The time with no connection does not (nobody could write then).
    """

    def __init__(self) -> None:
        self.length = -1  # the chain's length when the peer took the floor
        self.used = 0.0  # seconds held on earlier connections
        self.since: float | None = None  # when the current connection's share began, None between connections

    def deadline(self, length: int, patience: float) -> float:
        """The Trio time at which the peer, holding the floor at chain length ``length``, is past ``patience``."""
        now = trio.current_time()
        if length != self.length:
            self.length, self.used, self.since = length, 0.0, now
        elif self.since is None:
            self.since = now
        return self.since - self.used + patience

    def pause(self) -> None:
        """The connection is gone: keep the time held so far for the next one."""
        if self.since is not None:
            self.used += trio.current_time() - self.since
            self.since = None
