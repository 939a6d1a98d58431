"""protocol/ against the code, where the words state a fact that only the code decides: the version numbers,
each stated once; the state hash, recomputed from SPEC.md section 3's words over the sample records and
over matches with a tied dealer draw, a redeal and both answers to a Gaji; the codec's limits; TCP_NODELAY;
the order of the checks within one entry (RECORD.md sections 4.1 to 4.3), by tampering with entries; how a
damaged record reads (RECORD.md section 2); the report (RECORD.md section 4.6); and one definition for
every reason id the code can name (RECORD.md section 4.7, DEAL.md section 11, TRANSCRIPT.md section 3).

Each test names the finding of ``SPEC-FINDINGS.md`` (issue 25) it holds closed."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.fairness.derive import PROTOCOL_VERSION, DealContext
from p2p_koikoi.record.format import FORMAT_VERSION
from p2p_koikoi.referee import Referee, SpectatorKnowledge
from p2p_koikoi.referee.events import FirstDealerChoice, MatchVisitor
from p2p_koikoi.referee.findings import Violation
from p2p_koikoi.referee.table import STATE_DOMAIN, Stage
from p2p_koikoi.wire import VERSION, Entry, SignedEntry
from p2p_koikoi.wire.codec import pack, unpack
from tests.record_support import (
    find,
    play_match,
)

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "protocol"
REPLAYS = ROOT / "replays"


def page(name: str) -> str:
    return (PROTOCOL / name).read_text()


def section(text: str, start: str, end: str) -> str:
    """The text from the heading ``start`` up to the heading ``end`` (or the end of the page)."""
    body = text.split(start, 1)[1]
    return body.split(end, 1)[0] if end in body else body


# Labels of matches between random bots (tests/record_support.py) that show what no sample shows.
TIE = ("rulebook", "tie and redeal 0")  # the first dealer draw is a tie: a second draw
REDEAL = ("rulebook", "tie and redeal 124")  # round 1's first table is four pairs: dealt again
HIKI = ("rulebook", "gaji 23")  # a Gaji play onto a month of three, answered hiki CARD
NO_HIKI = ("rulebook", "gaji 31")  # ... answered no-hiki


# ---------------------------------------------------------------------------------- versions (#1, #8)


def test_the_protocol_version_is_stated_once_in_spec_md() -> None:
    """SPEC.md's title states the protocol version; the code speaks it; no other page states it again."""
    spec = page("SPEC.md")
    title = re.fullmatch(r"# The p2p-koikoi wire protocol, version (\d+)", spec.splitlines()[0])
    assert title is not None, "SPEC.md's title states the protocol version"
    assert int(title.group(1)) == VERSION
    assert [int(n) for n in re.findall(r"(?i)\bversion[ =]+`?(\d+)", spec)].count(VERSION) == 1
    for path in sorted(PROTOCOL.glob("*.md")):
        if path.name == "SPEC.md":
            continue
        stated = re.findall(r"(?i)protocol version `?(\d+)|version=(\d+)", path.read_text())
        assert str(VERSION) not in {n for pair in stated for n in pair}, f"{path.name} states the version again"


def test_the_deal_context_version_byte_is_stated_once_in_deal_md() -> None:
    deal = page("DEAL.md")
    assert "context = u8(version) || u8(purpose)" in deal
    stated = re.findall(r"The version byte of the context \(section 2\) is `(\d+)`", deal)
    assert stated == [str(PROTOCOL_VERSION)]
    assert DealContext(b"match").to_bytes()[0] == PROTOCOL_VERSION
    for path in sorted((PROTOCOL / "vectors").glob("deal-*.json")):
        context = json.loads(path.read_text()).get("context")
        if context is not None:
            assert bytes.fromhex(context["bytes"])[0] == PROTOCOL_VERSION, path.name


def test_the_record_format_version_is_the_header_s() -> None:
    record = page("RECORD.md")
    assert re.findall(r'`\["record", (\d+),', record) == [str(FORMAT_VERSION)]
    assert "[version, match_id, seq, prev, author, kind, body, state]" in record


# ---------------------------------------------------------------------------------- the state hash (#3-#7, #12, #29)


def _lenient_entries(path: Path) -> list[SignedEntry]:
    """A record's entries as the bytes say, whatever protocol version they carry (samples of an older
    version are read too: the state hash is the same function of the state)."""
    data, offset, out = path.read_bytes(), 0, []
    while offset + 4 <= len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        body = data[offset + 4 : offset + 4 + length]
        offset += 4 + length
        if len(body) < length:
            break
        value = unpack(body)
        if value[0] != "entry":
            continue
        version, match_id, seq, prev, author, kind, entry_body, state = unpack(value[1])
        entry = Entry(match_id, seq, prev, author, kind, entry_body, state, version)
        out.append(SignedEntry(value[1], value[2], entry))
    return out


class _FirstDealer(MatchVisitor):
    def __init__(self) -> None:
        self.seat: int | None = None

    def first_dealer(self, choice: FirstDealerChoice) -> None:
        self.seat = choice.seat


def _next_dealers() -> dict[str, str]:
    """GAME.md's outcomes table: the next dealer of each outcome, in words."""
    table = page("GAME.md").split("<!-- generated: outcomes -->")[1].split("<!-- end: outcomes -->")[0]
    rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| `")]
    return {row[0].strip().strip("`"): row[3].strip() for row in rows}


def _by_the_words(entries: list[SignedEntry]) -> Iterator[tuple[int, bytes, bytes]]:
    """For each entry (up to the first the referee refuses): its number, the state hash SPEC.md section 3's
    words give, and the one it carries. The referee says which stage each entry is in and what the
    engine's public state is; the words say what ``round``, ``redeal``, ``points``, ``dealer`` hold and
    when ``public`` is empty."""
    first = _FirstDealer()
    referee = Referee(SpectatorKnowledge(), first)
    next_dealer = _next_dealers()
    rnd, redeal, draw, points, dealer = 0, 0, 0, [0, 0], -1
    rules = None
    for index, signed in enumerate(entries):
        stage, step = referee.stage, referee.step
        public: list[Any] = []
        if stage in (Stage.EXCHANGE, Stage.HANDS, Stage.PLAY, Stage.AUDIT, Stage.RESULT):
            assert referee.round is not None
            public = list(referee.round.public_state())
        field = draw if stage is Stage.FIRST_DEALER else redeal
        state = [stage.value, step, rnd, field, points, dealer, public]
        yield index, hashlib.sha256(STATE_DOMAIN + pack(state)).digest()[:16], signed.entry.state
        try:
            referee.feed(signed)
        except Violation:
            return
        entry, after = signed.entry, referee.stage
        if index == 0:
            rules = referee.rules
        assert rules is not None
        if stage is Stage.FIRST_DEALER and after is Stage.FIRST_DEALER and referee.step == 0:
            draw += 1  # a tie: the stage starts over with the next draw number
        if stage is Stage.FIRST_DEALER and after is Stage.SETUP:  # the first dealer is known
            assert first.seat is not None
            rnd, redeal, dealer = 1, 0, first.seat
            points = [rules.pool, rules.pool] if rules.scoring is Scoring.POOL else [0, 0]
        if stage is Stage.AUDIT and after is Stage.RESULT:  # the second Reveal: the round is counted
            body = entries[index + 1].entry.body if index + 1 < len(entries) else None
            if body is None:
                return
            outcome, winner = body[2], body[3]
            points = [body[5], body[6]]
            said = next_dealer[outcome]
            dealer = {"the winner": winner, "the same dealer": dealer, "the other seat": 1 - dealer}[said]
        if stage is Stage.RESULT and after is not Stage.RESULT:  # the second result
            decided = rnd >= rules.rounds or (rules.scoring is Scoring.POOL and 0 in points)
            if entry.body[2] == "redeal":
                redeal += 1
                decided = False
            else:
                redeal = 0
                if not decided:
                    rnd += 1
            assert (after is Stage.GOODBYE) == decided, (index, after)


def _assert_states_by_the_words(entries: list[SignedEntry]) -> int:
    checked = 0
    for index, words, carried in _by_the_words(entries):
        assert words == carried, f"entry {index} ({entries[index].entry.kind}): the words give another state"
        checked += 1
    return checked


@pytest.mark.parametrize("path", sorted(REPLAYS.glob("*.koikoi")), ids=lambda p: p.stem)
def test_the_state_hash_of_every_sample_entry_is_the_words(path: Path) -> None:
    entries = _lenient_entries(path)
    assert _assert_states_by_the_words(entries) >= len(entries) - 1  # a cheat: up to its offending entry


@pytest.mark.parametrize("case", [TIE, REDEAL, HIKI, NO_HIKI], ids=["tie", "redeal", "hiki", "no-hiki"])
def test_the_state_hash_of_a_tie_a_redeal_and_a_gaji_is_the_words(case: tuple[str, str]) -> None:
    played = play_match(*case)
    entries = list(played.entries)
    assert _assert_states_by_the_words(entries) == len(entries)
    deals = [e.entry.body[:2] for e in entries if e.entry.kind == "deal"]
    results = [e.entry.body for e in entries if e.entry.kind == "result"]
    if case == TIE:
        assert [0, 1] in deals, "the label no longer makes a tied dealer draw"
    if case == REDEAL:
        assert results[0][:5] == [1, 0, "redeal", -1, 0] == results[1][:5], "no redeal in round 1"
        assert results[0][5:] == [0, 0]
        assert [1, 1] in deals  # then the same round, dealt again with redeal 1


def test_a_redealt_table_shows_over_with_both_hands_dealt() -> None:
    """SPEC.md section 3 (#29): a table dealt again is `over`, seat -1, its table, 8 cards a hand, nothing
    drawn; SETUP goes straight to AUDIT, then RESULT, then SETUP again (#6)."""
    entries = list(play_match(*REDEAL).entries)
    referee = Referee(SpectatorKnowledge())
    stages: list[Stage] = []
    for signed in entries[:40]:
        stage = referee.stage
        if not stages or stages[-1] != stage:
            stages.append(stage)
        if stage is Stage.AUDIT and referee.round is not None and referee.redeal == 0 and referee.round_number == 1:
            phase, seat, _dealer, table, cap0, cap1, hand0, hand1, drawn, calls0, calls1 = referee.round.public_state()
            assert (phase, seat, cap0, cap1, hand0, hand1, drawn, calls0, calls1) == ("over", -1, 0, 0, 8, 8, 0, 0, 0)
            assert isinstance(table, int) and table.bit_count() == 8
        referee.feed(signed)
    first_setup = stages.index(Stage.SETUP)
    assert stages[first_setup : first_setup + 4] == [Stage.SETUP, Stage.AUDIT, Stage.RESULT, Stage.SETUP]


def test_while_a_gaji_play_waits_the_state_is_the_one_before_it() -> None:
    """SPEC.md section 5 (#12): the Gaji play, its answer and (after hiki) the play again carry one state;
    the round shows phase `play` and the Gaji player to act, while the other seat holds the floor."""
    for case, answer in ((HIKI, "hiki "), (NO_HIKI, "no-hiki")):
        entries = list(play_match(*case).entries)
        i = find(entries, "move", text=answer)
        gaji = entries[i - 1].entry
        assert gaji.body[1].startswith("play willow-lightning take ") and gaji.body[3] is None
        assert gaji.state == entries[i].entry.state
        if answer == "hiki ":
            assert entries[i + 1].entry.author == gaji.author and entries[i + 1].entry.state == gaji.state
        referee = Referee(SpectatorKnowledge())
        for signed in entries[:i]:
            referee.feed(signed)
        assert referee.round is not None
        phase, to_act = referee.round.public_state()[:2]
        assert (phase, to_act) == ("play", gaji.author) and referee.floor() == 1 - gaji.author
        referee.feed(entries[i])
        if answer == "no-hiki":
            assert referee.round.public_state()[0] == "draw" and referee.floor() == gaji.author
