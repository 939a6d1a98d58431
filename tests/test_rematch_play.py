"""Another match on the same connection, through the host and join use cases (issue 29 item 1): a real
host and guest in one process over loopback TCP, bots at the table, each player's answer given by the
test. Both yes: a second match on the same connection, a record each, all verified. A no ends the series
with one line each; the matches played are still played out and recorded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p_koikoi.app import netplay
from p2p_koikoi.app.netplay import HostOptions, JoinOptions, NetMatchResult, host_match, join_match
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.engine import preset
from p2p_koikoi.net.rematch import Verdict
from p2p_koikoi.net.tcp import Address
from p2p_koikoi.record.verify import Verdict as RecordVerdict


def _answers(*answers: bool):
    """A player who answers the question of another match with ``answers`` in turn, shown each record."""
    asked: list[Path | None] = []

    async def again(record: Path | None) -> bool:
        asked.append(record)
        return answers[len(asked) - 1]

    again.asked = asked  # type: ignore[attr-defined]
    return again


async def _series(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_says, guest_says):
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path / "home"))
    keys = iter([Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()])
    monkeypatch.setattr(netplay, "load_identity", lambda: next(keys))  # the host's key, then the guest's
    rules = preset("lemme").with_option("rounds", "3")
    replays = tmp_path / "replays"
    options = HostOptions(rules, 0, "127.0.0.1", 0, replays, upnp=False)
    ports: list[int] = []
    listening = trio.Event()

    def host_say(line: str) -> None:
        found = re.search(r"on port (\d+)", line)
        if found and not ports:
            ports.append(int(found.group(1)))
            listening.set()

    async def no(question: str) -> bool:
        return False

    results: dict[int, NetMatchResult] = {}

    async def host() -> None:
        player = lambda seat: BotPlayer(RandomAgent(7), seat)  # noqa: E731 - a new player for each match
        results[0] = await host_match(options, player, host_say, no, host_says)

    async def guest() -> None:
        await listening.wait()
        join = JoinOptions((Address("127.0.0.1", ports[0]),), replays)
        player = lambda seat: BotPlayer(RandomAgent(8), seat)  # noqa: E731
        results[1] = await join_match(join, player, lambda line: None, no, guest_says)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(guest)
    return results[0], results[1], replays


def _all_verify(replays: Path, count: int) -> None:
    records = sorted(replays.glob("*.koikoi"))
    assert len(records) == count, records
    reports = verify_paths(records, jobs=1)
    assert [r.verdict for r in reports] == [RecordVerdict.VERIFIED] * count, reports


async def test_both_yes_play_a_second_match_on_the_same_connection(tmp_path, monkeypatch) -> None:
    host_says, guest_says = _answers(True, False), _answers(True, True)
    host, guest, replays = await _series(tmp_path, monkeypatch, host_says, guest_says)
    for result in (host, guest):
        assert result.ok and len(result.earlier) == 1 and result.earlier[0].ok
        assert result.record is not None and result.record != result.earlier[0].record
    assert host.notes == [Verdict.WE_DECLINED.line] and guest.notes == [Verdict.PEER_DECLINED.line]
    assert host_says.asked == [host.earlier[0].record, host.record]  # shown the record of the match just played
    _all_verify(replays, 4)  # two matches, a copy each


async def test_a_no_after_the_first_match_ends_it_with_one_line(tmp_path, monkeypatch) -> None:
    host, guest, replays = await _series(tmp_path, monkeypatch, _answers(True), _answers(False))
    assert host.ok and guest.ok and not host.earlier and not guest.earlier
    assert host.notes == [Verdict.PEER_DECLINED.line] and guest.notes == [Verdict.WE_DECLINED.line]
    _all_verify(replays, 2)
