"""The tampering suite: every kind of damage to a record makes ``verify`` fail at the right entry, with
the right reason and the right seat to blame (or nobody, when anyone holding the file could have done it).

Two kinds of tampering are tried: bytes changed in the file (which break a signature, a link or a frame:
nobody is provably to blame), and entries a player signed with a lie in them (simulated by signing
again with that player's key and relinking the chain after it: that player is to blame).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from p2p_koikoi.fairness import Deck, parse_message
from p2p_koikoi.record.reader import RecordError
from p2p_koikoi.wire import SignedEntry, encode_frame
from p2p_koikoi.wire.codec import pack
from tests.record_support import (
    find,
    flip_entry,
    honest,
    play_match,
    record_bytes,
    resign,
    verify_bytes,
    verify_entries,
)

VERSION, MATCH_ID, SEQ, PREV, AUTHOR, KIND, BODY, STATE = range(8)


def failure(report):  # type: ignore[no-untyped-def]
    assert report.verdict == "failed", (report.verdict, report.finding)
    finding = report.finding
    return finding.entry, finding.reason, finding.blame


def test_the_honest_record_verifies() -> None:
    report = verify_entries(honest().entries)
    assert report.verdict == "verified", report.finding
    assert report.ending is not None and report.ending.how == "finished"
    assert len(report.rounds) >= 3


# ---------------------------------------------------------------- bytes changed in the file


@pytest.mark.parametrize(
    ("field", "reason"),
    [
        (VERSION, "unreadable-entry"),
        (MATCH_ID, "bad-signature"),
        (SEQ, "bad-signature"),
        (PREV, "bad-signature"),
        (AUTHOR, "bad-signature"),
        (KIND, "unreadable-entry"),
        (BODY, "bad-signature"),
        (STATE, "bad-signature"),
        (None, "bad-signature"),  # the signature itself
    ],
)
def test_a_flipped_bit_in_any_field_of_an_entry_is_named_there(field: int | None, reason: str) -> None:
    entries = honest().entries
    for index in (find(entries, "deal", nth=7), find(entries, "move", nth=3), find(entries, "result")):
        report = verify_bytes(flip_entry(entries, index, field))
        assert failure(report) == (index, reason, None)
        assert "Traceback" not in report.finding.text


def test_a_flipped_bit_in_the_first_entry_breaks_the_keys_everything_is_checked_against() -> None:
    """The body's last byte is the host's name, nil when none was sent: flipped, 0xc0 becomes 0xc1, a byte
    msgpack never uses, so that entry no longer parses; the byte before it (the software's version string)
    still parses and so breaks the signature."""
    entries = honest().entries
    for field in (MATCH_ID, STATE, None):
        assert failure(verify_bytes(flip_entry(entries, 0, field))) == (0, "bad-signature", None)
    assert failure(verify_bytes(flip_entry(entries, 0, BODY, at=1))) == (0, "bad-signature", None)
    assert failure(verify_bytes(flip_entry(entries, 0, BODY))) == (0, "unreadable-entry", None)


def test_a_flipped_frame_length_or_frame_tag_is_damage_not_a_crash() -> None:
    entries = honest().entries
    data = bytearray(record_bytes(entries))
    whole = record_bytes(entries[:10])
    too_long = bytearray(data)
    too_long[len(whole)] ^= 0x80  # the high byte of entry 10's frame length: a frame of 2 GB
    report = verify_bytes(bytes(too_long))
    assert failure(report) == (10, "corrupt-frame", None)
    assert "announces" in report.finding.text
    tag = bytearray(data)
    tag[len(whole) + 4 + 2] ^= 0x01  # "entry" -> "dntry": a frame of no known kind
    assert failure(verify_bytes(bytes(tag))) == (10, "corrupt-frame", None)


def test_the_unsigned_header_and_notes_are_not_trusted_so_changing_them_changes_nothing() -> None:
    entries = honest().entries
    other_writer = record_bytes(entries, seat=1, notes=(("made-up", 1, "seat 1 cheated!", b""),))
    report = verify_bytes(other_writer)
    assert report.verdict == "verified"
    assert report.writer_seat == 1
    (note,) = report.notes
    assert note.agrees is None


def test_two_entries_swapped() -> None:
    entries = list(honest().entries)
    i = find(entries, "move", nth=5)
    entries[i], entries[i + 1] = entries[i + 1], entries[i]
    report = verify_entries(entries)
    assert failure(report) == (i, "bad-seq", None)
    assert "reordered" in report.finding.text


def test_an_entry_dropped() -> None:
    entries = list(honest().entries)
    i = find(entries, "deal", nth=12)
    del entries[i]
    assert failure(verify_entries(entries)) == (i, "bad-seq", None)


def test_an_entry_repeated() -> None:
    entries = list(honest().entries)
    i = find(entries, "move", nth=2)
    entries.insert(i + 1, entries[i])
    assert failure(verify_entries(entries)) == (i + 1, "replayed-entry", None)


@pytest.mark.parametrize("cut", [1, 3, 200, -1])
def test_a_truncated_file_verifies_up_to_its_end_and_says_it_is_incomplete(cut: int) -> None:
    entries = honest().entries
    keep = 30
    data = record_bytes(entries[:keep])
    frame = encode_frame(pack(["entry", entries[keep].data, entries[keep].signature]))
    cut_at = cut if cut > 0 else len(frame) + cut
    report = verify_bytes(data + frame[:cut_at])
    assert report.verdict == "incomplete", report.finding
    assert (report.finding.entry, report.finding.reason, report.finding.blame) == (keep, "incomplete", None)
    assert "ends inside" in report.finding.text
    assert report.next_writer == entries[keep].entry.author
    assert not report.complete


def test_a_record_cut_on_a_frame_boundary_is_incomplete_and_says_whose_turn_it_was() -> None:
    entries = honest().entries
    report = verify_entries(entries[:57])
    assert report.verdict == "incomplete"
    assert report.finding.entry == 57
    assert f"seat {entries[57].entry.author} was to write it" in report.finding.text


def test_an_entry_spliced_in_from_another_match() -> None:
    played = honest()
    same_players = play_match("lemme", "another match, same players", keys=played.keys)
    entries = list(played.entries)
    i = find(entries, "deal", nth=20)
    entries[i] = same_players.entries[i]
    report = verify_entries(entries)
    assert failure(report) == (i, "wrong-match", None)
    strangers = play_match("lemme", "strangers")
    entries[i] = strangers.entries[i]
    assert failure(verify_entries(entries)) == (i, "bad-signature", None)


def test_a_rule_set_changed_in_the_match_entry() -> None:
    played = honest()
    first = played.entries[0]
    assert first.entry.body[0] == "lemme rounds=3"
    changed = SignedEntry.parse(first.data.replace(b"lemme rounds=3", b"lemme rounds=6"), first.signature)
    assert failure(verify_entries([changed, *played.entries[1:]])) == (0, "bad-signature", None)
    body = list(first.entry.body)
    body[0] = "nintendo rounds=3"
    # The host signs other rules, with their own fingerprint; the guest's accept names the old ones.
    from p2p_koikoi.engine import parse_rules

    body[1] = bytes.fromhex(parse_rules(body[0]).fingerprint)
    lied = resign(played.entries, 0, played.keys, body=body)
    report = verify_entries(lied)
    assert failure(report) == (1, "bad-rules", 1)
    # Rules that do not match their own fingerprint are the host's lie.
    body[1] = played.entries[0].entry.body[1]
    assert failure(verify_entries(resign(played.entries, 0, played.keys, body=body))) == (0, "bad-rules", 0)


def test_a_file_name_naming_other_rules_is_only_a_warning() -> None:
    entries = honest().entries
    keys = (entries[0].entry.body[2][0], entries[0].entry.body[2][1])
    from p2p_koikoi.record.identity_names import short_fingerprint

    name = f"20261130-184812-{short_fingerprint(keys[0])}-{short_fingerprint(keys[1])}-nintendo-host.koikoi"
    report = verify_bytes(record_bytes(entries), name)
    assert report.verdict == "verified"
    assert any("nintendo" in w and "lemme" in w for w in report.warnings)


def test_a_revealed_secret_changed() -> None:
    played = honest()
    entries = played.entries
    i = find(entries, "deal", message=0x05, author=1)
    number, redeal, message = entries[i].entry.body
    other = bytes([0x05]) + bytes(reversed(message[1:]))
    assert failure(verify_bytes(flip_entry(entries, i, BODY))) == (i, "bad-signature", None)
    report = verify_entries(resign(entries, i, played.keys, body=[number, redeal, other]))
    assert failure(report) == (i, "commitment-mismatch", 1)


def test_a_forged_result_names_the_field_that_differs() -> None:
    played = honest()
    i = find(played.entries, "result", author=1)
    body = list(played.entries[i].entry.body)
    body[4] += 5  # the payment
    report = verify_entries(resign(played.entries, i, played.keys, body=body))
    assert failure(report) == (i, "result-mismatch", 1)
    assert "payment" in report.finding.text


def test_a_forged_move_a_fork_a_desync_and_an_entry_out_of_turn_blame_their_author() -> None:
    played = honest()
    entries, keys = played.entries, played.keys
    i = find(entries, "move", text="play")
    body = list(entries[i].entry.body)
    author = entries[i].entry.author
    body[1] = "play paulownia-phoenix" if body[1] != "play paulownia-phoenix" else "play pine-crane"
    assert failure(verify_entries(resign(entries, i, keys, body=body))) == (i, "show-mismatch", author)
    assert failure(verify_entries(resign(entries, i, keys, state=bytes(16)))) == (i, "desync", author)
    other = 1 - author
    assert failure(verify_entries(resign(entries, i, keys, author=other))) == (i, "out-of-turn", other)
    fork = resign(entries, i, keys, body=body)[i]
    forked = [*entries[: i + 1], fork, *entries[i + 1 :]]
    report = verify_entries(forked)
    assert failure(report) == (i + 1, "fork", author)
    assert f"seat {author} signed two different entries numbered {i}" in report.finding.text


def test_a_wrong_deck_pass_is_caught_on_its_entry() -> None:
    """A deck pass that is not what its owner's secret derives: named at the pass, found at the audit."""
    played = honest()
    entries, keys = played.entries, played.keys
    i = next(
        i
        for i, e in enumerate(entries)
        if e.entry.kind == "deal" and e.entry.body[0] == 1 and isinstance(parse_message(e.entry.body[2]), Deck)
    )
    number, redeal, data = entries[i].entry.body
    points = bytearray(data)
    points[3:35], points[35:67] = data[35:67], data[3:35]  # swap the first two points: another order
    report = verify_entries(resign(entries, i, keys, body=[number, redeal, bytes(points)]))
    finding = report.finding
    # The pass's proof no longer covers the deck: caught on that very entry (deal v2).
    assert (finding.entry, finding.reason, finding.blame) == (i, "bad-shuffle-proof", entries[i].entry.author)


def _sampled_offsets(data: bytes, step: int = 127) -> list[int]:
    """Every byte of the header (where one flip can make the file no record at all), then every
    ``step``-th byte: most of a record is points and proofs, whose bytes all read alike."""
    return sorted({*range(60), *range(0, len(data), step)})


def _flip(offsets: Iterable[int] | None = None) -> None:
    entries = honest().entries[:12]
    data = record_bytes(entries)
    for offset in range(len(data)) if offsets is None else offsets:
        damaged = bytearray(data)
        damaged[offset] ^= 0x10
        try:
            report = verify_bytes(bytes(damaged))
        except RecordError:
            assert offset < 60  # only damage to the header makes the file no record at all
            continue
        assert report.verdict in ("failed", "incomplete", "verified")
        if report.verdict != "incomplete":
            assert report.finding is None or report.finding.blame is None  # bytes changed prove nothing of anyone


def test_damage_never_raises_whatever_byte_is_flipped() -> None:
    """Bytes of a short record flipped in turn (the header's every byte, then every 127th): always a
    report, never an exception. Every single byte: the slow run below."""
    _flip(_sampled_offsets(record_bytes(honest().entries[:12])))


@pytest.mark.slow
def test_damage_never_raises_for_every_single_byte_flipped() -> None:
    _flip()


def test_an_exchange_decision_for_another_round() -> None:
    played = honest("rulebook")
    i = (
        find(played.entries, "move", text="keep")
        if any(e.entry.kind == "move" and e.entry.body[1] == "keep" for e in played.entries)
        else find(played.entries, "move", text="exchange")
    )
    body = list(played.entries[i].entry.body)
    body[0] += 1
    report = verify_entries(resign(played.entries, i, played.keys, body=body))
    assert failure(report) == (i, "wrong-round", played.entries[i].entry.author)
