"""Host and join a match over TCP: the use cases behind ``koikoi host`` and ``koikoi join``.

Each builds a :class:`NetMatchResult` (what happened, where the record is) and
leaves printing to the command; messages along the way go to a ``say``
callback, so a bot run can be quiet and a person sees what is going on.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import NamedTuple

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.answer_back import AnswerBack, wait_for_host
from p2p_koikoi.app.continuing import Reconnect, play_on, settle_fork
from p2p_koikoi.app.continuing import started as began
from p2p_koikoi.app.dial_back import PASTE_HERE, ReadLine, first_of, take_answers
from p2p_koikoi.app.host_invite import map_port_then_say, say_invite
from p2p_koikoi.app.host_key import host_key_accepted
from p2p_koikoi.app.identity import load_identity, replay_dir
from p2p_koikoi.app.own_name import load_own_name
from p2p_koikoi.app.punching import Punching, ask_stun, maps_per_destination
from p2p_koikoi.app.series import Again, ask_both, greet, play_series, series_of, take_same_rules
from p2p_koikoi.app.speech import Confirm, Say
from p2p_koikoi.app.spray_again import Spray
from p2p_koikoi.app.unfinished import Restored, Unfinished, put_back, tell_so_far, unfinished_with
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.answer import Answer
from p2p_koikoi.net.code_text import Endpoint
from p2p_koikoi.net.door import DropLog
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel, TimedOut
from p2p_koikoi.net.handshake import Greeting, Guard
from p2p_koikoi.net.invite import MAX_ADDRESSES, Invite, new_token
from p2p_koikoi.net.knock import dial_patiently
from p2p_koikoi.net.lan import Announcement, LanGame, announce, browse
from p2p_koikoi.net.portmap import Mapper
from p2p_koikoi.net.rematch import Series, Verdict
from p2p_koikoi.net.resume import Fork, NoSuchMatch, resume_as_guest, resume_as_host
from p2p_koikoi.net.runner import Held, MatchReport, Player
from p2p_koikoi.net.tcp import (
    Address,
    CouldNotJoin,
    Dropped,
    Pin,
    Refused,
    dialable,
    listen,
    local_addresses,
    parse_address,
)
from p2p_koikoi.net.timing import DEFAULT_TURN_LIMIT
from p2p_koikoi.record.format import secret_path
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.writer import RecordWriter, record_name
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession, SessionEnd, Waiting
from p2p_koikoi.wire import RemoteProtocolError, SignedEntry, public_bytes
from p2p_koikoi.wire.frames import Resume
from p2p_koikoi.wire.reasons import ReasonId

__all__ = [
    "HostOptions",
    "JoinOptions",
    "NetMatchResult",
    "admit_guest",
    "describe_failure",
    "find_lan_games",
    "host_match",
    "join_match",
    "rematches",
]

NO_MATCH_OFFERED = (
    "the host closed the connection without offering a match. A host that holds an unfinished match with"
    " you offers no other: take it up with koikoi resume on your record of it, or have the host delete"
    " its record's .secret to start afresh"
)
ACCEPT_DEADLINE = 300.0  # a person reads the rules before accepting


class StrayResume(Refused):
    """A guest answered our new match with ``resume``: it holds an unfinished match we do not."""


@dataclass
class NetMatchResult:
    report: MatchReport | None
    record: Path | None
    our_fingerprint: str
    peer_fingerprint: str = ""
    notes: list[str] = field(default_factory=list)
    earlier: list[NetMatchResult] = field(default_factory=list)  # the matches before this one on its connection

    @property
    def ok(self) -> bool:
        return self.report is not None and self.report.ended_by is SessionEnd.MATCH_OVER


@dataclass(frozen=True)
class HostOptions:
    rules: RuleSet
    port: int
    bind: str | None = None
    turn_limit: int = DEFAULT_TURN_LIMIT
    replay_dir: Path | None = None
    lan: bool = False
    guest: str | None = None  # admit only the guest whose key has this fingerprint
    invite_only: bool = False  # admit only guests that prove the invite code's token
    drop_window: float = 10.0  # seconds per summary line of dropped connections
    upnp: bool = True  # ask the router to forward the port (UPnP IGD, NAT-PMP)
    stun: tuple[tuple[str, int], ...] = ()  # STUN servers to ask for our punch candidate (none: no punching)


@dataclass(frozen=True)
class JoinOptions:
    """Where the host is (``addresses``, tried at once) and what we know of its key beforehand:
    ``pin`` from an invite code (anything else is refused), or ``announced`` on the LAN (a mismatch
    gets a loud warning, as an announcement proves nothing). ``back``: how to listen for the host when
    none of an invite's addresses answers (the reverse connection), or None not to."""

    addresses: tuple[Address, ...]
    replay_dir: Path | None = None
    timeout: float = 15.0
    pin: Pin = field(default_factory=Pin)
    announced: str | None = None
    back: AnswerBack | None = None
    punch: Endpoint | None = None  # the host's punch candidate, from its invite
    host_maps_anew: bool = False  # the invite says the host's NAT maps each destination anew: we guess at it

    @classmethod
    def from_invite(
        cls, invite: Invite, replay_dir: Path | None = None, timeout: float = 15.0, back: AnswerBack | None = None
    ) -> JoinOptions:
        addresses = tuple(Address(host, invite.port) for host in invite.addresses)
        pin = Pin(invite.fingerprint, invite.token)
        return cls(addresses, replay_dir, timeout, pin, back=back, punch=invite.punch, host_maps_anew=invite.maps_anew)


async def _play(
    channel: FramedChannel,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    directory: Path,
    plan: Reconnect,
    say: Say,
    held: Held | None = None,
) -> tuple[MatchReport, Path | None]:
    """Play to the end, reconnecting after drops (a match played out hands its connection to ``held``).
    The record keeps the address to resume with: the one the guest dialled, or ``:PORT`` the host
    listened on. A match that never began (the guest declined the rules, or the run stopped before its
    accept) leaves no record: the host keeps none of it either, and a file that is no match, nothing to
    resume, and that no command of ours removes is litter."""
    started = time.time()

    def name() -> str:
        rules_name = session.rules.preset if session.rules is not None else "unknown"
        return record_name(started, session.keys, rules_name, session.seat)

    resume_address = str(plan.address) if plan.address is not None else f":{plan.port}"
    record = RecordWriter(
        directory,
        name,
        seat=session.seat,
        peer_address=resume_address,
        software=SOFTWARE,
        secret=session.master_secret,
    )
    try:
        report = await play_on(channel, session, identity, player, record, plan, say, held)
    finally:
        record.close()
        if not began(session) and record.path is not None:
            record.path.unlink(missing_ok=True)
    return report, record.path if began(session) else None


async def _play_again(
    channel: FramedChannel,
    unfinished: Unfinished,
    identity: Ed25519PrivateKey,
    player: Player,
    plan: Reconnect,
    say: Say,
    held: Held | None = None,
) -> MatchReport:
    """Play on an unfinished match taken up again on this connection, appending to its record (its
    connection handed to ``held`` when it is played out, for a rematch as after any match)."""
    record = unfinished.reopen()
    tell_so_far(player, unfinished.session)
    try:
        return await play_on(channel, unfinished.session, identity, player, record, plan, say, held)
    finally:
        record.close()


Begin = Callable[[FramedChannel, Greeting, RuleSet], Awaitable[MatchSession]]
_NOT_BEGUN = (ConnectionLost, RemoteProtocolError, Refused, TimedOut, OSError, trio.BrokenResourceError)


@dataclass
class _Rematches:
    """Another match on the connection each time both players want one (SPEC.md section 9): each is played
    as the first was, into a record of its own. ``begin`` is the side's half of the next match's start
    (the host offers its rules, the guest takes the same rules at once)."""

    seat: int
    identity: Ed25519PrivateKey
    player_for: Callable[[int], Player]
    directory: Path
    plan: Reconnect
    say: Say
    again: Again
    begin: Begin

    async def play(
        self, held: Held, session: MatchSession, result: NetMatchResult, greeted: tuple[bytes, bytes] | None = None
    ) -> NetMatchResult:
        """From a match played out (its connection in ``held``) on, until a match is not played out or the
        players part; the last match's result, holding the ones before it. ``greeted``: the nonces this
        connection was opened with, when its first match was one taken up again (not the match's own)."""

        async def played(channel: FramedChannel, session: MatchSession, last: NetMatchResult) -> NetMatchResult:
            return await self.played(channel, session, held, last)

        series = series_of(session, greeted)
        return await play_series(held, session, result, series, self.next_match, played, self.say)

    async def next_match(
        self, channel: FramedChannel, session: MatchSession, series: Series, record: Path | None
    ) -> MatchSession | Verdict | str:
        """The next match's session, begun; else how the series ended (a verdict, or a fault in words)."""
        verdict = await ask_both(channel, session.match_id, self.again, record)
        if verdict is not Verdict.AGREED:
            return verdict
        greeting = await greet(channel, self.seat, series)
        if isinstance(greeting, str):
            return greeting
        rules = session.rules
        assert rules is not None  # a match played out had rules
        try:
            return await self.begin(channel, greeting, rules)
        except _NOT_BEGUN as exc:
            return f"the next match did not begin: {describe_failure(exc)}"

    async def played(
        self, channel: FramedChannel, session: MatchSession, held: Held, last: NetMatchResult
    ) -> NetMatchResult:
        """One more match of the series, into a new record; a start that fails is told and ends the series
        on the matches already played."""
        result = NetMatchResult(None, None, last.our_fingerprint, last.peer_fingerprint, earlier=[*last.earlier, last])
        player = self.player_for(self.seat)
        try:
            result.report, result.record = await _play(
                channel, session, self.identity, player, self.directory, self.plan, self.say, held
            )
        except ConnectionLost as exc:
            last.notes.append(f"No further match: {exc}.")
            return last
        return result


def _settle(fork: Fork, unfinished: Unfinished) -> MatchReport:
    """The unfinished match ends on the fork its peer showed while resuming; its record gets the note."""
    record = unfinished.reopen()
    try:
        return settle_fork(fork, unfinished.session, record)
    finally:
        record.close()


async def rejoin_guest(
    channel: FramedChannel, unfinished: Unfinished, identity: Ed25519PrivateKey, peer: str, say: Say
) -> None:
    """The host's half of a rejoin: the guest greeted afresh, but we hold an unfinished match with its
    key, so no new match is offered; the guest must ``resume`` this one on this connection. A guest
    that does not is dropped (the listener goes on waiting): never a second match beside the first.

    A guest whose signed resume proof forks from our copy ends the match instead, as its violation: the
    record is settled (:func:`settle_fork`: the note with its proof, the secret gone) and the
    :class:`Fork` raised on, which stops the listener (it is :class:`~p2p_koikoi.net.door.Conclusive`)."""
    path = unfinished.path
    say(f"Guest {peer} has an unfinished match with you ({path.name}): taking it up again.")
    try:
        await resume_as_host(channel, unfinished.session, identity)
    except Fork as fork:
        _settle(fork, unfinished)
        say(f"Guest {peer} resumed from a copy of the match that forks from ours: the match is over.")
        raise
    except (ConnectionLost, RemoteProtocolError) as exc:
        say(
            f"Guest {peer} did not resume it ({exc}): it can with koikoi resume on its record; "
            f"to start afresh instead, delete {secret_path(path)}."
        )
        raise Refused(f"it did not resume its unfinished match ({exc})") from None


async def admit_guest(
    channel: FramedChannel,
    greeting: Greeting,
    identity: Ed25519PrivateKey,
    rules: RuleSet,
    turn_limit: int = DEFAULT_TURN_LIMIT,
    name: str | None = None,
) -> MatchSession:
    """The rest of the host's handshake: our ``match`` entry out (with the ``name`` we go by), the guest's
    valid ``accept`` in.

    Trust on first use binds a key to the name the *guest* dialled; a guest's own address says
    little (ports change, many guests share one address), so the host only shows its fingerprint.
    """
    session = MatchSession(
        0, identity, greeting.peer_key, greeting.nonces, rules=rules, turn_limit=turn_limit, name=name
    )
    for signed in session.take_outgoing():
        await channel.send(signed)
    try:
        with trio.fail_after(ACCEPT_DEADLINE):  # absolute: pings are answered but do not extend it
            await _await_accept(channel, session)
    except trio.TooSlowError:
        raise TimedOut(f"the guest did not accept the rules within {ACCEPT_DEADLINE:g} s") from None
    if session.waiting is Waiting.DONE:
        raise Refused("the guest declined the rules")
    return session


async def _await_accept(channel: FramedChannel, session: MatchSession) -> None:
    while True:
        frame = await channel.receive()
        if frame is None:
            raise ConnectionLost("the guest left before accepting the rules")
        if await channel.keepalive(frame):
            continue
        if isinstance(frame, SignedEntry):
            session.receive(frame)
            return
        if isinstance(frame, Resume):
            raise StrayResume("it resumes a match we do not hold unfinished (it was told how to start afresh)")
        raise RemoteProtocolError(ReasonId.BAD_FRAME, "a second hello")


def reachable_hosts(listening: list[Address], bind: str | None) -> list[str]:
    """The addresses to tell a guest: never 0.0.0.0 or ::, and loopback only when nothing else will do."""
    if bind is not None and dialable(bind):
        return [bind]
    found = local_addresses()
    if found and (bind is None or bind in ("0.0.0.0", "::")):
        versions = {6 if ":" in a.host else 4 for a in listening}
        return [host for host in found if (6 if ":" in host else 4) in versions] or found
    return [a.host for a in listening if a.host not in ("0.0.0.0", "::")] or ["127.0.0.1"]


async def _open_door(
    options: HostOptions,
    addresses: list[Address],
    ours: str,
    token: bytes | None,
    say: Say,
    nursery: trio.Nursery,
    mapper: list[Mapper],
    announcement: list[Announcement],
    punching: Punching | None = None,
) -> None:
    """The host listens: print the invite line with what is known now (LAN, IPv6), announce on the LAN, and
    ask the router to map the port meanwhile. A router that never answers takes seconds to give up on, so
    the code is not held back for it; a router that maps the port gets a new invite line, public address
    first."""
    port = addresses[0].port
    say(f"Hosting {options.rules.format()} on port {port}. Your key fingerprint: {ours}")
    hosts = reachable_hosts(addresses, options.bind)[:MAX_ADDRESSES]  # many interfaces: the best ones first
    say_invite(hosts, port, ours, token, say, punching)
    if options.guest:
        say(f"  admitting only the guest with fingerprint {options.guest}")
    if options.lan:
        announcement.append(await announce(port, hosts, ours, options.rules.format()))
        say("  announced on the LAN: koikoi join --lan")
    if options.upnp and any(dialable(a.host) or a.host in ("0.0.0.0", "::") for a in addresses):
        mapper.append(Mapper(port))
        nursery.start_soon(map_port_then_say, mapper[0], hosts, port, ours, token, say, punching)


class _Taken(NamedTuple):
    """What admitting a greeted guest gives: its match, its name, the old record if it is back, and the
    nonces it greeted with (a rematch after a match taken up again must not greet with them again)."""

    session: MatchSession
    peer: str
    unfinished: Unfinished | None
    greeted: tuple[bytes, bytes]


@dataclass(frozen=True, slots=True)
class _Admitted:
    """The guest the host took: its connection, and what admitting it gave (:class:`_Taken`)."""

    channel: FramedChannel
    taken: _Taken
    answer: Answer | None = None  # the guest's answer code, when the host dialled it
    stun_port: int | None = None  # our STUN port, from which we punched or guessed at the guest's ports
    maps_anew: bool = False  # our NAT maps each destination to a new port: a spray was ours to hold open

    @property
    def session(self) -> MatchSession:
        return self.taken.session

    @property
    def peer(self) -> str:
        return self.taken.peer

    @property
    def unfinished(self) -> Unfinished | None:
        return self.taken.unfinished


async def _host_plays(
    admitted: _Admitted,
    identity: Ed25519PrivateKey,
    player: Player,
    directory: Path,
    plan: Reconnect,
    say: Say,
    result: NetMatchResult,
    held: Held | None = None,
) -> None:
    """Play the admitted guest's match to its end: a new one into a new record (its connection handed to
    ``held`` when it is played out), or the old one into its own."""
    result.peer_fingerprint = fingerprint(admitted.session.keys[1])
    unfinished = admitted.unfinished
    if unfinished is not None:
        say(f"Guest {admitted.peer} is back (fingerprint {result.peer_fingerprint}); the match goes on.")
        result.record = unfinished.path
        result.report = await _play_again(admitted.channel, unfinished, identity, player, plan, say, held)
        return
    say(f"Guest {admitted.peer} accepted the rules (fingerprint {result.peer_fingerprint}).")
    channel, session = admitted.channel, admitted.session
    result.report, result.record = await _play(channel, session, identity, player, directory, plan, say, held)


async def _host_forked(fork: Fork, unfinished: Unfinished, player: Player, result: NetMatchResult) -> None:
    """The guest came back to its unfinished match with a copy that forks from ours: the match ended
    there (its record settled by :func:`rejoin_guest`); the player is told, and the result says so."""
    session = unfinished.session
    result.peer_fingerprint = fingerprint(session.keys[1])
    result.record = unfinished.path
    result.report = MatchReport(SessionEnd.VIOLATION, fork, str(fork), 0, 0, len(session.chain.entries))
    await player.notify(session.take_events())


Admit = Callable[[FramedChannel, Greeting, str], Awaitable[_Taken]]


def _admitter(
    options: HostOptions, directory: Path, identity: Ed25519PrivateKey, say: Say, forked: list[Unfinished]
) -> Admit:
    """How the host takes in a guest that greeted: back into the match they left unfinished, if any,
    else into a new match offered with the host's rules. A match its guest forked is settled, never put
    back to be taken up again, and goes into ``forked`` for the host to report."""
    restored: Restored = {}
    own = load_own_name()
    name = own.format() if own is not None else None

    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> _Taken:
        unfinished = unfinished_with(directory, identity, greeting.peer_key, say, restored)
        if unfinished is not None:
            try:
                await rejoin_guest(channel, unfinished, identity, peer, say)
            except Fork:
                forked.append(unfinished)
                raise
            except BaseException:
                put_back(restored, unfinished)
                raise
            return _Taken(unfinished.session, peer, unfinished, greeting.nonces)
        try:
            session = await admit_guest(channel, greeting, identity, options.rules, options.turn_limit, name)
        except StrayResume as exc:  # rare and worth knowing: said in full, not just counted
            say(f"Dropped {peer}: {exc}.")
            raise
        return _Taken(session, peer, None, greeting.nonces)

    return admit


async def host_match(
    options: HostOptions,
    player_for: Callable[[int], Player],
    say: Say,
    again: Again | None = None,
    answers: ReadLine | None = None,
) -> NetMatchResult:
    """Host one guest; with ``again``, another match on the connection each time both players want one.
    ``answers`` reads what the player pastes while the host waits: a guest's answer code is dialled back."""
    identity = load_identity()
    punching = await ask_stun(options.stun, options.bind)  # before the invite: it carries our punch candidate
    punching.maps_anew = await maps_per_destination(punching, options.stun)  # and whether guests must spray
    seat = _OpenSeat(options, identity, punching, say, answers)
    result = NetMatchResult(None, None, seat.ours)
    directory = replay_dir(options.replay_dir)
    forked: list[Unfinished] = []
    admit = _admitter(options, directory, identity, say, forked)
    try:
        admitted = await seat.fill(admit)
        if isinstance(admitted, Fork):
            await _host_forked(admitted, forked[0], player_for(0), result)
            return result
        seated = _Seated(options, identity, player_for, directory, say, again)
        result = await seated.play(admitted, seat.mapper, seat.listening[0], result)
    finally:
        await seat.close()
    return result


class _OpenSeat:
    """The host's wait for its guest: at the door (the invite printed, announced on the LAN, the port
    mapped) and, with ``answers``, at each answer code the player pastes, dialled back; the first guest
    admitted takes the seat. What the wait opens is held here to be closed with :meth:`close`, the
    router's mapping only then: it stays for reconnects while the match is played."""

    def __init__(
        self, options: HostOptions, identity: Ed25519PrivateKey, punching: Punching, say: Say, answers: ReadLine | None
    ) -> None:
        self.options = options
        self.key = public_bytes(identity)
        self.ours = fingerprint(self.key)
        self.token = new_token() if options.invite_only else None
        self.guard = Guard(options.guest, self.token)
        self.drops = DropLog(options.drop_window)
        self.punching = punching
        self.say = say
        self.answers = answers
        self.announcement: list[Announcement] = []
        self.listening: list[int] = []  # the port the door listens on, once it does
        self.mapper: list[Mapper] = []

    async def fill(self, admit: Admit) -> _Admitted | Fork:
        """The first guest admitted, at the door or by a dial back; or the fork of the unfinished match a
        returning guest proved, which ends the wait as well. The LAN announcement ends with the wait."""
        async with trio.open_nursery() as nursery:
            await nursery.start(self._summarise)
            admitted: _Admitted | Fork
            ways = [partial(self._by_door, admit, nursery)]
            if self.answers is not None:
                ways.append(partial(self._by_answer, admit))
            try:
                admitted = await first_of(ways, _let_go)
            except Fork as fork:  # caught here, not out of the nursery as a group
                admitted = fork
            nursery.cancel_scope.cancel()
        for line in self.drops.flush():
            self.say(line)
        for lan in self.announcement:  # the seat is taken: stop announcing
            await lan.close()
        self.announcement.clear()
        return admitted

    async def close(self) -> None:
        """Stop announcing, give the router's mappings back, and let go of the STUN connection."""
        for lan in self.announcement:
            await lan.close()
        for router in self.mapper:
            await router.close()
        await self.punching.aclose()

    async def _summarise(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Say, once a second, the summary lines the drop log has ready: a flood is told, not listed."""
        task_status.started()
        while True:
            await trio.sleep(1)
            for line in self.drops.tick(trio.current_time()):
                self.say(line)

    async def _on_listening(self, nursery: trio.Nursery, addresses: list[Address]) -> None:
        self.listening.append(addresses[0].port)
        await _open_door(
            self.options,
            addresses,
            self.ours,
            self.token,
            self.say,
            nursery,
            self.mapper,
            self.announcement,
            self.punching,
        )
        if self.answers is not None:
            self.say(f"  {PASTE_HERE}")

    async def _on_dropped(self, dropped: Dropped) -> None:
        for line in self.drops.add(trio.current_time(), dropped):
            self.say(line)

    async def _by_door(self, admit: Admit, nursery: trio.Nursery) -> _Admitted:
        channel, taken = await listen(
            self.key,
            admit,
            port=self.options.port,
            bind=self.options.bind,
            on_listening=partial(self._on_listening, nursery),
            on_dropped=self._on_dropped,
            guard=self.guard,
        )
        return _Admitted(channel, taken)

    async def _by_answer(self, admit: Admit) -> _Admitted:
        assert self.answers is not None
        channel, taken, answer = await take_answers(
            self.answers,
            self.key,
            self.ours,
            admit,
            self.say,
            guest=self.options.guest,
            token=self.token,
            punch_from=self.punching.from_port,
            maps_anew=self.punching.maps_anew,
        )
        return _Admitted(channel, taken, answer, self.punching.from_port, self.punching.maps_anew)


def _dial_back(admitted: _Admitted) -> tuple[Address, ...]:
    """Where the host dials after a drop, when it dialled the guest: the relayed address it came through,
    else the answer's addresses (a punched guest is punched again instead: :func:`_punched`)."""
    answer = admitted.answer
    if answer is None:
        return ()
    if answer.relay is not None and admitted.peer == str(Address(*answer.relay)):
        return (Address(*answer.relay),)
    return tuple(Address(h, answer.port) for h in answer.addresses)


def _punched(admitted: _Admitted) -> tuple[int, tuple[str, int]] | None:
    """Our STUN port and the guest's candidate, when the guest came in through our punch to it."""
    answer = admitted.answer
    if answer is None or answer.punch is None or admitted.stun_port is None or answer.spray or admitted.maps_anew:
        return None  # no punch where a NAT maps each destination anew: that was a spray
    return (admitted.stun_port, answer.punch) if admitted.peer == str(Address(*answer.punch)) else None


def _sprayed(admitted: _Admitted) -> Spray | None:
    """How to spray again after a drop, when the guest came in through the birthday spray (exactly one of
    the two NATs maps each destination anew): ours does, and the connection is one of those we held open
    to the guest's candidate; or the guest's does, and the connection came from the guest's public address
    at a port none of its answer's addresses names (one of our guesses hit)."""
    answer = admitted.answer
    if answer is None or answer.punch is None or admitted.stun_port is None or answer.spray == admitted.maps_anew:
        return None
    if admitted.maps_anew:
        return Spray(answer.punch) if admitted.peer == str(Address(*answer.punch)) else None
    peer = parse_address(admitted.peer)
    direct = {Address(host, answer.port) for host in answer.addresses}
    if peer.host != answer.punch[0] or peer in direct or peer == Address(*answer.punch):
        return None
    return Spray(answer.punch, guess_from=admitted.stun_port)


async def _let_go(late: _Admitted) -> None:
    """A guest admitted a moment after another won the race: its connection is closed."""
    await trio.aclose_forcefully(late.channel.stream)


@dataclass(frozen=True)
class _Seated:
    """What the host does once a guest is seated: the match (and, with ``again``, each rematch both
    players want), with the router's mapping kept for reconnects."""

    options: HostOptions
    identity: Ed25519PrivateKey
    player_for: Callable[[int], Player]
    directory: Path
    say: Say
    again: Again | None

    async def play(
        self, admitted: _Admitted, mapper: list[Mapper], port: int, result: NetMatchResult
    ) -> NetMatchResult:
        async with trio.open_nursery() as nursery:  # the mapping stays for reconnects, renewed
            for router in mapper:
                nursery.start_soon(router.keep)
            back = _dial_back(admitted)
            plan = Reconnect(
                0, port=port, bind=self.options.bind, back=back, punch=_punched(admitted), spray=_sprayed(admitted)
            )
            held = Held() if self.again is not None else None
            await _host_plays(admitted, self.identity, self.player_for(0), self.directory, plan, self.say, result, held)
            if held is not None and self.again is not None:
                result = await rematches(
                    admitted.session,
                    held,
                    result,
                    self.identity,
                    self.player_for,
                    self.directory,
                    plan,
                    self.say,
                    self.again,
                    admitted.taken.greeted,
                )
            nursery.cancel_scope.cancel()
        return result


async def rematches(
    session: MatchSession,
    held: Held,
    result: NetMatchResult,
    identity: Ed25519PrivateKey,
    player_for: Callable[[int], Player],
    directory: Path,
    plan: Reconnect,
    say: Say,
    again: Again,
    greeted: tuple[bytes, bytes] | None = None,
) -> NetMatchResult:
    """Each rematch both players want after ``session`` was played out on the connection in ``held``, as
    host or guest by its seat (host, join, and ``koikoi resume`` after a match it took up again). The next
    matches' records go into ``directory``; ``greeted`` as for :meth:`_Rematches.play`."""
    seat = session.seat
    begin = _host_begins(session.turn_limit, identity) if seat == 0 else _guest_begins(identity)
    series = _Rematches(seat, identity, player_for, directory, plan, say, again, begin)
    return await series.play(held, session, result, greeted)


def _host_begins(turn_limit: int, identity: Ed25519PrivateKey) -> Begin:
    """The host's start of each next match: its rules offered as for the first (with its time limit), under
    the name it goes by."""
    own = load_own_name()
    name = own.format() if own is not None else None

    async def begin(channel: FramedChannel, greeting: Greeting, rules: RuleSet) -> MatchSession:
        return await admit_guest(channel, greeting, identity, rules, turn_limit, name)

    return begin


def _guest_begins(identity: Ed25519PrivateKey) -> Begin:
    """The guest's start of each next match: the host's offer read, and the rules just played taken at once."""
    own = load_own_name()
    name = own.format() if own is not None else None

    async def begin(channel: FramedChannel, greeting: Greeting, rules: RuleSet) -> MatchSession:
        session = MatchSession(1, identity, greeting.peer_key, greeting.nonces, name=name)
        await take_same_rules(channel, session, rules)
        return session

    return begin


async def join_match(
    options: JoinOptions,
    player_for: Callable[[int], Player],
    say: Say,
    confirm: Confirm,
    again: Again | None = None,
) -> NetMatchResult:
    """Join a host; with ``again``, another match on the connection each time both players want one. A host
    that cannot be reached from an invite code is asked to dial us instead (``options.back``)."""
    routers: list[Mapper] = []
    failure: Exception | None = None  # raised as itself, not inside the nursery's group: callers catch it
    try:
        async with trio.open_nursery() as nursery:
            try:
                result = await _join(options, player_for, say, confirm, again, nursery, routers)
            except Exception as exc:
                failure = exc
            nursery.cancel_scope.cancel()
    finally:
        for router in routers:
            await router.close()
    if failure is not None:
        raise failure
    return result


async def _join(
    options: JoinOptions,
    player_for: Callable[[int], Player],
    say: Say,
    confirm: Confirm,
    again: Again | None,
    nursery: trio.Nursery,
    routers: list[Mapper],
) -> NetMatchResult:
    """:func:`join_match`, with a nursery for the router's renewals while we listen for the host."""
    identity = load_identity()
    key = public_bytes(identity)
    result = NetMatchResult(None, None, fingerprint(key))
    channel, greeting, address, plan = await _reach_host(options, key, result.our_fingerprint, say, nursery, routers)
    if not await host_key_accepted(address, greeting, options.pin.fingerprint, options.announced, say, confirm):
        await channel.close()
        result.notes.append("not played: the host's key was not trusted")
        return result
    result.peer_fingerprint = fingerprint(greeting.peer_key)
    say(f"Connected to {address} (fingerprint {result.peer_fingerprint}).")
    directory = replay_dir(options.replay_dir)
    unfinished = unfinished_with(directory, identity, greeting.peer_key, say)
    held = Held() if again is not None else None
    if unfinished is not None:
        result = await _rejoin_host(channel, unfinished, identity, player_for(1), plan, say, result, held)
        session, greeted = unfinished.session, greeting.nonces
    else:
        own = load_own_name()
        session = MatchSession(1, identity, greeting.peer_key, greeting.nonces, name=own.format() if own else None)
        result = await _play_new(channel, session, identity, player_for(1), directory, plan, say, result, held)
        greeted = None
    if held is None or again is None:
        return result
    return await rematches(session, held, result, identity, player_for, directory, plan, say, again, greeted)


async def _reach_host(
    options: JoinOptions, key: bytes, ours: str, say: Say, nursery: trio.Nursery, routers: list[Mapper]
) -> tuple[FramedChannel, Greeting, Address, Reconnect]:
    """The connection to the host, and how to find it again after a drop: we dial the invite's addresses;
    a host we cannot reach is asked to dial us instead (``options.back``), and then dials again after a drop
    while we listen on the same port (or punch, or accept on the relay, as the first time)."""
    say(f"Connecting to {', '.join(str(a) for a in options.addresses)}...")
    try:
        channel, greeting, address = await dial_patiently(
            list(options.addresses), key, options.pin, timeout=options.timeout, say=say
        )
        return channel, greeting, address, Reconnect(1, address=address)
    except CouldNotJoin as exc:
        if options.back is None or options.pin.fingerprint is None or exc.busy:
            raise
        say(f"Could not reach the host: {exc}.")
    say("Listening for the host to dial back instead.")
    reached = await wait_for_host(
        options.back, key, options.pin, ours, say, nursery, routers, options.punch, options.host_maps_anew
    )
    plan = Reconnect(
        1,
        address=reached.address,
        port=reached.port,
        bind=options.back.bind,
        reverse=True,
        punch=reached.punch,
        relay=reached.relay,
        spray=reached.spray,
    )
    return reached.channel, reached.greeting, reached.address, plan


async def _play_new(
    channel: FramedChannel,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    directory: Path,
    plan: Reconnect,
    say: Say,
    result: NetMatchResult,
    held: Held | None,
) -> NetMatchResult:
    """The guest's new match, from the host's offer on; a host that closes before offering one is told so."""
    try:
        result.report, result.record = await _play(channel, session, identity, player, directory, plan, say, held)
    except ConnectionLost:
        if session.chain.entries:
            raise
        raise ConnectionLost(NO_MATCH_OFFERED) from None
    return result


async def _rejoin_host(
    channel: FramedChannel,
    unfinished: Unfinished,
    identity: Ed25519PrivateKey,
    player: Player,
    plan: Reconnect,
    say: Say,
    result: NetMatchResult,
    held: Held | None = None,
) -> NetMatchResult:
    """The guest's half of a rejoin: we hold an unfinished match with this host, so we ``resume`` it
    on this connection rather than wait for a new one. A host that offers a new match instead holds
    none: we stop, so as not to leave ours behind unsaid. A host whose signed resume proof forks from our
    copy ends the match as its violation (:func:`settle_fork`)."""
    path = unfinished.path
    say(f"You have an unfinished match with this host ({path.name}): taking it up again.")
    try:
        await resume_as_guest(channel, unfinished.session, identity)
    except Fork as fork:  # the host resumed from a copy that forks from ours: the match ends there
        await channel.close()
        result.record = path
        result.report = _settle(fork, unfinished)
        await player.notify(unfinished.session.take_events())
        return result
    except NoSuchMatch:
        await channel.close()
        result.notes.append(
            f"koikoi: the host has no unfinished match with you, but {path} is unfinished: resume it with "
            f"koikoi resume {path}, or delete {secret_path(path)} to start afresh"
        )
        return result
    say("The match goes on.")
    result.record = path
    result.report = await _play_again(channel, unfinished, identity, player, plan, say, held)
    return result


async def find_lan_games(say: Say, seconds: float = 2.0) -> list[LanGame]:
    say(f"Looking for games on the LAN for {seconds:g} s...")
    return await browse(seconds)


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, RemoteProtocolError):
        return f"the peer broke the protocol: {exc}"
    if isinstance(exc, ConnectionLost):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
