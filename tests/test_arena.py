"""The arena: mirrored pairs, deterministic for a seed on any number of processes, and its command line."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from p2p_koikoi.app import arena
from p2p_koikoi.app.arena import (
    ArenaRequestError,
    DiscardTally,
    MatchStats,
    mirrored_pairs_interval,
    play_arena_match,
    run_arena,
)
from p2p_koikoi.bots.greedy import GreedyAgent
from p2p_koikoi.bots.registry import UnknownBotError
from p2p_koikoi.engine import Card, Event, EventKind, preset

SHORT = preset("nintendo").with_option("rounds", "3")


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    """The result minus the wall-clock figures, the one part a run does not repeat."""
    data = json.loads(json.dumps(data))
    data.pop("seconds")
    for side in ("a", "b"):
        data[side].pop("decision_time")
    return data


def test_a_run_is_deterministic_for_its_seed_whatever_the_jobs() -> None:
    one = run_arena("greedy", "random", SHORT, matches=6, seed=11)
    again = run_arena("greedy", "random", SHORT, matches=6, seed=11)
    pooled = run_arena("greedy", "random", SHORT, matches=6, seed=11, jobs=2)
    assert without_timing(one.to_json()) == without_timing(again.to_json()) == without_timing(pooled.to_json())
    other = run_arena("greedy", "random", SHORT, matches=6, seed=12)
    assert [m.won for m in other.per_match] != [m.won for m in one.per_match]


def test_a_pair_plays_the_same_deals_with_the_seats_swapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both bots the very same deterministic player: the mirror match is the first one with the seats swapped."""
    monkeypatch.setattr(arena, "make_agent", lambda spec, seed, processes=None: GreedyAgent(0))
    for pair in range(3):
        first = play_arena_match("greedy", "greedy", SHORT, 3, 2 * pair)
        mirror = play_arena_match("greedy", "greedy", SHORT, 3, 2 * pair + 1)
        assert first.rounds == mirror.rounds
        assert first.won == mirror.won[::-1] and first.rounds_won == mirror.rounds_won[::-1]
        assert first.score_a == 1.0 - mirror.score_a
        assert first.yaku == mirror.yaku[::-1]


def test_the_json_has_the_win_rate_and_its_interval() -> None:
    data = run_arena("greedy", "random", SHORT, matches=4, seed=1).to_json()
    assert 0.0 <= data["ci95"][0] <= data["win_rate"] <= data["ci95"][1] <= 1.0
    assert data["matches"] == 4 and data["wins_a"] + data["wins_b"] + data["draws"] == 4
    for side in ("a", "b"):
        assert {"points_per_match", "points_per_round", "koikoi_success", "yaku", "decision_time"} <= set(data[side])
        assert set(data[side]["decision_time"]) == {"moves", "mean", "p95", "max", "capped"}


def stats(index: int, score_a: float) -> MatchStats:
    return MatchStats(index, score_a, 1, (0, 0), (0, 0), (0, 0), (0, 0), ({}, {}), ((), ()))


def test_the_interval_comes_from_the_pairs() -> None:
    # Every pair split 1-1: the win rate is exactly one half with no spread between pairs.
    split = [stats(i, float(i % 2)) for i in range(20)]
    assert mirrored_pairs_interval(split, 0.5) == (0.5, 0.5)
    # Pairs won 2-0 or lost 0-2 alternately: the same rate, a wide interval.
    swings = [stats(i, float((i // 2) % 2)) for i in range(20)]
    lo, hi = mirrored_pairs_interval(swings, 0.5)
    assert lo < 0.25 and hi > 0.75
    assert mirrored_pairs_interval(split[:2], 0.5) == (0.0, 1.0)  # one pair tells nothing about the spread


def test_bad_requests() -> None:
    with pytest.raises(UnknownBotError):
        run_arena("greedy", "bogus", SHORT, matches=2, seed=1)
    with pytest.raises(ArenaRequestError):
        run_arena("greedy", "random", SHORT, matches=0, seed=1)
    with pytest.raises(ArenaRequestError):
        run_arena("greedy", "random", SHORT, matches=2, seed=1, jobs=0)


# -- the command line ----------------------------------------------------------------------


def koikoi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_cli_json() -> None:
    out = koikoi("arena", "greedy", "random", "--matches", "4", "--rounds", "3", "--seed", "5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["bot_a"], data["bot_b"], data["matches"]) == ("greedy", "random", 4)
    assert data["rules"] == "nintendo rounds=3"
    assert isinstance(data["win_rate"], float) and len(data["ci95"]) == 2
    assert out.stderr == ""  # no progress bar when stderr is not a terminal


def test_cli_text_with_rules_and_set() -> None:
    out = koikoi("arena", "random", "greedy", "-r", "rulebook", "--set", "gaji=off", "--matches", "2", "--rounds", "3")
    assert out.returncode == 0, out.stderr
    assert "random wins" in out.stdout and "95% CI" in out.stdout and "Koi-Koi success" in out.stdout
    assert "rules rulebook" in out.stdout and "gaji=off" in out.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["arena", "greedy", "grandmaster"], "unknown bot 'grandmaster'; choose one of random, greedy, strong"),
        (["arena", "greedy", "random", "--matches", "0"], "'--matches': 0 is out of range: give 1 to 1000000"),
        (["arena", "greedy", "random", "--rules", "vegas"], "unknown rule preset"),
        (["arena", "greedy", "random", "--set", "pool=0"], "pool must be"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    out = koikoi(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and needle in out.stderr
    assert "Traceback" not in out.stderr


# -- the discard counts ----------------------------------------------------------------------


def test_a_discard_is_fed_when_the_other_seat_takes_it_before_the_discarder_plays_again() -> None:
    curtain, deer = Card.CHERRY_CURTAIN, Card.MAPLE_DEER
    tally = DiscardTally()
    play = Event(EventKind.PLAY, 0, curtain, 0)  # seat 0 throws the curtain away
    tally(None, [play, Event(EventKind.DRAW, 0, Card.PINE_PLAIN_1, 0)])  # type: ignore[arg-type]
    tally(None, [Event(EventKind.PLAY, 1, Card.CHERRY_PLAIN_1, curtain.bit)])  # type: ignore[arg-type]
    # seat 1 throws the deer away, and takes it back itself with its draw: nothing fed
    tally(None, [Event(EventKind.PLAY, 1, deer, 0), Event(EventKind.DRAW, 1, Card.MAPLE_PLAIN_1, deer.bit)])  # type: ignore[arg-type]
    # seat 0 throws a ribbon away and plays again before anybody takes it
    tally(None, [Event(EventKind.PLAY, 0, Card.PINE_RIBBON, 0), Event(EventKind.PLAY, 0, Card.PLUM_PLAIN_1, 0)])  # type: ignore[arg-type]
    tally(None, [Event(EventKind.PLAY, 1, Card.PINE_PLAIN_2, Card.PINE_RIBBON.bit)])  # type: ignore[arg-type]
    bright, animal, ribbon = 0, 1, 2
    assert tally.counts[0][bright] == [1, 1]
    assert tally.counts[1][animal] == [1, 0]
    assert tally.counts[0][ribbon] == [1, 0]


def test_the_json_counts_discards_and_the_last_rounds() -> None:
    data = run_arena("random", "greedy", SHORT, matches=2, seed=3).to_json()
    for side in ("a", "b"):
        assert set(data[side]["discards"]) == {"bright", "animal", "ribbon"}
        for counts in data[side]["discards"].values():
            assert 0 <= counts["taken_next_turn"] <= counts["discarded"]
        assert data[side]["late_points"] >= 0
    assert sum(data["a"]["discards"][k]["discarded"] for k in ("bright", "animal", "ribbon")) > 0  # random throws
