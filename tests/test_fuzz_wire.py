"""Hostile bytes against the wire: the frame decoder, the codec, frames, entries and deal messages.

Property: whatever a peer sends ends in a value we accept (and that re-encodes to the very bytes
received: one value, one encoding) or in a :class:`RemoteProtocolError` with a stable reason id from
SPEC.md section 6: never another exception, never a hang, and never a buffer that grows with what
the peer sends rather than with one frame.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import struct
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from p2p_koikoi.fairness import MessageFormatError, parse_message
from p2p_koikoi.wire import MAX_FRAME, Entry, FrameDecoder, Ping, RemoteProtocolError, encode, encode_frame, parse_frame
from p2p_koikoi.wire.codec import MAX_DEPTH, pack, unpack
from p2p_koikoi.wire.framing import HEADER

FRAME_REASONS = {"frame-too-large", "empty-frame", "truncated-frame", "data-after-eof"}
CODEC_REASONS = {"too-large", "bad-msgpack", "not-canonical", "bad-type", "too-deep"}
FRAME_BODY_REASONS = CODEC_REASONS | {"bad-frame", "bad-version", "bad-signature", "bad-entry", "bad-kind", "bad-body"}
ENTRY_REASONS = CODEC_REASONS | {"bad-entry", "bad-version", "bad-kind", "bad-body"}

FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# -- the frame decoder -------------------------------------------------------------------------


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given offsets (taken modulo its length, sorted)."""
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


def drain(decoder: FrameDecoder) -> list[bytes]:
    frames = []
    while (body := decoder.next_frame()) is not None:
        frames.append(body)
    return frames


@FUZZ
@given(st.binary(max_size=4096), st.lists(st.integers(min_value=0), max_size=40))
def test_random_bytes_end_in_frames_or_a_precise_error(data: bytes, cuts: list[int]) -> None:
    """Random bytes in random chunks: whole frames come out, or a frame error with its reason; after
    every chunk, once the whole frames are taken, less than one frame stays buffered."""
    decoder = FrameDecoder()
    try:
        for chunk in split(data, cuts):
            decoder.receive_data(chunk)
            drain(decoder)
            assert decoder.buffered < HEADER + MAX_FRAME
        decoder.receive_data(b"")
        drain(decoder)
        assert decoder.closed
    except RemoteProtocolError as exc:
        assert exc.reason in FRAME_REASONS, exc.reason


@FUZZ
@given(
    st.lists(st.binary(min_size=1, max_size=3000), min_size=1, max_size=12),
    st.lists(st.integers(min_value=0), max_size=60),
)
def test_frames_come_out_whole_however_the_stream_is_split(bodies: list[bytes], cuts: list[int]) -> None:
    """Trickled, split anywhere, or whole: the same frames, in order; the buffer never holds more than
    the frame being read plus the chunk just received."""
    stream = b"".join(encode_frame(body) for body in bodies)
    decoder = FrameDecoder()
    out: list[bytes] = []
    for chunk in split(stream, cuts):
        decoder.receive_data(chunk)
        assert decoder.buffered <= HEADER + MAX_FRAME + len(chunk)
        out += drain(decoder)
    decoder.receive_data(b"")
    assert drain(decoder) == [] and decoder.closed
    assert out == bodies


def test_a_frame_a_byte_at_a_time() -> None:
    body = pack(["ping", 7])
    decoder = FrameDecoder()
    for i, byte in enumerate(encode_frame(body)):
        assert decoder.next_frame() is None, i
        decoder.receive_data(bytes([byte]))
    assert decoder.next_frame() == body


@given(st.integers(min_value=MAX_FRAME + 1, max_value=2**32 - 1))
@example(2**32 - 1)
@example(2**32 - 2)
@example(MAX_FRAME + 1)
def test_an_oversized_length_is_refused_on_its_fourth_byte(length: int) -> None:
    """A length prefix up to 2^32 - 1 costs us four bytes: refused the moment the fourth arrives,
    before any of the body is buffered."""
    decoder = FrameDecoder()
    prefix = struct.pack(">I", length)
    for byte in prefix[:3]:
        decoder.receive_data(bytes([byte]))
    with pytest.raises(RemoteProtocolError) as caught:
        decoder.receive_data(prefix[3:])
    assert caught.value.reason == "frame-too-large"
    assert str(length) in str(caught.value)
    assert decoder.buffered == HEADER


def test_the_largest_frame_is_taken_and_an_empty_one_refused() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(b"x" * MAX_FRAME))
    assert decoder.next_frame() == b"x" * MAX_FRAME
    with pytest.raises(RemoteProtocolError) as caught:
        decoder.receive_data(struct.pack(">I", 0))
    assert caught.value.reason == "empty-frame"


def test_a_frame_cut_short_by_the_end_of_stream() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode_frame(b"abcdef")[:-1])
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as caught:
        decoder.next_frame()
    assert caught.value.reason == "truncated-frame"


def test_data_after_the_end_of_stream() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as caught:
        decoder.receive_data(b"\x00")
    assert caught.value.reason == "data-after-eof"


def test_an_endless_stream_keeps_the_buffer_bounded() -> None:
    """Ten megabytes of keepalives, read as a socket delivers them: the buffer never holds more than one
    read's worth, however long the peer goes on."""
    read = 16384
    ping = encode(Ping(123))
    stream = ping * (10_000_000 // len(ping))
    decoder = FrameDecoder()
    most = frames = 0
    for start in range(0, len(stream), read):
        decoder.receive_data(stream[start : start + read])
        most = max(most, decoder.buffered)
        frames += len(drain(decoder))
        assert decoder.buffered < len(ping)
    assert frames == len(stream) // len(ping)
    assert most <= read + len(ping)


# -- the codec ------------------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=80)
    | st.binary(max_size=80)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=30,
)


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_through_the_codec(data: bytes) -> None:
    try:
        value = unpack(data)
    except RemoteProtocolError as exc:
        assert exc.reason in CODEC_REASONS, exc.reason
        return
    assert pack(value) == data


def _packings(value: Any) -> list[bytes]:
    out = []
    for options in ({"use_bin_type": True}, {"use_bin_type": False}, {"use_single_float": True}):
        with contextlib.suppress(OverflowError, ValueError, TypeError):  # too big for msgpack at all
            out.append(msgpack.packb(value, **options))
    return out


def _depth(value: Any) -> int:
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return 1 + max((_depth(v) for v in items), default=0)
    return 0


@FUZZ
@given(VALUES)
def test_any_msgpack_value_is_taken_back_exactly_or_refused(value: Any) -> None:
    """Values with maps, floats, too much nesting, or non-canonical encodings are refused, each with
    its reason; everything else comes back equal, from the one canonical encoding."""
    for data in _packings(value):
        try:
            back = unpack(data)
        except RemoteProtocolError as exc:
            assert exc.reason in CODEC_REASONS, exc.reason
            continue
        assert pack(back) == data
        assert _depth(back) <= MAX_DEPTH


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100, 1000, 5000, MAX_FRAME - 1])
def test_deep_nesting_is_refused_without_recursion(depth: int) -> None:
    data = b"\x91" * depth + b"\xc0"
    with pytest.raises(RemoteProtocolError) as caught:
        unpack(data[:MAX_FRAME])
    assert caught.value.reason in ("too-deep", "bad-msgpack")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xcd\x00\x01", "not-canonical"),  # 1 as a uint16
        (b"\xd9\x01a", "not-canonical"),  # a one-byte str8
        (b"\xa1a", None),  # the canonical fixstr
        (b"\xcf" + b"\xff" * 8, None),  # 2^64 - 1: the largest integer msgpack has
        (b"\xd3\x80" + b"\x00" * 7, None),  # -2^63
        (b"\xcb" + b"\x00" * 8, "bad-type"),  # a float
        (b"\x81\xa1a\xc0", "bad-msgpack"),  # a map
        (b"\x80", "bad-type"),  # an empty map
        (b"\xd4\x01\x00", "bad-msgpack"),  # an ext type
        (b"\xd6\xff\x00\x00\x00\x00", "bad-msgpack"),  # a timestamp
        (b"\xc1", "bad-msgpack"),  # never used
        (b"\xdd\xff\xff\xff\xff", "bad-msgpack"),  # an array announcing 2^32 - 1 items
        (b"\xc6\xff\xff\xff\xff", "bad-msgpack"),  # bin announcing 4 GiB
        (b"\xa2\xff\xfe", "bad-msgpack"),  # a str that is no UTF-8
        (b"\xc0\xc0", "bad-msgpack"),  # trailing data
        (b"", "bad-msgpack"),
    ],
)
def test_codec_edge_cases(data: bytes, reason: str | None) -> None:
    if reason is None:
        assert pack(unpack(data)) == data
        return
    with pytest.raises(RemoteProtocolError) as caught:
        unpack(data)
    assert caught.value.reason == reason


def test_an_oversized_body_is_refused_before_decoding() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        unpack(b"\xc0" * (MAX_FRAME + 1))
    assert caught.value.reason == "too-large"


# -- frame bodies and entries -------------------------------------------------------------------

NAMES = st.sampled_from(["hello", "ping", "pong", "entry", "resume", "resume-proof", "goodbye", ""]) | st.text(
    max_size=8
)
FIELD = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.sampled_from([0, 1, 2, 2**31 - 1, 2**31, -1])
    | st.binary(max_size=70)
    | st.binary(min_size=32, max_size=32)
    | st.binary(min_size=64, max_size=64)
    | st.text(max_size=40)
    | st.lists(st.integers(min_value=-2, max_value=2), max_size=3)
)


@FUZZ
@given(NAMES, st.lists(FIELD, max_size=8))
def test_frame_bodies_of_any_shape(name: str, fields: list[Any]) -> None:
    """Arrays with any name and fields of any type: a frame that re-encodes to the very body, or a
    precise error."""
    body = pack([name, *fields])
    try:
        frame = parse_frame(body)
    except RemoteProtocolError as exc:
        assert exc.reason in FRAME_BODY_REASONS, exc.reason
        return
    assert encode(frame)[HEADER:] == body


@FUZZ
@given(st.binary(max_size=600))
def test_random_frame_bodies(body: bytes) -> None:
    try:
        parse_frame(body)
    except RemoteProtocolError as exc:
        assert exc.reason in FRAME_BODY_REASONS, exc.reason


KINDS = st.sampled_from(["match", "accept", "decline", "deal", "move", "result", "goodbye"]) | st.text(max_size=6)
BODY_FIELD = (
    FIELD
    | st.sampled_from(["play pine-crane", "koikoi", "stop", "pass", "", "\x00", "é" * 500, "x" * 3000])
    | st.binary(min_size=4097, max_size=4100)
)


@FUZZ
@given(
    st.lists(FIELD, min_size=8, max_size=8),
    st.booleans(),
    KINDS,
    st.lists(BODY_FIELD, max_size=8),
    st.sampled_from([0, 1, 2]),
)
def test_entries_of_any_shape(fields: list[Any], plausible: bool, kind: str, body: list[Any], author: int) -> None:
    """An 8-field array with wrong types anywhere (or a well-formed header with a body of any shape)
    decodes to an entry that re-encodes to the same bytes, or fails with a precise reason."""
    if plausible:
        fields = [1, b"m" * 32, 5, b"p" * 32, author, kind, body, b"s" * 16]
    data = pack(fields)
    try:
        entry = Entry.decode(data)
    except RemoteProtocolError as exc:
        assert exc.reason in ENTRY_REASONS, exc.reason
        return
    assert entry.encode() == data


@FUZZ
@given(st.binary(max_size=2000))
def test_random_entry_bytes(data: bytes) -> None:
    try:
        Entry.decode(data)
    except RemoteProtocolError as exc:
        assert exc.reason in ENTRY_REASONS, exc.reason


# -- deal messages ------------------------------------------------------------------------------

DEAL_MESSAGES = st.binary(max_size=1700) | st.builds(
    lambda kind, count, rest: bytes([kind, count]) + rest,
    st.integers(min_value=0, max_value=255),
    st.integers(min_value=0, max_value=255),
    st.binary(max_size=1700),
)


@FUZZ
@given(DEAL_MESSAGES)
@example(bytes([2, 1]))  # a deck of no points: parses (deck-size is the state machine's call)
@example(bytes([3, 0]))  # keys for no position
@example(bytes([4, 1, 0, 48]) + bytes(32))  # a card index past 47
@example(bytes([3, 2, 5]) + bytes(32) + bytes([5]) + bytes(32))  # a position twice
def test_deal_messages_parse_exactly_or_fail_as_format_errors(data: bytes) -> None:
    """The session turns a :class:`MessageFormatError` into ``bad-message`` blamed on the sender; no
    other exception may come out, and what parses has exactly these bytes."""
    try:
        message = parse_message(data)
    except MessageFormatError:
        return
    assert message.to_bytes() == data
