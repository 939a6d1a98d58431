"""The command line as a newcomer meets it: a mistake is one line saying what and where to look, a
misspelt preset gets the closest name, ``--version`` and shell completion exist, and help shows no
``<bool>`` for a flag."""

from __future__ import annotations

import os
import subprocess
import sys


def koikoi(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_parser_error_is_one_line() -> None:
    done = koikoi("play", "--roundz", "3")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("koikoi: No such option: --roundz (Possible options: --rounds) (see `")
    assert line.endswith(" play --help`)")  # the program as it was started: here python -m p2p_koikoi
    missing = koikoi("replay")
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1


def test_a_misspelt_preset_gets_the_closest_name() -> None:
    done = koikoi("rules", "lemm")
    assert done.returncode == 2
    assert done.stderr.startswith("koikoi: unknown rule preset 'lemm' (did you mean lemme?)")


def test_version_completion_and_plain_help() -> None:
    version = koikoi("--version")
    assert version.returncode == 0 and version.stdout.startswith("koikoi ")
    top = koikoi("--help").stdout
    assert "--install-completion" in top and "list" in top
    play = koikoi("play", "--help").stdout
    assert "<bool>" not in play and "╭" not in play and "--plain" in play
