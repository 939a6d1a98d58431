"""Small slips of the command line (issue 28, item 16), through the real program: a record folder named
by hand that is not there, a score with no cards, and the usage line of ``join --help``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from p2p_koikoi.testing import KOIKOI, koikoi_env


def koikoi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOIKOI, *args], env=koikoi_env(home), capture_output=True, text=True, timeout=60)


def test_list_of_a_folder_that_does_not_exist_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    run = koikoi(tmp_path, "list", "--replay-dir", str(missing))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"koikoi: --replay-dir {missing} does not exist: give the folder your records are in\n"
    assert not missing.exists()  # looking is not making


def test_list_of_a_file_says_it_is_not_a_folder(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    run = koikoi(tmp_path, "list", "--replay-dir", str(a_file))
    assert run.returncode == 2 and "is a file, not a folder" in run.stderr and len(run.stderr.splitlines()) == 1


def test_list_of_an_empty_folder_is_no_matches_yet(tmp_path: Path) -> None:
    run = koikoi(tmp_path, "list", "--replay-dir", str(tmp_path))
    assert run.returncode == 0 and run.stdout.startswith(f"No matches yet in {tmp_path}.")


def test_score_with_no_cards_says_so(tmp_path: Path) -> None:
    run = koikoi(tmp_path, "score", "--rules", "lemme")
    assert run.returncode == 2 and run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert line.startswith("koikoi: no cards given: name the winner's captures")
    assert "Total" not in run.stderr and "Traceback" not in run.stderr
    example = line.split("`")[1].removeprefix(" ".join(KOIKOI) + " ")
    shown = koikoi(tmp_path, *example.split())  # the example it gives works
    assert shown.returncode == 0 and "Total" in shown.stdout


def test_join_usage_closes_its_brackets(tmp_path: Path) -> None:
    run = koikoi(tmp_path, "join", "--help")
    usage = run.stdout.splitlines()[0]
    assert usage.endswith(" join [OPTIONS] [CODE|HOST[:PORT]]"), usage
    assert usage.count("[") == usage.count("]")
    resume = koikoi(tmp_path, "resume", "--help").stdout.splitlines()[0]
    assert resume.endswith(" resume [OPTIONS] FILE [ADDRESS]"), resume
