"""The TURN client's messages (net/turn_messages.py): laid out as aioice lays out the methods it knows,
read back whole, and the checks a reader needs; the command line refuses a bad --relay in one line."""

from __future__ import annotations

import subprocess

import aioice.stun as aioice
import pytest

from p2p_koikoi.net.turn_messages import Attr, Kind, Message, Method, TurnMessageError, long_term_key
from p2p_koikoi.testing import KOIKOI


def test_an_allocate_is_byte_for_byte_aioices() -> None:
    transaction = bytes(range(12))
    ours = Message(Method.ALLOCATE, Kind.REQUEST, transaction)
    ours.attributes.update({Attr.REQUESTED_TRANSPORT: bytes([6, 0, 0, 0]), Attr.USERNAME: b"koikoi"})
    ours.attributes.update({Attr.REALM: b"koikoi.test", Attr.NONCE: b"abcdef"})
    key = long_term_key("koikoi", "koikoi.test", "hanafuda")
    theirs = aioice.Message(aioice.Method.ALLOCATE, aioice.Class.REQUEST, transaction)
    theirs.attributes.update({"REQUESTED-TRANSPORT": 6 << 24, "USERNAME": "koikoi"})
    theirs.attributes.update({"REALM": "koikoi.test", "NONCE": b"abcdef"})
    theirs.add_message_integrity(key)
    assert ours.encode(key) == bytes(theirs)
    assert aioice.parse_message(ours.encode(key)).check_message_integrity(key)  # aioice verifies our MAC


def test_the_rfc_6062_messages_read_back() -> None:
    bind = Message(Method.CONNECTION_BIND, Kind.REQUEST, attributes={Attr.CONNECTION_ID: bytes([0, 0, 0, 7])})
    read = Message.decode(bind.encode(b"k" * 16))
    assert (read.method, read.kind, read.attributes[Attr.CONNECTION_ID]) == (
        Method.CONNECTION_BIND,
        Kind.REQUEST,
        b"\0\0\0\7",
    )
    attempt = Message(Method.CONNECTION_ATTEMPT, Kind.INDICATION)
    attempt.put_address(Attr.XOR_PEER_ADDRESS, ("198.51.100.23", 40001))
    assert Message.decode(attempt.encode()).address(Attr.XOR_PEER_ADDRESS) == ("198.51.100.23", 40001)


@pytest.mark.parametrize(
    "data",
    [b"", bytes(19), bytes(20), bytes([0, 3, 0, 0]) + bytes(16), b"\x00\x03\x00\x04\x21\x12\xa4\x42" + bytes(12)],
)
def test_bytes_that_are_no_message_are_refused(data: bytes) -> None:
    with pytest.raises(TurnMessageError):
        Message.decode(data)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--relay", "stun:10.0.0.1"], "is not a TURN server"),
        (["--relay", "turn:10.0.0.1"], "needs --relay-user and --relay-password"),
        (["--relay", "turn:10.0.0"], "not a whole IPv4 address"),
        (["--relay-user", "u"], "--relay-user is for a --relay"),
        (["--stun", "10.0.0.1:99999"], "the port must be"),
    ],
)
def test_a_bad_relay_or_stun_option_is_one_line(args: list[str], words: str) -> None:
    code = "kk1:aaorpsckyaygqujlriiut3zlonvqhziezmahcb45haprw"
    out = subprocess.run([*KOIKOI, "join", code, *args], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2, out.stderr
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
