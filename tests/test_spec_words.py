"""protocol/ against the code, where the words state a fact that only the code decides: the version numbers,
each stated once; the state hash, recomputed from SPEC.md section 3's words over the sample records and
over matches with a tied dealer draw, a redeal, a last round dealt again and both answers to a Gaji; the
codec's limits; TCP_NODELAY; the order of the checks within one entry (RECORD.md sections 4.1 to 4.3), by
tampering with entries; how a damaged record reads (RECORD.md section 2); the report (RECORD.md section
4.6); and one definition for every reason id the code can name (RECORD.md section 4.7, DEAL.md section 11,
TRANSCRIPT.md section 3).

Each test names the finding of ``SPEC-FINDINGS.md`` (issue 25) it holds closed."""

from __future__ import annotations

import ast
import hashlib
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_koikoi.engine import Card
from p2p_koikoi.engine.rules import Scoring
from p2p_koikoi.fairness import Deck, Keys, Reason, Reveal, Show
from p2p_koikoi.fairness.derive import PROTOCOL_VERSION, DealContext
from p2p_koikoi.record.format import FORMAT_VERSION, WITHDRAWN
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.record.transcript import TranscriptFault
from p2p_koikoi.referee import Referee, SpectatorKnowledge
from p2p_koikoi.referee.events import FirstDealerChoice, MatchVisitor
from p2p_koikoi.referee.findings import Violation
from p2p_koikoi.referee.table import STATE_DOMAIN, Stage
from p2p_koikoi.wire import VERSION, Entry, RemoteProtocolError, SignedEntry, encode_frame
from p2p_koikoi.wire.codec import pack, unpack
from p2p_koikoi.wire.reasons import FAMILIES, ReasonId
from tests.record_support import (
    Played,
    find,
    honest,
    play_match,
    record_bytes,
    resign,
    verify_bytes,
    verify_entries,
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
LAST_REDEAL = ("rulebook", "last round redeal 7")  # round 3's first table is dealt again: the last deal's redeal is 1


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


def _sample_entries(path: Path) -> list[SignedEntry]:
    """A sample's chain: as the record reader takes it for this protocol version (a ``withdrawn`` note drops
    the entries a crossing displaced, RECORD.md section 2), as the bytes say for an older one."""
    entries = _lenient_entries(path)
    if entries and entries[0].entry.version == VERSION:
        return list(read_record(path).entries)
    return entries


def _lenient_entries(path: Path) -> list[SignedEntry]:
    """A record's entries as the bytes say, whatever protocol version they carry (samples of an older
    version are read too: the state hash is the same function of the state); notes are skipped."""
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
            elif not decided:  # the next round is dealt; a decided match keeps its last deal's number
                redeal = 0
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
    entries = _sample_entries(path)
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


def test_the_goodbye_stage_keeps_the_redeal_number_of_the_last_deal() -> None:
    """SPEC.md section 3: a match whose last round was dealt again shows, through GOODBYE, the redeal number of
    its last deal (1), not 0; the round stays the last one, the points and dealer are the count's."""
    entries = list(play_match(*LAST_REDEAL).entries)
    assert _assert_states_by_the_words(entries) == len(entries)
    results = [e.entry.body for e in entries if e.entry.kind == "result"]
    assert results[-4][:3] == [3, 0, "redeal"] and results[-1][:2] == [3, 1], "the label no longer deals round 3 again"
    goodbyes = [i for i, e in enumerate(entries) if e.entry.kind == "goodbye"]
    assert len(goodbyes) == 2 and goodbyes[0] == len(entries) - 2
    last = results[-1]
    assert _next_dealers()[last[2]] == "the winner"  # the last deal was won (`stop`): its winner deals next
    dealer = last[3]
    for step, i in enumerate(goodbyes):
        state = ["goodbye", step, 3, 1, [last[5], last[6]], dealer, []]
        assert hashlib.sha256(STATE_DOMAIN + pack(state)).digest()[:16] == entries[i].entry.state
        state[3] = 0
        assert hashlib.sha256(STATE_DOMAIN + pack(state)).digest()[:16] != entries[i].entry.state


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


# ---------------------------------------------------------------------------------- frames (#28, #26)


def test_the_nesting_example_of_spec_md_is_the_codec_s_limit() -> None:
    example = re.search(r"so\s+`(\[0, \[1, \[2, \[3\]\]\]\])` is as deep", page("SPEC.md"))
    assert example is not None
    deepest = json.loads(example.group(1))
    assert unpack(pack(deepest)) == deepest
    with pytest.raises(RemoteProtocolError) as caught:
        unpack(pack([0, [1, [2, [3, [4]]]]]))
    assert caught.value.reason == "too-deep"
    for value, reason in (([{}], "bad-type"), ([{1: 2}], "bad-msgpack"), ([1.5], "bad-type")):
        with pytest.raises(RemoteProtocolError) as caught:
            unpack(pack(value))
        assert caught.value.reason == reason, value


def test_both_ends_of_a_connection_send_every_frame_at_once() -> None:
    """SPEC.md section 1's interop note (#26): TCP_NODELAY on the dialled and on the accepted socket."""
    from p2p_koikoi.net.tcp import Address, dial_raw

    async def main() -> tuple[int, int]:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        accepted: list[trio.SocketStream] = []

        async def accept() -> None:
            accepted.append(await listeners[0].accept())

        async with trio.open_nursery() as nursery:
            nursery.start_soon(accept)
            dialled = (await dial_raw(Address("127.0.0.1", port))).stream
        options = tuple(s.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in (dialled, *accepted))
        for stream in (dialled, *accepted):
            await stream.aclose()
        await listeners[0].aclose()
        return options  # type: ignore[return-value]

    assert all(trio.run(main))


# ---------------------------------------------------------------------------------- the order of checks (#18, #20-#23)


def _judged(played: Played | list[SignedEntry], index: int, **changes: object) -> tuple[int | None, str, int | None]:
    """Entry ``index`` changed and signed again by its author (a signed lie), as ``koikoi verify`` names it."""
    entries = played.entries if isinstance(played, Played) else played
    keys = played.keys if isinstance(played, Played) else honest().keys
    report = verify_entries(resign(entries, index, keys, **changes)[: index + 1])
    finding = report.finding
    assert finding is not None, changes
    return finding.entry, finding.reason, finding.blame


def _play(played: Played, author: int = 0, nth: int = 2) -> tuple[int, list[Any]]:
    i = find(played.entries, "move", author=author, text="play ", nth=nth)
    return i, list(played.entries[i].entry.body)


def test_the_checks_of_a_move_run_in_the_order_record_md_lists() -> None:
    """RECORD.md section 4.2.1, a `move` in PLAY (#18, #21): round, text, the Show's field and the deal's checks
    of it, then the play's Show, Keys, the engine, the Keys' field and the deal's checks of them."""
    played = honest()
    i, (number, text, show, keys) = _play(played)
    author = played.entries[i].entry.author
    shown = Show.from_bytes(show)
    other = next(card for card in Card if card not in shown.cards)
    stock_keys = Keys.from_bytes(keys)
    later_show = played.entries[_play(played, author=author, nth=4)[0]].entry.body[2]
    cases: list[tuple[list[Any], str]] = [
        ([number + 1, text.replace(" ", "  "), None, None], "wrong-round"),
        ([number, "play pine-pine", b"\x09", None], "bad-message"),
        ([number, text.replace(" ", "  "), b"\x09", None], "not-canonical"),
        ([number, text, b"\x09", None], "bad-message"),
        ([number, text, keys, None], "bad-show"),
        ([number, text, Show((47,), shown.cards, shown.keys).to_bytes(), None], "unexpected-positions"),
        ([number, text, Show(shown.positions, shown.cards, (bytes(32),)).to_bytes(), None], "invalid-scalar"),
        ([number, text, None, keys], "show-mismatch"),  # no Show at all
        ([number, text, Show(shown.positions, (other,), shown.keys).to_bytes(), None], "claim-mismatch"),
        ([number, text, later_show, None], "show-mismatch"),  # a true Show, of another card
        ([number, text, show, None], "missing-key"),
        ([number, text, show, show], "bad-message"),
        ([number, text, show, Keys((47,), stock_keys.keys).to_bytes()], "unexpected-positions"),
        ([number, text, show, Keys(stock_keys.positions, (bytes(32),)).to_bytes()], "invalid-scalar"),
    ]
    for body, reason in cases:
        assert _judged(played, i, body=body) == (i, reason, author), (body[1:], reason)
    j = find(played.entries, "move", text="koikoi")
    k_number, k_text, _, _ = played.entries[j].entry.body
    k_author = played.entries[j].entry.author
    own_show = next(  # a true Show of the same seat, earlier in the same round
        e.entry.body[2]
        for e in reversed(played.entries[:j])
        if e.entry.kind == "move" and e.entry.author == k_author and e.entry.body[2] and e.entry.body[0] == k_number
    )
    assert _judged(played, j, body=[k_number, k_text, show, keys]) == (j, "unexpected-positions", k_author)
    assert _judged(played, j, body=[k_number, k_text, own_show, keys]) == (j, "unexpected-key", k_author)
    assert _judged(played, j, body=[k_number, k_text, own_show, None]) == (j, "unexpected-show", k_author)


def test_a_text_that_is_no_action_is_a_bad_message_and_one_written_otherwise_not_canonical() -> None:
    """GAME.md, Actions (#11): the `invalid` texts of actions.json are `bad-message`, the `not_canonical`
    ones `not-canonical`, a claim naming a card twice among the former."""
    played = honest()
    i, (number, _text, show, keys) = _play(played)
    vectors = json.loads((PROTOCOL / "vectors" / "actions.json").read_text())
    assert "claim teshi pine-crane pine-crane pine-ribbon pine-plain-1" in vectors["invalid"]
    for text in vectors["invalid"][-2:]:
        assert _judged(played, i, body=[number, text, show, keys])[1] == "bad-message", text
    for text in vectors["actions"][0]["not_canonical"][:2]:
        assert _judged(played, i, body=[number, text, show, keys])[1] == "not-canonical", text


def test_the_exchange_and_the_gaji_answers_are_checked_as_listed() -> None:
    """RECORD.md section 4.2.1: the EXCHANGE `move` (`unexpected-field`, `out-of-turn`), a Gaji play onto
    three (`early-key`) and its answer (`bad-hiki`, `bad-message`)."""
    played = play_match(*HIKI)
    entries = played.entries
    e = (
        find(entries, "move", text="exchange")
        if any(x.entry.kind == "move" and x.entry.body[1] == "exchange" for x in entries)
        else find(entries, "move", text="keep")
    )
    number, text, _, _ = entries[e].entry.body
    author = entries[e].entry.author
    show = _play(played, author=author, nth=0)[1][2]
    assert _judged(played, e, body=[number, text, show, None]) == (e, "unexpected-field", author)
    assert _judged(played, e, body=[number, "koikoi", None, None]) == (e, "out-of-turn", author)
    h = find(entries, "move", text="hiki ")
    g_number, g_text, g_show, _ = entries[h - 1].entry.body
    gaji_author = entries[h - 1].entry.author
    other_keys = next(x.entry.body[3] for x in entries if x.entry.kind == "move" and x.entry.body[3])
    assert _judged(played, h - 1, body=[g_number, g_text, g_show, other_keys]) == (h - 1, "early-key", gaji_author)
    h_number, h_text, h_show, _ = entries[h].entry.body
    answerer = entries[h].entry.author
    assert _judged(played, h, body=[h_number, h_text, h_show, other_keys]) == (h, "bad-hiki", answerer)
    assert _judged(played, h, body=[h_number, "hiki pine-pine", h_show, None]) == (h, "bad-message", answerer)
    assert _judged(played, h, body=[h_number, "no-hiki", h_show, None]) == (h, "bad-hiki", answerer)
    assert _judged(played, h, body=[h_number, h_text, None, None]) == (h, "bad-hiki", answerer)


def test_the_checks_of_keys_run_in_the_order_record_md_lists() -> None:
    """RECORD.md section 4.3, `Keys` (#22): the positions, then key by key a valid scalar and the committed key."""
    played = honest()
    i = find(played.entries, "deal", message=Keys.KIND)  # seat 0's keys for the table
    number, redeal, data = played.entries[i].entry.body
    table = Keys.from_bytes(data)
    a, b, *rest = table.keys
    hand = tuple(p for p in range(48) if p not in table.positions)[:8]

    def keys(positions: tuple[int, ...], values: list[bytes]) -> list[Any]:
        return [number, redeal, Keys(positions, tuple(values)).to_bytes()]

    cases = [
        (keys(hand, [bytes(32), *table.keys[1:]]), "unexpected-positions"),  # positions before scalars
        (keys(table.positions, [b, a, *rest]), "wrong-key"),  # swapped keys
        (keys(table.positions, [a, bytes(32), *rest]), "invalid-scalar"),
        (keys(table.positions, [b, bytes(32), *rest]), "wrong-key"),  # the first bad key decides
        (keys(table.positions, [bytes(32), a, *rest]), "invalid-scalar"),
        ([number, redeal, Reveal(bytes(32)).to_bytes()], "unexpected-message"),  # not the slot's kind
    ]
    for body, reason in cases:
        assert _judged(played, i, body=body) == (i, reason, 0), reason


def test_the_checks_of_a_deck_pass_run_in_the_order_record_md_lists() -> None:
    """RECORD.md section 4.3, a deck pass: the slot, 48 points, valid points, distinct points, the proof."""
    played = honest()
    i = find(played.entries, "deal", message=Deck.KIND, nth=1)  # seat 1's pass 2
    number, redeal, data = played.entries[i].entry.body
    deck = Deck.from_bytes(data)
    points = list(deck.points)
    bad_point = b"\xff" * 32

    def body(n: int, pts: list[bytes], proof: bytes = deck.proof) -> list[Any]:
        return [number, redeal, Deck(n, tuple(pts), proof).to_bytes()]

    cases = [
        (body(4, points), "unexpected-message"),
        (body(2, [*points[:47], bad_point, bad_point], b""), "deck-size"),
        (body(2, [points[1], points[1], *points[2:5], bad_point, *points[6:]], b""), "invalid-point"),
        (body(2, [points[1], points[1], *points[2:]], b""), "duplicate-point"),
        (body(2, points, deck.proof[:-1]), "bad-shuffle-proof"),
        (body(2, [points[1], points[0], *points[2:]]), "bad-shuffle-proof"),
    ]
    for changed, reason in cases:
        assert _judged(played, i, body=changed) == (i, reason, 1), reason
    j = find(played.entries, "deal", message=Deck.KIND, nth=2)  # seat 0's pass 3
    number, redeal, data = played.entries[j].entry.body
    lock = Deck.from_bytes(data)
    swapped = [lock.points[1], lock.points[0], *lock.points[2:]]
    assert _judged(played, j, body=[number, redeal, Deck(3, tuple(swapped), lock.proof).to_bytes()]) == (
        j,
        "bad-lock-proof",
        0,
    )


def test_a_secret_that_opens_no_commitment_is_named_at_its_reveal() -> None:
    """RECORD.md section 4.3 (#23): `commitment-mismatch` is named at the Reveal itself, `found_at` empty."""
    played = honest()
    i = find(played.entries, "deal", message=Reveal.KIND, nth=2)  # the first Reveal of round 1's audit
    number, redeal, _ = played.entries[i].entry.body
    author = played.entries[i].entry.author
    report = verify_entries(
        resign(played.entries, i, played.keys, body=[number, redeal, Reveal(b"\x07" * 32).to_bytes()])
    )
    finding = report.finding
    assert finding is not None
    assert (finding.entry, finding.reason, finding.blame, finding.found_at) == (i, "commitment-mismatch", author, None)


def test_the_first_checks_blame_nobody_in_a_file_but_after_end_blames_its_author() -> None:
    """SPEC.md section 3 and RECORD.md section 4.2 (#20): a bit flipped (the first four checks) blames
    nobody; an entry after the end, validly signed and linked, blames its author."""
    played = honest()
    entries = list(played.entries)
    last = entries[-1]
    after = Entry(last.entry.match_id, last.entry.seq + 1, last.digest, 1, "goodbye", ["quit", "late", None], bytes(16))
    report = verify_entries([*entries, SignedEntry.sign(after, played.keys[1])])
    assert report.finding is not None
    assert (report.finding.entry, report.finding.reason, report.finding.blame) == (len(entries), "after-end", 1)
    forged = SignedEntry(last.data, bytes(64), last.entry)
    report = verify_entries([*entries[:-1], forged])
    assert report.finding is not None and (report.finding.reason, report.finding.blame) == ("bad-signature", None)


def test_entry_0_is_checked_in_the_order_record_md_lists() -> None:
    """RECORD.md section 4.1: not a match entry, then the keys and the signature, then the match id."""
    played = honest()
    entries = list(played.entries)
    match = entries[0].entry
    assert _judged(played, 0, kind="accept", body=[match.body[1], None]) == (0, "not-a-match", None)
    assert _judged(played, 0, match_id=bytes(32))[1:] == ("bad-handshake", 0)
    rules, _fingerprint, keys, nonces, limit, software, name = match.body
    assert _judged(played, 0, body=[rules, bytes(32), keys, nonces, limit, software, name])[1:] == ("bad-rules", 0)


# ---------------------------------------------------------------------------------- reading a damaged record (#16, #31)


def _frames_of(entries: list[SignedEntry] | tuple[SignedEntry, ...], cut: int, extra: bytes) -> bytes:
    """A record of the first ``cut`` entries, then ``extra`` bytes, then the other entries' frames."""
    rest = b"".join(encode_frame(pack(["entry", e.data, e.signature])) for e in entries[cut:])
    return record_bytes(list(entries[:cut])) + extra + rest


def test_a_corrupt_frame_fails_at_its_place_blaming_nobody_and_a_cut_one_is_incomplete() -> None:
    played = honest()
    cut = 20
    for extra in (
        b"\x00\x00\x00\x00",  # a length of 0
        encode_frame(b"\x92\xa5entry\xd0\x01"),  # not canonical msgpack
        encode_frame(pack(["stone", b"x"])),  # an unknown frame tag
        encode_frame(pack(["note", "x", 7, "", b""])),  # a malformed note
    ):
        report = verify_bytes(_frames_of(played.entries, cut, extra))
        assert report.verdict == "failed"
        assert report.finding is not None
        assert (report.finding.entry, report.finding.reason, report.finding.blame) == (cut, "corrupt-frame", None)
    whole = record_bytes(list(played.entries[: cut + 1]))
    report = verify_bytes(whole[:-3])  # the last frame cut short, as a crash leaves it
    assert report.verdict == "incomplete" and report.finding is not None
    assert (report.finding.entry, report.finding.reason, report.finding.blame) == (cut, "incomplete", None)
    report = verify_bytes(record_bytes(list(played.entries)) + b"\x00\x00\x00\x00")
    assert report.verdict == "verified" and report.warnings


def test_an_entry_whose_bytes_do_not_decode_is_blamed_on_whoever_signed_them() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p_koikoi.wire import SIGN_DOMAIN

    played = honest()
    cut = 20
    bad = pack([1, *unpack(played.entries[cut].data)[1:]])  # an entry of another protocol version
    for signer, blame in ((played.keys[1], 1), (played.keys[0], 0), (Ed25519PrivateKey.generate(), None)):
        frame = encode_frame(pack(["entry", bad, signer.sign(SIGN_DOMAIN + bad)]))
        report = verify_bytes(record_bytes(list(played.entries[:cut])) + frame)
        assert report.verdict == "failed" and report.entries == cut
        assert report.finding is not None
        assert (report.finding.entry, report.finding.reason, report.finding.blame) == (cut, "unreadable-entry", blame)


# ---------------------------------------------------------------------------------- the report (#9, #25)


def test_the_json_report_is_a_list_for_one_file_too() -> None:
    from p2p_koikoi.ui.verify_view import error_json, render_json

    report = verify_entries(honest().entries)
    assert isinstance(json.loads(render_json([report])), list) and len(json.loads(render_json([report]))) == 1
    (problem,) = json.loads(error_json("nothing there"))
    assert problem["verdict"] == "unreadable"
    assert "prints a JSON **list**, one object per file" in page("RECORD.md")


def test_a_deal_is_listed_once_audited_before_its_results_and_nobody_wins_as_null() -> None:
    """RECORD.md section 4.6 (#25): a redeal is listed with winner null; a deal whose second `result`
    lies is still listed (it was audited), while the report fails on that result."""
    played = play_match(*REDEAL)
    report = verify_entries(played.entries)
    assert report.verdict == "verified"
    first = report.rounds[0].to_json()
    assert (first["round"], first["redeal"], first["outcome"], first["winner"]) == (1, 0, "redeal", None)
    i = find(played.entries, "result", nth=3)  # the second result of the deal played after the redeal
    body = list(played.entries[i].entry.body)
    body[4] += 1
    lied = verify_entries(resign(played.entries, i, played.keys, body=body))
    assert lied.finding is not None and lied.finding.reason == "result-mismatch"
    assert [(r.number, r.redeal) for r in lied.rounds] == [(1, 0), (1, 1)]


# ---------------------------------------------------------------------------------- reason ids (items 3 and 5)

_PRODUCERS = {"RemoteProtocolError": 0, "NotKoikoi": 0, "_fail": 1, "Finding": 1}
_FAMILIES = {"illegal-move:": "illegal-move:RULE", "audit:": "audit:RULE", "unconfirmed:": "unconfirmed:REASON"}


def _ids_made_by(path: Path, producers: dict[str, int]) -> set[str]:
    """The reason ids the calls in ``path`` make: a string (or the fixed start of an f-string) at the reason's
    place in a call of one of ``producers`` (name -> the reason's argument)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        place = producers.get(_call_name(node))
        if place is None or len(node.args) <= place:
            continue
        arg = node.args[place]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.add(arg.value)
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            start = str(arg.values[0].value)
            found.add(_FAMILIES.get(start, start + "*"))
        elif (member := _member(arg)) is not None:
            found.add(member)
    return found


def _member(arg: ast.expr) -> str | None:
    """The id a ``ReasonId.NAME`` (or a deal ``Reason.NAME``) argument names; for ``str(ReasonCode(ReasonId.NAME,
    detail))`` its family, or ``audit:outcome`` for that fixed detail."""
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
        enums: dict[str, Any] = {"ReasonId": ReasonId, "Reason": Reason, "TranscriptFault": TranscriptFault}
        enum = enums.get(arg.value.id)
        return str(enum[arg.attr]) if enum is not None else None
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "str" and arg.args:
        code = arg.args[0]
        if isinstance(code, ast.Call) and isinstance(code.func, ast.Name) and code.func.id == "ReasonCode":
            kind = _member(code.args[0])
            detail = code.args[1] if len(code.args) > 1 else None
            if isinstance(detail, ast.Constant) and detail.value == "outcome":
                return f"{kind}:outcome"
            return _FAMILIES.get(f"{kind}:", kind)
    return None


def _returned_by(path: Path, function: str) -> set[str]:
    """The strings ``function`` in ``path`` returns as such (a property naming a reason id)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for inner in ast.walk(node):
                value = inner.value if isinstance(inner, ast.Return) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.add(value.value)
                elif value is not None and (member := _member(value)) is not None:
                    found.add(member)
    return found


def _code_ids() -> set[str]:
    """Every reason id the referee, the wire, the network and the verifier can name, and the deal's; the
    findings of two copies verified together (``CopyComparison.reason``) and the ``withdrawn`` note."""
    found = {str(reason) for reason in Reason}
    for path in (ROOT / "p2p_koikoi").rglob("*.py"):
        if path.name != "transcript.py":
            found |= _ids_made_by(path, _PRODUCERS)
    found |= _returned_by(ROOT / "p2p_koikoi" / "record" / "copies.py", "reason")
    return found | {WITHDRAWN}


def _family(reason: str) -> str:
    """``illegal-move:wrong-phase`` -> ``illegal-move:RULE``; an id of no family is itself."""
    return _FAMILIES.get(reason.split(":")[0] + ":", reason) if ":" in reason else reason


def _table_ids(text: str) -> list[str]:
    return re.findall(r"^\| `([a-z][a-z:A-Z-]*)` \|", text, re.M)


def _record_ids() -> list[str]:
    return _table_ids(section(page("RECORD.md"), "<!-- reason-ids:", "<!-- end reason-ids -->"))


def _deal_ids() -> list[str]:
    return _table_ids(section(page("DEAL.md"), "## 11.", "## 12."))


def test_every_reason_id_the_code_can_name_is_defined_once() -> None:
    """RECORD.md section 4.7 with DEAL.md section 11: each id the code can name has one definition, and
    each definition an id the code can name (`bad-show`, `early-key`, `unexpected-field` among them)."""
    record, deal = _record_ids(), _deal_ids()
    assert len(record) == len(set(record)) and len(deal) == len(set(deal))
    assert {"bad-show", "early-key", "unexpected-field", "refuted", "disputed-copies", "withdrawn"} <= set(record)
    defined = set(record) | set(deal)
    code = _code_ids()
    assert not sorted(i for i in code if i not in defined and _family(i) not in defined), "defined nowhere"
    assert not sorted(defined - code - {_family(i) for i in code}), "defined, but the code cannot name them"
    assert set(record) & set(deal) == {"wrong-key"}  # a key of the greeting, and a key of the deal


def test_the_reason_id_enum_is_record_md_s_table() -> None:
    """``ReasonId`` holds RECORD.md section 4.7's ids in the table's order, a family (``illegal-move:RULE``)
    by its head, and its families are the table's: an id added to either alone fails here (issue 27)."""
    heads = list(dict.fromkeys(i.split(":")[0] for i in _record_ids()))
    assert [str(member) for member in ReasonId] == heads
    families = {i.split(":")[0] for i in _record_ids() if ":" in i and i.split(":")[1].isupper()}
    assert {str(member) for member in FAMILIES} == families


def test_no_producer_names_a_reason_by_its_word() -> None:
    """A reason id given to an error or a finding is a member of ``ReasonId`` (or of the deal's ``Reason``, or
    of the transcript reader's ``TranscriptFault``), never a string written out: its word lives in one place."""
    written = {}
    producers = {**_PRODUCERS, "reject": 1, "captured": 4, "_compare": 2}  # and the transcript reader's
    for path in (ROOT / "p2p_koikoi").rglob("*.py"):
        lines = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call)
            and (place := producers.get(_call_name(node))) is not None
            and len(node.args) > place
            and isinstance(node.args[place], ast.Constant | ast.JoinedStr)
        ]
        if lines:
            written[str(path.relative_to(ROOT))] = lines
    assert not written, f"reason ids written as words, not as members (file: lines): {written}"


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def test_the_transcript_ids_are_transcript_md_s() -> None:
    transcript = section(page("TRANSCRIPT.md"), "## 3.", "\n## ")
    listed = set(re.findall(r"`([a-z][a-z:A-Z-]*)`", transcript))
    made = _ids_made_by(ROOT / "p2p_koikoi" / "record" / "transcript.py", {"reject": 1, "captured": 4, "_compare": 2})
    fixed = {_family(i) for i in made if not i.endswith("*")}
    assert "illegal-move:RULE" in fixed and {str(fault) for fault in TranscriptFault} <= fixed
    assert not sorted(fixed - listed)


def test_the_reason_ids_spec_md_lists_are_defined() -> None:
    """SPEC.md's list of reason ids (section 6, while it keeps one) names only ids that RECORD.md section 4.7
    or DEAL.md section 11 define (a family by its prefix: `illegal-move:RULE`)."""
    defined = set(_record_ids()) | set(_deal_ids())
    spec = page("SPEC.md")
    if "| where | ids |" not in spec:
        return  # the list is gone: SPEC.md links to RECORD.md section 4.7 instead
    table = spec.split("| where | ids |")[1].split("\n\n")[0]
    listed = set(re.findall(r"`([a-z][a-z:A-Z-]*)`", table))
    assert not sorted(i for i in listed if i not in defined and _family(i) not in defined)
