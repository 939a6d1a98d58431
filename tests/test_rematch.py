"""Another match on the same connection (issue 29 item 1, SPEC.md section 9), on trio memory streams with
the autojump clock: both yes, then a greeting with fresh nonces and so a new match id; a no, the 30 s
timeout and a dropped connection each end it; and what an attacker can try (a yes then silence, a yes
twice, an answer naming another match, a greeting with an old nonce or another key, a rematch frame in
the middle of a match) is refused."""

from __future__ import annotations

import math
import secrets

import pytest
import trio
import trio.testing

from p2p_koikoi.net.framed import ConnectionLost, FramedChannel
from p2p_koikoi.net.handshake import Greeting
from p2p_koikoi.net.rematch import REMATCH_WAIT, Series, Verdict, agree, greet_again
from p2p_koikoi.wire import VERSION, Hello, RemoteProtocolError, match_id_of, parse_frame
from p2p_koikoi.wire.frames import Answer, Rematch, encode

KEYS = (b"\x11" * 32, b"\x22" * 32)
OLD_NONCES = (b"\x01" * 32, b"\x02" * 32)
MATCH = match_id_of(KEYS, OLD_NONCES)


def _channels() -> tuple[FramedChannel, FramedChannel]:
    a, b = trio.testing.memory_stream_pair()
    return FramedChannel(a), FramedChannel(b)


def _series(seat: int) -> Series:
    series = Series(KEYS[seat], KEYS[1 - seat])
    series.met(Greeting(KEYS[1 - seat], OLD_NONCES, "test"))
    return series


def _says(answer: bool | None, after: float = 0.0):
    async def ask() -> bool:
        await trio.sleep(after)
        if answer is None:
            await trio.sleep(math.inf)  # a player who never answers
        return bool(answer)

    return ask


async def _both(host_says, guest_says) -> tuple[Verdict, Verdict]:
    host, guest = _channels()
    verdicts: dict[int, Verdict] = {}

    async def side(seat: int, channel: FramedChannel, ask) -> None:
        verdicts[seat] = await agree(channel, MATCH, ask)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, 0, host, host_says)
        nursery.start_soon(side, 1, guest, guest_says)
    return verdicts[0], verdicts[1]


async def test_both_yes_agree_and_the_next_match_has_fresh_nonces_and_a_new_id(autojump_clock) -> None:
    assert await _both(_says(True, 3), _says(True, 12)) == (Verdict.AGREED, Verdict.AGREED)
    host, guest = _channels()
    greetings: dict[int, Greeting] = {}

    async def side(seat: int, channel: FramedChannel) -> None:
        greetings[seat] = await greet_again(channel, seat, _series(seat))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, 0, host)
        nursery.start_soon(side, 1, guest)
    nonces = greetings[0].nonces
    assert nonces == greetings[1].nonces and not set(nonces) & set(OLD_NONCES)
    assert greetings[0].peer_key == KEYS[1] and greetings[1].peer_key == KEYS[0]
    assert match_id_of(KEYS, nonces) != MATCH


async def test_a_no_ends_it_for_both_and_calls_the_other_question_off(autojump_clock) -> None:
    started = trio.current_time()
    assert await _both(_says(False, 2), _says(None)) == (Verdict.WE_DECLINED, Verdict.PEER_DECLINED)
    assert trio.current_time() - started < REMATCH_WAIT  # the guest's player was not kept waiting
    assert await _both(_says(True, 1), _says(False, 5)) == (Verdict.PEER_DECLINED, Verdict.WE_DECLINED)


async def test_no_answer_within_30_seconds_ends_it(autojump_clock) -> None:
    started = trio.current_time()
    assert await _both(_says(True, 1), _says(None)) == (Verdict.TIMED_OUT, Verdict.TIMED_OUT)
    assert trio.current_time() - started == pytest.approx(REMATCH_WAIT)
    assert Verdict.TIMED_OUT.line.count("\n") == 0 and "30 s" in Verdict.TIMED_OUT.line


async def test_a_dropped_connection_ends_it(autojump_clock) -> None:
    host, guest = _channels()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(guest.close)
        assert await agree(host, MATCH, _says(None)) is Verdict.LOST


async def _raw(channel: FramedChannel, *frames: bytes) -> None:
    for data in frames:
        await channel.stream.send_all(data)


@pytest.mark.parametrize(
    ("frames", "words"),
    [
        ((encode(Rematch(MATCH, Answer.YES)), encode(Rematch(MATCH, Answer.YES))), "second answer"),
        ((encode(Rematch(b"\x09" * 32, Answer.YES)),), "another frame"),
        ((encode(Hello(VERSION, KEYS[1], b"\x05" * 32, "x")),), "another frame"),
    ],
)
async def test_a_second_yes_or_an_answer_about_another_match_is_the_peers_fault(
    autojump_clock,
    frames: tuple[bytes, ...],
    words: str,
) -> None:
    host, guest = _channels()
    await _raw(guest, *frames)
    with pytest.raises(RemoteProtocolError) as info:
        await agree(host, MATCH, _says(True, 5))
    assert info.value.reason == "bad-frame" and words in str(info.value)


async def test_a_second_yes_after_both_agreed_is_no_greeting(autojump_clock) -> None:
    host, guest = _channels()
    await _raw(guest, encode(Rematch(MATCH, Answer.YES)))
    assert await agree(host, MATCH, _says(True, 1)) is Verdict.AGREED
    await _raw(guest, encode(Rematch(MATCH, Answer.YES)))
    with pytest.raises(RemoteProtocolError) as info:
        await greet_again(host, 0, _series(0))
    assert info.value.reason == "bad-frame"


async def test_a_yes_then_silence_ends_at_the_greetings_deadline(autojump_clock) -> None:
    host, _guest = _channels()
    started = trio.current_time()
    with pytest.raises(ConnectionLost):
        await greet_again(host, 0, _series(0), deadline=10.0)
    assert trio.current_time() - started == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("hello", "reason"),
    [
        (Hello(VERSION, KEYS[1], OLD_NONCES[1], "x"), "bad-handshake"),  # the guest's old nonce again
        (Hello(VERSION, KEYS[1], OLD_NONCES[0], "x"), "bad-handshake"),  # the host's old nonce, sent back
        (Hello(VERSION, b"\x33" * 32, secrets.token_bytes(32), "x"), "wrong-key"),
    ],
)
async def test_a_greeting_with_an_old_nonce_or_another_key_is_refused(
    autojump_clock,
    hello: Hello,
    reason: str,
) -> None:
    host, guest = _channels()
    await _raw(guest, encode(hello))
    with pytest.raises(RemoteProtocolError) as info:
        await greet_again(host, 0, _series(0))
    assert info.value.reason == reason


def test_the_rematch_frame_reads_back_and_refuses_other_shapes() -> None:
    for answer in Answer:
        data = encode(Rematch(MATCH, answer))
        assert parse_frame(data[4:]) == Rematch(MATCH, answer)
    from p2p_koikoi.wire.codec import pack

    for body in (["rematch", MATCH], ["rematch", MATCH, "maybe"], ["rematch", b"x", "yes"], ["rematch", MATCH, 1]):
        with pytest.raises(RemoteProtocolError) as info:
            parse_frame(pack(body))
        assert info.value.reason == "bad-frame"


async def test_a_rematch_frame_in_the_middle_of_a_match_is_bad_bytes_not_a_second_match(
    autojump_clock,
) -> None:
    """The host offers a match; the 'guest' answers its match entry with a yes to another match: the host takes
    it as bad bytes (a connection fault, SPEC.md section 7), so the guest is gone and, having accepted
    nothing, declined: no second match, and none begun."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_koikoi.app.players import BotPlayer
    from p2p_koikoi.bots import RandomAgent
    from p2p_koikoi.engine import preset
    from p2p_koikoi.net.runner import run_match
    from p2p_koikoi.session.match_session import MatchSession, SessionEnd
    from p2p_koikoi.wire import SignedEntry, public_bytes

    a, b = trio.testing.memory_stream_pair()
    host_key, guest_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    nonces = (secrets.token_bytes(32), secrets.token_bytes(32))
    session = MatchSession(0, host_key, public_bytes(guest_key), nonces, rules=preset("lemme"))
    guest = FramedChannel(b)

    async def rogue() -> None:
        while not isinstance(await guest.receive(), SignedEntry):
            pass
        await guest.send(Rematch(session.match_id, Answer.YES))
        while await guest.receive() is not None:
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(rogue)
        report = await run_match(FramedChannel(a), session, BotPlayer(RandomAgent(1), 0))
        nursery.cancel_scope.cancel()
    assert report.ended_by is SessionEnd.DECLINED, report
    assert "rematch frame in the middle of the match" in report.text, report.text
    assert len(session.chain.entries) == 2  # the match entry and the decline written for the gone guest


@pytest.mark.parametrize("pair", [trio.testing.memory_stream_pair, trio.testing.lockstep_stream_pair])
async def test_our_no_stands_when_the_peer_closes_as_soon_as_it_reads_it(autojump_clock, pair) -> None:
    """A peer that reads our no and parts at once: its EOF may reach our reader before our own task has
    wound up, even before our send returned (the lockstep pair's send returns only once the peer read it);
    the no we sent is still what ended it, never a lost connection. Trio runs ready tasks in a random
    order, so the orders are met over twenty rounds."""
    for _ in range(20):
        ends = pair()
        host, guest = FramedChannel(ends[0]), FramedChannel(ends[1])

        async def parts_on_our_no(channel: FramedChannel = host) -> None:
            frame = await channel.receive()
            assert isinstance(frame, Rematch) and frame.answer is Answer.NO
            await channel.close()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(parts_on_our_no)
            assert await agree(guest, MATCH, _says(False)) is Verdict.WE_DECLINED


async def test_after_a_match_taken_up_again_the_connections_own_greeting_nonce_is_refused(autojump_clock) -> None:
    """A match taken up again on a new connection (a rejoin) was greeted there with nonces of that
    connection, besides the match's own: a rematch greeting that sends the connection's nonce again is
    refused as one that sends the match's would be (SPEC.md section 9), so the series the host keeps counts
    both (:func:`p2p_koikoi.app.series.series_of` with the connection's nonces)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_koikoi.app.series import series_of
    from p2p_koikoi.engine import preset
    from p2p_koikoi.session.match_session import MatchSession
    from p2p_koikoi.wire import public_bytes

    host_key, guest_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    guest_public = public_bytes(guest_key)
    session = MatchSession(0, host_key, guest_public, OLD_NONCES, rules=preset("lemme"))
    rejoined = (b"\x05" * 32, b"\x06" * 32)  # the rejoin's greeting on this connection: host's, guest's
    host, guest = _channels()
    await _raw(guest, encode(Hello(VERSION, guest_public, rejoined[1], "x")))
    with pytest.raises(RemoteProtocolError) as info:
        await greet_again(host, 0, series_of(session, rejoined))
    assert info.value.reason == "bad-handshake"
