"""Another match on the same connection at the terminal table (issue 29 item 1), through the real program:
``koikoi host`` and ``koikoi join`` (no ``--plain``, no bot) each in a tmux pane of its own, both seats
played by keys as a person would (:func:`tests.test_ui_tmux.play_until`'s beginner, one pane after the
other). At the end screen of a match played out both press ``r``: a second match is dealt on the same
connection, into records of its own, and ``koikoi verify`` of the folder verifies every copy. A no at the
end screen (Enter) ends it: the one who said it leaves at once, the other's end screen says so in one
line and waits for Enter; both exit 0, since every match was played out."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from p2p_koikoi.net.rematch import Verdict
from p2p_koikoi.testing.processes import free_port, wait_listening
from tests.test_ui_tmux import Pane
from tests.tmux_support import ended, exit_code, play_both
from tests.verify_support import folder_verifies

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed: the table is driven in it")

OFFERED = "r: play again"  # the end screen's key for another match
NEXT = "both wanted another"  # the log's first line in a match after the first on a connection


def _panes(tmp_path: Path) -> tuple[Pane, Pane, Path]:
    port = free_port()
    replays = tmp_path / "replays"
    koikoi = f"{sys.executable} -m p2p_koikoi"
    host = f"{koikoi} host --port {port} --bind 127.0.0.1 --no-upnp --rules lemme --rounds 3 --replay-dir {replays}"
    join = f"{koikoi} join 127.0.0.1:{port} --yes --replay-dir {replays}"

    def pane(command: str, who: str) -> Pane:
        env = {**os.environ, "KOIKOI_HOME": str(tmp_path / who), "KOIKOI_PAUSE": "0.05", "LANG": "C.UTF-8"}
        env.pop("NO_COLOR", None)
        return Pane(f'{command}; echo "[exit $?]"; sleep 600', env, 100, 30)

    host_pane = pane(host, "host")
    wait_listening(port)
    return host_pane, pane(join, "guest"), replays


def _second_match_dealt(screen: str) -> bool:
    """The end screen is gone and the second match's table is up. Its log opens with :data:`NEXT`, but a
    round that ends at the deal (a hand yaku, a misdeal) covers the log with its round-end panel at once,
    so the first round's header or panel counts too: the first match's end screen shows its last round."""
    return "Match over" not in screen and (NEXT in screen or re.search(r"Round 1 (of|is over)", screen) is not None)


def test_both_press_r_at_the_table_and_a_second_match_is_played_on_the_same_connection(tmp_path: Path) -> None:
    host, guest, replays = _panes(tmp_path)
    try:
        play_both((host, guest), OFFERED)
        for pane in (host, guest):
            assert re.search(r"\d+ s to answer", pane.settled()), pane.screen()
            pane.keys("r")
        for pane in (host, guest):  # the second match, dealt on the same connection
            pane.wait(_second_match_dealt, 60, "the second match")
        assert len(list(replays.glob("*.koikoi"))) == 4  # the first match's two copies, and the second's begun
        play_both((host, guest), OFFERED)
        host.keys("Enter")  # the host has had enough: a no, and it leaves at once
        host_screen = ended(host)
        guest.wait(lambda s: Verdict.PEER_DECLINED.line in s and "Enter: leave" in s, 30, "the guest told")
        guest.keys("Enter")
        guest_screen = ended(guest)
    finally:
        host.close()
        guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    for screen in (host_screen, guest_screen):
        assert "Traceback" not in screen
        assert "Match 1 of 2:" in screen and "Match 2 of 2:" in screen  # both matches summed up on leaving
        assert "Match 1:" in screen and "Match 2:" in screen  # and both records named
    assert Verdict.WE_DECLINED.line in host_screen and Verdict.PEER_DECLINED.line in guest_screen
    folder_verifies(replays, 4)  # two matches, a copy each


def test_a_no_at_the_table_ends_it_politely(tmp_path: Path) -> None:
    host, guest, replays = _panes(tmp_path)
    try:
        play_both((host, guest), OFFERED)
        guest.keys("Enter")  # the guest says no: it leaves at once
        guest_screen = ended(guest)
        host.wait(lambda s: Verdict.PEER_DECLINED.line in s and "Enter: leave" in s, 30, "the host told")
        assert OFFERED not in host.settled()
        host.keys("Enter")
        host_screen = ended(host)
    finally:
        host.close()
        guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    assert Verdict.WE_DECLINED.line in guest_screen and Verdict.PEER_DECLINED.line in host_screen
    assert "Traceback" not in host_screen + guest_screen
    folder_verifies(replays, 2)
