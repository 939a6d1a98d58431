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
from dataclasses import dataclass, field

import trio

from p2p_koikoi.app.dial_back import first_of
from p2p_koikoi.app.host_invite import map_and_offer_again
from p2p_koikoi.app.punching import Punching, ask_stun, maps_per_destination
from p2p_koikoi.app.speech import Say
from p2p_koikoi.app.spray_again import Spray
from p2p_koikoi.net import DEFAULT_PORT
from p2p_koikoi.net.answer import Answer
from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.door import Dropped
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.invite import MAX_ADDRESSES
from p2p_koikoi.net.portmap import Mapper
from p2p_koikoi.net.reverse import await_host, greet_the_host, punch_host
from p2p_koikoi.net.spray import open_many, probe_many
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin, dialable
from p2p_koikoi.net.turn import Allocation, Relay, TurnError, allocate

__all__ = ["ANSWER_WAIT", "SEND_BACK", "AnswerBack", "Reached", "say_answer", "wait_for_host"]

ANSWER_WAIT = 600.0  # the host's player has ten minutes to paste the answer
RELAY_SETUP = 5.0  # seconds for the TURN server to allocate and permit
GUESS_FOR = 120.0  # our guesses at a host whose NAT maps anew, while its player may paste: at most 30,000 SYNs


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
    spray: Spray | None = None  # through a birthday spray: how to spray again after a drop


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
    host_anew: bool = False,
) -> Reached:
    """Listen, print the answer code, and wait for the host with the pinned key to dial in. The router's
    mapping, if any, goes into ``routers`` (the caller removes it on the way out) and is renewed in
    ``nursery`` meanwhile. With the host's punch candidate (``host_punch``, from its invite) and a STUN
    server that answers us, the answer carries ours too, and a hole punch to the host runs alongside
    the listening: whichever brings the host first wins. Where exactly one of the two NATs maps each
    destination anew (``host_anew``: the invite says the host's does), the birthday spray takes the
    punch's place: our connections held open for the host's guesses, or our guesses at the host's ports."""
    assert pin.fingerprint is not None
    punching = await ask_stun(back.stun, back.bind) if host_punch is not None else Punching()
    spray = await maps_per_destination(punching, back.stun)  # our NAT defeats the punch: the host sprays
    relayed = await _allocate(back.relay, host_punch, say)
    waiting = _HostWait(back, key, pin, ours, say, nursery, routers, host_punch, punching, spray, relayed, host_anew)
    return await waiting.race()


@dataclass
class _HostWait:
    """The guest's wait for the host, on every way it may come at once: dialling our port (the answer code
    printed once we listen), our punch or spray to the host's candidate, the host's dial to our relayed
    address. ``listening`` holds the port we listen on, to listen again there after a drop."""

    back: AnswerBack
    key: bytes
    pin: Pin
    ours: str
    say: Say
    nursery: trio.Nursery
    routers: list[Mapper]
    host_punch: Endpoint | None
    punching: Punching
    spray: bool  # our NAT maps each destination anew: the host sprays, and so do we
    relayed: Allocation | None
    host_anew: bool = False  # the host's NAT maps each destination anew: we guess at its ports (ours does not)
    listening: list[int] = field(default_factory=list)
    greeting_one: trio.Lock = field(default_factory=trio.Lock)  # a spray's connections greet one at a time

    async def race(self) -> Reached:
        """The first way to bring the host wins, within the player's wait; the punch's STUN connection is
        closed either way, and the relay kept (for as long as the match) only when it won."""
        relayed_won = False
        try:
            with trio.move_on_after(self.back.wait):
                reached = await first_of(self._ways(), _let_go)
                relayed_won = reached.relay is not None
                return reached
        finally:
            await self.punching.aclose()
            if self.relayed is not None:
                if relayed_won:  # the match runs through it: kept, refreshed, closed at the end
                    self.nursery.start_soon(_hold, self.relayed)
                else:
                    await self.relayed.aclose()
        raise CouldNotJoin(f"the host did not dial back within {self.back.wait:g} s")

    def _ways(self) -> list[Callable[[], Awaitable[Reached]]]:
        ways: list[Callable[[], Awaitable[Reached]]] = [self._by_listening]
        if self.punching.candidate is not None and self.host_punch is not None and not (self.spray and self.host_anew):
            ways.append(self._by_spray if self.spray else self._by_guessing if self.host_anew else self._by_punch)
        if self.relayed is not None:
            ways.append(self._by_relay)
        return ways

    @property
    def _host(self) -> str:
        """The host's fingerprint, which :func:`wait_for_host` made sure the invite named."""
        assert self.pin.fingerprint is not None
        return self.pin.fingerprint

    def _port(self) -> int:
        """The port we listen on (ours as asked, before the listener has said)."""
        return self.listening[-1] if self.listening else self.back.port

    async def _on_listening(self, addresses: list[Address]) -> None:
        """Print the answer code and how long we wait, and ask the router for the port meanwhile."""
        from p2p_koikoi.app.netplay import reachable_hosts

        back, say = self.back, self.say
        port = addresses[0].port
        self.listening.append(port)
        hosts = reachable_hosts(addresses, back.bind)[:MAX_ADDRESSES]
        relay = self.relayed.relayed if self.relayed is not None else None
        candidate = self.punching.candidate
        say_answer(Answer(tuple(hosts), port, self.ours, self._host, candidate, relay, self.spray), say)
        words = _punching_words(self.punching, self.spray, self.host_anew)
        say(f"  (listening at {', '.join(str(Address(h, port)) for h in hosts)}{words})")
        minutes = f"{back.wait / 60:g} min" if back.wait >= 60 else f"{back.wait:g} s"
        say(f"Waiting up to {minutes} for the host to paste it and connect (Ctrl-C gives up).")
        if back.upnp and any(dialable(a.host) or a.host in ("0.0.0.0", "::") for a in addresses):
            self.routers.append(Mapper(port))
            self.nursery.start_soon(
                _map_port, self.routers[-1], hosts, port, self.ours, self._host, say, candidate, relay, self.spray
            )

    async def _by_listening(self) -> Reached:
        channel, greeting, address = await _listen(self.back, self.key, self.pin, self._on_listening)
        return Reached(channel, greeting, address, self.listening[-1])

    async def _by_punch(self) -> Reached:
        """A hole punch to the host's candidate; one that fails is said, and the other ways go on."""
        assert self.host_punch is not None
        await trio.sleep(0)  # the listener prints the code first
        local_port = self.punching.local_port
        try:
            deadline = trio.current_time() + self.back.wait
            channel, greeting, address = await punch_host(
                self.key, self.pin, local_port, self.host_punch, deadline=deadline
            )
        except CouldNotJoin as exc:
            self.say(f"  {exc}; still waiting for the host to dial back.")
            await trio.sleep_forever()
            raise
        self.say(f"  The punch to the host at {address} got through.")
        return Reached(channel, greeting, address, self._port(), punch=(local_port, self.host_punch))

    async def _by_spray(self) -> Reached:
        """The birthday spray to the host's candidate (our NAT maps each destination anew)."""
        assert self.host_punch is not None
        await trio.sleep(0)  # the listener prints the code first
        try:
            deadline = trio.current_time() + self.back.wait
            channel, greeting = await open_many(self.host_punch, self._greet_sprayed, deadline=deadline)
        except OSError:
            await trio.sleep_forever()
            raise
        self.say(f"  The spray to the host at {Address(*self.host_punch)} got through.")
        return Reached(channel, greeting, Address(*self.host_punch), self._port(), spray=Spray(self.host_punch))

    async def _by_guessing(self) -> Reached:
        """Rounds of guesses at the host's ports from our punch port (the host's NAT maps each destination
        anew, ours keeps one port), for at most :data:`GUESS_FOR` s: the host holds its connections open
        for them once its player pastes our answer, which may come at any time meanwhile."""
        assert self.host_punch is not None
        await trio.sleep(0)  # the listener prints the code first
        host = self.host_punch[0]
        deadline = trio.current_time() + min(GUESS_FOR, self.back.wait)
        while trio.current_time() < deadline:
            try:
                channel, greeting = await probe_many(
                    self.punching.local_port, host, self._greet_sprayed, deadline=deadline
                )
            except OSError:
                continue
            self.say(f"  A guess at the host's ports at {host} got through.")
            again = Spray(self.host_punch, guess_from=self.punching.local_port)
            return Reached(channel, greeting, Address(*self.host_punch), self._port(), spray=again)
        self.say(f"  No guess at the host's ports got through in {GUESS_FOR:g} s; still waiting for the host.")
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def _greet_sprayed(self, stream: trio.SocketStream) -> tuple[FramedChannel, Greeting]:
        """Greet the host over one connection a spray made. A spray can make several at once; we greet
        over one at a time, so the host hears ``hello`` on one only and both keep the same one."""
        assert self.host_punch is not None
        async with self.greeting_one:
            return await greet_the_host(stream, self.key, self.pin, f"the spray to {Address(*self.host_punch)}")

    async def _by_relay(self) -> Reached:
        """The host's dial to our relayed address; a relay that fails is said, and the other ways go on."""
        relayed = self.relayed
        assert relayed is not None
        while True:  # a stranger the permission let in (someone at the host's address) is passed over
            try:
                stream, peer = await relayed.accept()
                channel, greeting = await greet_the_host(stream, self.key, self.pin, f"the relay from {Address(*peer)}")
            except (CouldNotJoin, TurnError) as exc:
                self.say(f"  {exc}; still waiting for the host.")
                if isinstance(exc, TurnError):
                    await trio.sleep_forever()
                continue
            self.say(f"  The host came through the relay at {Address(*relayed.relayed)}.")
            return Reached(channel, greeting, Address(*peer), self._port(), relay=relayed)


async def _let_go(late: Reached) -> None:
    """The host reached us a moment after another way won the race: that connection is closed."""
    await trio.aclose_forcefully(late.channel.stream)


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


def _punching_words(punching: Punching, spray: bool, host_anew: bool) -> str:
    if punching.candidate is not None and spray and host_anew:
        return "; both routers map each destination to a new port, so no direct way but a relay"
    if punching.candidate is not None and spray:
        return f"; our router maps each destination to a new port, so the host sprays to {punching.candidate[0]}"
    if punching.candidate is not None and host_anew:
        return f"; the host's router maps each destination anew, so we guess at its ports from {punching.candidate[0]}"
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

    def offer(mapped: list[str]) -> None:
        say_answer(Answer(tuple(mapped), port, ours, host, punch, relay, spray), say)

    await map_and_offer_again(mapper, hosts, say, "answer code", offer)
