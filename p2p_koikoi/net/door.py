"""The host's door: who may wait to be admitted, and what a person is told about those turned away.

Pure bookkeeping, no I/O, so floods can be reasoned about (and tested) without sockets:

- :class:`Door` caps the connections that have not been admitted yet, a few per address (an IPv6
  /64 counts as one address: one home gets a whole /64) and a few dozen in all, fewer when the
  process may open few files, so a flood can neither exhaust file descriptors nor crowd out a
  real guest from another address.
- :class:`DropLog` turns a stream of dropped connections into a handful of lines: the first drop
  after a quiet spell in full, then one summary per window ("dropped 200 more connections in the
  last 10 s: not koikoi 200").
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["Conclusive", "Door", "DropKind", "DropLog", "Dropped", "Refused", "address_key", "fd_budget"]

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


@dataclass
class Door:
    per_address: int = PER_ADDRESS
    total: int = TOTAL
    _waiting: Counter[str] = field(default_factory=Counter)

    @classmethod
    def for_this_process(cls) -> Door:
        try:
            import resource

            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        except (ImportError, OSError, ValueError):
            soft = 256
        limit = soft if soft != -1 and soft < 1 << 20 else 1 << 20
        return cls(total=fd_budget(limit))

    @property
    def waiting(self) -> int:
        return sum(self._waiting.values())

    def enter(self, key: str) -> DropKind | None:
        """Let a new connection from ``key`` wait for admission, or say why it may not."""
        if self.waiting >= self.total:
            return DropKind.CROWDED
        if self._waiting[key] >= self.per_address:
            return DropKind.CROWDED_ADDRESS
        self._waiting[key] += 1
        return None

    def leave(self, key: str) -> None:
        self._waiting[key] -= 1
        if self._waiting[key] <= 0:
            del self._waiting[key]


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
