"""The reverse connection at the terminal table, through the real program (issue 26 item 2): ``koikoi host``
and ``koikoi join`` (no ``--plain``, no bot) each in a tmux pane. The guest is handed an invite whose
port nothing listens on, so it cannot reach the host: its screen says in one line to send the answer
code to the host, with the code whole; the host's screen says where to paste it; the code is typed into
the host's pane as a paste would, the host dials back, and both seats play the match by keys to its end;
``koikoi verify`` of the folder verifies both copies."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from p2p_koikoi.app.answer_back import SEND_BACK
from p2p_koikoi.net.invite import Invite
from p2p_koikoi.testing.processes import KOIKOI, free_port, koikoi_env, wait_listening
from tests.test_rematch_table_tmux import OFFERED
from tests.test_ui_tmux import Pane
from tests.tmux_support import ended, exit_code, play_both
from tests.verify_support import folder_verifies


def _fingerprint(home: Path) -> str:
    """The key of the player at ``home`` (made on first use), as ``koikoi id`` prints it."""
    out = subprocess.run([*KOIKOI, "id"], env=koikoi_env(home), capture_output=True, text=True, check=True)
    found = re.search(r"([0-9a-f]{4}(?::[0-9a-f]{4}){7})", out.stdout + out.stderr)
    assert found is not None, out
    return found.group(1)


def _code_lines(screen: str) -> list[str]:
    """The screen's lines that show the answer code: its own, and any the table wrapped it onto."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("kka1:"))
    shown = [lines[start]]
    for line in lines[start + 1 :]:
        if not re.fullmatch(r"\s+[a-z2-7]+", line):
            break
        shown.append(line)
    return shown


def test_the_guest_sends_its_answer_code_and_the_host_pastes_it_at_the_table(tmp_path: Path) -> None:
    port, unreachable = free_port(), free_port()
    replays = tmp_path / "replays"
    koikoi = f"{sys.executable} -m p2p_koikoi"
    code = Invite(("127.0.0.1",), unreachable, _fingerprint(tmp_path / "host")).format()
    host_cmd = f"{koikoi} host --port {port} --bind 127.0.0.1 --no-upnp --rules lemme --rounds 3 --replay-dir {replays}"
    join_cmd = f"{koikoi} join {code} --yes --timeout 2 --port 0 --bind 127.0.0.1 --no-upnp --replay-dir {replays}"

    def pane(command: str, who: str) -> Pane:
        env = {**os.environ, "KOIKOI_HOME": str(tmp_path / who), "KOIKOI_PAUSE": "0.05", "LANG": "C.UTF-8"}
        env.pop("NO_COLOR", None)
        return Pane(f'{command}; echo "[exit $?]"; sleep 600', env, 100, 30)

    host = pane(host_cmd, "host")
    guest: Pane | None = None
    try:
        wait_listening(port)
        host.wait(lambda s: "paste it here and press Enter" in " ".join(s.split()), 30, "where to paste, on the host")
        guest = pane(join_cmd, "guest")
        shown = guest.wait(lambda s: "kka1:" in s, 60, "the answer code", history=True)
        assert SEND_BACK.strip() in " ".join(shown.split()), shown
        lines = _code_lines(shown)
        if len(lines) == 1:  # as a narrower table would wrap it: the line break and the indent, pasted too
            lines = [lines[0][:40], "      " + lines[0][40:]]
        for line in lines:  # as a person copies it off the screen, line breaks and all
            host.keys("-l", line)
            host.keys("Enter")
        host.wait(lambda s: "Dialling the guest back at 127.0.0.1:" in s, 30, "the host to dial back")
        play_both((host, guest), OFFERED)
        host.keys("Enter")  # no other match: the host leaves, and the guest is told
        host_screen = ended(host)
        guest.wait(lambda s: "Enter: leave" in s, 30, "the guest told")
        guest.keys("Enter")
        guest_screen = ended(guest)
    finally:
        host.close()
        if guest is not None:
            guest.close()
    assert exit_code(host_screen) == 0 and exit_code(guest_screen) == 0, host_screen + guest_screen
    assert "Traceback" not in host_screen + guest_screen
    folder_verifies(replays, 2)
