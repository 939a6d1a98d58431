"""The commands of the rules engine, run as a user runs them: `koikoi rules` and `koikoi score`.

(`koikoi play`, the practice match, is tested in ``test_ui_plain.py`` and ``test_ui_tmux.py``.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def koikoi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_score_prints_the_count_line_by_line() -> None:
    out = koikoi("score", "--rules", "lemme", "--winner-calls", "1", "pampas-moon", "sake-cup", "cherry-curtain")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any("Hanami" in line and "5" in line for line in lines)
    assert any(line.split()[:2] == ["doubling", "20"] for line in lines)
    assert any(line.split()[:2] == ["koikoi", "40"] for line in lines)
    assert any(line.split()[:2] == ["cap", "25"] for line in lines)
    assert lines[-1] == "Total 40; the loser pays 25."


def test_score_json() -> None:
    out = koikoi(
        "score",
        "--rules",
        "nintendo",
        "--loser-calls",
        "1",
        "--json",
        "pine-crane",
        "cherry-curtain",
        "pampas-moon",
        "paulownia-phoenix",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"rules", "yaku", "base", "steps", "total", "payment"}
    assert data["rules"] == "nintendo"
    assert data["yaku"] == [
        {"name": "shiko", "points": 8, "cards": ["pine-crane", "cherry-curtain", "pampas-moon", "paulownia-phoenix"]}
    ]
    assert [s["step"] for s in data["steps"]] == ["base", "doubling", "koikoi", "payment"]
    assert all(set(s) == {"step", "value", "reason"} for s in data["steps"])
    assert (data["base"], data["total"], data["payment"]) == (8, 32, 32)


def test_no_yaku_is_a_valid_request() -> None:
    data = json.loads(koikoi("score", "--json", "pine-plain-1").stdout)
    assert (data["yaku"], data["base"], data["total"], data["payment"]) == ([], 0, 0, 0)


def test_set_override_and_hand() -> None:
    data = json.loads(
        koikoi(
            "score",
            "--rules",
            "lemme",
            "--set",
            "doubling=never",
            "--json",
            "pine-crane",
            "cherry-curtain",
            "pampas-moon",
            "paulownia-phoenix",
        ).stdout
    )
    assert data["total"] == 8 and data["rules"] == "lemme doubling=never"
    hand = koikoi(
        "score",
        "--hand",
        "--json",
        "cherry-curtain",
        "cherry-ribbon",
        "cherry-plain-1",
        "cherry-plain-2",
        "pine-plain-1",
        "plum-plain-1",
        "iris-plain-1",
        "maple-plain-1",
    )
    assert json.loads(hand.stdout)["yaku"][0]["name"] == "teshi"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "pine-cran"], "unknown card 'pine-cran'; did you mean pine-crane"),
        (["score", "pine-crane", "pine-crane"], "named twice"),
        (["score", "--rules", "hawaii", "pine-crane"], "unknown rule preset"),
        (["score", "--set", "doubling=9", "pine-crane"], "doubling takes one of"),
        (["score", "--winner-calls", "1", "--loser-calls", "1", "pine-crane"], "at most one call"),
        (["score", "--rules", "lemme", "--loser-points", "0", "pine-crane"], "no points left"),
        (["score", "--loser-points", "3", "pine-crane"], "does not apply"),
        (["score", "--hand", "pine-crane"], "a dealt hand has 8 cards"),
        (["rules", "hawaii"], "unknown rule preset"),
    ],
)
def test_bad_requests_get_one_line_and_exit_2(args: list[str], message: str) -> None:
    out = koikoi(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert message in out.stderr


def test_rules_in_words() -> None:
    out = koikoi("rules", "qdan", "--set", "rounds=6")
    assert out.returncode == 0
    assert out.stdout.startswith("Rules: qdan rounds=6")
    assert "exhausted = last-caller: the last Koi-Koi caller scores" in out.stdout
