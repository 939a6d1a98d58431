"""The host's door: caps on connections waiting for admission, absolute deadlines, running out of
file descriptors, summarised drop lines, ``--guest`` and the invite token. Floods go to loopback
only, bounded in count and time; after each, a real guest still joins and plays."""

from __future__ import annotations

import contextlib
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.testing
from conftest import SHORT_LEMME
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app.netplay import admit_guest
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.net.door import Door, DropKind, DropLog, Dropped, Entered, address_key, fd_budget
from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting, Guard, NotKoikoi, greet_as_guest, greet_as_host, token_nonce
from p2p_koikoi.net.runner import run_match
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin, dial, dial_any, listen
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing import KOIKOI, free_port, join_bot, koikoi_env, spawn_host
from p2p_koikoi.wire import VERSION, Hello, Ping, encode, public_bytes

RULES = SHORT_LEMME

# -- the bookkeeping -------------------------------------------------------------------------


def entered(door: Door, key: str) -> Entered:
    result = door.enter(key)
    assert isinstance(result, Entered), result
    return result


def test_a_full_door_lets_the_newcomer_in_and_pushes_out_the_oldest_waiting() -> None:
    door = Door(per_address=2, total=3)
    a, b, c = (entered(door, key).ticket for key in "abc")
    newcomer = entered(door, "d")
    assert newcomer.evicted is a and door.waiting == 3
    assert door.greet(a) is DropKind.EVICTED  # pushed out: it can no longer greet
    door.leave(a)  # its admission ends later and leaves: nothing changes
    assert door.waiting == 3
    assert [entered(door, key).evicted for key in "ef"] == [b, c]


def test_an_address_at_its_cap_pushes_out_only_its_own() -> None:
    door = Door(per_address=2, total=10)
    other = entered(door, "guest").ticket
    first, second = entered(door, "flood").ticket, entered(door, "flood").ticket
    for _ in range(50):  # one address reconnecting fast churns its own two slots, nobody else's
        pushed = entered(door, "flood").evicted
        assert pushed is not None and pushed.key == "flood"
    assert first not in door and second not in door and other in door


def test_the_heaviest_address_loses_its_oldest_first() -> None:
    door = Door(per_address=4, total=4)
    guest = entered(door, "guest").ticket  # the oldest of all
    heavy = [entered(door, "heavy").ticket for _ in range(3)]
    assert entered(door, "other").evicted is heavy[0]
    assert entered(door, "other2").evicted is heavy[1]
    # now every address holds one: the oldest goes, which is the guest
    assert entered(door, "other3").evicted is guest


def test_greeted_connections_are_never_pushed_out_and_get_half_the_door() -> None:
    door = Door(per_address=4, total=4)
    tickets = [entered(door, f"10.0.0.{n}").ticket for n in range(4)]
    assert door.greet(tickets[0]) is None and door.greet(tickets[1]) is None
    assert door.greet(tickets[2]) is DropKind.CROWDED_GREETED  # half the door: the rest must churn
    for n in range(20):
        pushed = entered(door, f"10.0.1.{n}").evicted
        assert pushed is not None and pushed not in tickets[:2]
    assert door.greeted == 2 and door.waiting == 4


def test_a_door_of_greeted_connections_turns_newcomers_away() -> None:
    door = Door(per_address=1, total=1)
    assert door.greet(entered(door, "a").ticket) is None
    assert door.enter("a") is DropKind.CROWDED_ADDRESS  # its only slot has greeted
    assert door.enter("b") is DropKind.CROWDED  # nobody to push out
    assert door.waiting == 1


def test_a_guest_that_greets_within_a_few_arrivals_survives_any_flood() -> None:
    """From 100 addresses, connections arrive without end; the guest's hello is read within a few
    arrivals of its own (the host's scheduler interleaves accepting and reading), and that is all it
    needs: only ``total`` newer arrivals could push it out."""
    door = Door(total=32)
    for n in range(1000):
        entered(door, f"127.0.0.{n % 100}")
    guest = entered(door, "192.0.2.7").ticket
    for n in range(10):
        assert entered(door, f"127.0.1.{n % 100}").evicted is not guest
    assert door.greet(guest) is None
    for n in range(10_000):
        entered(door, f"127.0.2.{n % 100}")
    assert guest in door


def test_a_home_ipv6_network_counts_as_one_address() -> None:
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"


def test_few_files_mean_few_waiting() -> None:
    assert fd_budget(1024) == 32
    assert fd_budget(64) == 12
    assert fd_budget(16) == 2


def test_a_flood_of_drops_makes_a_few_lines() -> None:
    log = DropLog(window=10)
    lines: list[str] = []
    lines += log.add(0.0, Dropped("192.0.2.1:1", "it does not speak koikoi", DropKind.NOT_KOIKOI))
    for i in range(1999):
        kind = DropKind.NOT_KOIKOI if i % 10 else DropKind.TOO_SLOW
        lines += log.add(i * 0.004, Dropped(f"192.0.2.1:{i}", "x", kind))
    lines += log.tick(25.0)
    lines += log.tick(40.0)
    assert lines == [
        "Dropped a connection from 192.0.2.1:1: it does not speak koikoi. Still waiting.",
        "Dropped 1999 more connections in the last 10 s: not koikoi 1799, too slow 200. Still waiting.",
    ]
    # after a quiet window, the next drop is shown in full again
    assert log.add(60.0, Dropped("198.51.100.9:5", "left", DropKind.LEFT))[0].startswith("Dropped a connection from")


# -- absolute deadlines, on the autojump clock ------------------------------------------------


async def test_pings_do_not_extend_the_wait_for_accept(autojump_clock: trio.testing.MockClock) -> None:
    a, b = trio.testing.memory_stream_pair()
    host_key, guest_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    guest = FramedChannel(b)

    async def pinger() -> None:
        await greet_as_guest(guest, public_bytes(guest_key))
        for n in range(1000):
            await guest.send(Ping(n))
            await trio.sleep(5)

    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pinger)
        greeting = await greet_as_host(FramedChannel(a), public_bytes(host_key))
        with pytest.raises(ConnectionLost, match="did not accept the rules within 300 s"):
            await admit_guest(FramedChannel(a), greeting, host_key, RULES)
        nursery.cancel_scope.cancel()
    assert trio.current_time() - start == pytest.approx(300, abs=1)


async def test_pings_do_not_stand_in_for_a_greeting(autojump_clock: trio.testing.MockClock) -> None:
    a, b = trio.testing.memory_stream_pair()
    await FramedChannel(b).send(Ping(1))
    with pytest.raises(NotKoikoi, match="did not start with a hello"):
        await greet_as_host(FramedChannel(a), public_bytes(Ed25519PrivateKey.generate()))


# -- guards: --guest and the invite token, over loopback TCP ---------------------------------


async def host_once(guard: Guard, port_box: list[int], dropped: list[Dropped], key: Ed25519PrivateKey) -> None:
    async def admit(channel: FramedChannel, greeting: Greeting, peer: str) -> MatchSession:
        return await admit_guest(channel, greeting, key, RULES)

    async def on_listening(addresses: list[Address]) -> None:
        port_box.append(addresses[0].port)

    async def on_dropped(item: Dropped) -> None:
        dropped.append(item)

    channel, session = await listen(
        public_bytes(key),
        admit,
        port=0,
        bind="127.0.0.1",
        on_listening=on_listening,
        on_dropped=on_dropped,
        guard=guard,
    )
    await run_match(channel, session, BotPlayer(RandomAgent(1), 0))


@pytest.mark.parametrize("guarded_by", ["guest", "token"])
async def test_only_the_expected_guest_gets_in(guarded_by: str) -> None:
    host_key, wanted, stranger = (Ed25519PrivateKey.generate() for _ in range(3))
    token = b"t" * 12
    guard = Guard(guest=fingerprint(public_bytes(wanted))) if guarded_by == "guest" else Guard(token=token)
    port_box: list[int] = []
    dropped: list[Dropped] = []
    host_fp = fingerprint(public_bytes(host_key))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host_once, guard, port_box, dropped, host_key)
        while not port_box:
            await trio.sleep(0.01)
        target = [Address("127.0.0.1", port_box[0])]
        with pytest.raises(CouldNotJoin, match="closed the connection before greeting"):
            await dial_any(target, public_bytes(stranger), Pin(host_fp), timeout=5)  # no token, another key
        pin = Pin(host_fp, token if guarded_by == "token" else None)
        channel, greeting, _ = await dial_any(target, public_bytes(wanted), pin, timeout=5)
        report = await run_match(
            channel, MatchSession(1, wanted, greeting.peer_key, greeting.nonces), BotPlayer(RandomAgent(2), 1)
        )
    assert report.ended_by is SessionEnd.MATCH_OVER
    assert [d.kind for d in dropped] == [DropKind.REFUSED]


async def test_a_pinned_key_refuses_an_impostor() -> None:
    host_key = Ed25519PrivateKey.generate()
    port_box: list[int] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host_once, Guard(), port_box, [], host_key)
        while not port_box:
            await trio.sleep(0.01)
        guest = Ed25519PrivateKey.generate()
        wrong = fingerprint(public_bytes(Ed25519PrivateKey.generate()))
        with pytest.raises(CouldNotJoin, match=r"WARNING: 127\.0\.0\.1:\d+ answered with a different key"):
            await dial_any([Address("127.0.0.1", port_box[0])], public_bytes(guest), Pin(wrong), timeout=5)
        nursery.cancel_scope.cancel()


def test_a_token_nonce_is_still_fresh() -> None:
    nonces = {token_nonce(b"t" * 12, "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5", b"k" * 32) for _ in range(50)}
    assert len(nonces) == 50


# -- floods against a whole host process ----------------------------------------------------


def spawn_limited_host(home: Path, port: int, replays: Path, nofile: int) -> subprocess.Popen[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    match = ["--rules", "lemme", "--rounds", "3", "--bot", "random", "--seed", "1", "--no-upnp"]
    return subprocess.Popen(
        [*KOIKOI, "host", "--port", str(port), "--replay-dir", str(replays), *match],
        env=koikoi_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    """Return once the host listens on IPv6 loopback too (so this probe is not one the door counts on 127/8)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("::1", port), timeout=1):
            return
        time.sleep(0.05)
    raise TimeoutError(port)


async def flood(port: int, seconds: float) -> int:
    """Idle, garbage, hello-then-ping and slowloris connections from many loopback addresses, for a
    bounded time and count; returns how many connections were opened."""
    opened = 0
    hello = encode(Hello(VERSION, public_bytes(Ed25519PrivateKey.generate()), b"n" * 32, "flood"))

    async def one(source: str, kind: int) -> None:
        nonlocal opened
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            await sock.bind((source, 0))
            await sock.connect(("127.0.0.1", port))
            opened += 1
            stream = trio.SocketStream(sock)
            if kind == 1:
                await stream.send_all(b"GET / HTTP/1.1\r\n\r\n")
            elif kind == 2:
                await stream.send_all(hello)
                for n in range(100):
                    await stream.send_all(encode(Ping(n)))
                    await trio.sleep(1)
            elif kind == 3:
                for byte in hello:
                    await stream.send_all(bytes([byte]))
                    await trio.sleep(1)
            await trio.sleep(seconds)
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            sock.close()

    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            for i in range(400):
                nursery.start_soon(one, f"127.0.{i % 5}.{2 + i % 40}", i % 4)
                await trio.sleep(0.01)
    return opened


@pytest.mark.parametrize("nofile", [64, 1024])
def test_a_flooded_host_stays_up_and_a_real_guest_plays(tmp_path: Path, nofile: int) -> None:
    port = free_port()
    replays = tmp_path / "replays"
    host = spawn_limited_host(tmp_path / "host", port, replays, nofile)
    try:
        wait_for_port(port)
        opened = trio.run(flood, port, 8.0)
        guest = join_bot(tmp_path / "guest", port, replays)
        _host_out, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert opened > 50
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in host_err + guest.stderr
    drop_lines = [line for line in host_err.splitlines() if line.startswith("Dropped")]
    assert 1 <= len(drop_lines) <= 4, host_err  # a few summary lines, not one per connection
    assert all(read_record(path).complete for path in replays.glob("*.koikoi"))


class KnockingFlood:
    """100 loopback addresses, each connecting again as soon as the host lets go: idle, garbage or a
    hello trickled a byte a second (slowloris), bounded by ``budget`` connections in all."""

    KINDS = ("idle", "garbage", "slowloris")

    def __init__(self, port: int, budget: int) -> None:
        self.port = port
        self.budget = budget
        self.opened = 0
        self.hello = encode(Hello(VERSION, public_bytes(Ed25519PrivateKey.generate()), b"n" * 32, "flood"))

    async def run(self, addresses: int = 100) -> None:
        async with trio.open_nursery() as nursery:
            for n in range(addresses):
                nursery.start_soon(self.keep_knocking, f"127.0.0.{2 + n}", self.KINDS[n % len(self.KINDS)])

    async def keep_knocking(self, source: str, kind: str) -> None:
        while self.opened < self.budget:
            sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                await sock.bind((source, 0))
                await sock.connect(("127.0.0.1", self.port))
                self.opened += 1
                with trio.move_on_after(12):
                    await self.behave(trio.SocketStream(sock), kind)
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                await trio.sleep(0.2)  # refused: the host stopped listening
            finally:
                sock.close()
            await trio.sleep(0.5)  # 100 addresses: up to 200 connections a second, the door churning

    async def behave(self, stream: trio.SocketStream, kind: str) -> None:
        """Send what ``kind`` sends, then hold the connection until the host lets it go."""
        if kind == "garbage":
            await stream.send_all(b"GET / HTTP/1.1\r\n\r\n")
        elif kind == "slowloris":
            for byte in self.hello[:-1]:  # never the last byte: it never greets
                await stream.send_all(bytes([byte]))
                with trio.move_on_after(1):
                    if not await stream.receive_some(1):
                        return
        while await stream.receive_some(4096):
            pass


def test_a_real_guest_gets_in_and_plays_while_100_addresses_keep_the_door_full(tmp_path: Path) -> None:
    """The door full and churning the whole time: the guest (the real `koikoi join`) is started three
    seconds into the flood, which goes on until the guest's match is over."""
    port = free_port()
    replays = tmp_path / "replays"
    match = ["--rules", "lemme", "--rounds", "3", "--bot", "random", "--seed", "1", "--no-upnp"]
    host = spawn_host(tmp_path / "host", port, replays, *match)
    flood = KnockingFlood(port, budget=20_000)

    async def scenario() -> tuple[subprocess.CompletedProcess[str], float]:
        with trio.move_on_after(120):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(flood.run)
                await trio.sleep(3)
                started, opened = time.monotonic(), flood.opened
                guest = await trio.to_thread.run_sync(join_bot, tmp_path / "guest", port, replays)
                nursery.cancel_scope.cancel()
                assert flood.opened > opened  # still flooding while the guest dialled
                return guest, time.monotonic() - started
        raise TimeoutError("the flood and the guest took over 120 s")

    try:
        guest, took = trio.run(scenario)
        _host_out, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    knocked = "The host is busy" in guest.stderr
    print(f"flood: {flood.opened} connections; guest: {took:.1f} s to the end of its match, knocked again: {knocked}")
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0, host_err
    assert "Traceback" not in host_err + guest.stderr
    assert "pushed out by newer connections" in host_err, host_err  # the door was full and evicting
    assert all(read_record(path).complete for path in replays.glob("*.koikoi"))
    assert len(list(replays.glob("*.koikoi"))) == 2


EMFILE_HOST = """
import sys, trio
from p2p_koikoi.net.door import Door
from p2p_koikoi.net.tcp import listen
from p2p_koikoi.wire import public_bytes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

async def main():
    kinds = []
    async def on_listening(addresses):
        print(addresses[0].port, flush=True)
    async def on_dropped(item):
        kinds.append(item.kind.name)
    async def admit(channel, greeting, peer):
        return greeting
    key = public_bytes(Ed25519PrivateKey.generate())
    door = Door(per_address=10000, total=10000)  # no cap: the process must run out of files
    await listen(key, admit, port=0, bind="127.0.0.1", on_listening=on_listening, on_dropped=on_dropped,
                 greeting_deadline=3, door=door)
    print("admitted", kinds.count("NO_FILES") > 0, flush=True)

trio.run(main)
"""


def test_running_out_of_files_pauses_accepting_and_the_host_goes_on(tmp_path: Path) -> None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))

    host = subprocess.Popen(
        [sys.executable, "-c", EMFILE_HOST], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit
    )
    held: list[socket.socket] = []
    try:
        assert host.stdout is not None
        port = int(host.stdout.readline())
        for _ in range(60):  # more than the host can hold open
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(1.5)
        for sock in held:
            sock.close()
        time.sleep(4)  # the greeting deadline frees the host's side

        async def guest() -> None:
            await dial(Address("127.0.0.1", port), public_bytes(Ed25519PrivateKey.generate()))

        trio.run(guest)
        out, err = host.communicate(timeout=20)
    finally:
        host.kill()
        for sock in held:
            sock.close()
    assert host.returncode == 0, err
    assert "admitted True" in out, (out, err)
