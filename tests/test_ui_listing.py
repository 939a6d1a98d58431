"""Finding your records: ``koikoi list`` (date, opponent, rules, result, verdict, the newest first), and
``last`` or a list number wherever a command takes a record; the closing lines give a command that
works from here and the path whole."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2p_koikoi.app.closing import koikoi_command
from p2p_koikoi.testing.processes import KOIKOI, free_port, koikoi_env, wait_listening


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
    """Four records, oldest to newest: the practice match played out, the one left at once, a copy of the
    first cut in half as a crash would leave it with a secret beside it (still a practice match: the bot
    lived in that process, so it is never offered for resume), and a network match a crash cut short, its
    secret still beside it (so it can be resumed)."""
    folder = tmp_path / "data" / "replays"
    shutil.copytree(made / "data" / "replays", folder)
    played, left = sorted(folder.iterdir())
    played = played.rename(folder / ("20261101-100000-" + played.name[16:]))
    left.rename(folder / ("20261102-100000-" + left.name[16:]))
    cut = folder / ("20261103-100000-" + played.name[16:])
    cut.write_bytes(played.read_bytes()[: played.stat().st_size // 2])
    (folder / (cut.name + ".secret")).write_bytes(b"\0" * 32)
    crashed = folder / "20261104-100000-aaaaaaaa-bbbbbbbb-nintendo-guest.koikoi"
    shutil.copyfile(Path(__file__).parent.parent / "replays" / "crash-killed-guest.koikoi", crashed)
    (folder / (crashed.name + ".secret")).write_bytes(b"\0" * 32)
    return tmp_path


def test_list_shows_the_newest_first_with_result_and_verdict(home: Path) -> None:
    run = koikoi(home, "list")
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    assert len(rows) == 4, run.stdout
    assert rows[0].startswith("  1. 2026-11-04 10:00 UTC") and "unfinished" in rows[0] and "(resumable)" in rows[0]
    assert "the bot" not in rows[0]
    assert rows[1].startswith("  2. 2026-11-03 10:00 UTC") and "unfinished" in rows[1]
    assert "(resumable)" not in rows[1] and "practice: cannot be taken up again" in rows[1]
    assert rows[2].startswith("  3. 2026-11-02") and "you lost (you left)" in rows[2] and "[verified]" in rows[2]
    assert rows[3].startswith("  4. 2026-11-01") and "[verified]" in rows[3]
    assert re.search(r"(you won|you lost|drawn), \d+ to \d+", rows[3])
    assert all("the bot (practice)" in row and "nintendo rounds=3" in row for row in rows[1:])
    command = koikoi_command()
    footer = f"Use a number or `last`: {command} replay last, {command} verify 2, {command} resume 1"
    assert run.stdout.splitlines()[-1] == footer


def test_the_footer_names_only_commands_that_apply(home: Path) -> None:
    """One practice record: no `verify 2` (there is no record 2) and no `resume` (practice never resumes)."""
    folder = home / "data" / "replays"
    for path in sorted(folder.iterdir())[1:]:
        path.unlink()
    (left,) = folder.iterdir()
    (folder / (left.name + ".secret")).write_bytes(b"\0" * 32)  # even with a secret beside it
    run = koikoi(home, "list")
    assert run.returncode == 0, run.stderr
    command = koikoi_command()
    assert run.stdout.splitlines()[-1] == f"Use a number or `last`: {command} replay last, {command} verify last"
    assert "resume" not in run.stdout


def test_last_and_numbers_name_records(home: Path) -> None:
    newest = koikoi(home, "verify", "last")
    assert "20261104" in newest.stdout + newest.stderr
    oldest = koikoi(home, "verify", "4")
    assert oldest.returncode == 0 and "20261101" in oldest.stdout
    replay = koikoi(home, "replay", "4", "--plain")
    assert replay.returncode == 0 and "Rules: nintendo rounds=3" in replay.stdout
    # a practice replay names you and the bot, never the host and the guest
    assert "Your hand: " in replay.stdout and "Bot's hand: " in replay.stdout
    assert not re.search(r"\b(Host|Guest)\b|You (plays|draws|takes|deals)\b", replay.stdout), replay.stdout
    missing = koikoi(home, "replay", "9")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "koikoi: there is no record number 9: `koikoi list` shows 1 to 4"


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


def wait_for(process: subprocess.Popen[str], text: str, timeout: float = 60) -> str:
    """Read ``process``'s stdout until ``text`` shows (it must stay open for its prompts)."""
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while text not in seen:
        assert time.monotonic() < deadline, f"no {text!r} in:\n{seen[-2000:]}"
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536).decode()
            assert chunk, f"the program ended before {text!r}:\n{seen[-2000:]}"
            seen += chunk
    return seen


def interrupt(process: subprocess.Popen[str]) -> str:
    """Ctrl-C, as a terminal sends it; the program's stderr once it ended."""
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return err


def test_ctrl_c_in_a_hosted_match_prints_the_record_and_the_resume_command(tmp_path: Path) -> None:
    port = free_port()
    replays = tmp_path / "replays"
    host = subprocess.Popen(
        [*KOIKOI, "host", "--port", str(port), "--bind", "127.0.0.1", "--replay-dir", str(replays), "--plain"],
        env=koikoi_env(tmp_path / "host"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    guest = None
    try:
        wait_listening(port)
        guest = subprocess.Popen(
            [*KOIKOI, "join", f"127.0.0.1:{port}", "--bot", "random", "--yes", "-q", "--replay-dir", str(replays)],
            env=koikoi_env(tmp_path / "guest"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(host, "q to leave]: ")
        err = interrupt(host)
    finally:
        host.kill()
        if guest is not None:
            guest.kill()
            guest.wait(timeout=30)
    assert host.returncode == 130, err
    (record,) = replays.glob("*-host.koikoi")
    assert f"Record saved: {record}" in err.splitlines()
    assert f"Take the match up again with: {koikoi_command()} resume {record}" in err.splitlines()
    assert err.splitlines()[-1] == "koikoi: interrupted"


def test_ctrl_c_twice_in_practice_forfeits_and_prints_the_record(tmp_path: Path) -> None:
    """Ctrl-C in practice is ``q`` (issue 28 item 11): the first asks, the second leaves by forfeit (exit 1,
    a loss), and the record's path is printed with nothing offering to resume it."""
    play = subprocess.Popen(
        [*KOIKOI, "play", "--bot", "random"],
        env=koikoi_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(play, "q to leave]: ")
        play.send_signal(signal.SIGINT)
        wait_for(play, "Leave the match?")
        play.send_signal(signal.SIGINT)
        out, err = play.communicate(timeout=60)
    finally:
        play.kill()
    assert play.returncode == 1, out[-2000:] + err
    (record,) = (tmp_path / "data" / "replays").glob("*.koikoi")
    assert f"Record saved: {record}" in (out + err).splitlines()
    assert "resume" not in out + err  # a practice match cannot be taken up again
    assert "Traceback" not in err
