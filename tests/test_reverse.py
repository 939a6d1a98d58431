"""The reverse connection (issue 26 item 2): the answer code's vectors, and a whole match over loopback in
which the guest cannot reach the host, listens, and the host dials the answer code it was handed.

The host is made unreachable by the invite the guest is given: the host's own fingerprint, but a port
nothing listens on, so every dial is refused at once. The host listens elsewhere, and the only way the
two meet is the host dialling the guest's answer code."""

from __future__ import annotations

import contextlib
import json
import re
import socket
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app import netplay
from p2p_koikoi.app.answer_back import SEND_BACK, AnswerBack
from p2p_koikoi.app.dial_back import Pasted, check_answer
from p2p_koikoi.app.netplay import HostOptions, JoinOptions, NetMatchResult, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.answer import MAX_TEXT, Answer, AnswerError
from p2p_koikoi.net.invite import Invite
from p2p_koikoi.net.reverse import await_host, dial_guest
from p2p_koikoi.net.tcp import Address, CouldNotJoin, Pin
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.record.verify import Verdict
from p2p_koikoi.wire import public_bytes

VECTORS = json.loads((Path(__file__).parent.parent / "protocol" / "vectors" / "answer-codes.json").read_text())


@pytest.mark.parametrize("vector", VECTORS["valid"], ids=lambda v: str(v["name"]))
def test_the_answer_code_vectors(vector: dict[str, object]) -> None:
    guest, host = bytes.fromhex(str(vector["guest_key"])), bytes.fromhex(str(vector["host_key"]))
    assert (fingerprint(guest), fingerprint(host)) == (vector["guest"], vector["host"])
    punch = (str(vector["punch"][0]), int(vector["punch"][1])) if vector["punch"] else None  # type: ignore[index]
    addresses = tuple(str(a) for a in vector["addresses"])  # type: ignore[attr-defined]
    relay = (str(vector["relay"][0]), int(vector["relay"][1])) if vector["relay"] else None  # type: ignore[index]
    spray = bool(vector.get("spray", False))  # flags bit 3: the guest's NAT maps each destination anew
    answer = Answer(addresses, int(str(vector["port"])), fingerprint(guest), fingerprint(host), punch, relay, spray)
    assert answer.format() == vector["code"]
    assert Answer.parse(str(vector["code"])) == answer
    assert Answer.parse(str(vector["code"]).upper().replace("KKA1:", "kka1:")) == answer  # a chat program shouted it
    assert len(str(vector["code"])) <= MAX_TEXT


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: str(v["name"]))
def test_the_refused_answer_codes(vector: dict[str, str]) -> None:
    with pytest.raises(AnswerError, match=vector["error"]):
        Answer.parse(vector["code"])


def test_an_invite_is_no_answer_and_an_answer_no_invite() -> None:
    """Each code's check has its own domain tag: one pasted where the other belongs is refused, not misread."""
    answer = VECTORS["valid"][0]
    with pytest.raises(AnswerError):
        Answer.parse("kka1:" + Invite(("203.0.113.7",), 7447, answer["host"]).format()[4:])
    with pytest.raises(ValueError, match="check does not match"):
        Invite.parse("kk1:" + str(answer["code"])[5:])


def test_the_host_says_which_pasted_lines_it_will_not_dial() -> None:
    vector = VECTORS["valid"][0]
    ours, guest = str(vector["host"]), str(vector["guest"])
    assert isinstance(check_answer(str(vector["code"]), ours, None), Answer)
    assert "not an answer code" in str(check_answer("hello", ours, None))
    other = fingerprint(bytes(32))
    assert "another host" in str(check_answer(str(vector["code"]), other, None))
    assert "only" in str(check_answer(str(vector["code"]), ours, other))
    assert isinstance(check_answer(str(vector["code"]), ours, guest), Answer)


def test_a_code_wrapped_over_lines_is_joined_again() -> None:
    code = str(VECTORS["valid"][1]["code"])
    pasted = Pasted()
    assert pasted.feed(code) == code  # whole: at once
    assert pasted.feed(code[:20]) is None and pasted.held == code[:20]  # wrapped: held...
    assert pasted.feed("   " + code[20:50] + "  ") is None
    assert pasted.feed(code[50:]) == code  # ...until it passes its check
    assert pasted.feed(code[:20]) is None
    assert pasted.feed(code) == code  # a fresh code starts afresh
    assert pasted.feed("hello") == "hello"  # not a code: checked at once, and refused there
    assert pasted.feed("kka1:" + "a" * 600) == "kka1:" + "a" * 600  # too long to be incomplete
    assert pasted.feed("") is None and not pasted.held


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_guest_admits_only_the_host_its_invite_named() -> None:
    """A stranger that dials the guest's port gets the guest's hello and is dropped; the host is let in."""
    host, guest, stranger = (public_bytes(Ed25519PrivateKey.generate()) for _ in range(3))
    ports: list[int] = []
    listening = trio.Event()

    async def on_listening(addresses: list[Address]) -> None:
        ports.append(addresses[0].port)
        listening.set()

    reached: list[object] = []

    async def guest_side() -> None:
        reached.append(
            await await_host(guest, Pin(fingerprint(host)), port=0, bind="127.0.0.1", on_listening=on_listening)
        )

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(guest_side)
            await listening.wait()
            answer = Answer(("127.0.0.1",), ports[0], fingerprint(guest), fingerprint(host))
            with pytest.raises(CouldNotJoin, match="did not lead to its guest"):
                await dial_guest(Answer(("127.0.0.1",), ports[0], fingerprint(stranger), fingerprint(host)), stranger)
            assert not reached
            channel, greeting, _ = await dial_guest(answer, host)
            assert greeting.peer_key == guest
            await channel.close()
    assert reached


async def test_a_whole_match_when_only_the_guest_can_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "home"))
    keys = [Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()]
    chosen = iter(keys)
    monkeypatch.setattr(netplay, "load_identity", lambda: next(chosen))  # the host's key, then the guest's
    replays = tmp_path / "replays"
    options = HostOptions(preset("lemme").with_option("rounds", "3"), 0, "127.0.0.1", 0, replays, upnp=False)
    unreachable = Invite(("127.0.0.1",), _closed_port(), fingerprint(public_bytes(keys[0])))
    pasted_in, pasted = trio.open_memory_channel[str | None](10)
    host_lines: list[str] = []
    guest_lines: list[str] = []
    results: dict[int, NetMatchResult] = {}
    codes: list[str] = []

    async def read_pasted() -> str | None:
        return await pasted.receive()

    def guest_say(line: str) -> None:
        guest_lines.append(line)
        found = re.fullmatch(r"  (kka1:\S+)", line)
        if found:
            code = found.group(1)
            codes.append(code)
            pasted_in.send_nowait("this is not a code")  # a slip first: said, and the host waits on
            pasted_in.send_nowait(code[:30])  # then the code as a wrapped screen gives it: in two lines
            pasted_in.send_nowait("    " + code[30:])

    async def no(question: str) -> bool:
        return False

    hosting = trio.Event()

    def host_say(line: str) -> None:
        host_lines.append(line)
        hosting.set()

    async def host() -> None:
        player = lambda seat: BotPlayer(RandomAgent(7), seat)  # noqa: E731
        results[0] = await host_match(options, player, host_say, None, read_pasted)

    async def guest() -> None:
        await hosting.wait()  # the host took the first key
        back = AnswerBack(0, "127.0.0.1", upnp=False)
        join = JoinOptions.from_invite(unreachable, replays, 5.0, back)
        player = lambda seat: BotPlayer(RandomAgent(8), seat)  # noqa: E731
        results[1] = await join_match(join, player, guest_say, no)

    with trio.move_on_after(120) as waited:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
    assert not waited.cancelled_caught, "\n".join([*host_lines, "--", *guest_lines])

    assert results[0].ok and results[1].ok, (results, host_lines, guest_lines)
    assert any("refused" in line for line in guest_lines if line.startswith("Could not reach the host")), guest_lines
    assert sum(line.startswith("  kka1:") for line in guest_lines) == 1, guest_lines
    assert guest_lines[guest_lines.index(f"  {codes[0]}") - 1] == SEND_BACK
    assert any("incomplete: paste the rest" in line for line in host_lines), host_lines
    assert any(line.startswith("  Not an answer code") and "still waiting" in line for line in host_lines), host_lines
    assert any("paste it here" in line for line in host_lines), host_lines
    assert any("Dialling the guest back at 127.0.0.1:" in line for line in host_lines), host_lines
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == 2
    assert [r.verdict for r in verify_paths(records, jobs=1)] == [Verdict.VERIFIED] * 2


def test_the_spec_quotes_the_first_vector() -> None:
    spec = (Path(__file__).parent.parent / "protocol" / "INVITE.md").read_text()
    assert str(VECTORS["valid"][0]["code"]) in spec


async def _cutting_proxy(
    target: list[int], cut_after: int, seen: list[int], task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
) -> None:
    """A loopback relay to ``target[0]`` whose first connection is cut once ``cut_after`` bytes went
    through it (a dropped connection mid-match); the ones after it pass whole. ``seen`` gets each
    connection's byte count as it ends."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(int(listeners[0].socket.getsockname()[1]))
    count = 0

    async def handle(client: trio.SocketStream) -> None:
        nonlocal count
        count += 1
        limit = cut_after if count == 1 else None
        try:
            upstream = await trio.open_tcp_stream("127.0.0.1", target[0])
        except OSError:  # the guest is not listening again yet: the host is refused, and dials again
            await trio.aclose_forcefully(client)
            return
        moved = 0
        async with trio.open_nursery() as pumps:

            async def pump(source: trio.SocketStream, sink: trio.SocketStream) -> None:
                nonlocal moved
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    while data := await source.receive_some(4096):
                        await sink.send_all(data)
                        moved += len(data)
                        if limit is not None and moved >= limit:
                            break
                pumps.cancel_scope.cancel()

            pumps.start_soon(pump, client, upstream)
            pumps.start_soon(pump, upstream, client)
        seen.append(moved)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(upstream)

    await trio.serve_listeners(handle, listeners)


async def test_after_a_drop_the_host_dials_the_guest_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reverse connection drops mid-match (a relay in between cuts it): the guest listens again on its
    port, the host dials the answer code's address again, the match resumes and is played out."""
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "home"))
    keys = [Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()]
    chosen = iter(keys)
    monkeypatch.setattr(netplay, "load_identity", lambda: next(chosen))
    replays = tmp_path / "replays"
    options = HostOptions(preset("lemme").with_option("rounds", "3"), 0, "127.0.0.1", 0, replays, upnp=False)
    unreachable = Invite(("127.0.0.1",), _closed_port(), fingerprint(public_bytes(keys[0])))
    pasted_in, pasted = trio.open_memory_channel[str | None](10)
    guest_port: list[int] = []
    relayed: list[int] = []
    results: dict[int, NetMatchResult] = {}
    lines: list[str] = []
    hosting = trio.Event()

    async def no(question: str) -> bool:
        return False

    async def read_pasted() -> str | None:
        return await pasted.receive()

    with trio.move_on_after(120) as waited:
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(_cutting_proxy, guest_port, 3000, relayed)

            def guest_say(line: str) -> None:
                lines.append(line)
                if re.fullmatch(r"  kka1:\S+", line):
                    answer = Answer.parse(line)
                    guest_port.append(answer.port)  # the host is handed the relay's port instead
                    pasted_in.send_nowait(Answer(("127.0.0.1",), proxy, answer.guest, answer.host).format())

            def host_say(line: str) -> None:
                lines.append(line)
                hosting.set()

            async def host() -> None:
                player = lambda seat: BotPlayer(RandomAgent(7), seat)  # noqa: E731
                results[0] = await host_match(options, player, host_say, None, read_pasted)

            async def guest() -> None:
                await hosting.wait()
                join = JoinOptions.from_invite(unreachable, replays, 5.0, AnswerBack(0, "127.0.0.1", upnp=False))
                results[1] = await join_match(join, lambda seat: BotPlayer(RandomAgent(8), seat), guest_say, no)

            async def both() -> None:
                async with trio.open_nursery() as players:
                    players.start_soon(host)
                    players.start_soon(guest)
                nursery.cancel_scope.cancel()

            nursery.start_soon(both)
    assert not waited.cancelled_caught, "\n".join(lines)
    assert results[0].ok and results[1].ok, (results, lines)
    assert len(relayed) >= 2 and relayed[0] >= 3000, relayed  # cut once, then dialled again through the relay
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == 2
    assert [r.verdict for r in verify_paths(records, jobs=1)] == [Verdict.VERIFIED] * 2
