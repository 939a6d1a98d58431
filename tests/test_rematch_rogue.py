"""A rogue peer around another match, end to end (issue 29 item 1; SPEC.md section 9): a real host
(``host_match``) and a guest that is our own ``join_match`` with one step altered, over loopback TCP, bots at
both tables. The rogue's connection is taken as it dials (its ``dial_patiently`` is wrapped), so its answer
about another match, or its player, can put a frame of its own on the wire:

- a second answer after its yes, or an answer naming another match: the honest host ends the series with
  one line (``bad-frame``), its match played out and recorded, every copy verified, nothing raised;
- a ``rematch`` frame in the middle of the match: a connection fault (SPEC.md section 7), never an ending:
  the host closes the connection, the rogue's own program dials again and resumes, and the match is played
  out; the host's copy notes what came, and both copies verify.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from p2p_koikoi.app import netplay
from p2p_koikoi.app.netplay import NetMatchResult
from p2p_koikoi.app.players import BotPlayer
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.rematch import Verdict
from p2p_koikoi.record.reader import read_record
from p2p_koikoi.wire.frames import Answer, Rematch
from tests.rematch_support import play_series
from tests.verify_support import all_verify

Again = Callable[[Path | None], Awaitable[bool]]
BROKE = "No further match: the opponent broke the protocol after the match (bad-frame)"


class Rogue:
    """The guest's connection, taken as ``join_match`` dials it; the match ids its sessions played."""

    def __init__(self) -> None:
        self.channel: FramedChannel | None = None
        self.match_id = b""

    def wrap(self, dial):  # type: ignore[no-untyped-def]
        async def dial_and_keep(*args, **kwargs):  # type: ignore[no-untyped-def]
            channel, greeting, address = await dial(*args, **kwargs)
            self.channel = channel
            return channel, greeting, address

        return dial_and_keep

    async def send(self, answer: Answer, match_id: bytes) -> None:
        assert self.channel is not None
        await self.channel.send(Rematch(match_id, answer))


async def _waits(record: Path | None) -> bool:
    """The honest host's player, who has not answered yet when the rogue's frames arrive."""
    await trio.sleep_forever()
    raise AssertionError("unreachable")


async def _no(record: Path | None) -> bool:
    return False


def _match_id(record: Path | None) -> bytes:
    assert record is not None
    return read_record(record).entries[0].entry.match_id


async def _series(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rogue: Rogue,
    host_says: Again,
    guest_says: Again,
    guest_player: Callable[[int], BotPlayer] | None = None,
) -> tuple[NetMatchResult, NetMatchResult, Path]:
    monkeypatch.setattr(netplay, "dial_patiently", rogue.wrap(netplay.dial_patiently))  # only the guest dials
    return await play_series(tmp_path, monkeypatch, host_says, guest_says, guest_player)


async def test_a_second_answer_ends_the_series_with_one_line(tmp_path, monkeypatch) -> None:
    rogue = Rogue()

    async def yes_twice(record: Path | None) -> bool:
        await rogue.send(Answer.YES, _match_id(record))  # one answer of its own; join_match sends the other
        return True

    host, guest, replays = await _series(tmp_path, monkeypatch, rogue, _waits, yes_twice)
    assert host.ok and not host.earlier, host.notes
    assert len(host.notes) == 1 and host.notes[0].startswith(BROKE), host.notes
    assert "a second answer about another match" in host.notes[0]
    assert guest.ok and guest.notes == [Verdict.LOST.line]  # the host parted: the rogue is told so, no more
    all_verify(replays, 2)


async def test_an_answer_naming_another_match_ends_the_series_with_one_line(tmp_path, monkeypatch) -> None:
    rogue = Rogue()

    async def elsewhere(record: Path | None) -> bool:
        await rogue.send(Answer.YES, secrets.token_bytes(32))  # a yes to some other match
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    host, guest, replays = await _series(tmp_path, monkeypatch, rogue, _waits, elsewhere)
    assert host.ok and not host.earlier, host.notes
    assert len(host.notes) == 1 and host.notes[0].startswith(BROKE), host.notes
    assert "another frame where the answer about another match belongs" in host.notes[0]
    assert guest.ok and guest.notes == [Verdict.LOST.line]
    all_verify(replays, 2)


class _RematchMidMatch(BotPlayer):
    """The rogue's player: at its third decision it puts a ``rematch`` frame on the wire first."""

    def __init__(self, rogue: Rogue, seat: int) -> None:
        super().__init__(RandomAgent(8), seat)
        self.rogue = rogue
        self.decisions = 0

    async def choose(self, view, legal, context, *, deadline=None):  # type: ignore[no-untyped-def]
        self.decisions += 1
        if self.decisions == 3:
            await self.rogue.send(Answer.YES, bytes(32))
        return await super().choose(view, legal, context, deadline=deadline)


async def test_a_rematch_frame_mid_match_is_a_connection_fault_and_the_match_goes_on(tmp_path, monkeypatch) -> None:
    rogue = Rogue()
    players: list[_RematchMidMatch] = []

    def rogue_player(seat: int) -> BotPlayer:
        players.append(_RematchMidMatch(rogue, seat))
        return players[-1]

    host, guest, replays = await _series(tmp_path, monkeypatch, rogue, _no, _no, rogue_player)
    assert players and players[0].decisions >= 3  # the frame was sent
    assert host.ok and guest.ok, (host.report, guest.report)  # resumed and played out
    assert host.notes == guest.notes == [Verdict.WE_DECLINED.line]  # both said no at once, each its own
    assert host.record is not None
    notes = [n for n in read_record(host.record).notes if n.reason == "bad-frame"]
    assert notes and "a rematch frame in the middle of the match" in notes[0].text, read_record(host.record).notes
    all_verify(replays, 2)
