"""The peer-to-peer match: in memory (whole and a byte at a time), timeouts on the autojump clock,
the host's handshake against bad guests over loopback TCP, and trust on first use."""

from __future__ import annotations

import contextlib
import struct
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.host_key import host_key_accepted, trusted_on_first_use
from p2p_koikoi.app.identity import Trust, known_peer, remember_peer
from p2p_koikoi.app.netplay import HostOptions, host_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting, greet_as_guest, greet_as_host
from p2p_koikoi.net.runner import MatchReport, run_match
from p2p_koikoi.net.tcp import Address, dial
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import trickle_stream_pair
from p2p_koikoi.testing.pairs import match_pair
from p2p_koikoi.wire import VERSION, Entry, Hello, Ping, Pong, RemoteProtocolError, SignedEntry, encode, public_bytes
from p2p_koikoi.wire.codec import pack
from p2p_koikoi.wire.framing import encode_frame


async def play_pair(
    a: trio.abc.Stream, b: trio.abc.Stream, rules_name: str = "nintendo", rounds: int | None = None
) -> tuple[MatchReport, MatchReport, MatchSession, MatchSession]:
    rules = preset(rules_name)
    if rounds:
        rules = rules.with_option("rounds", str(rounds))
    players = (BotPlayer(RandomAgent(1), 0), BotPlayer(RandomAgent(2), 1))
    played = await match_pair(rules, players, streams=(a, b))
    return played.host, played.guest, *played.sessions


def same_match(h: MatchReport, g: MatchReport, host: MatchSession, guest: MatchSession) -> None:
    assert (h.ended_by, g.ended_by) == (SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER), (h.text, g.text)
    assert [e.data for e in host.chain.entries] == [e.data for e in guest.chain.entries]
    assert host.match is not None and guest.match is not None
    assert host.match.outcome == guest.match.outcome
    assert h.bytes_sent == g.bytes_received and g.bytes_sent == h.bytes_received


async def test_a_whole_match_over_memory_streams() -> None:
    a, b = trio.testing.memory_stream_pair()
    same_match(*await play_pair(a, b))


async def test_a_match_a_byte_at_a_time() -> None:
    a, b = trickle_stream_pair(1)
    same_match(*await play_pair(a, b, "lemme", rounds=3))


async def test_a_network_that_splits_and_delays_writes(autojump_clock: trio.testing.MockClock) -> None:
    """Pieces of 7 bytes, each up to 2 ms late, from a seeded generator: the two directions interleave
    as a slow network has them, on the virtual clock (this ran through a real proxy for 30 s before)."""
    a, b = trickle_stream_pair(7, max_delay=0.002, seed=3)
    same_match(*await play_pair(a, b, "lemme", rounds=3))


@pytest.mark.parametrize("name", ["rulebook", "gameweave", "qdan", "lemme"])
async def test_every_preset_over_memory_streams(name: str) -> None:
    a, b = trio.testing.memory_stream_pair()
    same_match(*await play_pair(a, b, name, rounds=3))


# -- timeouts, on the autojump clock -----------------------------------------------------


async def test_a_silent_peer_is_gone_after_the_deadline(autojump_clock: trio.testing.MockClock) -> None:
    a, _b = trio.testing.memory_stream_pair()
    channel = FramedChannel(a)
    start = trio.current_time()
    with pytest.raises(ConnectionLost, match="silent for 20 s"):
        await channel.receive(idle=20)
    assert trio.current_time() - start == pytest.approx(20)


async def test_a_slowloris_frame_is_cut_off(autojump_clock: trio.testing.MockClock) -> None:
    a, b = trio.testing.memory_stream_pair()
    channel = FramedChannel(a, frame_deadline=10)

    async def slowloris() -> None:
        for byte in encode_frame(pack(["ping", 1])):
            await b.send_all(bytes([byte]))
            await trio.sleep(60)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slowloris)
        with pytest.raises(ConnectionLost, match="frame took longer than 10 s"):
            await channel.receive(idle=1000)
        nursery.cancel_scope.cancel()


async def test_no_greeting_within_the_deadline(autojump_clock: trio.testing.MockClock) -> None:
    a, _b = trio.testing.memory_stream_pair()
    with pytest.raises(ConnectionLost, match="no greeting within 10 s"):
        await greet_as_host(FramedChannel(a), public_bytes(Ed25519PrivateKey.generate()))


async def test_keepalives_keep_an_idle_match_alive(autojump_clock: trio.testing.MockClock) -> None:
    """A peer that thinks for a minute (answering pings meanwhile) is not taken for gone."""
    a, b = trio.testing.memory_stream_pair()

    class SlowAgent(RandomAgent):
        def choose(self, view, legal, context):  # type: ignore[no-untyped-def]
            return super().choose(view, legal, context)

    class SlowPlayer(BotPlayer):
        async def choose(self, view, legal, context):  # type: ignore[no-untyped-def]
            await trio.sleep(60)
            return self.agent.choose(view, legal, context)

    rules = preset("lemme").with_option("rounds", "3")
    k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    ca, cb = FramedChannel(a), FramedChannel(b)
    reports: list[MatchReport] = []

    async def host() -> None:
        g = await greet_as_host(ca, public_bytes(k0))
        reports.append(
            await run_match(ca, MatchSession(0, k0, g.peer_key, g.nonces, rules=rules), SlowPlayer(SlowAgent(1), 0))
        )

    async def guest() -> None:
        g = await greet_as_guest(cb, public_bytes(k1))
        reports.append(await run_match(cb, MatchSession(1, k1, g.peer_key, g.nonces), SlowPlayer(SlowAgent(2), 1)))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        nursery.start_soon(guest)
    assert [r.ended_by for r in reports] == [SessionEnd.MATCH_OVER, SessionEnd.MATCH_OVER]


async def test_a_peer_that_vanishes_leaves_the_record_and_a_clear_message(tmp_path: Path) -> None:
    from p2p_koikoi.record.writer import RecordWriter

    a, b = trio.testing.memory_stream_pair()
    ca, cb = FramedChannel(a), FramedChannel(b)
    k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    rules = preset("lemme")
    record = RecordWriter(tmp_path, lambda: "host.koikoi", seat=0)
    out: list[MatchReport] = []

    class Vanishing(BotPlayer):
        moves = 0

        async def choose(self, view, legal, context):  # type: ignore[no-untyped-def]
            Vanishing.moves += 1
            if Vanishing.moves == 5:
                await cb.stream.aclose()  # the guest's machine goes away mid-round
                await trio.sleep_forever()
            return await super().choose(view, legal, context)

    async def host() -> None:
        g = await greet_as_host(ca, public_bytes(k0))
        session = MatchSession(0, k0, g.peer_key, g.nonces, rules=rules)
        out.append(await run_match(ca, session, BotPlayer(RandomAgent(1), 0), record))

    async def guest() -> None:
        g = await greet_as_guest(cb, public_bytes(k1))
        session = MatchSession(1, k1, g.peer_key, g.nonces)
        await run_match(cb, session, Vanishing(RandomAgent(2), 1))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        nursery.start_soon(guest)
        while not out:
            await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    record.close()
    (report,) = out
    assert report.ended_by is SessionEnd.PEER_VANISHED
    assert "closed" in report.text or "broke" in report.text
    from p2p_koikoi.record.reader import read_record

    assert len(read_record(tmp_path / "host.koikoi").entries) == report.entries


# -- the host's handshake against bad guests, over loopback TCP -----------------------------


def raw_client(port: int, payload: bytes, *, close: bool = True) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(payload)
        if close:
            sock.shutdown(socket.SHUT_WR)
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass


async def signed_accept(greeting_key: Ed25519PrivateKey, channel: FramedChannel, tweak: str) -> None:
    """Greet properly, then send a bad ``accept`` entry."""
    greeting = await greet_as_guest(channel, public_bytes(greeting_key))
    frame = await channel.receive(idle=5)
    assert isinstance(frame, SignedEntry) and frame.entry.kind == "match"
    entry = Entry(frame.entry.match_id, 1, frame.digest, 1, "accept", [frame.entry.body[1], None], b"\0" * 16)
    if tweak == "other-match":
        entry = Entry(b"\x01" * 32, 1, frame.digest, 1, "accept", [frame.entry.body[1], None], b"\0" * 16)
    key = Ed25519PrivateKey.generate() if tweak == "wrong-key" else greeting_key
    del greeting
    await channel.send(SignedEntry.sign(entry, key))
    await channel.receive(idle=5)


async def test_the_host_drops_bad_guests_and_keeps_listening(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "host-home"))
    dropped: list[str] = []
    lines: list[str] = []
    port_box: list[int] = []

    def say(line: str) -> None:
        lines.append(line)
        if line.startswith("Dropped"):
            dropped.append(line)
        if line.startswith("Hosting"):
            port_box.append(int(line.split(" on port ")[1].split(".")[0]))

    rules = preset("lemme").with_option("rounds", "3")
    options = HostOptions(rules, 0, "127.0.0.1", 0, tmp_path / "replays", drop_window=0)
    result_box: list[object] = []

    async def run_host() -> None:
        result_box.append(await host_match(options, lambda seat: BotPlayer(RandomAgent(1), seat), say))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_host)
        while not port_box:
            await trio.sleep(0.01)
        port = port_box[0]
        bad_version = encode_frame(pack(["hello", VERSION + 1, b"k" * 32, b"n" * 32, "x"]))
        cases = [
            (b"GET / HTTP/1.1\r\n\r\n", "1195725856-byte frame"),
            (encode_frame(b"\xc1 garbage"), "not valid msgpack"),
            (struct.pack(">I", 2**32 - 2), "4294967294-byte frame"),
            (bad_version, f"version {VERSION + 1}; we speak {VERSION}"),
            (encode_frame(pack(["hello", VERSION, b"k" * 32]))[:-3], "closed inside a frame"),
            (encode(Hello(VERSION, b"k" * 32, b"n" * 32, "x"))[:9], "closed inside a frame"),
        ]
        for payload, _ in cases:
            await trio.to_thread.run_sync(raw_client, port, payload)
        for tweak in ("wrong-key", "other-match"):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            channel = FramedChannel(stream)
            with contextlib.suppress(ConnectionLost, RemoteProtocolError):
                await signed_accept(Ed25519PrivateKey.generate(), channel, tweak)
            await stream.aclose()
        while len(dropped) < len(cases) + 2:
            await trio.sleep(0.01)
        # Then a proper guest plays the whole match.
        monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "guest-home"))
        key = Ed25519PrivateKey.generate()
        channel, greeting = await dial(Address("127.0.0.1", port), public_bytes(key))
        session = MatchSession(1, key, greeting.peer_key, greeting.nonces)
        report = await run_match(channel, session, BotPlayer(RandomAgent(2), 1))
    assert report.ended_by is SessionEnd.MATCH_OVER
    for (_, reason), line in zip(cases, dropped, strict=False):
        assert reason in line, (reason, line)
    assert "not signed by seat 1" in dropped[len(cases)]
    assert "another match" in dropped[len(cases) + 1]


# -- trust on first use --------------------------------------------------------------------


async def test_a_known_peer_with_a_changed_key_gets_a_loud_warning(tmp_path: Path) -> None:
    first, second = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    home = tmp_path / "cfg"
    assert known_peer("alice.example", public_bytes(first), home).trust is Trust.NEW
    remember_peer("alice.example", public_bytes(first), home)
    assert known_peer("alice.example", public_bytes(first), home).trust is Trust.KNOWN
    assert known_peer("alice.example", public_bytes(second), home).trust is Trust.CHANGED


async def test_the_warning_is_shown_and_the_answer_obeyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path))
    first, second = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    said: list[str] = []
    asked: list[str] = []

    async def answer(question: str) -> bool:
        asked.append(question)
        return False

    greeting = Greeting(public_bytes(first), (b"a" * 32, b"b" * 32), "x")
    assert await trusted_on_first_use("bob", greeting, said.append, answer)
    assert not said and not asked
    changed = Greeting(public_bytes(second), (b"a" * 32, b"b" * 32), "x")
    assert not await trusted_on_first_use("bob", changed, said.append, answer)
    assert any("DIFFERENT KEY" in line for line in said) and asked


async def test_a_host_whose_key_is_not_the_one_the_lan_announced_is_warned_of_and_asked_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A LAN announcement names the host's fingerprint; a host at that address proving another key is
    said loudly and played only if the player says so. An invite's pin was checked while dialling."""
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path))
    announced_key, posing_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    announced = fingerprint(public_bytes(announced_key))
    posing = Greeting(public_bytes(posing_key), (b"a" * 32, b"b" * 32), "x")
    address = Address("192.0.2.7", 7447)
    said: list[str] = []
    asked: list[str] = []

    async def answer(question: str) -> bool:
        asked.append(question)
        return False

    assert not await host_key_accepted(address, posing, None, announced, said.append, answer)
    assert any("posing as the host" in line for line in said) and asked == ["Play against this key anyway?"]
    said.clear()
    asked.clear()
    pinned = fingerprint(public_bytes(posing_key))
    assert await host_key_accepted(address, posing, pinned, announced, said.append, answer)
    assert not said and not asked


async def test_a_peer_that_stalls_instead_of_revealing_forfeits(autojump_clock: trio.testing.MockClock) -> None:
    """The peer keeps answering pings but never writes its secret: after the step deadline we claim the match
    by its silence."""
    a, b = trio.testing.memory_stream_pair()
    ca, cb = FramedChannel(a), FramedChannel(b)
    k0, k1 = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    rules = preset("lemme")
    reports: list[MatchReport] = []

    class Staller(MatchSession):
        def _write(self, kind, body):  # type: ignore[no-untyped-def]
            if self.stage.value == "audit" and kind == "deal":
                raise _Stall
            return super()._write(kind, body)

    class _Stall(Exception):
        pass

    async def host() -> None:
        g = await greet_as_host(ca, public_bytes(k0))
        session = MatchSession(0, k0, g.peer_key, g.nonces, rules=rules)
        reports.append(await run_match(ca, session, BotPlayer(RandomAgent(1), 0), step_deadline=60))

    async def guest() -> None:
        g = await greet_as_guest(cb, public_bytes(k1))
        session = Staller(1, k1, g.peer_key, g.nonces)
        try:
            await run_match(cb, session, BotPlayer(RandomAgent(2), 1))
        except* _Stall:
            pass
        while True:  # keep the connection alive without ever revealing
            with contextlib.suppress(ConnectionLost):
                frame = await cb.receive(idle=1000)
                if frame is None:
                    return
                if isinstance(frame, Ping):
                    await cb.send(Pong(frame.n))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        nursery.start_soon(guest)
        while not reports:
            await trio.sleep(1)
        nursery.cancel_scope.cancel()
    (report,) = reports
    assert report.ended_by is SessionEnd.PEER_VANISHED
    assert report.text == "the opponent took no protocol step"


async def test_lan_announce_and_browse() -> None:
    from p2p_koikoi.net.lan import announce, browse

    announcement = await announce(7447, ["127.0.0.1"], "abcd:ef01", "lemme rounds=3")
    try:
        games = await browse(2.0)
    finally:
        await announcement.close()
    mine = [g for g in games if g.fingerprint == "abcd:ef01"]
    assert mine and mine[0].port == 7447 and mine[0].rules == "lemme rounds=3"


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [
        ("localhost", "localhost", 7447),
        ("example.org:8000", "example.org", 8000),
        ("192.168.1.20", "192.168.1.20", 7447),
        ("[fd77::1]:7447", "fd77::1", 7447),
        ("[fd77::1:7447]", "fd77::1:7447", 7447),
        ("::1", "::1", 7447),
        ("fd77::abcd", "fd77::abcd", 7447),
    ],
)
def test_addresses_as_people_write_them(text: str, host: str, port: int) -> None:
    from p2p_koikoi.net.tcp import parse_address

    assert parse_address(text) == Address(host, port)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("fd77::1:7447", r"ambiguous: write \[fd77::1\]:7447 for port 7447, or \[fd77::1:7447\]"),
        ("2001:db8::42", r"write \[2001:db8::\]:42 for port 42"),
        ("1.2.3", "not a whole IPv4 address"),
        ("[fd77::1", "closing ]"),
        ("host:99999", "1 to 65535"),
    ],
)
def test_addresses_that_cannot_be_read_say_why(text: str, words: str) -> None:
    from p2p_koikoi.net.tcp import parse_address

    with pytest.raises(ValueError, match=words):
        parse_address(text)
