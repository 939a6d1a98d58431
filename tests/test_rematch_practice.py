"""Another practice match against the bot (issue 29 item 1, "practice against the bot offers the same"):
``koikoi play --plain`` through pipes, answered as a person would. ``r`` at the question after the first
match: the bot says yes and a second match is dealt on the same connection (the same bot key in both
records, the agreement's own line); Enter after the second ends the practice. Both records verify.
The table's ``r`` is driven in tmux by ``tests/test_ui_tmux.py``."""

from __future__ import annotations

import re
from pathlib import Path

from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.net.rematch import Verdict
from p2p_koikoi.record.verify import Verdict as RecordVerdict
from tests.test_ui_plain import PROMPT, answer, converse

ASKED = "Another match under the same rules? [r: yes, Enter: leave] "


def test_r_plays_another_practice_match_on_the_same_connection(tmp_path: Path) -> None:
    asked = 0

    def reply(transcript: str) -> str | None:
        nonlocal asked
        if transcript.endswith(ASKED):
            asked += 1
            return "r\n" if asked == 1 else "\n"  # another match, then enough
        prompt = PROMPT.search(transcript)
        return None if prompt is None else answer(transcript, int(prompt.group(1))) + "\n"

    code, transcript = converse(tmp_path, 4, reply)
    assert code == 0, transcript[-2000:]
    assert asked == 2, transcript[-2000:]
    assert Verdict.AGREED.line in transcript
    assert "Match 1:" in transcript and "Match 2:" in transcript
    assert "Traceback" not in transcript
    records = sorted((tmp_path / "data" / "replays").glob("*.koikoi"))
    assert len(records) == 2, records
    opponents = {re.split(r"-", record.name)[3] for record in records}  # <date>-<time>-<host fp>-<guest fp>-...
    assert len(opponents) == 1, records  # one bot, one connection: the same key in both matches
    assert [r.verdict for r in verify_paths(records, jobs=1)] == [RecordVerdict.VERIFIED] * 2
