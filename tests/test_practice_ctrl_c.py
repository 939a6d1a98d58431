"""Ctrl-C in a practice match is ``q`` (issue 28 item 11): the first asks whether to leave, a second leaves,
and leaving writes the forfeit, so the record ends as the match did and nothing offers to resume it (a
practice match cannot be taken up again). Run as a person would: ``koikoi play`` in a terminal of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from p2p_koikoi.testing import KOIKOI, koikoi_env
from p2p_koikoi.testing.processes import run_in_pty

PLAY = [*KOIKOI, "play", "--rounds", "3", "--bot", "random", "--seed", "2"]


def _env(home: Path) -> dict[str, str]:
    return {**koikoi_env(home), "TERM": "xterm", "COLUMNS": "100", "LINES": "30"}


def _the_record_ended_by_our_forfeit(home: Path) -> None:
    records = sorted((home / "data" / "replays").glob("*.koikoi")) or sorted(home.rglob("*.koikoi"))
    assert len(records) == 1, records
    verified = subprocess.run(
        [*KOIKOI, "verify", str(records[0])], env=koikoi_env(home), capture_output=True, text=True
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "forfeit" in verified.stdout and "unfinished" not in verified.stdout, verified.stdout
    listed = subprocess.run([*KOIKOI, "list"], env=koikoi_env(home), capture_output=True, text=True)
    assert "resume" not in listed.stdout + listed.stderr, listed.stdout


def test_in_plain_lines_ctrl_c_asks_and_a_second_leaves_with_a_complete_record(tmp_path: Path) -> None:
    run = run_in_pty([*PLAY, "--plain"], _env(tmp_path), until=b"Your choice", then=((b"Leave the match?", None),))
    assert run.acted, run.shown[-2000:]
    assert run.code == 1, run.shown[-2000:]  # a loss by forfeit
    assert "Traceback" not in run.shown
    assert "forfeit" in run.shown.lower(), run.shown[-1000:]
    _the_record_ended_by_our_forfeit(tmp_path)


def test_in_plain_lines_ctrl_c_then_no_plays_on(tmp_path: Path) -> None:
    """One Ctrl-C and ``n``: the match goes on (the next choice comes), and q then leaves as before."""
    steps = ((b"Leave the match?", b"n\n"), (b"Your choice", b"q\n"), (b"Leave the match?", b"y\n"))
    run = run_in_pty([*PLAY, "--plain"], _env(tmp_path), until=b"Your choice", then=steps)
    assert run.acted and run.code == 1, run.shown[-2000:]
    _the_record_ended_by_our_forfeit(tmp_path)


@pytest.mark.parametrize("keys", ["ctrl-c twice", "ctrl-c then y"])
def test_at_the_table_ctrl_c_opens_the_leave_box_and_a_second_leaves(tmp_path: Path, keys: str) -> None:
    second = None if keys == "ctrl-c twice" else b"y"
    run = run_in_pty(
        PLAY, _env(tmp_path), until=b"q quit", then=((b"forfeits the match", second), (b"Enter: leave", b"\r"))
    )
    assert run.acted, run.shown[-3000:]
    assert run.code == 1, run.shown[-2000:]
    assert "Traceback" not in run.shown
    _the_record_ended_by_our_forfeit(tmp_path)
