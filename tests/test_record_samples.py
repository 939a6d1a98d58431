"""The sample matches in ``replays/``: each one's ``koikoi verify --json`` report against its expected one
(``protocol/vectors/samples-verify.json``, which ``python replays/make.py`` writes with the samples), what
each rare case and each ending sample shows, the version 2 sample refused in one line; the replay built
from them, its plain text and its keys."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from p2p_koikoi.app.records import export_file, verify_paths
from p2p_koikoi.app.replay import load_replay
from p2p_koikoi.cli.main import app
from p2p_koikoi.engine import PRESETS
from p2p_koikoi.engine.cards import Card
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.ui.replay_view import Cursor, plain_lines, render_step
from p2p_koikoi.wire import SignedEntry

# Under pytest-xdist: the samples are verified once (a module fixture), by one worker, not once per worker.
pytestmark = pytest.mark.xdist_group("samples")

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
EXPECTED = ROOT / "protocol" / "vectors" / "samples-verify.json"
REMAKE = "the samples and their reports are made together: python replays/make.py"


def normalised(value: Any) -> Any:
    """A report with the samples folder's path taken out of every string, as the vector file keeps it."""
    if isinstance(value, str):
        return value.replace(f"{REPLAYS}/", "")
    if isinstance(value, list):
        return [normalised(v) for v in value]
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def reports() -> dict[str, Any]:
    return {Path(r.path).stem: r for r in verify_paths([REPLAYS], jobs=2)}


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXPECTED.read_text())["reports"]
    return data


def entries(name: str) -> list[SignedEntry]:
    return list(read_record(REPLAYS / f"{name}.koikoi").entries)


def moves(name: str) -> list[tuple[int, str]]:
    """The ``move`` entries of a sample: author and text."""
    return [(e.entry.author, str(e.entry.body[1])) for e in entries(name) if e.entry.kind == "move"]


# ---------------------------------------------------------------------------- every sample, as expected


def test_every_sample_verifies_as_its_expected_report(reports: dict[str, Any], expected: dict[str, Any]) -> None:
    """``koikoi verify --json replays/`` (the folder at once, so copies of one match are compared), one report
    per sample, equal to the vector's, field by field."""
    actual = {f"{stem}.koikoi": normalised(report.to_json()) for stem, report in reports.items()}
    assert sorted(actual) == sorted(name for name in expected if "/" not in name), REMAKE
    for name, report in actual.items():
        assert report == expected[name], f"{name}: {REMAKE}"


def test_the_version_2_sample_is_refused_in_one_line_with_exit_code_2(expected: dict[str, Any]) -> None:
    """A record of protocol version 2 (its first entry says so) is not verified by this program: one line,
    the version it was made by, exit code 2, no traceback."""
    sample = REPLAYS / "v2" / "nintendo.koikoi"
    done = CliRunner().invoke(app, ["verify", str(sample)])
    assert done.exit_code == 2
    assert done.exception is None or isinstance(done.exception, SystemExit)
    said = done.stderr.strip().splitlines() + done.stdout.strip().splitlines()
    assert said == [
        f"UNREADABLE: {sample} was made by protocol version 2 (koikoi 0.2); this koikoi verifies version 3 records"
    ]
    as_json = CliRunner().invoke(app, ["verify", "--json", str(sample)])
    assert as_json.exit_code == 2
    (report,) = json.loads(as_json.stdout)
    assert normalised(report) == expected["v2/nintendo.koikoi"], REMAKE
    assert "Traceback" not in done.output + as_json.output


def test_a_later_entry_of_another_version_is_still_damage_not_another_version() -> None:
    """Only the first entry says which version made the record: one further on is an unreadable entry."""
    from p2p_koikoi.record.format import FORMAT_VERSION
    from p2p_koikoi.record.reader import read_record_bytes
    from p2p_koikoi.record.verify import walk_record
    from p2p_koikoi.wire import encode_frame
    from p2p_koikoi.wire.codec import pack, unpack

    chain = entries("ending-claim")
    old = chain[5]
    bad = pack([2, *unpack(old.data)[1:]])
    frames = [encode_frame(pack(["record", FORMAT_VERSION, 0, "", 1_700_000_000, "tests"]))]
    frames += [encode_frame(pack(["entry", e.data, e.signature])) for e in chain[:5]]
    frames.append(encode_frame(pack(["entry", bad, old.signature])))
    report = walk_record(read_record_bytes(b"".join(frames), Path("later.koikoi")))
    assert report.verdict == "failed" and report.finding is not None
    assert (report.finding.entry, report.finding.reason) == (5, "unreadable-entry")


# ---------------------------------------------------------------------------- the presets, crash and cheats


def test_there_is_a_sample_per_preset_and_each_verifies(reports: dict) -> None:  # type: ignore[type-arg]
    for name in PRESETS:
        report = reports[name]
        assert report.verdict == "verified", (name, report.finding)
        assert report.rules.split()[0] == name
        assert report.ending.how == "finished" and len(report.rounds) >= 3


def test_the_cheat_sample_is_caught_by_the_verifier_as_the_honest_player_caught_it(reports: dict) -> None:  # type: ignore[type-arg]
    report = reports["cheat-stacked-deck"]
    assert report.verdict == "failed"
    finding = report.finding
    assert (finding.reason, finding.blame) == ("bad-shuffle-proof", 0)  # on the stacked deck's own entry
    assert finding.entry == report.entries - 2  # the last entry before the guest's goodbye
    assert report.writer_seat == 1
    (note,) = report.notes
    assert (note.note.reason, note.note.blame, note.agrees) == ("bad-shuffle-proof", 0, True)


def test_the_crash_sample_verifies_up_to_its_end_and_says_it_is_incomplete(reports: dict) -> None:  # type: ignore[type-arg]
    report = reports["crash-killed-guest"]
    assert report.verdict == "incomplete"
    assert report.finding.reason == "incomplete" and report.finding.entry == report.entries
    assert report.next_writer in (0, 1)
    assert len(report.rounds) >= 1


def test_a_false_no_hiki_is_caught_at_the_audit(reports: dict) -> None:  # type: ignore[type-arg]
    """The host answered the guest's Gaji play with no-hiki while it held the fourth card of that month:
    nobody could see it before the round's audit, which blames the seat that answered."""
    report = reports["cheat-false-no-hiki"]
    chain = entries("cheat-false-no-hiki")
    answer = next(i for i, e in enumerate(chain) if e.entry.kind == "move" and e.entry.body[1] == "no-hiki")
    gaji = chain[answer - 1].entry
    assert gaji.author == 1 and str(gaji.body[1]).startswith("play willow-lightning take ")
    assert chain[answer].entry.author == 0
    assert report.verdict == "failed" and report.writer_seat == 1
    assert (report.finding.reason, report.finding.blame) == ("audit:gaji-blocked-by-hiki", 0)
    # Named at the false answer itself, found when the secrets came out (at a Reveal).
    assert report.finding.entry == answer and report.finding.found_at is not None and report.finding.found_at > answer
    assert (report.ending.how, report.ending.winner) == ("violation", 1)
    (note,) = report.notes
    assert (note.note.reason, note.agrees) == ("audit:gaji-blocked-by-hiki", True)


# ---------------------------------------------------------------------------- the rare deals


def test_the_tie_sample_draws_the_first_dealer_twice() -> None:
    """The first-dealer draw was a tie (two cards of one month): a second draw, redeal 1 of round 0."""
    draws = {tuple(e.entry.body[:2]) for e in entries("tied-dealer-draw") if e.entry.kind == "deal"}
    assert (0, 0) in draws and (0, 1) in draws
    first = export_file(REPLAYS / "tied-dealer-draw.koikoi").transcript["first_dealer"]
    assert len(first["draws"]) == 2
    tie = [Card.parse(card) for card in first["draws"][0]]
    assert tie[0].month == tie[1].month


def test_the_redeal_sample_deals_round_1_again(reports: dict) -> None:  # type: ignore[type-arg]
    """Round 1's table held four of a month: both seats write a result with outcome redeal, then the same
    round is dealt again (redeal 1)."""
    chain = entries("redeal")
    results = [e.entry.body for e in chain if e.entry.kind == "result"]
    assert results[0][:5] == [1, 0, "redeal", -1, 0] == results[1][:5]
    assert [1, 1] in [e.entry.body[:2] for e in chain if e.entry.kind == "deal"]
    assert [(r.number, r.redeal, r.outcome) for r in reports["redeal"].rounds][:2] == [(1, 0, "redeal"), (1, 1, "stop")]


@pytest.mark.parametrize(("name", "answer"), [("gaji-hiki", "hiki "), ("gaji-no-hiki", "no-hiki")])
def test_the_gaji_samples_answer_a_gaji_play(name: str, answer: str) -> None:
    chain = entries(name)
    i = next(i for i, e in enumerate(chain) if e.entry.kind == "move" and str(e.entry.body[1]).startswith(answer))
    gaji = chain[i - 1].entry
    assert str(gaji.body[1]).startswith("play willow-lightning take ") and gaji.author != chain[i].entry.author
    if answer == "hiki ":  # the play is void: the Gaji player plays again
        assert chain[i + 1].entry.author == gaji.author and chain[i + 1].entry.kind == "move"


def test_the_exchange_sample_swaps_hands() -> None:
    assert any(text == "exchange" for _seat, text in moves("hand-exchange"))


# ---------------------------------------------------------------------------- the endings


@pytest.mark.parametrize(
    ("name", "verdict", "how", "seat", "winner", "claimed"),
    [
        ("ending-quit", "verified", "forfeit", 1, 0, False),
        ("ending-claim", "verified", "silence", 0, 0, True),
        ("ending-claim-refuted", "verified", "finished", None, None, False),
        ("ending-crossing-withdrawn", "verified", "finished", None, None, False),
        ("ending-adjourned", "verified", "adjourned", 0, None, False),
        ("ending-concession", "verified", "forfeit", 1, 0, False),
        ("ending-declined", "verified", "declined", 1, None, False),
        ("ending-baseless-accusation", "failed", "forfeit", 1, 0, False),
        ("ending-integrity-accusation", "failed", "forfeit", 1, 0, False),
    ],
)
def test_each_ending_sample_ends_as_its_name_says(
    reports: dict,  # type: ignore[type-arg]
    name: str,
    verdict: str,
    how: str,
    seat: int | None,
    winner: int | None,
    claimed: bool,
) -> None:
    report = reports[name]
    end = report.ending
    assert report.verdict == verdict, report.finding
    assert (end.how, end.claimed) == (how, claimed)
    if how != "finished":
        assert (end.seat, end.winner) == (seat, winner)
    if verdict == "failed":
        assert (report.finding.reason, report.finding.blame) == ("baseless-accusation", 1)
        assert report.finding.entry == report.entries - 1  # at the accuser's goodbye


def test_the_claim_sample_names_the_silent_seat_to_write_next(reports: dict) -> None:  # type: ignore[type-arg]
    report = reports["ending-claim"]
    last = entries("ending-claim")[-1].entry
    assert (last.kind, last.author, last.body[0]) == ("goodbye", 0, "peer-gone")
    assert report.ending.owed == 1 and report.next_writer == 1


def test_the_refuted_claim_is_answered_by_here_chained_after_it() -> None:
    chain = entries("ending-claim-refuted")
    claim = next(i for i, e in enumerate(chain) if e.entry.kind == "goodbye")
    assert (chain[claim].entry.author, chain[claim].entry.body[0]) == (0, "peer-gone")
    here = chain[claim + 1].entry
    assert (here.kind, here.author, here.prev) == ("here", 1, chain[claim].digest)
    assert chain[-1].entry.body[0] == "match-over"


def test_the_crossing_sample_keeps_the_withdrawn_entries_and_its_note() -> None:
    """The guest's move crossed the host's claim: the guest's record keeps its move (and its own claim, lost
    in flight), then a withdrawn note, then the host's claim in their place and the move written again."""
    record = read_record(REPLAYS / "ending-crossing-withdrawn.koikoi")
    assert record.writer_seat == 1
    (note,) = record.notes
    assert note.reason == "withdrawn"
    gone = record.withdrawn
    assert [(e.entry.author, e.entry.kind) for e in gone] == [(1, "move"), (1, "goodbye")]
    place = gone[0].entry.seq
    claim, again = record.entries[place].entry, record.entries[place + 1].entry
    assert (claim.kind, claim.author, claim.body[0]) == ("goodbye", 0, "peer-gone")
    assert (again.kind, again.author, again.body) == ("move", 1, gone[0].entry.body)
    assert again.prev == record.entries[place].digest


def test_the_withdrawn_note_is_no_finding_and_is_compared_with_nothing() -> None:
    """A ``withdrawn`` note is the record's own structure: listed, never compared with the verifier's finding,
    even when the record fails after it (the last entry's signature broken here), nor told as a note that
    cannot be compared."""
    from p2p_koikoi.record.reader import read_record_bytes
    from p2p_koikoi.record.verify import walk_record
    from p2p_koikoi.ui.verify_view import render_text

    path = REPLAYS / "ending-crossing-withdrawn.koikoi"
    data = path.read_bytes()
    for damaged in (data, data[:-1] + bytes([data[-1] ^ 1])):
        report = walk_record(read_record_bytes(damaged, path))
        (check,) = report.notes
        assert (check.note.reason, check.agrees) == ("withdrawn", None)
        assert check.comment == "entries from 24 on were withdrawn: a crossing goodbye took their place"
        text = "\n".join(render_text(report))
        assert "the guest's entries from 24 on were withdrawn: the host's goodbye crossed them" in text
        assert "the writer's note" not in text
    assert report.finding is not None and report.finding.reason == "bad-signature"


def test_the_cut_copy_falls_against_the_winners_copy(reports: dict) -> None:  # type: ignore[type-arg]
    winner, loser = reports["cut-copy-winner"], reports["cut-copy-loser"]
    assert winner.verdict == "verified" and winner.ending.how == "finished"
    lost = 1 - winner.ending.winner
    assert loser.verdict == "failed" and (loser.finding.reason, loser.finding.blame) == ("fork", lost)
    assert (loser.ending.how, loser.ending.claimed, loser.writer_seat) == ("silence", True, lost)
    assert loser.falls_against is not None and loser.falls_against.endswith("cut-copy-winner.koikoi")
    (check,) = winner.copies
    assert check.found.stands == (0,) and check.found.blame == lost


# ---------------------------------------------------------------------------- the replay


def test_the_replay_shows_every_card_once_the_secrets_are_out_and_words_for_every_action() -> None:
    replay = load_replay(REPLAYS / "nintendo.koikoi")
    assert replay.report is not None and replay.report.verdict == "verified"
    text = "\n".join(plain_lines(replay))
    assert "Each drew a card" in text and "deals first" in text
    assert "(every card face up)" in text and "Stock: 24 left: " in text
    assert " plays " in text and " draws " in text and "Points: Host" in text
    assert all(step.board.hidden == (0, 0) for step in replay.steps)
    counts = [r for r in replay.rounds if r.played.result is not None]
    assert all(any("payment" in line or "Nobody" in line or "dealt again" in line for line in r.count) for r in counts)


def test_a_round_cut_short_is_replayed_with_what_was_known() -> None:
    replay = load_replay(REPLAYS / "crash-killed-guest.koikoi")
    last = replay.rounds[-1]
    assert last.played.deal is None
    board = replay.steps[last.first_step].board
    assert board.hidden == (8, 8) and all(card is None for card in board.stock)
    assert "order unknown" in "\n".join(plain_lines(replay))


def test_keys_move_through_steps_and_rounds() -> None:
    replay = load_replay(REPLAYS / "lemme.koikoi")
    cursor = Cursor(replay)
    assert cursor.press("n") and cursor.index == 1
    cursor.press("left")
    assert cursor.index == 0
    cursor.press("]")
    assert cursor.index == replay.rounds[1].first_step
    cursor.press("[")
    assert cursor.index == 0
    cursor.press("3")
    assert replay.rounds[replay.round_of(cursor.index)].played.number == 3
    cursor.press("e")
    assert cursor.index == len(replay.steps) - 1
    cursor.press("n")
    assert cursor.index == len(replay.steps) - 1
    cursor.press("s")
    assert cursor.index == 0
    assert not cursor.press("q")


def test_a_step_renders_the_board_and_the_story() -> None:
    replay = load_replay(REPLAYS / "gameweave.koikoi")
    console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
    console.print(render_step(replay, 5))
    screen = console.export_text()
    assert "Table" in screen and "Stock" in screen and "what happened" in screen
    assert "Round 1" in screen and "step 6/" in screen
