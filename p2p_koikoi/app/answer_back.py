"""The guest's half of the reverse connection: when the host cannot be reached, listen and answer.

Every address in the invite failed, but the guest may be reachable where the host is not (its router
maps ports, it has IPv6, the host is the one behind carrier-grade NAT). So it listens as a host
would, on its port, on IPv4 and IPv6, asks its own router to forward that port, and prints one
line for its player to send back: the answer code (:mod:`p2p_koikoi.net.answer`), with every address
it knows. A router that maps the port afterwards gets a second code, its public address first, as
the host's invite does. The host pastes it and dials; the greeting decides, as ever, on the keys the
two codes named.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from p2p_koikoi.app.dial_back import first_of
from p2p_koikoi.app.punching import Punching, ask_stun, maps_per_destination
from p2p_koikoi.net import DEFAULT_PORT
from p2p_koikoi.net.answer import Answer
from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.door import Dropped
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.invite import MAX_ADDRESSES
from p2p_koikoi.net.portmap import Mapper
from p2p_koikoi.net.reverse import await_host, greet_the_host, punch_host
from p2p_koikoi.net.spray import open_many
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin, dialable
from p2p_koikoi.net.turn import Allocation, Relay, TurnError, allocate

__all__ = ["ANSWER_WAIT", "SEND_BACK", "AnswerBack", "Reached", "say_answer", "wait_for_host"]

ANSWER_WAIT = 600.0  # the host's player has ten minutes to paste the answer
RELAY_SETUP = 5.0  # seconds for the TURN server to allocate and permit
Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class AnswerBack:
    """Where the guest listens should the host be unreachable: ``port`` (another free one when it is
    taken), ``bind``, whether to ask the router (``upnp``), how long to wait for the host, and the STUN
    servers to ask for a hole punch (``stun``; empty: none)."""

    port: int = DEFAULT_PORT
    bind: str | None = None
    upnp: bool = True
    wait: float = ANSWER_WAIT
    stun: tuple[tuple[str, int], ...] = ()  # STUN servers for a hole punch (none: no punch)
    relay: Relay | None = None  # a TURN server to relay through when nothing direct works


@dataclass(frozen=True, slots=True)
class Reached:
    """The host that dialled back: its channel, its greeting, where it came from, and the port we listen on
    (to listen again there after a drop)."""

    channel: FramedChannel
    greeting: Greeting
    address: Address
    port: int
    relay: Allocation | None = None  # through the TURN relay, whose allocation then lasts as long as the match
    punch: tuple[int, Endpoint] | None = None  # through our punch: our STUN port and the host's candidate


SEND_BACK = "  Send this answer code to the host, to paste into its koikoi host screen:"


def say_answer(answer: Answer, say: Say) -> None:
    """The line that tells the guest's player what to do, then the code on a line of its own, so a
    terminal or the table wraps nothing but the code (the host's reader joins a wrapped code again)."""
    say(SEND_BACK)
    say(f"  {answer.format()}")


async def wait_for_host(
    back: AnswerBack,
    key: bytes,
    pin: Pin,
    ours: str,
    say: Say,
    nursery: trio.Nursery,
    routers: list[Mapper],
    host_punch: Endpoint | None = None,
) -> Reached:
    """Listen, print the answer code, and wait for the host with the pinned key to dial in. The router's
    mapping, if any, goes into ``routers`` (the caller removes it on the way out) and is renewed in
    ``nursery`` meanwhile. With the host's punch candidate (``host_punch``, from its invite) and a STUN
    server that answers us, the answer carries ours too, and a hole punch to the host runs alongside
    the listening: whichever brings the host first wins."""
    host = pin.fingerprint
    assert host is not None
    punching = await ask_stun(back.stun, back.bind) if host_punch is not None else Punching()
    spray = await maps_per_destination(punching, back.stun)  # our NAT defeats the punch: the host sprays
    relayed = await _allocate(back.relay, host_punch, say)
    listening: list[int] = []

    async def on_listening(addresses: list[Address]) -> None:
        from p2p_koikoi.app.netplay import reachable_hosts

        port = addresses[0].port
        listening.append(port)
        hosts = reachable_hosts(addresses, back.bind)[:MAX_ADDRESSES]
        relay = relayed.relayed if relayed is not None else None
        say_answer(Answer(tuple(hosts), port, ours, host, punching.candidate, relay, spray), say)
        say(f"  (listening at {', '.join(str(Address(h, port)) for h in hosts)}{_punching_words(punching, spray)})")
        minutes = f"{back.wait / 60:g} min" if back.wait >= 60 else f"{back.wait:g} s"
        say(f"Waiting up to {minutes} for the host to paste it and connect (Ctrl-C gives up).")
        if back.upnp and any(dialable(a.host) or a.host in ("0.0.0.0", "::") for a in addresses):
            routers.append(Mapper(port))
            nursery.start_soon(
                _map_port, routers[-1], hosts, port, ours, host, say, punching.candidate, relay, spray
            )

    async def by_listening() -> Reached:
        channel, greeting, address = await _listen(back, key, pin, on_listening)
        return Reached(channel, greeting, address, listening[-1])

    async def by_punch() -> Reached:
        assert host_punch is not None
        await trio.sleep(0)  # the listener prints the code first
        try:
            channel, greeting, address = await punch_host(
                key, pin, punching.local_port, host_punch, deadline=trio.current_time() + back.wait
            )
        except CouldNotJoin as exc:
            say(f"  {exc}; still waiting for the host to dial back.")
            await trio.sleep_forever()
            raise
        say(f"  The punch to the host at {address} got through.")
        port = listening[-1] if listening else back.port
        return Reached(channel, greeting, address, port, punch=(punching.local_port, host_punch))

    async def by_spray() -> Reached:
        assert host_punch is not None
        await trio.sleep(0)  # the listener prints the code first

        async def greet(stream: trio.SocketStream) -> tuple[FramedChannel, Greeting]:
            return await greet_the_host(stream, key, pin, f"the spray to {Address(*host_punch)}")

        try:
            channel, greeting = await open_many(host_punch, greet, deadline=trio.current_time() + back.wait)
        except OSError:
            await trio.sleep_forever()
            raise
        say(f"  The spray to the host at {Address(*host_punch)} got through.")
        port = listening[-1] if listening else back.port
        return Reached(channel, greeting, Address(*host_punch), port)

    async def by_relay() -> Reached:
        assert relayed is not None
        while True:  # a stranger the permission let in (someone at the host's address) is passed over
            try:
                stream, peer = await relayed.accept()
                channel, greeting = await greet_the_host(stream, key, pin, f"the relay from {Address(*peer)}")
            except (CouldNotJoin, TurnError) as exc:
                say(f"  {exc}; still waiting for the host.")
                if isinstance(exc, TurnError):
                    await trio.sleep_forever()
                continue
            say(f"  The host came through the relay at {Address(*relayed.relayed)}.")
            port = listening[-1] if listening else back.port
            return Reached(channel, greeting, Address(*peer), port, relay=relayed)

    async def let_go(late: Reached) -> None:
        await trio.aclose_forcefully(late.channel.stream)

    tasks = [by_listening]
    if punching.candidate is not None and host_punch is not None:
        tasks.append(by_spray if spray else by_punch)
    if relayed is not None:
        tasks.append(by_relay)
    relayed_won = False
    try:
        with trio.move_on_after(back.wait):
            reached = await first_of(tasks, let_go)
            relayed_won = reached.relay is not None
            return reached
    finally:
        await punching.aclose()
        if relayed is not None:
            if relayed_won:
                nursery.start_soon(_hold, relayed)  # the match runs through it: kept, refreshed, closed at the end
            else:
                await relayed.aclose()
    raise CouldNotJoin(f"the host did not dial back within {back.wait:g} s")


async def _allocate(relay: Relay | None, host_punch: Endpoint | None, say: Say) -> Allocation | None:
    """A relayed address on the player's TURN server, the host's public address let in; None without a
    relay, without the host's public address (the permission needs it: the host's invite had no punch
    candidate), or when the server fails (said in one line)."""
    if relay is None:
        return None
    if host_punch is None:
        say("  Not relaying: the invite holds no public address of the host to let through the relay.")
        return None
    try:
        with trio.fail_after(RELAY_SETUP):
            allocation = await allocate(relay.server, relay.credentials)
            await allocation.permit(host_punch[0])
    except (TurnError, trio.TooSlowError) as exc:
        say(f"  Not relaying: {exc or f'the TURN server did not answer within {RELAY_SETUP:g} s'}.")
        return None
    return allocation


async def _hold(allocation: Allocation) -> None:
    """Keep a relayed match's allocation alive until the match is over (this task is cancelled), then
    close it; a refresh the server refuses ends the holding, and the match goes on as long as it can."""
    try:
        with contextlib.suppress(TurnError, OSError, trio.BrokenResourceError):
            await allocation.keep()
        await trio.sleep_forever()  # a refresh refused: the allocation lapses in its own time, not now
    finally:
        with trio.CancelScope(shield=True):
            await allocation.aclose()


def _punching_words(punching: Punching, spray: bool) -> str:
    if punching.candidate is not None and spray:
        return f"; our router maps each destination to a new port, so the host sprays to {punching.candidate[0]}"
    if punching.candidate is not None:
        return f"; punching from {Address(*punching.candidate)}"
    return ""


async def _listen(
    back: AnswerBack, key: bytes, pin: Pin, on_listening: Callable[[list[Address]], Awaitable[None]]
) -> tuple[FramedChannel, Greeting, Address]:
    """:func:`await_host` on our port, or on any free one when another program holds it."""

    async def on_dropped(dropped: Dropped) -> None:
        pass  # strangers at the guest's port: the host is the only one it waits for

    port = back.port
    while True:
        try:
            return await await_host(
                key, pin, port=port, bind=back.bind, on_listening=on_listening, on_dropped=on_dropped
            )
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or port == 0:
                raise CouldNotJoin(f"cannot listen for the host on port {port}: {exc.strerror or exc}") from None
            port = 0  # another koikoi holds ours: any free port will do, the code says which


async def _map_port(
    mapper: Mapper,
    hosts: list[str],
    port: int,
    ours: str,
    host: str,
    say: Say,
    punch: Endpoint | None,
    relay: Endpoint | None,
    spray: bool = False,
) -> None:
    """Ask the router for the port while the guest already waits; a router that opened a new address
    gets a new answer code, that address first (the one to send from now on)."""
    outcome = await mapper.open()
    say(f"  {outcome.line}")
    opened = [m.external for m in outcome.held if m.external]
    if any(address not in hosts for address in opened):
        mapped = [*opened, *(h for h in hosts if h not in opened)][:MAX_ADDRESSES]
        say("  The router forwards the port now: send this answer code instead (it holds the public address):")
        say_answer(Answer(tuple(mapped), port, ours, host, punch, relay, spray), say)
    await mapper.keep()
