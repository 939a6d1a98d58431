"""Why a dial failed, in words a person can act on, and trying several addresses at once.

A guest holding an invite code has several addresses for one host (external, IPv6, LAN); it tries
them with happy eyeballs (RFC 8305: alternate families, start the next attempt after 250 ms or as
soon as one fails, first success wins). Each attempt connects *and* greets, so an address that
answers with the wrong key or with something that is not koikoi just loses the race.

When every attempt fails, :func:`explain` turns the failures into one line: refused, unreachable
and timed out each in their own words with the likely cause, the worst one first.
"""

from __future__ import annotations

import errno
import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

import trio

__all__ = ["AllFailed", "Failed", "Failure", "Miss", "classify_os_error", "explain", "happy_eyeballs", "interleave"]

T = TypeVar("T")
STAGGER = 0.25


class Miss(Enum):
    """How one attempt failed, most telling first (the order :func:`explain` ranks them in)."""

    WRONG_KEY = "answered with another key"
    NOT_KOIKOI = "is not a koikoi host"
    CLOSED = "closed the connection"
    BUSY = "was busy (reset the connection before greeting)"
    SILENT = "connected, but said nothing"
    REFUSED = "refused"
    TIMED_OUT = "did not answer"
    UNREACHABLE = "unreachable"
    OTHER = "failed"


@dataclass(frozen=True, slots=True)
class Failure:
    target: str  # as printed: 203.0.113.7:7447 or [2001:db8::1]:7447
    miss: Miss
    detail: str = ""


class Failed(Exception):
    """One attempt's failure, raised by an attempt for :func:`happy_eyeballs` to collect."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.detail or failure.miss.value)
        self.failure = failure


class AllFailed(Exception):
    def __init__(self, failures: list[Failure]) -> None:
        super().__init__(f"{len(failures)} attempts failed")
        self.failures = failures


_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.ENETDOWN}


def classify_os_error(exc: OSError) -> Miss:
    if exc.errno == errno.ECONNREFUSED:
        return Miss.REFUSED
    if exc.errno in _UNREACHABLE:
        return Miss.UNREACHABLE
    if exc.errno == errno.ETIMEDOUT:
        return Miss.TIMED_OUT
    return Miss.OTHER


def _cause(failure: Failure, port: int, timeout: float, invited: bool) -> str:
    where = failure.target
    match failure.miss:
        case Miss.WRONG_KEY:
            return (
                f"WARNING: {where} answered with a different key than the invite code names ({failure.detail}); "
                "not joined. Someone else is at that address, or the code is stale: ask the host for a fresh one"
            )
        case Miss.NOT_KOIKOI:
            return f"{where} is not a koikoi host: it answered with something else (is the port right?)"
        case Miss.CLOSED:
            return (
                f"{where} closed the connection before greeting: the host may be busy, or admit only the guest "
                "it expects or holders of its invite code (ask for the kk1: line)"
            )
        case Miss.BUSY:
            return (
                f"{where} was busy: it reset the connection before greeting, as a host does whose door is "
                "full of other connections (try again in a minute)"
            )
        case Miss.SILENT:
            return (
                f"connected to {where}, but the host said nothing for {failure.detail or f'{timeout:g}'} s: a koikoi "
                f"host greets at once, so something else holds port {port} there, or the host is stuck "
                "(is the port right? is koikoi host running there?)"
            )
        case Miss.REFUSED:
            return (
                f"{where} refused the connection: nothing listens on port {port} there "
                "(is koikoi host running? is the port right?)"
            )
        case Miss.TIMED_OUT:
            ask = (
                "have the host forward the port"
                if invited
                else "ask for the kk1: invite code, or have the host forward the port"
            )
            return (
                f"{where} did not answer within {timeout:g} s (no reply to the connection at all): the host is "
                f"probably behind a router or firewall that does not pass TCP {port} ({ask})"
            )
        case Miss.UNREACHABLE:
            return f"no route to {where}: check the address, and that this machine's network is up"
    return f"{where} answered, but not as this koikoi can play with: {failure.detail}"


def explain(failures: Sequence[Failure], port: int, timeout: float, *, invited: bool = False) -> str:
    """One line for a join that failed everywhere: the most telling failure's cause, then the others.
    ``invited``: the addresses came from an invite code (which is then not the advice to give)."""
    if not failures:
        return "no address to try"
    ranked = sorted(failures, key=lambda f: list(Miss).index(f.miss))
    line = _cause(ranked[0], port, timeout, invited)
    others = [f"{f.target} {f.miss.value}" for f in ranked[1:]]
    return line + (f" (also tried: {'; '.join(others)})" if others else "")


def interleave(hosts: Sequence[str]) -> list[str]:
    """RFC 8305 section 4: alternate the address families, IPv6 first, keeping each family's order."""
    six = [h for h in hosts if _version(h) == 6]
    other = [h for h in hosts if _version(h) != 6]
    out: list[str] = []
    for index in range(max(len(six), len(other))):
        out += [h[index] for h in (six, other) if index < len(h)]
    return out


def _version(host: str) -> int:
    try:
        return ipaddress.ip_address(host.split("%")[0]).version
    except ValueError:
        return 0


async def happy_eyeballs(
    targets: Sequence[str],
    attempt: Callable[[str], Awaitable[T]],
    timeout: float,
    release: Callable[[T], Awaitable[None]] | None = None,
) -> T:
    """Run ``attempt`` on each target, staggered, until one returns, and give its result; or raise
    :class:`AllFailed` with every failure. An attempt signals failure by raising :class:`Failed`;
    attempts still running at ``timeout`` count as timed out. A second success that loses the race
    goes to ``release``."""
    won: list[T] = []
    failures: list[Failure] = []
    started: list[str] = []
    finished: set[str] = set()
    with trio.move_on_after(timeout):
        async with trio.open_nursery() as nursery:
            for target in targets:
                failed = trio.Event()

                async def one(target: str = target, failed: trio.Event = failed) -> None:
                    try:
                        result = await attempt(target)
                    except Failed as exc:
                        finished.add(target)
                        failures.append(exc.failure)
                        failed.set()
                        return
                    finished.add(target)
                    if won:
                        if release is not None:
                            await release(result)
                        return
                    won.append(result)
                    nursery.cancel_scope.cancel()

                started.append(target)
                nursery.start_soon(one)
                with trio.move_on_after(STAGGER):
                    await failed.wait()
    if not won:
        failures += [Failure(target, Miss.TIMED_OUT) for target in started if target not in finished]
        raise AllFailed(failures)
    return won[0]
