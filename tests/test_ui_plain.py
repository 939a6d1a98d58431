"""``koikoi play`` through pipes: not a terminal, so it plays plain (line-by-line announcements,
numbered choices, no redraws), and a whole practice match is played by answering its prompts."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from p2p_koikoi.record.reader import read_record

PROMPT = re.compile(r"Your choice \[1-(\d+), h for a hint, q to leave\]: $")


def answer(transcript: str, count: int) -> str:
    """Shōbu when it is offered; otherwise the first choice that takes a card; otherwise 1."""
    options = re.findall(r"^  (\d+)\. (.*)$", transcript.rsplit("Your choice", 1)[0], re.MULTILINE)[-count:]
    for number, words in options:
        if words.startswith("Shōbu"):
            return number
    for number, words in options:
        if "takes" in words or words.startswith("take"):
            return number
    return "1"


def converse(tmp_path: Path, seed: int, reply: Callable[[str], str | None]) -> tuple[int | None, str]:
    """``koikoi play`` through pipes, answered as a person would: each time the output so far ends in a
    question, ``reply(transcript)`` gives the line to type (None: keep waiting). Returns the exit code
    and the whole transcript, the typed lines included."""
    env = {**os.environ, "KOIKOI_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "p2p_koikoi", "play", "--rounds", "3", "--bot", "random", "--seed", str(seed)]
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    transcript = ""
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
            typed = reply(transcript)
            if typed is not None:
                process.stdin.write(typed.encode())
                process.stdin.flush()
                transcript += typed
        process.wait(timeout=30)
    finally:
        process.kill()
    return process.returncode, transcript


def test_a_whole_practice_match_through_pipes(tmp_path: Path) -> None:
    answers = 0

    def reply(transcript: str) -> str | None:
        nonlocal answers
        if transcript.endswith("Another match under the same rules? [r: yes, Enter: leave] "):
            return "\n"  # Enter: leave
        prompt = PROMPT.search(transcript)
        if prompt is None:
            return None
        answers += 1
        return answer(transcript, int(prompt.group(1))) + "\n"

    code, transcript = converse(tmp_path, 4, reply)
    assert code == 0, transcript[-2000:]
    assert answers >= 3 * 4  # a round has at least a few choices of ours

    assert "\x1b" not in transcript, "plain output must hold no terminal escapes (no redraws)"
    assert "Practice against the random bot: nintendo rounds=3, 3 rounds." in transcript
    assert re.search(r"^Table: .+\(\d+ in the stock\)$", transcript, re.MULTILINE)
    assert re.search(r"^Your hand: .+$", transcript, re.MULTILINE)
    assert re.search(r"^  1\. play ", transcript, re.MULTILINE)
    assert re.search(r"^(Bot|You) plays? .+", transcript, re.MULTILINE)
    assert len(re.findall(r"^Round [123]", transcript, re.MULTILINE)) >= 3
    assert re.search(r"^(You win|Bot wins) the match|^The match is drawn", transcript, re.MULTILINE)
    assert len(re.findall(r"^  Round \d: ", transcript, re.MULTILINE)) == 3  # the table of rounds
    assert dead_yaku_told(transcript) == []

    record = re.search(r"^Record saved: (.+)$", transcript, re.MULTILINE)
    assert record is not None
    assert f"Check it with: {sys.executable} -m p2p_koikoi verify {record.group(1)}" in transcript
    assert read_record(Path(record.group(1))).complete
    assert [p.suffix for p in Path(record.group(1)).parent.iterdir()] == [".koikoi"]  # no secret left behind


# The cards of the yaku of a few named cards, written out here and not taken from the tracker it checks.
FAMILIES = {
    "Hanami": {"Cherry curtain", "Chrysanthemum sake cup"},
    "Tsukimi": {"Pampas moon", "Chrysanthemum sake cup"},
    "Inoshikachō": {"Clover boar", "Maple deer", "Peony butterflies"},
    "Akatan": {"Pine poem ribbon", "Plum poem ribbon", "Cherry poem ribbon"},
    "Aotan": {"Peony blue ribbon", "Chrysanthemum blue ribbon", "Maple blue ribbon"},
}


def dead_yaku_told(transcript: str) -> list[str]:
    """Every yaku told as under way (``Akatan 2/3``) while one of its cards was in the other player's
    captures, as the turn's lines said them (issue 28 item 8: such a yaku is dead)."""
    found = []
    captures: dict[str, set[str]] = {}
    for line in transcript.splitlines():
        if re.match(r"^Round \d", line):  # a new deal: last round's captures say nothing of this one's yaku
            captures.clear()
        told = re.match(r"^(Bot|You): (?:\d+ cards? in hand; )?captures: (.*)$", line)
        if told:
            captures[told.group(1)] = set(told.group(2).split(", "))
            continue
        yaku = re.match(r"^(Bot|You) yaku: (.*)$", line)
        if yaku:
            other = captures.get("You" if yaku.group(1) == "Bot" else "Bot", set())
            for name in re.findall(r"(\w+) \d+/\d+", yaku.group(2)):
                if FAMILIES.get(name, set()) & other:
                    found.append(f"{line} (the other holds {', '.join(sorted(FAMILIES[name] & other))})")
    return found


def run_plain(tmp_path: Path, typed: str) -> tuple[int, str]:
    """``koikoi play`` with ``typed`` as its whole input (a pipe that then ends)."""
    env = {**os.environ, "KOIKOI_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "p2p_koikoi", "play", "--rounds", "3", "--bot", "random", "--seed", "4"]
    done = subprocess.run(command, env=env, input=typed, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_plain_mode_asks_again_on_an_empty_line_or_junk_and_leaves_only_on_a_confirmed_q(tmp_path: Path) -> None:
    code, out = run_plain(tmp_path, "\n\nfoo\nr\n?\nq\nn\n1\nq\nyes\n")
    before_leaving = out.split("Leave the match?")[0]
    assert "wins the match" not in before_leaving, "an empty line or junk must never leave the match"
    assert "'foo' is not a choice here." in out
    assert out.count("Type a number from 1 to") >= 4  # two empty lines, the junk, the table said again, ?
    assert "Tane (Animals): five Animals" in out  # ? gives the yaku table
    assert "Leave the match? Leaving forfeits it: Bot wins." in out
    assert out.count("Leave the match?") == 2  # the first q was declined with n
    assert re.search(r"(^|: )You play ", out, re.MULTILINE), "the choice after the declined q is played"
    assert "Bot wins the match (by forfeit)" in out
    assert "Opponent" not in out  # one name for the opponent
    assert "Shobu" not in out
    assert code == 1


def test_plain_mode_says_what_each_choice_takes_and_both_players_yaku(tmp_path: Path) -> None:
    _, out = run_plain(tmp_path, "1\n2\n")
    choices = re.findall(r"^  \d+\. (play .*)$", out, re.MULTILINE)
    assert choices and all(c.endswith("to the table") or ", takes " in c for c in choices)
    assert re.search(r"^Bot: \d+ cards in hand; captures: ", out, re.MULTILINE)
    assert re.search(r"^You: captures: ", out, re.MULTILINE)
    assert re.search(r"yaku: .*\d+/\d+ → \d+ points? at \d+", out)


def test_the_end_of_the_input_leaves_the_match(tmp_path: Path) -> None:
    code, out = run_plain(tmp_path, "")
    assert "Bot wins the match (by forfeit)" in out
    assert code == 1


def test_r_after_a_match_plays_another_under_the_same_rules(tmp_path: Path) -> None:
    asked = 0

    def reply(transcript: str) -> str | None:
        nonlocal asked
        if transcript.endswith("[r: yes, Enter: leave] "):
            asked += 1
            return "r\n"
        if transcript.endswith("q to leave]: "):
            return "q\n" if asked else "1\n"  # the first match played out, the second left at once
        return "y\n" if transcript.endswith("[y/n] ") else None

    code, transcript = converse(tmp_path, 6, reply)
    assert asked == 1, transcript[-2000:]
    assert transcript.count("Practice against the random bot: nintendo rounds=3, 3 rounds.") == 1
    assert "Both want another match: it starts now, on the same connection." in transcript  # the bot said yes
    first = transcript.split("Another match under the same rules?", 1)[1]
    assert re.search(r"^Record saved: .+-host\.koikoi$", first, re.MULTILINE)  # the first match's record
    assert "Bot wins the match (by forfeit)" in first
    assert code == 1
    assert len(list((tmp_path / "data" / "replays").glob("*.koikoi"))) == 2
