"""Hostile bytes in the middle of a match, through the real runner (the greeting's share is in
test_net.py: the host drops garbage and slowloris guests and keeps listening).

The honest host plays with its record; the "guest" accepts the rules properly, so the match is on,
then sends bytes: garbage, an oversized or empty frame, a frame cut short, a second hello, a frame a
byte a minute, or whatever hypothesis makes up. The host must end the match at once, as the peer's,
with a one-line reason, write its record and a note, and never raise.
"""

from __future__ import annotations

import os
import struct
import uuid
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.runner import MatchReport, run_match
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.writer import RecordWriter
from p2p_koikoi.session.events import SessionEnd
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.wire import VERSION, Hello, SignedEntry, encode, encode_frame, public_bytes
from p2p_koikoi.wire.codec import pack

KEYS = (Ed25519PrivateKey.from_private_bytes(b"\x05" * 32), Ed25519PrivateKey.from_private_bytes(b"\x06" * 32))
NONCES = (b"\x07" * 32, b"\x08" * 32)


async def host_against(payload: bytes, directory: Path, *, close: bool = True, trickle: float = 0) -> MatchReport:
    """The honest host's match against a guest that accepts, then sends ``payload`` (all at once, or a
    byte every ``trickle`` seconds), then closes its side (or not). Returns when the host's runner does."""
    rules = preset("lemme")
    host = MatchSession(0, KEYS[0], public_bytes(KEYS[1]), NONCES, rules=rules, master_secret=b"\x01" * 32)
    guest = MatchSession(1, KEYS[1], public_bytes(KEYS[0]), NONCES, master_secret=b"\x02" * 32)
    ours, theirs = trio.testing.memory_stream_pair()
    record = RecordWriter(directory, lambda: "host.koikoi", seat=0)
    peer = FramedChannel(theirs)
    reports: list[MatchReport] = []

    async def play() -> None:
        reports.append(await run_match(FramedChannel(ours), host, BotPlayer(RandomAgent(1), 0), record))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        frame = await peer.receive()
        assert isinstance(frame, SignedEntry) and frame.entry.kind == "match"
        guest.receive(frame)
        guest.accept()
        for signed in guest.take_outgoing():
            await peer.send(signed)

        async def send() -> None:
            if trickle:
                for byte in payload:
                    await theirs.send_all(bytes([byte]))
                    await trio.sleep(trickle)
            else:
                await theirs.send_all(payload)
            if close:
                await theirs.send_eof()

        nursery.start_soon(send)
        # A guard against a hang, in mock seconds: generous, because the autojump clock also jumps
        # to the next deadline whenever a worker thread (the bot, an fsync) keeps every task waiting.
        with trio.fail_after(24 * 3600):
            while not reports:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    record.close()
    (report,) = reports
    return report


CASES = [
    (encode_frame(b"\xc1 garbage"), "bad-msgpack", "not valid msgpack"),
    (b"GET / HTTP/1.1\r\n\r\n", "frame-too-large", "1195725856-byte frame"),
    (struct.pack(">I", 2**32 - 1), "frame-too-large", "4294967295-byte frame"),
    (struct.pack(">I", 0), "empty-frame", "empty frame"),
    (encode_frame(pack(["ping", 1]))[:-1], "truncated-frame", "closed inside a frame"),
    (encode(Hello(VERSION, b"k" * 32, b"n" * 32, "x")), "bad-frame", "a second hello"),
    (encode_frame(pack(["entry", b"\x93\x01\x02\x03", b"s" * 64])), "bad-entry", "an array of 8 fields"),
    (encode_frame(b"\xcd\x00\x01"), "not-canonical", "canonical"),
    (encode_frame(pack(["ping", 2**40])), "bad-frame", "one small whole number"),
    (encode_frame(pack([[[[[[1]]]]]])), "too-deep", "deeper than 4"),
]


@pytest.mark.parametrize(("payload", "reason", "words"), CASES, ids=[c[1] + f"-{i}" for i, c in enumerate(CASES)])
async def test_bad_bytes_mid_match_end_it_with_a_note(tmp_path: Path, payload: bytes, reason: str, words: str) -> None:
    """Bad bytes end nothing on their own (SPEC.md section 7): the host notes them with the reason id and
    drops the connection; the peer, gone for good, then loses by its silence. Told in one line, the record
    complete up to the last good entry, then the host's claim."""
    report = await host_against(payload, tmp_path)
    assert report.ended_by is SessionEnd.PEER_VANISHED
    assert report.failure is None
    assert reason in report.text and words in report.text and "\n" not in report.text
    record = read_record(tmp_path / "host.koikoi")
    assert record.complete
    assert record.entries[-1].entry.body[0] == "peer-gone"
    assert [n.reason for n in record.notes] == [reason]


async def test_a_slowloris_mid_match_is_cut_off(tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """A frame begun and then fed a byte a minute: cut off by the frame deadline (10 s), not left to
    hold the match forever."""
    report = await host_against(encode_frame(pack(["ping", 1])), tmp_path, close=False, trickle=60)
    assert report.ended_by is SessionEnd.PEER_VANISHED
    # The frame deadline, not the 20 s silence deadline nor the next byte 60 s on, ended it. (The clock
    # itself is no measure here: the autojump clock also jumps while the bots think in worker threads.)
    assert report.text == "a frame took longer than 10 s to arrive"


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.binary(min_size=1, max_size=300), st.booleans())
def test_any_bytes_mid_match_end_it_cleanly(tmp_path: Path, payload: bytes, close: bool) -> None:
    """Whatever the bytes (and whether the peer then closes or goes quiet), the host's runner returns
    (it never raises, and on the autojump clock its deadlines end any wait), the match is the peer's,
    and the record reads back whole."""
    directory = tmp_path / uuid.uuid4().hex

    async def main() -> MatchReport:
        return await host_against(payload, directory, close=close)

    report = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert report.ended_by is SessionEnd.PEER_VANISHED, report
    assert "\n" not in report.text
    assert read_record(directory / "host.koikoi").complete
