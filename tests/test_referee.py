"""The one referee, as ``koikoi verify`` runs it (a spectator's knowledge): honest matches of every preset
verify, and it agrees with the playing sessions on every entry (the floor, the state hash, every count);
endings, accusations and the evidence in notes."""

from __future__ import annotations

import pytest

from p2p_koikoi.engine import PRESETS
from p2p_koikoi.referee import Ending, Referee, SpectatorKnowledge, result_body
from p2p_koikoi.wire import Entry, SignedEntry
from tests.record_support import Keys, find, honest, play_match, record_bytes, resign, verify_bytes, verify_entries


@pytest.mark.parametrize("name", list(PRESETS))
def test_honest_matches_of_every_preset_verify(name: str) -> None:
    played = honest(name)
    report = verify_entries(played.entries)
    assert report.verdict == "verified", report.finding
    session = played.pair.host
    assert session.match is not None
    counted = [(r.number, r.redeal, r.payment, r.points) for r in report.rounds]
    played_out = [(r.number, r.redeal, r.score.payment if r.score else 0, r.points) for r in session.match.results]
    assert counted == played_out
    assert report.ending is not None and report.ending.outcome == session.match.outcome


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_referee_agrees_with_the_sessions_on_every_entry(name: str) -> None:
    """Both sessions wrote each entry's ``state`` from their own state and held the floor to write it:
    the referee, restating the session's table, computes the same state and the same floor before each."""
    played = honest(name)
    referee = Referee(SpectatorKnowledge())
    for index, signed in enumerate(played.entries):
        entry = signed.entry
        assert referee.floor() == entry.author, (index, entry.kind)
        assert referee.state_hash() == entry.state, (index, entry.kind, referee.stage)
        referee.feed(signed)
    assert referee.over
    match = played.pair.host.match
    assert referee.match is not None and match is not None
    assert referee.match.points == match.points
    for result, session_result in zip(referee.match.results, match.results, strict=True):
        assert result_body(result) == result_body(session_result)


def test_a_gaji_answered_with_hiki_and_with_no_hiki_verifies() -> None:
    """The rulebook's Gaji onto a month of three: the other seat's ``hiki CARD`` voids the play, ``no-hiki``
    lets it stand (and the audit checks it was true). The labels were found to make each answer."""
    for label, answer in (("gaji 23", "hiki "), ("gaji 31", "no-hiki")):
        entries = play_match("rulebook", label).entries
        made = any(e.entry.kind == "move" and e.entry.body[1].startswith(answer) for e in entries)
        assert made, f"{label!r} no longer makes a {answer.strip()} answer: look for another label"
        report = verify_entries(entries)
        assert report.verdict == "verified", report.finding


def test_a_hiki_answer_not_in_canonical_form_is_refused() -> None:
    """``hiki CARD`` must be written as the canonical text (one space, the card's id): two spaces, or a
    card named otherwise, is ``not-canonical``, blamed on its writer (SPEC-FINDINGS code defect 1)."""
    played = play_match("rulebook", "gaji 23")
    entries = played.entries
    i = next(n for n, e in enumerate(entries) if e.entry.kind == "move" and e.entry.body[1].startswith("hiki "))
    number, text, show, keys = entries[i].entry.body
    head, card = text.split(" ")
    for spelled in (f"{head}  {card}", f"{head} {card.upper()}"):
        report = verify_entries(resign(entries, i, played.keys, body=[number, spelled, show, keys]))
        assert (report.finding.entry, report.finding.reason, report.finding.blame) == (
            i,
            "not-canonical",
            entries[i].entry.author,
        ), report.finding


def goodbye(
    played_entries: list[SignedEntry], keys: Keys, author: int, reason: str, text: str, evidence: bytes | None = None
) -> SignedEntry:
    last = played_entries[-1]
    body = [reason, text, evidence]
    entry = Entry(last.entry.match_id, last.entry.seq + 1, last.digest, author, "goodbye", body, bytes(16))
    return SignedEntry.sign(entry, keys[author])


def test_a_player_who_quits_forfeits_and_the_record_still_verifies() -> None:
    played = honest()
    cut = list(played.entries[: find(played.entries, "move", nth=6)])
    report = verify_entries([*cut, goodbye(cut, played.keys, 1, "quit", "the player left")])
    assert report.verdict == "verified"
    assert report.ending is not None and (report.ending.how, report.ending.seat) == ("forfeit", 1)
    assert report.ending.outcome is not None and report.ending.outcome.winner == 0


def test_an_entry_after_the_end_is_its_authors_fault() -> None:
    played = honest()
    entries = list(played.entries)
    report = verify_entries([*entries, goodbye(entries, played.keys, 1, "quit", "one more")])
    assert report.verdict == "failed"
    assert (report.finding.entry, report.finding.reason, report.finding.blame) == (len(entries), "after-end", 1)


def test_an_accusation_without_evidence_is_baseless_and_the_accuser_forfeits() -> None:
    played = honest()
    cut = list(played.entries[: find(played.entries, "deal", nth=20)])
    accused = [*cut, goodbye(cut, played.keys, 0, "violation:not-a-card", "seat 1 sent a key that opens no card")]
    report = verify_bytes(record_bytes(accused, notes=(("not-a-card", 1, "seat 1 cheated", b""),)))
    assert report.verdict == "failed"
    assert (report.finding.reason, report.finding.blame) == ("baseless-accusation", 0)
    assert report.ending is not None and (report.ending.how, report.ending.winner) == ("forfeit", 1)
    (note,) = report.notes
    assert note.agrees is False


def test_an_accusation_about_bytes_that_never_joined_the_chain_is_the_accusers_forfeit() -> None:
    """An out-of-turn entry the host could not take into its chain: no evidence of it can exist in the
    chain, so an accusation naming it proves nothing (SPEC.md section 6) and is the accuser's forfeit, even
    with the bytes kept in a note. (A live seat never writes one: bad bytes are a broken connection.)"""
    played = honest()
    entries, keys = played.entries, played.keys
    i = find(entries, "move", author=0, nth=3)
    out_of_turn = resign(entries, i, keys, author=1)[i]  # the guest signs the host's move: not its turn
    cut = list(entries[:i])
    noted = [*cut, goodbye(cut, keys, 0, "violation:out-of-turn", "seat 1 wrote out of turn")]
    evidence = out_of_turn.data + out_of_turn.signature
    report = verify_bytes(record_bytes(noted, notes=(("out-of-turn", 1, "seat 1 wrote out of turn", evidence),)))
    assert report.verdict == "failed"
    finding = report.finding
    assert (finding.entry, finding.reason, finding.blame) == (i, "baseless-accusation", 0)
    assert report.ending is not None and (report.ending.how, report.ending.winner) == (Ending.FORFEIT, 1)


def test_a_coin_value_that_does_not_open_its_commitment() -> None:
    played = honest()  # lemme: the first dealer by a coin flip
    entries = played.entries
    i = find(entries, "deal", message=0x05, author=1)
    assert entries[i].entry.body[0] == 0
    number, redeal, message = entries[i].entry.body
    lied = resign(entries, i, played.keys, body=[number, redeal, message[:1] + bytes(32)])
    report = verify_entries(lied)
    assert (report.finding.entry, report.finding.reason, report.finding.blame) == (i, "commitment-mismatch", 1)


def test_two_copies_that_part_at_an_entry_one_author_signed_twice_show_a_fork(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each copy verifies alone; side by side they prove seat 0 signed two different entries with one number.
    Seat 0's own copy falls (``fork``, seat 0 to blame); seat 1's stands (both copies give it the match), its
    comparison naming the fork."""
    from p2p_koikoi.app.records import verify_paths

    played = honest()
    cut = list(played.entries[: find(played.entries, "move", nth=8)])
    host_copy = [*cut, goodbye(cut, played.keys, 0, "quit", "bye")]
    guest_copy = [*cut, goodbye(cut, played.keys, 0, "quit", "farewell")]
    (tmp_path / "a.koikoi").write_bytes(record_bytes(host_copy))
    (tmp_path / "b.koikoi").write_bytes(record_bytes(guest_copy, seat=1))
    (tmp_path / "c.koikoi").write_bytes(record_bytes(cut))  # a third copy that stops before: no fork
    assert verify_entries(host_copy).verdict == verify_entries(guest_copy).verdict == "verified"
    reports = verify_paths([tmp_path], jobs=1)
    forger, other = reports[:2]
    assert forger.verdict == "failed"
    assert (forger.finding.entry, forger.finding.reason, forger.finding.blame) == (len(cut), "fork", 0)
    assert other.verdict == "verified" and other.ending is not None and other.ending.winner == 1
    assert any(check.found.kind.value == "fork" and check.found.blame == 0 for check in other.copies)
    assert reports[2].verdict == "incomplete"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRESETS))
def test_many_whole_matches_of_every_preset_verify_and_round_trip_through_transcripts(name: str) -> None:
    import json

    from p2p_koikoi.record.export import TranscriptBuilder, render_transcript
    from p2p_koikoi.record.reader import read_record_bytes
    from p2p_koikoi.record.verify import check_transcript, walk_record

    for n in range(6):
        played = play_match(name, f"broad {name} {n}", rounds=12)
        builder = TranscriptBuilder()
        report = walk_record(read_record_bytes(record_bytes(played.entries)), builder)
        assert report.verdict == "verified", (n, report.finding)
        back = check_transcript(json.loads(render_transcript(builder.result())), "t.json")
        assert back.verdict == "consistent", (n, back.finding)
        assert [r.points for r in back.rounds] == [r.points for r in report.rounds]
