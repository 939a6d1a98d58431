"""The invite code: the vectors in protocol/INVITE.md, round trips, damage detection, and the token proof."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_koikoi.net.door import Refused
from p2p_koikoi.net.handshake import Guard, token_nonce
from p2p_koikoi.net.invite import Invite, InviteError, parse_fingerprint
from p2p_koikoi.record.identity_names import fingerprint

SPEC = Path(__file__).parent.parent / "protocol" / "INVITE.md"


def spec_vectors() -> list[dict[str, object]]:
    """The JSON block in INVITE.md, so the document and the code cannot drift apart."""
    block = re.search(r"```json\n(.*?)```", SPEC.read_text(), re.S)
    assert block, "INVITE.md lost its vectors"
    vectors = json.loads(block.group(1))
    assert isinstance(vectors, list)
    return vectors


@pytest.mark.parametrize("vector", spec_vectors(), ids=lambda v: str(v["name"]))
def test_the_spec_vectors(vector: dict[str, object]) -> None:
    key = bytes.fromhex(str(vector["host_key"]))
    token = bytes.fromhex(str(vector["token"])) if vector.get("token") else None
    punch = (str(vector["punch"][0]), int(vector["punch"][1])) if vector.get("punch") else None  # type: ignore[index]
    anew = bool(vector.get("maps_anew"))
    invite = Invite(tuple(vector["addresses"]), int(str(vector["port"])), fingerprint(key), token, punch, anew)  # type: ignore[arg-type]
    assert invite.fingerprint == vector["fingerprint"]
    assert invite.format() == vector["code"]
    assert Invite.parse(str(vector["code"])) == invite
    if token is not None:
        guest = bytes.fromhex(str(vector["guest_key"]))
        nonce = bytes.fromhex(str(vector["guest_nonce"]))
        Guard(token=token).check(guest, nonce, key)  # the documented nonce proves the token


addresses = st.lists(
    st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).filter(lambda ip: not (ip.is_unspecified or ip.is_multicast)),
    min_size=1,
    max_size=16,
)


@given(
    addresses,
    st.integers(1, 65535),
    st.binary(min_size=16, max_size=16),
    st.none() | st.binary(min_size=12, max_size=12),
)
def test_every_invite_survives_a_round_trip(ips: list[object], port: int, fp: bytes, token: bytes | None) -> None:
    printed = ":".join(fp.hex()[i : i + 4] for i in range(0, 32, 4))
    invite = Invite(tuple(str(ip) for ip in ips), port, printed, token)
    code = invite.format()
    assert Invite.parse(code) == invite
    assert Invite.parse(code.upper().replace("KK1:", "kk1:")) == invite  # a chat program shouted it


@given(st.integers(4, 60), st.sampled_from("abcdefghijklmnopqrstuvwxyz234567"))
def test_a_mangled_code_is_refused_not_misread(position: int, letter: str) -> None:
    code = Invite(("203.0.113.7", "2001:db8::7"), 7447, "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5").format()
    mangled = code[:position] + letter + code[position + 1 :]
    if mangled == code:
        return
    with pytest.raises(InviteError):
        Invite.parse(mangled)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("kk2:aaaa", "starts with kk1:"),
        ("kk1:" + "a" * 600, "far too long"),
        ("kk1:aaaa", "damaged"),
        ("kk1:!!!!", "do not belong"),
        ("kk1:aaorpsckyaygqujlriiut3zlonvqhziezmahcb45haprw"[:-4], "damaged"),
    ],
)
def test_bad_codes_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(InviteError, match=words):
        Invite.parse(text)


def test_an_invite_never_names_an_address_nobody_can_dial() -> None:
    for bad in ("0.0.0.0", "::", "224.0.0.251"):
        with pytest.raises(InviteError, match="not an address anyone can dial"):
            Invite((bad,), 7447, "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5")


def test_fingerprints_as_people_type_them() -> None:
    assert parse_fingerprint("C84AC03068512B8A1149EF2B736B03E5") == "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5"
    with pytest.raises(InviteError):
        parse_fingerprint("c84a:c030")


def test_the_token_proof_binds_the_guest_key_and_the_host() -> None:
    host, guest, other = bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))
    token = bytes(12)
    nonce = token_nonce(token, fingerprint(host), guest)
    Guard(token=token).check(guest, nonce, host)
    with pytest.raises(Refused, match="token"):
        Guard(token=token).check(other, nonce, host)  # someone replaying the guest's nonce with its own key
    with pytest.raises(Refused, match="token"):
        Guard(token=bytes(11) + b"\1").check(guest, nonce, host)  # another run's token
    with pytest.raises(Refused, match="token"):
        Guard(token=token).check(guest, nonce, other)  # a nonce made for another host
    with pytest.raises(Refused, match="not the guest expected"):
        Guard(guest=fingerprint(other)).check(guest, nonce, host)


def test_the_longest_valid_code_is_within_the_limit_read_before_decoding() -> None:
    """A token and 16 IPv6 addresses (the most a code holds) still parse: the limit is not below them."""
    from p2p_koikoi.net.invite import MAX_ADDRESSES, MAX_TEXT

    longest = Invite(
        tuple(f"2001:db8::{i + 1:x}" for i in range(MAX_ADDRESSES)),
        7447,
        "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5",
        bytes(12),
    )
    code = longest.format()
    assert len(code) == 496 <= MAX_TEXT
    assert Invite.parse(code) == longest
    punched = Invite(longest.addresses, 7447, longest.fingerprint, bytes(12), ("2001:db8::ffff", 65535))
    assert len(punched.format()) == 526 == MAX_TEXT  # with an IPv6 punch candidate, the longest of all
    assert Invite.parse(punched.format()) == punched


def test_a_nat_that_maps_anew_is_said_only_beside_a_punch_candidate() -> None:
    """Flags bit 2 without bit 1 is refused (a damaged or forged code), and cannot be made."""
    with pytest.raises(InviteError, match="only beside a punch candidate"):
        Invite(("192.168.1.20",), 7447, "c84a:c030:6851:2b8a:1149:ef2b:736b:03e5", maps_anew=True)
