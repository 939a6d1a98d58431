"""``koikoi play`` through pipes: not a terminal, so it plays plain (line-by-line announcements,
numbered choices, no redraws), and a whole practice match is played by answering its prompts."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from p2p_koikoi.record.reader import read_record

PROMPT = re.compile(r"Your choice \[1-(\d+), h for a hint, q to leave\]: $")


def answer(transcript: str, count: int) -> str:
    """Shōbu when it is offered; otherwise the first choice that takes a card; otherwise 1."""
    options = re.findall(r"^  (\d+)\. (.*)$", transcript.rsplit("Your choice", 1)[0], re.MULTILINE)[-count:]
    for number, words in options:
        if words.startswith("Shobu"):
            return number
    for number, words in options:
        if "taking" in words or words.startswith("take"):
            return number
    return "1"


def test_a_whole_practice_match_through_pipes(tmp_path: Path) -> None:
    env = {**os.environ, "KOIKOI_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "p2p_koikoi", "play", "--rounds", "3", "--bot", "random", "--seed", "4"]
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    transcript = ""
    answers = 0
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if not ready:
                continue
            chunk = os.read(process.stdout.fileno(), 65536).decode()
            if not chunk:
                break
            transcript += chunk
            prompt = PROMPT.search(transcript)
            if prompt:
                process.stdin.write((answer(transcript, int(prompt.group(1))) + "\n").encode())
                process.stdin.flush()
                transcript += "\n"
                answers += 1
        process.wait(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, transcript[-2000:]
    assert answers >= 3 * 4  # a round has at least a few choices of ours

    assert "\x1b" not in transcript, "plain output must hold no terminal escapes (no redraws)"
    assert "Practice against the random bot: nintendo rounds=3, 3 rounds." in transcript
    assert re.search(r"^Table: .+\(\d+ in the stock\)$", transcript, re.MULTILINE)
    assert re.search(r"^Your hand: .+$", transcript, re.MULTILINE)
    assert re.search(r"^  1\. play ", transcript, re.MULTILINE)
    assert re.search(r"^(Opponent|You) plays? .+", transcript, re.MULTILINE)
    assert len(re.findall(r"^Round [123]", transcript, re.MULTILINE)) >= 3
    assert re.search(r"^(You win|Opponent wins) the match|^The match is drawn", transcript, re.MULTILINE)
    assert len(re.findall(r"^  Round \d: ", transcript, re.MULTILINE)) == 3  # the table of rounds

    record = re.search(r"^Record saved: (.+)$", transcript, re.MULTILINE)
    assert record is not None
    assert f"Check it with: koikoi verify {record.group(1)}" in transcript
    assert read_record(Path(record.group(1))).complete
    assert [p.suffix for p in Path(record.group(1)).parent.iterdir()] == [".koikoi"]  # no secret left behind
