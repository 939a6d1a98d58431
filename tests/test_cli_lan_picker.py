"""The LAN picker of ``koikoi join --lan`` (issue 28, item 12), through the real program on a LAN of two
network namespaces the test makes and removes: three games announced in one, the guest in the other.

- the list comes in the same order every run (sorted, not as the network delivered it);
- with several games and no terminal to ask (``--bot greedy --yes``, input not a terminal), join refuses in
  one line instead of joining game 1 nobody chose;
- Ctrl-C at "Join which game [1-3]?" leaves at once, in one line, without waiting for Enter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_koikoi.testing import KOIKOI, koikoi_env
from p2p_koikoi.testing.processes import run_in_pty
from tests.netns_support import no_namespaces

# Network namespaces and their names are machine-wide: one xdist worker at a time runs the files that make them.
pytestmark = pytest.mark.xdist_group("netns")

GAMES = [  # port, fingerprint, rules: announced in this order, listed by rules
    (7451, "cccc:0000:0000:0000:0000:0000:0000:0003", "qdan rounds=3"),
    (7452, "aaaa:0000:0000:0000:0000:0000:0000:0001", "lemme rounds=3"),
    (7453, "bbbb:0000:0000:0000:0000:0000:0000:0002", "nintendo rounds=6"),
]
ANNOUNCE = """
import sys, trio
from p2p_koikoi.net.lan import announce
async def main():
    item = await announce(int(sys.argv[1]), ["10.77.0.1"], sys.argv[2], sys.argv[3])
    print("announced", flush=True)
    await trio.sleep(120)
trio.run(main)
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


@pytest.fixture(scope="module")
def lan() -> Iterator[str]:
    """The guest's namespace, on a LAN where the other namespace announces the three games."""
    if os.geteuid() != 0 or subprocess.run(["ip", "netns", "add", "kkpickprobe"], capture_output=True).returncode:
        no_namespaces()
    subprocess.run(["ip", "netns", "del", "kkpickprobe"], check=False)
    tag = f"kkp{os.getpid() % 10000}"
    hosts, guest = f"{tag}a", f"{tag}b"
    announcers: list[subprocess.Popen[str]] = []
    try:
        for name in (hosts, guest):
            _ip("netns", "add", name)
            _ip("-n", name, "link", "set", "lo", "up")
        _ip("link", "add", f"{tag}x", "netns", hosts, "type", "veth", "peer", "name", f"{tag}y", "netns", guest)
        for name, dev, address in ((hosts, f"{tag}x", "10.77.0.1/24"), (guest, f"{tag}y", "10.77.0.2/24")):
            _ip("-n", name, "addr", "add", address, "dev", dev)
            _ip("-n", name, "link", "set", dev, "up")
        for port, fingerprint, rules in GAMES:
            command = ["ip", "netns", "exec", hosts, sys.executable, "-c", ANNOUNCE, str(port), fingerprint, rules]
            announcers.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
        for announcer in announcers:
            assert announcer.stdout is not None and announcer.stdout.readline().strip() == "announced"
        yield guest
    finally:
        for announcer in announcers:
            announcer.kill()
            announcer.wait(timeout=10)
        for name in (hosts, guest):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def _join(namespace: str, home: Path, *options: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *KOIKOI, "join", "--lan", "--replay-dir", str(home / "r"), *options]


def _listed(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()[:2] in ("1.", "2.", "3.")]


def test_several_games_and_no_terminal_to_ask_is_refused_in_one_line(lan: str, tmp_path: Path) -> None:
    runs = [
        subprocess.run(
            _join(lan, tmp_path, "--bot", "greedy", "--yes"),
            env=koikoi_env(tmp_path),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr and "Connecting" not in run.stderr, run.stderr
        last = run.stderr.splitlines()[-1]
        assert last == "koikoi: 3 games on the LAN and no terminal to ask which: join one by an address listed above"
    first, second = (_listed(run.stderr) for run in runs)
    assert first == second, "one number names one game from run to run"
    assert [line.split()[1] for line in first] == ["lemme", "nintendo", "qdan"], first
    assert "at 10.77.0.1:7452" in first[0]


def test_ctrl_c_at_the_question_leaves_at_once_in_one_line(lan: str, tmp_path: Path) -> None:
    env = {**koikoi_env(tmp_path), "TERM": "xterm"}
    run = run_in_pty(_join(lan, tmp_path), env, until=b"Join which game [1-3]? ")  # SIGINT, and no Enter ever
    text = run.shown
    assert run.acted, text
    assert run.code is not None, f"Ctrl-C did not end the picker:\n{text}"
    assert run.code == 130, text
    after = text.split("Join which game [1-3]? ")[1].replace("^C", "").strip().splitlines()
    assert after == ["koikoi: no game joined (Ctrl-C): nothing was dialled"], text
