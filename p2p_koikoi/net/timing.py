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
  from the last bytes heard (and no longer than its patience when it owes the
  next entry, :class:`FloorClock`), before we claim its silence: silence loses,
  and the claim wins the match for us, marked as claimed. After a claim against
  a peer that was gone, one more grace for its answer (its owed entry, or
  ``here``), which voids the claim.
- ``claim_countdown`` 10 s: how long our player is offered the claim of a silent peer's match (claim,
  wait on, adjourn) before the program claims for it.
- ``claim_linger`` 10 s: after our claim, how long we stay on a live connection for the peer's answer; a
  peer that is there answers at once (its owed entry, or ``here``), which voids the claim, and play goes on.
- ``linger`` 2 s: at the end of a match we send our EOF and read on until the
  peer's, for up to this long, so closing never resets a connection whose last
  entry the peer has not read yet (a ping of the peer's meeting a closed socket
  would make its kernel drop what it had not read).

:data:`DEFAULT_TURN_LIMIT` is the decision time limit a host offers unless it
says otherwise: 90 s is enough to read the table, look up a yaku and weigh a
Koi-Koi call, and short enough that a stalled match is over in under two minutes.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass

import trio

from p2p_koikoi.net import DEFAULT_TURN_LIMIT  # with DEFAULT_PORT: the command line reads both without Trio

__all__ = ["DEFAULT_TURN_LIMIT", "MAX_RESUMES", "RECONNECTING", "FloorClock", "Timing"]


@dataclass(frozen=True, slots=True)
class Timing:
    """Every deadline of one match run, in seconds (see the module docstring for the figures)."""

    keepalive: float = 1.0
    quiet_after: float = 2.0
    dead_after: float = 20.0
    step_deadline: float = 60.0
    turn_grace: float = 10.0
    reconnect_grace: float = 60.0
    claim_countdown: float = 10.0
    claim_linger: float = 10.0
    linger: float = 2.0

    def scaled(self, factor: float) -> Timing:
        """Every figure times ``factor`` (tests run whole network matches with the deadlines shrunk)."""
        if factor == 1.0:
            return self
        return Timing(*(getattr(self, f.name) * factor for f in dataclasses.fields(self)))

    def peer_patience(self, turn_limit: int, decides: bool) -> float:
        """How long the peer may hold the floor before we claim: its decision time limit plus the grace
        when its player decides (no limit when the match has none), ``step_deadline`` for an automatic
        step, so a peer that stalls instead of revealing is found out."""
        if decides:
            return turn_limit + self.turn_grace if turn_limit else math.inf
        return self.step_deadline


def _scale_from_environment() -> float:
    """``KOIKOI_TIMING_SCALE`` (a number in (0, 1], default 1) shrinks every deadline of a network match, so
    the tests can run a real ``koikoi host`` through a silence, a give-up and a claim in seconds. Anything
    else is ignored: the figures are the protocol's, not a user's setting."""
    try:
        factor = float(os.environ.get("KOIKOI_TIMING_SCALE", "1"))
    except ValueError:
        return 1.0
    return factor if 0 < factor <= 1 else 1.0


SCALE = _scale_from_environment()  # 1 but under test; for a deadline kept outside Timing (the rematch's)
RECONNECTING = Timing(dead_after=5.0).scaled(SCALE)


MAX_RESUMES = 3  # resumes the seat that owes an entry may take before that entry: cycling buys nothing


class FloorClock:
    """How long the peer has owed the entry at one point of the chain, over every connection of the match.

    The time counts whether or not a connection is up: a peer that drops and resumes again and again
    must not get its patience again each time (reconnect cycling), and a peer that is gone is as silent
    as one that is there and writes nothing. ``resumes`` counts the connections made while it owed this
    entry; past :data:`MAX_RESUMES`, its patience is spent.
    """

    def __init__(self) -> None:
        self.length = -1  # the chain's length when the peer began to owe
        self.since = 0.0  # when it began to owe (Trio time)
        self.resumes = 0  # connections made again since then
        self.objected: float | None = None  # when it answered a claim of its silence with ``here``

    def _at(self, length: int) -> None:
        if length != self.length:
            self.length, self.since, self.resumes, self.objected = length, trio.current_time(), 0, None

    def deadline(self, length: int, patience: float, *, objected: bool = False, grace: float = 0.0) -> float:
        """The Trio time at which the peer, owing at chain length ``length``, is past ``patience``. A peer
        that ``objected`` to a claim (``here``: its player is still deciding) has ``grace`` more from then."""
        self._at(length)
        if objected and self.objected is None:
            self.objected = trio.current_time()
        base = self.since if self.resumes > MAX_RESUMES else self.since + patience
        after_objection = self.objected + grace if self.objected is not None else -math.inf
        return max(base, after_objection)

    def resumed(self, length: int) -> None:
        """A connection was made again while the peer owed at chain length ``length``."""
        self._at(length)
        self.resumes += 1

    def extend(self, seconds: float) -> None:
        """Our player chose to wait on: the peer has this much longer, however often it came back."""
        self.since = trio.current_time() - seconds if self.resumes > MAX_RESUMES else self.since + seconds
        self.resumes = 0
