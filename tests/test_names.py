"""Names (issue 29 item 2): the name a player goes by travels signed in the match setup (the host's in
``match``, the guest's in ``accept``), held on both sides to the one rule of ``PlayerName``; a peer that
sends a name the rule refuses sends a ``bad-body``; a name set locally with a control character or a
bidi override is refused in one line; the screens call a seat by name, our own name for its key first,
and a name two keys go by is shown with the fingerprint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHORT_LEMME

from p2p_koikoi.app.call_names import CallNames, KeyRef
from p2p_koikoi.app.player_labels import labels, same_name_note
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.record.identity_names import fingerprint, short_fingerprint
from p2p_koikoi.session.events import Players
from p2p_koikoi.session.match_session import MatchSession
from p2p_koikoi.testing.sessions import deterministic_entropy, pipe_sessions, session_pair
from p2p_koikoi.wire import Entry, RemoteProtocolError, SignedEntry
from p2p_koikoi.wire.bodies import AcceptBody, MatchBody
from p2p_koikoi.wire.player_name import PlayerName
from p2p_koikoi.wire.sent_names import sent_names

RULES = SHORT_LEMME
BAD_NAMES = ["Eve\x07", "Eve\u202eevil", "Eve\x1b[2J", " Hana", "Hana  Mori", "", "x" * 25, "Eve\u200b"]


def _played(names: tuple[str | None, str | None]):
    pair = session_pair(RULES, deterministic_entropy(b"names"), names)
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    return pair


def test_both_names_travel_signed_and_both_seats_read_the_same() -> None:
    pair = _played(("Hana", "Tarō"))
    entries = pair.host.chain.entries
    assert MatchBody.from_list(entries[0].entry.body).name == "Hana"
    assert AcceptBody.from_list(entries[1].entry.body).name == "Tarō"
    assert pair.host.names == pair.guest.names == sent_names(entries) == ("Hana", "Tarō")


def test_a_seat_that_sends_no_name_sends_nil() -> None:
    pair = _played((None, "Tarō"))
    assert pair.host.chain.entries[0].entry.body[-1] is None
    assert pair.guest.names == (None, "Tarō")


def test_each_player_is_told_who_sits_where_once_the_guest_accepted() -> None:
    pair = session_pair(RULES, deterministic_entropy(b"told"), ("Hana", "Tarō"))
    assert pipe_sessions(pair, (RandomAgent(1), RandomAgent(2))) is None
    for session in pair.sessions:
        told = [e for e in session.take_events() if isinstance(e, Players)]
        assert len(told) == 1
        assert told[0].names == ("Hana", "Tarō") and told[0].keys == session.keys


def test_a_restored_seat_sends_its_name_again_byte_for_byte() -> None:
    pair = _played(("Hana", "Tarō"))
    entries = list(pair.guest.chain.entries)
    for seat, session in enumerate(pair.sessions):
        again = MatchSession.restore(seat, pair.keys[seat], entries, session.master_secret)
        assert again.names == ("Hana", "Tarō")


def _signed_with_body(pair, seq: int, kind: str, body: list) -> tuple[bytes, bytes]:
    """The bytes of an entry the peer signed with ``body``, as they would come off the wire."""
    host = pair.host
    head = host.chain.entries[seq - 1].digest if seq else host.match_id
    entry = Entry(host.match_id, seq, head, seq, kind, body, b"\0" * 16)
    return entry.encode(), pair.keys[seq].sign(b"p2p-koikoi/entry/v1\0" + entry.encode())


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_guest_that_sends_a_name_the_rule_refuses_sends_a_bad_body(name: str) -> None:
    pair = session_pair(RULES, deterministic_entropy(b"bad guest"))
    for signed in pair.host.take_outgoing():
        pair.guest.receive(signed)
    data, signature = _signed_with_body(pair, 1, "accept", [bytes.fromhex(RULES.fingerprint), name])
    with pytest.raises(RemoteProtocolError) as info:
        SignedEntry.parse(data, signature)
    assert info.value.reason == "bad-body"
    assert "\n" not in str(info.value) and "name" in str(info.value)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_host_that_sends_a_name_the_rule_refuses_sends_a_bad_body(name: str) -> None:
    pair = session_pair(RULES, deterministic_entropy(b"bad host"))
    body = [*pair.host.chain.entries[0].entry.body[:-1], name]
    data, signature = _signed_with_body(pair, 0, "match", body)
    with pytest.raises(RemoteProtocolError) as info:
        SignedEntry.parse(data, signature)
    assert info.value.reason == "bad-body"


def test_the_labels_prefer_our_name_then_the_sent_one_then_the_fingerprint(tmp_path: Path) -> None:
    keys = (b"a" * 32, b"b" * 32)
    assert labels(keys, (None, None), None) == (short_fingerprint(keys[0]), short_fingerprint(keys[1]))
    assert labels(keys, ("Hana", "Tarō"), None) == ("Hana", "Tarō")
    called = CallNames(tmp_path)
    called.call(KeyRef.parse(fingerprint(keys[1])), PlayerName.parse("my cousin"))
    assert labels(keys, ("Hana", "Tarō"), called) == ("Hana", "my cousin")
    assert same_name_note(keys, ("Hana", "Tarō"), called) is None


def test_two_keys_sending_one_name_are_told_apart_by_fingerprint(tmp_path: Path) -> None:
    keys = (b"a" * 32, b"b" * 32)
    shown = labels(keys, ("Hana", "hana"), None)
    assert shown == (f"Hana ({short_fingerprint(keys[0])})", f"hana ({short_fingerprint(keys[1])})")
    assert "told apart by fingerprint" in (same_name_note(keys, ("Hana", "hana"), None) or "")
    # A key that sends the name we gave another key is no longer that key: its fingerprint shows.
    called = CallNames(tmp_path)
    called.call(KeyRef.parse(fingerprint(b"c" * 32)), PlayerName.parse("Kenji"))
    assert labels(keys, (None, "Kenji"), called)[1] == f"Kenji ({short_fingerprint(keys[1])})"
    assert same_name_note(keys, (None, "Kenji"), called) is not None


def test_a_peer_that_calls_itself_you_is_shown_with_its_fingerprint(tmp_path: Path) -> None:
    """The attacker's name is the screens' word for the player (``You``): unmarked, its win would be told
    as ours ("You win the match"). It is shown with its fingerprint, and the note says why; so is a name we
    gave a key ourselves, and any case or spacing of the word."""
    keys = (b"a" * 32, b"b" * 32)
    for sent in ("You", "you", " YOU "):
        shown = labels(keys, ("Hana", sent), None)
        assert shown == ("Hana", f"{sent} ({short_fingerprint(keys[1])})")
        assert "word for you" in (same_name_note(keys, ("Hana", sent), None) or "")
    called = CallNames(tmp_path)
    called.call(KeyRef.parse(fingerprint(keys[1])), PlayerName.parse("you"))
    assert labels(keys, ("Hana", None), called)[1] == f"you ({short_fingerprint(keys[1])})"
    assert labels(keys, ("Hana", "Younger"), None) == ("Hana", "Younger")  # a name that only starts so


def koikoi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args],
        env={**os.environ, "KOIKOI_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def test_koikoi_id_name_keeps_the_name_and_refuses_a_bad_one_in_one_line(tmp_path: Path) -> None:
    done = koikoi(tmp_path, "id", "--name", "Hana")
    assert done.returncode == 0 and "Hana" in done.stdout
    assert (tmp_path / "config" / "my-name").read_text(encoding="utf-8") == "Hana\n"
    for bad, words in (("Eve\x07", "control character"), ("Eve\u202eevil", "bidi control")):
        refused = koikoi(tmp_path, "id", "--name", bad)
        assert refused.returncode == 2 and words in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert (tmp_path / "config" / "my-name").read_text(encoding="utf-8") == "Hana\n"


def test_a_hand_edited_name_is_refused_before_anything_is_offered(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "my-name").write_text("Eve\u202elive\n", encoding="utf-8")
    for command in (
        ["host", "--bind", "127.0.0.1", "--no-upnp", "--port", "0", "--bot", "random"],
        ["join", "127.0.0.1:9", "--bot", "random"],
    ):
        done = koikoi(tmp_path, *command, "--replay-dir", str(tmp_path / "r"))
        assert done.returncode == 2, done.stderr
        assert "bidi control" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
