"""The host's door: who may wait to be admitted, who is pushed out when it is full, and what a
person is told about those turned away.

Pure bookkeeping, no I/O, so floods can be reasoned about (and tested) without sockets:

- :class:`Door` holds the connections that have not been admitted yet, a few per address (an IPv6
  /64 counts as one address: one home gets a whole /64) and a few dozen in all, fewer when the
  process may open few files. A full door does not turn a newcomer away: the newcomer pushes out
  the oldest connection that has not greeted yet (see the policy below).
- :class:`DropLog` turns a stream of dropped connections into a handful of lines: the first drop
  after a quiet spell in full, then one summary per window ("dropped 200 more connections in the
  last 10 s: not koikoi 200").

The policy, from the flooder's side. A connection *waits* until its hello has passed the guard
(``--guest``, the invite token), then it is *greeted* until admitted (the person reads the rules).

- **Idle, garbage, slowloris.** Waiting costs the flooder nothing, so waiting connections are
  worth nothing: when the door is full, a newcomer evicts a waiting one instead of being refused.
  Refusing newcomers (as the door once did) is what let 100 idle connections keep a guest out
  for good: the flooder only had to reconnect before the guest did. Now the newcomer always gets
  in, and is itself the last a later newcomer evicts.
- **Which one goes.** The waiting connection of the address holding the most slots, the oldest of
  them first. The oldest has had longest to greet, and a guest greets at once: its hello follows
  its connection within a round trip, and the host reads it within a couple of turns of its
  scheduler, during which it accepts only a couple more connections. So to push a guest out, a
  flood must get ``total`` minus the greeted connections through ``accept`` in that moment.
  Reconnecting fast buys only that race, which the host's own pace bounds; a guest that loses it
  is reset ("busy") and knocks again (:mod:`p2p_koikoi.net.knock`). A slowloris frame is no
  greeting: it waits, and goes first once it is the oldest (the frame deadline ends it anyway).
- **Per address.** An address at its cap evicts only its own oldest waiting connection. So one
  address holds at most ``per_address`` slots and, once there, churns only its own: it cannot
  evict everyone else's slots faster than their guests greet. Evicting the heaviest address first
  means a lone guest (one slot) goes only after every address holding more has lost its surplus.
- **Completing the greeting.** A greeted connection is never evicted: a person reading the rules
  must not be pushed out by a flood. On a host with a guard, greeting takes the token or the
  expected key, which a flooder has not; its hello is refused and it never holds a greeted slot.
  On an open host a hello is as cheap as silence, so greeted connections are capped at half the
  door (one address at ``per_address``): the other half always churns, and a flooder who greets
  holds at most half the door until the admission deadline. It could as well accept the rules and
  take the seat: an open host seats whoever accepts first, and the door cannot keep for one guest
  a seat anyone may take. The invite token (``--invite-only``) is the answer to that flooder.
"""

from __future__ import annotations

import ipaddress
import itertools
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "Conclusive",
    "Door",
    "DropKind",
    "DropLog",
    "Dropped",
    "Entered",
    "Refused",
    "Stage",
    "Ticket",
    "address_key",
    "fd_budget",
]

PER_ADDRESS = 4
TOTAL = 32
FDS_KEPT_BACK = 40  # files the host itself needs: listeners, the record, zeroconf, Python's own


class DropKind(Enum):
    """Why a connection was turned away; the value is the words in a summary line."""

    NOT_KOIKOI = "not koikoi"
    TOO_SLOW = "too slow"
    LEFT = "left early"
    BROKE_PROTOCOL = "broke the protocol"
    REFUSED = "refused"
    CROWDED_ADDRESS = "too many from one address"
    CROWDED = "too many waiting"
    EVICTED = "pushed out by newer connections"
    CROWDED_GREETED = "too many greeted at once"
    NO_FILES = "out of file descriptors"


class Refused(Exception):
    """The host turned a guest away (an unexpected key, no invite token, declined rules); keep listening."""


class Conclusive(Exception):
    """Admitting a guest settled the match instead: the very peer proved itself at fault with its own
    signature (a resuming guest whose signed head forks from our chain). Not a connection to drop: the
    host stops listening and the finding goes up to whoever listened, to end the match."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """A connection the host dropped before admitting it, and why."""

    peer: str
    reason: str
    kind: DropKind = DropKind.BROKE_PROTOCOL


def address_key(host: str) -> str:
    """What the per-address cap counts: the IPv4 address, or the IPv6 /64 it lies in."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def fd_budget(soft_limit: int, total: int = TOTAL) -> int:
    """How many connections may wait at once when the process may open ``soft_limit`` files: each
    waiting connection costs one descriptor, and accepting costs one more before we can refuse."""
    return max(2, min(total, (soft_limit - FDS_KEPT_BACK) // 2))


class Stage(Enum):
    """How far a connection at the door has come."""

    WAITING = "waiting"  # no hello past the guard yet: evictable
    GREETED = "greeted"  # its hello passed the guard: never evicted


@dataclass(eq=False, slots=True)
class Ticket:
    """One connection at the door: its address key and when it came (``number`` grows)."""

    key: str
    number: int
    stage: Stage = Stage.WAITING


@dataclass(frozen=True, slots=True)
class Entered:
    """A newcomer let in, and the waiting connection it pushed out, if the door was full."""

    ticket: Ticket
    evicted: Ticket | None = None


@dataclass
class Door:
    """Who waits at the door; the module docstring argues the policy."""

    per_address: int = PER_ADDRESS
    total: int = TOTAL
    _inside: dict[Ticket, None] = field(default_factory=dict)  # in order of arrival
    _count: Counter[str] = field(default_factory=Counter)
    _numbers: itertools.count[int] = field(default_factory=itertools.count)

    @classmethod
    def for_this_process(cls) -> Door:
        try:
            import resource

            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        except (ImportError, OSError, ValueError):
            soft = 256
        limit = soft if soft != -1 and soft < 1 << 20 else 1 << 20
        return cls(total=fd_budget(limit))

    def __contains__(self, ticket: Ticket) -> bool:
        return ticket in self._inside

    @property
    def waiting(self) -> int:
        """Every connection at the door, greeted or not."""
        return len(self._inside)

    @property
    def greeted(self) -> int:
        return sum(ticket.stage is Stage.GREETED for ticket in self._inside)

    @property
    def greeted_cap(self) -> int:
        """Greeted connections never leave before their deadline, so they get only half the door."""
        return max(1, self.total // 2)

    def enter(self, key: str) -> Entered | DropKind:
        """Let a new connection from ``key`` in, pushing out a waiting one when there is no room; or
        say why not (every connection it could push out has greeted)."""
        victim: Ticket | None = None
        if self._count[key] >= self.per_address:
            victim = self._oldest_waiting(key)
            if victim is None:
                return DropKind.CROWDED_ADDRESS
        elif self.waiting >= self.total:
            victim = self._victim()
            if victim is None:
                return DropKind.CROWDED
        if victim is not None:
            self.leave(victim)
        ticket = Ticket(key, next(self._numbers))
        self._inside[ticket] = None
        self._count[key] += 1
        return Entered(ticket, victim)

    def greet(self, ticket: Ticket) -> DropKind | None:
        """Mark ``ticket`` greeted (no longer evictable), or say why it may not be: it was pushed out
        meanwhile, or the greeted half of the door is full."""
        if ticket not in self._inside:
            return DropKind.EVICTED
        if ticket.stage is Stage.GREETED:
            return None
        if self.greeted >= self.greeted_cap:
            return DropKind.CROWDED_GREETED
        ticket.stage = Stage.GREETED
        return None

    def leave(self, ticket: Ticket) -> None:
        """Forget ``ticket``; a ticket already pushed out is no longer here, and that is fine."""
        if ticket not in self._inside:
            return
        del self._inside[ticket]
        self._count[ticket.key] -= 1
        if self._count[ticket.key] <= 0:
            del self._count[ticket.key]

    def _oldest_waiting(self, key: str) -> Ticket | None:
        return next((t for t in self._inside if t.key == key and t.stage is Stage.WAITING), None)

    def _victim(self) -> Ticket | None:
        """The oldest waiting connection of the address that holds the most slots."""
        waiting = [t for t in self._inside if t.stage is Stage.WAITING]
        if not waiting:
            return None
        return min(waiting, key=lambda t: (-self._count[t.key], t.number))


class DropLog:
    """One line for the first drop after a quiet window, then one summary line per ``window`` seconds."""

    def __init__(self, window: float = 10.0) -> None:
        self.window = window
        self._opened: float | None = None
        self._counts: Counter[DropKind] = Counter()

    def add(self, now: float, dropped: Dropped) -> list[str]:
        lines = self.tick(now)
        if self._opened is None:
            self._opened = now
            return [*lines, f"Dropped a connection from {dropped.peer}: {dropped.reason}. Still waiting."]
        self._counts[dropped.kind] += 1
        return lines

    def tick(self, now: float) -> list[str]:
        """The summary, once the window that is open has passed."""
        if self._opened is None or now < self._opened + self.window:
            return []
        lines = self.flush()
        self._opened = now if lines else None
        return lines

    def flush(self) -> list[str]:
        if not self._counts:
            self._opened = None
            return []
        total = sum(self._counts.values())
        parts = ", ".join(f"{kind.value} {count}" for kind, count in self._counts.most_common())
        self._counts.clear()
        plural = "connection" if total == 1 else "connections"
        return [f"Dropped {total} more {plural} in the last {self.window:g} s: {parts}. Still waiting."]
