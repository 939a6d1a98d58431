"""Another match on the same connection, through the real program (issue 29, "Done when"): ``koikoi host``
and ``koikoi join`` in two tmux panes of their own, a 3-round match played by bots in ``--plain`` lines
(the person who started each is asked about another match, as anyone watching the bot would be), both
press ``r``, a second match is played on the same connection, and ``koikoi verify`` of the folder shows
every record verified. A no, and nobody answering (the 30 s scaled down by ``KOIKOI_TIMING_SCALE``), each
end with one line and a zero exit: the match was played out."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import trio
import trio.testing

from p2p_koikoi.net.framed import FramedChannel
from p2p_koikoi.net.rematch import Verdict, agree
from p2p_koikoi.testing.processes import free_port, wait_listening
from tests.test_ui_tmux import Pane
from tests.tmux_support import ended, exit_code
from tests.verify_support import folder_verifies

ASKED = "Another match? [r: yes, Enter: no]"


def _panes(tmp_path: Path, scale: str = "1") -> tuple[Pane, Pane, Path]:
    port = free_port()
    replays = tmp_path / "replays"
    koikoi = f"{sys.executable} -m p2p_koikoi"
    common = f"--bot random --plain --replay-dir {replays}"
    host = f"{koikoi} host --port {port} --bind 127.0.0.1 --no-upnp --rules lemme --rounds 3 --seed 1 {common}"
    join = f"{koikoi} join 127.0.0.1:{port} --yes --seed 2 {common}"

    def pane(command: str, who: str) -> Pane:
        env = {**os.environ, "KOIKOI_HOME": str(tmp_path / who), "KOIKOI_TIMING_SCALE": scale, "LANG": "C.UTF-8"}
        return Pane(f'{command}; echo "[exit $?]"; sleep 600', env, 100, 40)

    host_pane = pane(host, "host")
    wait_listening(port)
    return host_pane, pane(join, "guest"), replays


def _asked(pane: Pane, times: int) -> None:
    pane.wait(lambda s: s.count(ASKED) >= times, 120, f"the question of another match ({times})", history=True)


def test_both_press_r_and_a_second_match_is_played_on_the_same_connection(tmp_path: Path) -> None:
    host, guest, replays = _panes(tmp_path)
    try:
        for pane in (host, guest):
            _asked(pane, 1)
            pane.keys("r", "Enter")
        for pane in (host, guest):
            _asked(pane, 2)
        host.keys("Enter")  # the host has had enough: a no
        host_screen, guest_screen = ended(host, history=True), ended(guest, history=True)
    finally:
        host.close()
        guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    assert Verdict.AGREED.line in host_screen and Verdict.AGREED.line in guest_screen
    assert Verdict.WE_DECLINED.line in host_screen and Verdict.PEER_DECLINED.line in guest_screen
    assert "Match 1:" in host_screen and "Match 2:" in host_screen
    for screen in (host_screen, guest_screen):
        assert "Traceback" not in screen
        assert screen.count("Record saved:") >= 2  # both matches' records are named
    folder_verifies(replays, 4)  # two matches, a copy each


def test_a_no_ends_it_politely(tmp_path: Path) -> None:
    host, guest, replays = _panes(tmp_path)
    try:
        for pane in (host, guest):
            _asked(pane, 1)
        guest.keys("Enter")
        host_screen, guest_screen = ended(host, history=True), ended(guest, history=True)
    finally:
        host.close()
        guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    assert Verdict.PEER_DECLINED.line in host_screen, host_screen[-1500:]
    assert Verdict.WE_DECLINED.line in guest_screen, guest_screen[-1500:]
    assert "Traceback" not in host_screen + guest_screen
    folder_verifies(replays, 2)


def test_nobody_answering_ends_it_at_the_timeout(tmp_path: Path) -> None:
    host, guest, replays = _panes(tmp_path, scale="0.1")  # the 30 s wait is 3 s
    try:
        host_screen, guest_screen = ended(host, history=True), ended(guest, history=True)
    finally:
        host.close()
        guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    # Each side's wait starts as its own match ends, and a side whose wait ran out sends a polite no: the side
    # whose wait ran out first always times out; the other either times out too or reads that no before its
    # own wait is over (which, on a loaded machine, it may), and then says the opponent declined. One line each.
    ends = [_parting(screen) for screen in (host_screen, guest_screen)]
    assert Verdict.TIMED_OUT in ends and set(ends) <= {Verdict.TIMED_OUT, Verdict.PEER_DECLINED}, ends
    assert "Traceback" not in host_screen + guest_screen
    folder_verifies(replays, 2)


def _parting(screen: str) -> Verdict:
    """The one verdict whose line ends the series on this screen."""
    said = [verdict for verdict in Verdict if verdict.line in screen]
    assert len(said) == 1, screen[-1500:]
    return said[0]


async def test_a_wait_that_began_later_reads_the_polite_no_of_the_one_that_ran_out(autojump_clock) -> None:
    """Why the timeout test above accepts a decline on one side: on memory streams with the autojump clock,
    the guest's wait begins half a second after the host's (its match ended later, or its machine is
    loaded), nobody answers, and the host, whose wait runs out first, says no; the guest reads that no
    before its own wait is over."""
    a, b = trio.testing.memory_stream_pair()
    match_id = bytes(32)
    verdicts: dict[str, Verdict] = {}

    async def never() -> bool:
        await trio.sleep(math.inf)
        return False

    async def side(name: str, stream: trio.abc.Stream, late: float) -> None:
        await trio.sleep(late)
        verdicts[name] = await agree(FramedChannel(stream), match_id, never, 3.0)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, "host", a, 0.0)
        nursery.start_soon(side, "guest", b, 0.5)
    assert verdicts == {"host": Verdict.TIMED_OUT, "guest": Verdict.PEER_DECLINED}
