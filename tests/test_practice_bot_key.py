"""Each built-in bot signs our practice matches with one key of its own, kept beside ours, so that
``koikoi history`` counts two separate ``koikoi play`` runs against one bot as two matches against one
opponent (and rates us against it), not as two strangers that happen to send the same name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from p2p_koikoi.app.identity import bot_identity, load_identity
from p2p_koikoi.bots.registry import BOT_NAMES, canonical_spec
from p2p_koikoi.wire import public_bytes
from tests.test_rematch_practice import ASKED
from tests.test_ui_plain import PROMPT, answer, converse


def test_every_bot_has_one_spelling() -> None:
    assert canonical_spec(" Strong ") == canonical_spec("strong:normal") == "strong:normal"
    assert canonical_spec("GREEDY") == "greedy"
    assert {canonical_spec(name) for name in BOT_NAMES} == set(BOT_NAMES) - {"strong"}


def test_a_bot_key_is_kept_per_bot_and_apart_from_ours(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KOIKOI_HOME", str(tmp_path))
    normal = public_bytes(bot_identity("strong"))
    assert public_bytes(bot_identity("strong:normal")) == normal
    assert public_bytes(bot_identity("strong:expert")) != normal
    assert public_bytes(load_identity()) not in {normal, public_bytes(bot_identity("strong:expert"))}
    kept = tmp_path / "config" / "bots" / "strong-normal.pem"
    assert kept.stat().st_mode & 0o777 == 0o600


def _practice_once(home: Path, seed: int) -> None:
    def reply(transcript: str) -> str | None:
        if transcript.endswith(ASKED):
            return "\n"  # no second match on this connection
        prompt = PROMPT.search(transcript)
        return None if prompt is None else answer(transcript, int(prompt.group(1))) + "\n"

    code, transcript = converse(home, seed, reply)
    assert code == 0 and "Traceback" not in transcript, transcript[-2000:]


def test_two_practice_runs_are_two_matches_against_one_opponent_in_the_history(tmp_path: Path) -> None:
    _practice_once(tmp_path, 7)
    _practice_once(tmp_path, 8)
    assert len(list((tmp_path / "data" / "replays").glob("*.koikoi"))) == 2
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", "history", "--json"],
        env={**os.environ, "KOIKOI_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    opponents = json.loads(done.stdout)["opponents"]
    assert [(o["sent_name"], o["matches"]) for o in opponents] == [("random bot", 2)], opponents
