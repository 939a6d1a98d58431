"""Finding your records: ``koikoi list`` (date, opponent, rules, result, verdict, the newest first), and
``last`` or a list number wherever a command takes a record; the closing lines give a command that
works from here and the path whole."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def koikoi(home: Path, *args: str, typed: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KOIKOI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args], env=env, input=typed, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two practice matches played through the real program: one played out (choice 1 every time,
    which calls Shōbu whenever it is offered), one left at once (the input ends: a forfeit)."""
    home = tmp_path_factory.mktemp("made")
    finished = koikoi(home, "play", "--rounds", "3", "--bot", "random", "--seed", "2", typed="1\n" * 400)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr
    koikoi(home, "play", "--rounds", "3", "--bot", "random", "--seed", "3", typed="")
    return home


@pytest.fixture
def home(made: Path, tmp_path: Path) -> Path:
    """Three records, oldest to newest: the match played out, the one left at once, and a copy of the
    first cut in half as a crash would leave it, its secret still beside it (so it can be resumed)."""
    folder = tmp_path / "data" / "replays"
    shutil.copytree(made / "data" / "replays", folder)
    played, left = sorted(folder.iterdir())
    played = played.rename(folder / ("20261101-100000-" + played.name[16:]))
    left.rename(folder / ("20261102-100000-" + left.name[16:]))
    cut = folder / ("20261103-100000-" + played.name[16:])
    cut.write_bytes(played.read_bytes()[: played.stat().st_size // 2])
    (folder / (cut.name + ".secret")).write_bytes(b"\0" * 32)
    return tmp_path


def test_list_shows_the_newest_first_with_result_and_verdict(home: Path) -> None:
    run = koikoi(home, "list")
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    assert len(rows) == 3, run.stdout
    assert rows[0].startswith("  1. 2026-11-03 10:00 UTC") and "unfinished" in rows[0] and "(resumable)" in rows[0]
    assert rows[1].startswith("  2. 2026-11-02") and "you lost (you left)" in rows[1] and "[verified]" in rows[1]
    assert rows[2].startswith("  3. 2026-11-01") and "[verified]" in rows[2]
    assert re.search(r"(you won|you lost|drawn), \d+ to \d+", rows[2])
    assert all("the bot (practice)" in row and "nintendo rounds=3" in row for row in rows)
    assert "replay last" in run.stdout


def test_last_and_numbers_name_records(home: Path) -> None:
    newest = koikoi(home, "verify", "last")
    assert "20261103" in newest.stdout + newest.stderr
    oldest = koikoi(home, "verify", "3")
    assert oldest.returncode == 0 and "20261101" in oldest.stdout
    replay = koikoi(home, "replay", "3", "--plain")
    assert replay.returncode == 0 and "Rules: nintendo rounds=3" in replay.stdout
    # a practice replay names you and the bot, never the host and the guest
    assert "Your hand: " in replay.stdout and "Bot's hand: " in replay.stdout
    assert not re.search(r"\b(Host|Guest)\b|You (plays|draws|takes|deals)\b", replay.stdout), replay.stdout
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
