"""Transcripts: export, then read back, gives the same match; a transcript's moves and counts are checked."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from p2p_koikoi.engine import PRESETS
from p2p_koikoi.record.export import TranscriptBuilder, render_transcript
from p2p_koikoi.record.reader import read_record_bytes
from p2p_koikoi.record.transcript import FORMAT, TranscriptError, read_transcript
from p2p_koikoi.record.verify import MatchSummary, check_transcript, walk_record
from p2p_koikoi.referee.findings import Rejected
from tests.record_support import honest, play_match, record_bytes

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def export(entries: Any) -> dict[str, Any]:
    builder = TranscriptBuilder()
    walk_record(read_record_bytes(record_bytes(entries)), builder)
    return builder.result()


def counts(summary: MatchSummary) -> list[tuple[int, int, str, int | None, int, tuple[int, int]]]:
    return [(r.number, r.redeal, r.outcome, r.winner, r.payment, r.points) for r in summary.rounds]


@pytest.mark.parametrize("name", list(PRESETS))
def test_export_then_read_back_gives_the_same_results(name: str) -> None:
    played = honest(name)
    transcript = export(played.entries)
    assert transcript["format"] == FORMAT
    text = render_transcript(transcript)
    from_record, from_transcript = MatchSummary(), MatchSummary()
    walk_record(read_record_bytes(record_bytes(played.entries)), from_record)
    read_transcript(json.loads(text), from_transcript)
    assert counts(from_transcript) == counts(from_record)
    assert from_transcript.end is not None and from_record.end is not None
    assert from_transcript.end.outcome == from_record.end.outcome
    # Exporting the transcript again gives it back unchanged: it holds the whole match.
    again = TranscriptBuilder()
    read_transcript(json.loads(text), again)
    assert again.result() == transcript


def test_a_transcript_has_the_shape_of_the_issue() -> None:
    transcript = export(honest("nintendo").entries)
    assert transcript["rules"] == {"preset": "nintendo", "set": {"rounds": "3"}}
    assert [len(p["key"]) for p in transcript["players"]] == [64, 64]
    first = transcript["rounds"][0]
    assert [len(h) for h in first["hands"]] == [8, 8] and len(first["table"]) == 8 and len(first["stock"]) == 24
    turn = first["turns"][0]
    assert list(turn)[:6] == ["seat", "play", "play_captures", "draw", "draw_captures", "call"]
    assert all(len(t["play_captures"]) in (0, 1, 3) for r in transcript["rounds"] for t in r["turns"])
    assert all(t["call"] in (None, "koikoi", "stop") for r in transcript["rounds"] for t in r["turns"])
    assert {"winner", "yaku", "base", "total", "payment"} <= set(first["result"])


def test_hiki_and_the_rulebook_exchange_round_trip() -> None:
    entries = play_match("rulebook", "gaji 23").entries
    transcript = export(entries)
    voided = [t for r in transcript["rounds"] for t in r["turns"] if "hiki" in t]
    assert voided, "the label no longer makes a Hiki: look for another"
    assert all(isinstance(r.get("exchange"), bool) for r in transcript["rounds"] if r.get("hands"))
    report = check_transcript(json.loads(json.dumps(transcript)), "t.json")
    assert report.verdict == "consistent", report.finding


def rejected(transcript: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(Rejected) as caught:
        read_transcript(transcript)
    finding = caught.value.finding
    assert finding.blame is None and finding.entry is None
    return finding.where, finding.reason


def test_a_result_that_differs_from_the_recomputed_one_is_named() -> None:
    transcript = copy.deepcopy(export(honest().entries))
    transcript["rounds"][1]["result"]["payment"] += 3
    assert rejected(transcript) == ("round 2", "result-mismatch")
    report = check_transcript(transcript, "t.json")
    assert report.verdict == "failed" and "payment" in report.finding.text


def test_an_illegal_move_in_a_transcript_is_named_with_its_round_and_turn() -> None:
    transcript = copy.deepcopy(export(honest().entries))
    first = transcript["rounds"][0]
    turn = first["turns"][2]
    stranger = next(c for c in first["stock"][10:] if c not in {t.get("draw") for t in first["turns"]})
    turn["play"] = stranger
    where, reason = rejected(transcript)
    assert where == "round 1, turn 3" and reason == "illegal-move:card-not-in-hand"


def test_wrong_captures_a_wrong_draw_and_a_call_without_a_decision_are_named() -> None:
    base = export(honest().entries)
    wrong_capture = copy.deepcopy(base)
    turn = next(t for t in wrong_capture["rounds"][0]["turns"] if t["play_captures"])
    turn["play_captures"] = []
    assert rejected(wrong_capture)[1] == "play-captures"
    wrong_draw = copy.deepcopy(base)
    first = wrong_draw["rounds"][0]
    first["turns"][0]["draw"] = first["stock"][5]
    assert rejected(wrong_draw) == ("round 1, turn 1", "illegal-move:wrong-draw")
    bad_call = copy.deepcopy(base)
    turn = next(t for t in bad_call["rounds"][0]["turns"] if t["call"] is None)
    turn["call"] = "koikoi"
    assert rejected(bad_call)[1] == "bad-call"


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: t.pop("rounds"),
        lambda t: t.update(format="pgn"),
        lambda t: t["rounds"][0]["hands"][0].__setitem__(0, "pine-cran"),
        lambda t: t["rounds"][0]["hands"][0].__setitem__(0, "Pine Crane"),
        lambda t: t.update(rules={"preset": "tournament"}),
        lambda t: t["players"].pop(),
        lambda t: t["rounds"][0].__setitem__("turns", "none"),
    ],
)
def test_what_is_not_a_transcript_is_a_transcript_error(damage: Any) -> None:
    transcript = copy.deepcopy(export(honest().entries))
    damage(transcript)
    with pytest.raises(TranscriptError):
        read_transcript(transcript)


def test_a_record_cut_short_exports_what_was_known_and_reads_back_as_incomplete() -> None:
    entries = honest().entries
    cut = entries[: len(entries) // 2]
    transcript = export(cut)
    last = transcript["rounds"][-1]
    assert last.get("unfinished") is True and last["hands"] is None
    report = check_transcript(json.loads(json.dumps(transcript)), "cut.json")
    assert report.verdict == "incomplete", report.finding
    assert len(report.rounds) == len(transcript["rounds"]) - 1


def test_every_sample_replay_round_trips_through_its_transcript() -> None:
    for path in sorted(REPLAYS.glob("*.koikoi")):
        record = read_record_bytes(path.read_bytes(), path)
        builder, summary = TranscriptBuilder(), MatchSummary()
        report = walk_record(record, builder)
        back = check_transcript(json.loads(render_transcript(builder.result())), path.name, summary)
        assert [(r.number, r.payment, r.points) for r in back.rounds] == [
            (r.number, r.payment, r.points) for r in report.rounds
        ], path.name


def test_a_dealt_teshi_is_claimed_shown_checked_and_round_trips() -> None:
    """A label found to deal a Teshi (four of a month in hand): the claim shows the four cards."""
    entries = play_match("nintendo", "claim 7", rounds=12).entries
    claims = any(e.entry.kind == "move" and e.entry.body[1].startswith("claim") for e in entries)
    assert claims, "the label no longer deals a hand yaku: look for another"
    transcript = export(entries)
    claimed = [r for r in transcript["rounds"] if r.get("hand_yaku")]
    assert claimed and claimed[0]["result"]["outcome"] == "hand-yaku"
    assert len(claimed[0]["hand_yaku"][0]["cards"]) == 4
    report = check_transcript(json.loads(render_transcript(transcript)), "teshi.json")
    assert report.verdict == "consistent", report.finding
