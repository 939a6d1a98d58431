"""Another match on the same connection, through the host and join use cases (issue 29 item 1): a real
host and guest in one process over loopback TCP, bots at the table, each player's answer given by the
test. Both yes: a second match on the same connection, a record each, all verified. A no ends the series
with one line each; the matches played are still played out and recorded."""

from __future__ import annotations

from pathlib import Path

from p2p_koikoi.net.rematch import Verdict
from tests.rematch_support import play_series
from tests.verify_support import all_verify


def _answers(*answers: bool):
    """A player who answers the question of another match with ``answers`` in turn, shown each record."""
    asked: list[Path | None] = []

    async def again(record: Path | None) -> bool:
        asked.append(record)
        return answers[len(asked) - 1]

    again.asked = asked  # type: ignore[attr-defined]
    return again


async def test_both_yes_play_a_second_match_on_the_same_connection(tmp_path, monkeypatch) -> None:
    host_says, guest_says = _answers(True, False), _answers(True, True)
    host, guest, replays = await play_series(tmp_path, monkeypatch, host_says, guest_says)
    for result in (host, guest):
        assert result.ok and len(result.earlier) == 1 and result.earlier[0].ok
        assert result.record is not None and result.record != result.earlier[0].record
    assert host.notes == [Verdict.WE_DECLINED.line] and guest.notes == [Verdict.PEER_DECLINED.line]
    assert host_says.asked == [host.earlier[0].record, host.record]  # shown the record of the match just played
    all_verify(replays, 4)  # two matches, a copy each


async def test_a_no_after_the_first_match_ends_it_with_one_line(tmp_path, monkeypatch) -> None:
    host, guest, replays = await play_series(tmp_path, monkeypatch, _answers(True), _answers(False))
    assert host.ok and guest.ok and not host.earlier and not guest.earlier
    assert host.notes == [Verdict.PEER_DECLINED.line] and guest.notes == [Verdict.WE_DECLINED.line]
    all_verify(replays, 2)


async def test_a_match_taken_up_again_is_followed_by_a_rematch_as_any_match(tmp_path, monkeypatch) -> None:
    """The guest is cut off mid-match and joins again: the match goes on where it was left, and once it is
    played out both are asked about another, as after any match; both yes play a second match on the
    connection the rejoin opened, a record of its own each, and every record verifies."""
    host_says, guest_says = _answers(True, False), _answers(True, True)
    host, guest, replays = await play_series(tmp_path, monkeypatch, host_says, guest_says, guest_leaves_after=3)
    for result in (host, guest):
        assert result.ok and len(result.earlier) == 1 and result.earlier[0].ok
        assert result.record is not None and result.record != result.earlier[0].record
    assert host.notes == [Verdict.WE_DECLINED.line] and guest.notes == [Verdict.PEER_DECLINED.line]
    assert guest_says.asked == [guest.earlier[0].record, guest.record]
    all_verify(replays, 4)  # the match taken up again and the rematch, a copy each


async def test_a_match_taken_up_with_koikoi_resume_is_followed_by_a_rematch(tmp_path, monkeypatch) -> None:
    """As above, the guest taking its match up with ``koikoi resume``'s use case on its record: the rematch
    is offered there too, and its record goes beside the one resumed."""
    host_says, guest_says = _answers(True, False), _answers(True, True)
    host, guest, replays = await play_series(
        tmp_path, monkeypatch, host_says, guest_says, guest_leaves_after=3, by_resume=True
    )
    for result in (host, guest):
        assert result.ok and len(result.earlier) == 1 and result.earlier[0].ok
    assert guest.record is not None and guest.record.parent == replays
    assert host.notes == [Verdict.WE_DECLINED.line] and guest.notes == [Verdict.PEER_DECLINED.line]
    all_verify(replays, 4)
