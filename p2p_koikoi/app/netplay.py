"""Host and join a match over TCP: the use cases behind ``koikoi host`` and ``koikoi join``.

Each builds a :class:`NetMatchResult` (what happened, where the record is) and
leaves printing to the command; messages along the way go to a ``say``
callback, so a bot run can be quiet and a person sees what is going on.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.continuing import Reconnect, play_on
from p2p_koikoi.app.identity import PeerCheck, Trust, data_dir, known_peer, load_identity, remember_peer
from p2p_koikoi.engine import RuleSet
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.lan import Announcement, LanGame, announce, browse
from p2p_koikoi.net.runner import MatchReport, Player
from p2p_koikoi.net.tcp import Address, Dropped, Refused, dial, listen, local_addresses
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.writer import RecordWriter, record_name
from p2p_koikoi.session.match_session import SOFTWARE, MatchSession, Waiting
from p2p_koikoi.wire import Ping, Pong, RemoteProtocolError, SignedEntry, public_bytes

__all__ = [
    "HostOptions",
    "JoinOptions",
    "NetMatchResult",
    "admit_guest",
    "describe_failure",
    "find_lan_games",
    "host_match",
    "join_match",
    "replay_dir",
]

Say = Callable[[str], None]
ACCEPT_DEADLINE = 300.0  # a person reads the rules before accepting
Confirm = Callable[[str], Awaitable[bool]]


def replay_dir(override: Path | None) -> Path:
    return override if override is not None else data_dir() / "replays"


@dataclass
class NetMatchResult:
    report: MatchReport | None
    record: Path | None
    our_fingerprint: str
    peer_fingerprint: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.report is not None and self.report.ended_by == "match-over"


@dataclass(frozen=True)
class HostOptions:
    rules: RuleSet
    port: int
    bind: str | None = None
    turn_limit: int = 0
    replay_dir: Path | None = None
    lan: bool = False


@dataclass(frozen=True)
class JoinOptions:
    address: Address
    replay_dir: Path | None = None
    timeout: float = 15.0


async def _play(
    channel: FramedChannel,
    session: MatchSession,
    identity: Ed25519PrivateKey,
    player: Player,
    directory: Path,
    plan: Reconnect,
    say: Say,
) -> tuple[MatchReport, Path | None]:
    """Play to the end, reconnecting after drops; the record keeps the address to resume with: the one
    the guest dialled, or ``:PORT`` the host listened on."""
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
        report = await play_on(channel, session, identity, player, record, plan, say)
    finally:
        record.close()
    return report, record.path


async def admit_guest(
    channel: FramedChannel, greeting: Greeting, identity: Ed25519PrivateKey, rules: RuleSet, turn_limit: int = 0
) -> MatchSession:
    """The rest of the host's handshake: our ``match`` entry out, the guest's valid ``accept`` in.

    Trust on first use binds a key to the name the *guest* dialled; a guest's own address says
    little (ports change, many guests share one address), so the host only shows its fingerprint.
    """
    session = MatchSession(0, identity, greeting.peer_key, greeting.nonces, rules=rules, turn_limit=turn_limit)
    for signed in session.take_outgoing():
        await channel.send(signed)
    while True:
        frame = await channel.receive(idle=ACCEPT_DEADLINE)
        if frame is None:
            raise ConnectionLost("the guest left before accepting the rules")
        if isinstance(frame, Ping):
            await channel.send(Pong(frame.n))
        elif isinstance(frame, SignedEntry):
            session.receive(frame)
            break
        elif not isinstance(frame, Pong):
            raise RemoteProtocolError("bad-frame", "a second hello")
    if session.waiting is Waiting.DONE:
        raise Refused("the guest declined the rules")
    return session


async def host_match(
    options: HostOptions,
    player_for: Callable[[int], Player],
    say: Say,
    confirm: Confirm,
) -> NetMatchResult:
    identity = load_identity()
    key = public_bytes(identity)
    ours = fingerprint(key)
    result = NetMatchResult(None, None, ours)

    announcement: list[Announcement] = []

    listening: list[int] = []

    async def on_listening(addresses: list[Address]) -> None:
        port = addresses[0].port
        listening.append(port)
        say(f"Hosting {options.rules.format()} on port {port}. Your key fingerprint: {ours}")
        shown = local_addresses() or [a.host for a in addresses]
        for host in shown:
            say(f"  join with: koikoi join {Address(host, port)}")
        if options.lan:
            lan_addresses = [a for a in shown if ":" not in a] or ["127.0.0.1"]
            announcement.append(await announce(port, lan_addresses, ours, options.rules.format()))
            say("  announced on the LAN: koikoi join --lan")

    async def on_dropped(dropped: Dropped) -> None:
        say(f"Dropped a connection from {dropped.peer}: {dropped.reason}. Still waiting.")

    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> tuple[MatchSession, str]:
        session = await admit_guest(channel, greeting, identity, options.rules, options.turn_limit)
        return session, peer

    try:
        channel, (session, peer) = await listen(
            key, admit, port=options.port, bind=options.bind, on_listening=on_listening, on_dropped=on_dropped
        )
    finally:
        for item in announcement:
            await item.close()
    result.peer_fingerprint = fingerprint(session.keys[1])
    say(f"Guest {peer} accepted the rules (fingerprint {result.peer_fingerprint}).")
    plan = Reconnect(0, port=listening[0], bind=options.bind)
    result.report, result.record = await _play(
        channel, session, identity, player_for(0), replay_dir(options.replay_dir), plan, say
    )
    return result


async def join_match(
    options: JoinOptions, player_for: Callable[[int], Player], say: Say, confirm: Confirm
) -> NetMatchResult:
    identity = load_identity()
    key = public_bytes(identity)
    result = NetMatchResult(None, None, fingerprint(key))
    say(f"Connecting to {options.address}...")
    channel, greeting = await dial(options.address, key, timeout=options.timeout)
    if not await _trusted(options.address.host, greeting, say, confirm):
        await channel.close()
        result.notes.append("not played: the host's key was not trusted")
        return result
    result.peer_fingerprint = fingerprint(greeting.peer_key)
    say(f"Connected to {options.address} (fingerprint {result.peer_fingerprint}).")
    session = MatchSession(1, identity, greeting.peer_key, greeting.nonces)
    plan = Reconnect(1, address=options.address)
    result.report, result.record = await _play(
        channel, session, identity, player_for(1), replay_dir(options.replay_dir), plan, say
    )
    return result


async def find_lan_games(say: Say, seconds: float = 2.0) -> list[LanGame]:
    say(f"Looking for games on the LAN for {seconds:g} s...")
    return await browse(seconds)


async def _trusted(name: str, greeting: Greeting, say: Say, confirm: Confirm) -> bool:
    """Trust on first use: remember a new peer; warn loudly and ask when a known name shows a new key."""
    check: PeerCheck = known_peer(name, greeting.peer_key)
    if check.trust is Trust.CHANGED:
        say("@" * 70)
        say(f"WARNING: {name} presented a DIFFERENT KEY than before.")
        say(f"  before: {check.previous}")
        say(f"  now:    {check.fingerprint}")
        say("Someone may be impersonating your opponent, or they made a new key.")
        say("@" * 70)
        if not await confirm("Trust the new key and play?"):
            return False
    remember_peer(name, greeting.peer_key)
    return True


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, RemoteProtocolError):
        return f"the peer broke the protocol: {exc}"
    if isinstance(exc, ConnectionLost):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
