"""The wire: frames, canonical msgpack, signed entries and the chain."""

from __future__ import annotations

import struct

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.wire import (
    MAX_FRAME,
    VERSION,
    Chain,
    Entry,
    FrameDecoder,
    Hello,
    Ping,
    RemoteProtocolError,
    SignedEntry,
    encode,
    encode_frame,
    match_id_of,
    parse_frame,
    public_bytes,
)
from p2p_koikoi.wire.codec import pack, unpack


def reason(exc: pytest.ExceptionInfo[RemoteProtocolError]) -> str:
    return exc.value.reason


def test_frames_whole_and_a_byte_at_a_time() -> None:
    data = encode_frame(b"one") + encode_frame(b"two")
    decoder = FrameDecoder()
    decoder.receive_data(data)
    assert [decoder.next_frame(), decoder.next_frame(), decoder.next_frame()] == [b"one", b"two", None]
    decoder = FrameDecoder()
    got = []
    for byte in data:
        decoder.receive_data(bytes([byte]))
        frame = decoder.next_frame()
        if frame is not None:
            got.append(frame)
    assert got == [b"one", b"two"]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (struct.pack(">I", MAX_FRAME + 1), "frame-too-large"),
        (struct.pack(">I", 2**32 - 1), "frame-too-large"),
        (struct.pack(">I", 0), "empty-frame"),
    ],
)
def test_bad_length_prefixes_fail_before_buffering(data: bytes, why: str) -> None:
    with pytest.raises(RemoteProtocolError) as exc:
        FrameDecoder().receive_data(data)
    assert reason(exc) == why


def test_a_truncated_frame_at_the_end_of_input() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(b"hello")[:-1])
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as exc:
        decoder.next_frame()
    assert reason(exc) == "truncated-frame"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\xc1", "bad-msgpack"),
        (pack([1.5]), "bad-type"),
        (pack({}), "bad-type"),
        (b"\xcd\x00\x01", "not-canonical"),
        (pack([[[[[1]]]]]), "too-deep"),
        (msgpack.packb(msgpack.ExtType(1, b"x")), "bad-msgpack"),
        (b"\xdd\xff\xff\xff\xff", "bad-msgpack"),
        (pack([1]) + b"x", "bad-msgpack"),
    ],
)
def test_hostile_msgpack(data: bytes, why: str) -> None:
    with pytest.raises(RemoteProtocolError) as exc:
        unpack(data)
    assert reason(exc) == why


def test_control_frames_round_trip() -> None:
    for frame in (Hello(VERSION, b"k" * 32, b"n" * 32, "x"), Ping(7)):
        body = encode(frame)[4:]
        assert parse_frame(body) == frame
    with pytest.raises(RemoteProtocolError) as exc:
        parse_frame(pack(["hello", VERSION - 1, b"k" * 32, b"n" * 32, "x"]))  # an older peer
    assert reason(exc) == "bad-version"
    with pytest.raises(RemoteProtocolError) as exc:
        parse_frame(pack(["hello", VERSION + 1, b"k" * 32, b"n" * 32, "x"]))
    assert reason(exc) == "bad-version"


KEYS = (Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate())
PUBLIC = (public_bytes(KEYS[0]), public_bytes(KEYS[1]))
MATCH = match_id_of(PUBLIC, (b"a" * 32, b"b" * 32))


def chain() -> Chain:
    return Chain(MATCH, PUBLIC)


def test_a_chain_of_entries_links_and_verifies() -> None:
    mine, theirs = chain(), chain()
    for seat in (0, 1, 0):
        signed = mine.append_local(seat, "goodbye", ["x", "y", None], b"\0" * 16, KEYS[seat])
        again = SignedEntry.parse(signed.data, signed.signature)
        theirs.append_remote(again, seat)
    assert theirs.head == mine.head


def test_chain_violations() -> None:
    good = chain()
    first = good.append_local(0, "goodbye", ["x", "y", None], b"\0" * 16, KEYS[0])
    receiver = chain()
    forged = SignedEntry.sign(first.entry, KEYS[1])  # signed by the wrong key
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(forged, 0)
    assert reason(exc) == "bad-signature"
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(first, 1)
    assert reason(exc) == "out-of-turn"
    other = Entry(b"\x02" * 32, 0, MATCH, 0, "goodbye", ["x", "y", None], b"\0" * 16)
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(SignedEntry.sign(other, KEYS[0]), 0)
    assert reason(exc) == "wrong-match"
    receiver.append_remote(first, 0)
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(first, 0)
    assert reason(exc) == "replayed-entry"
    fork = Entry(MATCH, 0, MATCH, 0, "goodbye", ["other", "y", None], b"\0" * 16)
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(SignedEntry.sign(fork, KEYS[0]), 0)
    assert reason(exc) == "fork"
    unlinked = Entry(MATCH, 1, b"\x09" * 32, 1, "goodbye", ["x", "y", None], b"\0" * 16)
    with pytest.raises(RemoteProtocolError) as exc:
        receiver.append_remote(SignedEntry.sign(unlinked, KEYS[1]), 1)
    assert reason(exc) == "bad-link"


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("move", [1, "play pine-crane", None]),
        ("result", [1, 0, "stop", 2, 5, 0, 0]),
        ("nonsense", []),
        ("goodbye", ["x", 3]),
        ("deal", [13, 0, b"x"]),
    ],
)
def test_bodies_are_checked_against_their_schema(kind: str, body: list[object]) -> None:
    entry = Entry(MATCH, 0, MATCH, 0, kind, body, b"\0" * 16)
    with pytest.raises(RemoteProtocolError) as exc:
        Entry.decode(entry.encode())
    assert reason(exc) in ("bad-body", "bad-kind")
