"""``koikoi history`` (issue 29 items 3 to 5): a folder of 30-odd real records made here (played out,
forfeits both ways, wins by silence both ways, an adjournment, other players' matches, one record edited
by hand, one forked copy), read by the real command in a process of its own.

What must hold: exactly the records ``koikoi verify`` accepts and that are ours count, each as the live
referee ended it; an edited record or a forked copy changes nothing; a second run reads the verdict cache
and says the same; a file changed after it was cached, or a cache entry edited by hand, is checked again.
Glicko-2 reproduces Glickman's worked example. No timing is asserted here (``bench/history.py`` measures).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from p2p_koikoi.app import history_check
from p2p_koikoi.app.glicko import Game, Rating, rate
from p2p_koikoi.app.history_check import Checked, check_records
from p2p_koikoi.app.records import verify_paths
from p2p_koikoi.app.verdict_cache import CACHE_FILE, VerdictCache
from p2p_koikoi.record.identity_names import fingerprint
from p2p_koikoi.referee.events import MatchEnd
from p2p_koikoi.testing import deterministic_entropy
from p2p_koikoi.testing.history_records import (
    Finish,
    MatchPlan,
    cut_copy,
    play_planned,
    write_entries,
    write_record,
)
from p2p_koikoi.ui.history_plot import plot
from p2p_koikoi.wire import public_bytes
from p2p_koikoi.wire.player_name import BadName, PlayerName

# Under pytest-xdist: its folder of 30 records (a module fixture, 15 s) is made by one worker, not by each.
pytestmark = pytest.mark.xdist_group("history")

# ------------------------------------------------------------------------------------------ Glicko-2


def test_glicko2_reproduces_glickmans_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06, tau 0.5, against 1400/30 (won),
    1550/100 (lost), 1700/300 (lost): 1464.06, RD 151.52, volatility 0.05999 (the paper rounds each step
    to four places, so its 1464.06 is 1464.0507 unrounded)."""
    games = [Game(Rating(1400, 30), 1), Game(Rating(1550, 100), 0), Game(Rating(1700, 300), 0)]
    after = rate(Rating(1500, 200, 0.06), games, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_glicko2_without_games_only_widens_the_deviation() -> None:
    """Step 6 alone for a player who did not compete: RD* = sqrt(RD^2 + sigma^2) on the Glicko-2 scale."""
    after = rate(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.deviation == pytest.approx(173.7178 * ((200 / 173.7178) ** 2 + 0.06**2) ** 0.5)


# ----------------------------------------------------------------------------------------- the folder


def _key(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(deterministic_entropy(label.encode())(32))


ME, ALICE, BOB, CAROL = (_key(who) for who in ("history me", "history alice", "history bob", "history carol"))


@dataclass
class Folder:
    """The home (identity, names, cache) and the record folder, with what the live side says counts."""

    home: Path
    replays: Path
    expected: dict[str, list[tuple[str, str, bool]]]  # opponent key hex -> (result, how, claimed) in play order
    left: dict[str, int]  # reason -> how many left out
    edited: Path
    forked: Path
    records: int


def _result(end: MatchEnd | None, seat: int) -> tuple[str, str, bool]:
    assert end is not None and end.outcome is not None
    winner = end.outcome.winner
    result = "draw" if winner is None else ("win" if winner == seat else "loss")
    return result, str(end.how), end.claimed


def _plans() -> list[MatchPlan]:
    """Ours against Alice and Bob, with us host or guest; Alice and Bob's own; every way a match ends."""
    plans = []
    for i in range(8):  # played out, against Alice and Bob in turn, we host two in three
        them = ALICE if i % 2 else BOB
        plans.append(MatchPlan(f"played {i}", (ME, them) if i % 3 else (them, ME), kept=0 if i % 3 else 1))
    for i in range(6):  # they quit: our wins by forfeit (our copy)
        plans.append(MatchPlan(f"they quit {i}", (ME, ALICE if i < 4 else BOB), Finish.QUIT, actor=1, kept=0))
    for i in range(2):  # we quit: our losses by forfeit (our copy, as guest)
        plans.append(MatchPlan(f"we quit {i}", (BOB, ME), Finish.QUIT, actor=1, kept=1))
    for i in range(4):  # we claim their silence: our wins by silence, claimed (our copy, as host)
        plans.append(MatchPlan(f"we claim {i}", (ME, ALICE if i % 2 else BOB), Finish.CLAIM, actor=0, kept=0))
    for i in range(2):  # they claim our silence: their copy, sent to us (our losses by silence, claimed)
        plans.append(MatchPlan(f"they claim {i}", (BOB, ME), Finish.CLAIM, actor=0, kept=0))
    plans.append(MatchPlan("we adjourn", (ME, ALICE), Finish.ADJOURN, actor=0, kept=0))
    plans.append(MatchPlan("they adjourn", (ALICE, ME), Finish.ADJOURN, actor=0, kept=1))
    for i in range(3):  # not ours: Alice against Bob, Carol against Alice
        plans.append(MatchPlan(f"not ours {i}", (ALICE, BOB) if i < 2 else (CAROL, ALICE), Finish.QUIT, actor=1))
    return plans


def _tamper(data: bytes) -> bytes:
    """One bit flipped in the middle of the file (inside some entry's signed bytes or signature)."""
    edited = bytearray(data)
    edited[len(edited) // 2] ^= 0x01
    return bytes(edited)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Folder:
    home = tmp_path_factory.mktemp("history-home")
    (home / "config").mkdir()
    pem = ME.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    (home / "config" / "identity.pem").write_bytes(pem)
    replays = home / "data" / "replays"
    mine = public_bytes(ME)
    expected: dict[str, list[tuple[str, str, bool]]] = {}
    left = {"adjourned": 2, "not-ours": 3}
    number = 0
    for plan in _plans():
        _, end = write_record(replays, plan, number)
        number += 1
        keys = [public_bytes(k) for k in plan.keys]
        if mine in keys and plan.finish is not Finish.ADJOURN:
            seat = keys.index(mine)
            expected.setdefault(keys[1 - seat].hex(), []).append(_result(end, seat))
    # A match against Carol: our whole copy, and the loser's forked one. Carol quits in round 1: copies of one
    # match are checked again on every run, never from the cache, so a short match keeps each run short.
    fork_plan = MatchPlan("forked", (ME, CAROL), Finish.QUIT, actor=1, kept=0)
    played = play_planned(fork_plan)
    write_entries(replays, fork_plan, played.entries, number, 0)
    expected.setdefault(public_bytes(CAROL).hex(), []).append(_result(played.end, 0))
    loser, cut = cut_copy(played, fork_plan.keys)
    forked = write_entries(replays, fork_plan, cut, number + 1, loser)
    # One of our wins, edited by hand (a copy, as someone who wants it to say more would keep it).
    source = sorted(replays.iterdir())[9]
    edited = replays / ("20270101-000000" + source.name[15:])
    edited.write_bytes(_tamper(source.read_bytes()))
    left["failed"] = 2
    records = len(list(replays.iterdir()))
    return Folder(home, replays, expected, left, edited, forked, records)


def koikoi(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, as a shell runs it, with its home (identity, names, cache) in ``home``."""
    done = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", *args],
        env={**os.environ, "KOIKOI_HOME": str(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def history_json(home: Path, *args: str) -> dict:
    done = koikoi(home, "history", "--json", "-j", "2", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _results(data: dict) -> dict[str, list[tuple[str, str, bool]]]:
    return {o["key"]: [(m["result"], m["how"], m["claimed"]) for m in o["history"]] for o in data["opponents"]}


def _unnumbered(value: object) -> object:
    """``value`` without the ``koikoi list`` numbers."""
    if isinstance(value, dict):
        return {k: _unnumbered(v) for k, v in value.items() if k != "replay"}
    if isinstance(value, list):
        return [_unnumbered(v) for v in value]
    return value


def _left(data: dict) -> dict[str, int]:
    return {item["reason"]: item["count"] for item in data["left_out"]}


# ---------------------------------------------------------------------------------------- the counts


def test_history_counts_exactly_the_verified_records_that_are_ours(folder: Folder) -> None:
    data = history_json(folder.home)
    assert data["records"] == folder.records >= 30
    assert data["identity"] == fingerprint(public_bytes(ME))
    assert _results(data) == folder.expected
    assert data["counted"] == sum(len(v) for v in folder.expected.values())
    assert _left(data) == folder.left
    failed = next(item for item in data["left_out"] if item["reason"] == "failed")
    assert {Path(f["file"]).name for f in failed["files"]} == {folder.edited.name, folder.forked.name}
    by_key = {o["key"]: o for o in data["opponents"]}
    alice = by_key[public_bytes(ALICE).hex()]
    assert alice["forfeits"] == {"won": 4, "lost": 0}
    assert alice["silence"] == {"won": 2, "lost": 0, "claimed": 2}
    bob = by_key[public_bytes(BOB).hex()]
    assert bob["forfeits"] == {"won": 2, "lost": 2}
    assert bob["silence"] == {"won": 2, "lost": 2, "claimed": 4}
    for opponent in data["opponents"]:
        history = opponent["history"]
        assert opponent["matches"] == len(history) == opponent["wins"] + opponent["losses"] + opponent["draws"]
        assert opponent["points_for"] == sum(m["points_for"] for m in history)
        assert opponent["last"] == history[-1]
        numbers = [m["replay"] for m in history]
        assert numbers == sorted(numbers, reverse=True)  # koikoi list numbers: 1 is the newest
    ratings = data["ratings"]
    assert ratings["games"] == data["counted"] and ratings["resting_on_a_claim"] == 6


def test_the_last_match_number_is_the_one_koikoi_replay_takes(folder: Folder) -> None:
    data = history_json(folder.home)
    last = data["opponents"][0]["last"]
    shown = koikoi(folder.home, "replay", str(last["replay"]), "--json")
    assert shown.returncode == 0, shown.stderr
    listed = sorted(folder.replays.iterdir(), reverse=True)
    assert listed[last["replay"] - 1].name == Path(last["file"]).name


def test_an_edited_record_or_a_forked_copy_changes_nothing(folder: Folder, tmp_path: Path) -> None:
    """The history without the edited copy and the forked copy is the history with them, but for what is
    said to be left out (and the list numbers, which count every file in the folder)."""
    whole = history_json(folder.home)
    for extra in (folder.edited, folder.forked):
        kept = tmp_path / extra.name
        extra.rename(kept)
        try:
            without = history_json(folder.home)
        finally:
            kept.rename(extra)
        assert _unnumbered(without["opponents"]) == _unnumbered(whole["opponents"])
        assert without["ratings"] == whole["ratings"]
        assert _left(without)["failed"] == 1


def test_a_second_run_reads_the_cache_and_says_the_same(folder: Folder) -> None:
    first = history_json(folder.home)
    cache = json.loads((folder.home / "data" / CACHE_FILE).read_text())
    # Every record alone, and the four copies of two matches (the edited one and its source, the forked one
    # and the whole) once more each, under their group's key: checked together, kept together.
    assert folder.records <= len(cache["entries"]) <= folder.records + 4
    assert history_json(folder.home) == first


def test_copies_checked_together_once_are_read_from_the_cache_until_one_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match's two copies, the whole one and the loser's fork: the first check verifies each once, alone,
    and compares the two; the second verifies nothing and says the same; a copy changed (and flipped back
    after) has both checked together again, since the group's key is made of every copy's content."""
    plan = MatchPlan("cached copies", (ME, CAROL), Finish.QUIT, actor=1, kept=0)
    played = play_planned(plan)
    whole = write_entries(tmp_path / "replays", plan, played.entries, 0, 0)
    loser, cut = cut_copy(played, plan.keys)
    forked = write_entries(tmp_path / "replays", plan, cut, 1, loser)
    checked: list[int] = []

    def counting(paths: list[Path], *args: Any, **kwargs: Any) -> Any:
        checked.append(len(paths))
        return verify_paths(paths, *args, **kwargs)

    def run() -> list[Checked]:  # one koikoi history run: the cache read, the records checked, the cache kept
        cache = VerdictCache(tmp_path / CACHE_FILE, ME)
        found = check_records([whole, forked], cache, jobs=1)
        cache.save()
        return found

    monkeypatch.setattr(history_check, "verify_paths", counting)
    first = run()
    assert checked == [2] and first[1].facts.verdict is not first[0].facts.verdict  # each once, then compared
    checked.clear()
    assert run() == first and checked == []
    original = forked.read_bytes()
    forked.write_bytes(_tamper(original))
    run()
    assert checked == [1, 2]  # the changed copy alone, then the group again
    forked.write_bytes(original)
    checked.clear()
    assert run() == first and checked == [1, 2]  # as it was: but the last run let its cache entries go


def test_a_file_changed_after_it_was_cached_is_checked_again(folder: Folder) -> None:
    history_json(folder.home)  # every verdict cached
    record = next(p for p in sorted(folder.replays.iterdir()) if "-host" in p.name)
    original = record.read_bytes()
    try:
        record.write_bytes(_tamper(original))
        data = history_json(folder.home)
    finally:
        record.write_bytes(original)
    failed = next(item for item in data["left_out"] if item["reason"] == "failed")
    assert record.name in {Path(f["file"]).name for f in failed["files"]}


def test_a_cache_entry_edited_by_hand_is_not_trusted(folder: Folder) -> None:
    """Turn every cached result the other way, and an adjourned match into a win: nothing changes, since
    no edited entry authenticates under our key."""
    whole = history_json(folder.home)
    path = folder.home / "data" / CACHE_FILE
    saved = path.read_text()
    cache = json.loads(saved)
    for entry in cache["entries"].values():
        facts = entry["facts"]
        if facts["how"] == "adjourned":
            facts.update(how="finished", winner=0, points=[9, 0])
        elif facts["winner"] is not None:
            facts["winner"] = 1 - facts["winner"]
    path.write_text(json.dumps(cache))
    try:
        assert history_json(folder.home) == whole
    finally:
        path.write_text(saved)


# ------------------------------------------------------------------------------ the words and the plot


def test_history_says_what_was_counted_and_left_out(folder: Folder) -> None:
    done = koikoi(folder.home, "history", "--ratings", "-j", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    counted = sum(len(v) for v in folder.expected.values())
    assert f"{counted} of {folder.records} records counted" in out
    assert "Left out 7: " in out and "2 failed verification" in out and "3 not ours" in out
    assert "2 adjourned (nobody won)" in out
    assert "koikoi replay " in out
    short = fingerprint(public_bytes(ALICE)).replace(":", "")[:8]
    assert short in out
    assert "Ratings (Glicko-2, tau 0.5" in out and "  you  " in out
    assert "6 of these results rest on a claim of the other's silence" in out


def test_history_shows_our_name_for_a_key_and_plots_the_running_difference(folder: Folder) -> None:
    alice = fingerprint(public_bytes(ALICE))
    done = koikoi(folder.home, "id", "--call", alice, "Alice")
    assert done.returncode == 0, done.stderr
    table = koikoi(folder.home, "history", "-j", "2")
    assert f"Alice ({alice.replace(':', '')[:8]})" in table.stdout
    shown = koikoi(folder.home, "history", "alice", "-j", "2", env={"TERM": "xterm", "PYTHONIOENCODING": "utf-8"})
    assert shown.returncode == 0, shown.stderr
    assert "Points ahead (+) or behind (-) of Alice" in shown.stdout
    assert "│" in shown.stdout and "█" in shown.stdout
    dumb = koikoi(folder.home, "history", alice[:9], "-j", "2", env={"TERM": "dumb"})
    assert dumb.returncode == 0, dumb.stderr
    plotted = dumb.stdout.split("match by match:")[1]
    assert "#" in plotted and plotted.isascii()


def test_an_unknown_opponent_is_one_line_and_exit_2(folder: Folder) -> None:
    for who in ("nobody", "ffffffff"):
        done = koikoi(folder.home, "history", who, "-j", "2")
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("koikoi: no opponent")


def test_plot_draws_ahead_above_and_behind_below_the_zero_line() -> None:
    lines = [line.plain for line in plot([2, -1, 3], height=3, ascii=True)]
    assert lines == ["  3 |# #", "  0 |---", " -1 | # ", "     1 3"]
    assert plot([]) == []


# ---------------------------------------------------------------------------------------- the names


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("al\x07ice", "control character (U+0007)"),
        ("ab\u202ecd", "bidi control (U+202E"),
        ("ab\u2066cd", "bidi control (U+2066"),
        ("a\u200bb", "invisible"),
        ("x" * 25, "at most 24"),
        ("a  b", "two spaces"),
        ("", "at least one letter"),
        ("<script>", "only letters"),
    ],
)
def test_a_bad_name_is_refused(name: str, why: str) -> None:
    with pytest.raises(BadName, match=re.escape(why)):
        PlayerName.parse(name)


def test_good_names_pass_as_typed() -> None:
    for name in ("Ōkami", "Jean-Luc O'Neill", "花子", "p2p_fan.42"):
        assert PlayerName.parse(f" {name} ").format() == name


def test_id_call_refuses_a_control_character_or_a_bidi_override_in_one_line(tmp_path: Path) -> None:
    for name in ("al\x1b[2Jice", "ab\u202ecd"):
        done = koikoi(tmp_path, "id", "--call", "1a2b3c4d", name)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("koikoi: a name may not hold")
    assert not (tmp_path / "config" / "names").exists()
    done = koikoi(tmp_path, "id", "--call", "1a2b:3c4d", "Kenji")
    assert done.returncode == 0 and "1a2b:3c4d is Kenji" in done.stdout
    again = koikoi(tmp_path, "id", "--call", "99998888", "kenji")
    assert again.returncode == 2 and "a name stands for one key" in again.stderr
