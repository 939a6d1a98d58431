"""Finding your records: ``koikoi list`` (date, opponent, rules, result, verdict, the newest first), and
``last`` or a list number wherever a command takes a record; the closing lines give a command that
works from here and the path whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "replays"


def koikoi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KOIKOI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A data folder holding three of the sample matches under record names, oldest to newest: a finished
    nintendo match, a cheat caught in the deal, and a match cut short by a crash (its secret kept)."""
    folder = tmp_path / "data" / "replays"
    folder.mkdir(parents=True)
    names = {
        "nintendo.koikoi": "20261101-100000-aaaaaaaa-bbbbbbbb-nintendo-host.koikoi",
        "cheat-stacked-deck.koikoi": "20261102-100000-cccccccc-dddddddd-lemme-guest.koikoi",
        "crash-killed-guest.koikoi": "20261103-100000-eeeeeeee-ffffffff-nintendo-host.koikoi",
    }
    for sample, name in names.items():
        shutil.copy(SAMPLES / sample, folder / name)
    (folder / (names["crash-killed-guest.koikoi"] + ".secret")).write_bytes(b"\0" * 32)
    return tmp_path


def test_list_shows_the_newest_first_with_result_and_verdict(home: Path) -> None:
    run = koikoi(home, "list")
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    assert len(rows) == 3
    assert rows[0].startswith("  1. 2026-11-03 10:00 UTC") and "(resumable)" in rows[0]
    assert rows[1].startswith("  2. 2026-11-02") and "[failed]" in rows[1]
    assert rows[2].startswith("  3. 2026-11-01") and "[verified]" in rows[2]
    assert "key bbbbbbbb" in rows[2]  # the host's copy: the opponent is the guest
    assert "nintendo" in rows[2] and ("you won" in rows[2] or "you lost" in rows[2] or "drawn" in rows[2])
    assert "replay last" in run.stdout


def test_last_and_numbers_name_records(home: Path) -> None:
    newest = koikoi(home, "verify", "last")
    assert "20261103" in newest.stdout + newest.stderr
    oldest = koikoi(home, "verify", "3")
    assert oldest.returncode == 0 and "20261101" in oldest.stdout
    replay = koikoi(home, "replay", "3", "--plain")
    assert replay.returncode == 0 and "Rules: nintendo" in replay.stdout
    missing = koikoi(home, "replay", "9")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "koikoi: there is no record number 9: `koikoi list` shows 1 to 3"


def test_an_empty_folder_says_how_to_make_a_record(tmp_path: Path) -> None:
    run = koikoi(tmp_path, "list")
    assert run.returncode == 0 and "No matches yet" in run.stdout and "play" in run.stdout
    last = koikoi(tmp_path, "replay", "last")
    assert last.returncode == 2 and "no records" in last.stderr


def test_the_closing_lines_give_a_command_that_works(tmp_path: Path) -> None:
    from p2p_koikoi.app.closing import koikoi_command, record_lines

    record = tmp_path / "a folder with a long name" / "20261101-100000-aaaaaaaa-bbbbbbbb-nintendo-host.koikoi"
    record.parent.mkdir()
    record.write_bytes(b"")
    lines = record_lines(record, finished=True)
    assert lines[0] == f"Record saved: {record}"  # whole, on one line
    command = koikoi_command()
    assert lines[1] == f"Check it with: {command} verify '{record}'"
    assert command.endswith(" -m p2p_koikoi")  # inside pytest: this Python, as a module
    (record.parent / (record.name + ".secret")).write_bytes(b"")
    assert record_lines(record, finished=False)[2] == f"Take the match up again with: {command} resume '{record}'"
    assert len(record_lines(record, finished=True)) == 2


def test_the_installed_script_names_itself_when_koikoi_is_not_on_the_path(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "koikoi"
    assert script.exists(), f"pip install -e . puts the console script beside {sys.executable}"
    env = {**os.environ, "KOIKOI_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([str(script), "list"], env=env, capture_output=True, text=True, timeout=60)
    command = run.stdout.rsplit("Play one with: ", 1)[1].removesuffix(" play\n")
    assert command == str(script)
    again = subprocess.run(f"{command} rules qdan", shell=True, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "Yaku" in again.stdout
