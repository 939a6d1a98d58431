"""The endings of protocol version 3 as a person meets them: the offer to claim a silent opponent's match
(claim, wait or adjourn, with a countdown; Ctrl-C adjourns), at the table and in plain mode; the words of a
win by silence, a loss by silence, an adjournment and a forfeit from each seat, on every screen that shows
an ending (the end of the match, plain lines, ``koikoi list``, ``replay``, ``verify``); and the exit code of
a network match that the opponent forfeited (0, with "You win")."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import trio
import trio.testing
from test_ui_table import BACKGROUND, RULES, Recorder, at_table, context, deal

from p2p_koikoi.app.listing import result_words
from p2p_koikoi.app.netplay import NetMatchResult
from p2p_koikoi.app.plain_input import LineInput
from p2p_koikoi.app.plain_player import PlainPlayer
from p2p_koikoi.app.players import BotPlayer, event_lines, outcome_words
from p2p_koikoi.app.replay import ReplayBuilder
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.cli.netopts import print_result
from p2p_koikoi.engine import MatchOutcome, Termination
from p2p_koikoi.net.runner import ClaimChoice, Claiming, MatchReport
from p2p_koikoi.record.verify import ReportKind, Verdict, VerifyReport
from p2p_koikoi.referee.events import Ending, MatchEnd
from p2p_koikoi.session.events import MatchOver, PeerLeft
from p2p_koikoi.session.match_session import SessionEnd, Waiting
from p2p_koikoi.testing import KOIKOI, free_port, koikoi_env, spawn_host
from p2p_koikoi.testing.sessions import SessionPair, decide, deterministic_entropy, session_pair
from p2p_koikoi.ui.panels import final_screen
from p2p_koikoi.ui.render import screen_text
from p2p_koikoi.ui.state import TableState
from p2p_koikoi.ui.table_player import TablePlayer
from p2p_koikoi.ui.verify_view import render_text

GONE = "the opponent is gone (the connection closed)"
HOST_WINS = "the host wins by the guest's silence (claimed: the guest can still refute it with its record)"


@pytest.fixture
def autojump() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


# -- the words, from each seat -------------------------------------------------------------------------------


def test_each_ending_in_the_first_person_from_each_seat() -> None:
    assert outcome_words(SessionEnd.PEER_VANISHED, "Bot") == (
        "You win: Bot went silent (claimed: Bot can still refute it with its record)"
    )
    assert outcome_words(SessionEnd.PEER_CLAIMED, "Bot") == "You lose: you went silent and Bot claimed the match"
    assert outcome_words(SessionEnd.PEER_QUIT, "Bot") == "You win by forfeit: Bot left the match"
    assert outcome_words(SessionEnd.QUIT, "Bot") == "You lose by forfeit: you left the match"
    assert outcome_words(SessionEnd.ADJOURNED, "Bot", "koikoi resume 3") == (
        "Adjourned: nobody won; resume it with koikoi resume 3"
    )
    assert outcome_words(SessionEnd.MATCH_OVER, "Bot") is None  # the score says it
    assert outcome_words(SessionEnd.VIOLATION, "Bot") is None  # the finding says it


def _silence(claimant: int, points: tuple[int, int] = (4, 0)) -> MatchEnd:
    outcome = MatchOutcome(claimant, points, Termination.FORFEIT)
    return MatchEnd(Ending.SILENCE, claimant, GONE, outcome, owed=1 - claimant)


def _adjourned(seat: int) -> MatchEnd:
    return MatchEnd(Ending.ADJOURNED, seat, "adjourned: the opponent is gone", owed=1 - seat)


def _report(end: MatchEnd, writer: int = 0, path: str = "/r/m-host.koikoi") -> VerifyReport:
    return VerifyReport(
        path, ReportKind.RECORD, Verdict.VERIFIED, entries=30, rules="nintendo", writer_seat=writer, ending=end
    )


def test_the_third_person_in_verify_and_replay() -> None:
    text = "\n".join(render_text(_report(_silence(0))))
    assert f"ending: {HOST_WINS}" in text
    assert "outcome: the host wins, 4 to 0 (by silence)" in text
    guest = "\n".join(render_text(_report(_silence(1, (0, 4)))))
    assert "ending: the guest wins by the host's silence (claimed: the host can still refute it" in guest
    adjourned = "\n".join(render_text(_report(_adjourned(1))))
    assert re.search(
        r"ending: adjourned: nobody won; resume it with .*koikoi resume /r/m-host\.koikoi$", adjourned, re.M
    )
    assert "outcome" not in adjourned  # nobody won

    builder = ReplayBuilder()
    builder.end_match(_silence(0))
    assert builder.replay.closing == [
        "Host wins by Guest's silence (claimed: Guest can still refute it with its record).",
        "Host wins, 4 to 0 (claimed).",
    ]
    builder = ReplayBuilder(resume="koikoi resume 2", you=1)  # a practice record, told as we played it
    builder.replay.names = ("Bot", "You")
    builder.end_match(_silence(0))
    assert builder.replay.closing[0] == "Bot wins by your silence (claimed: you can still refute it with your record)."
    builder = ReplayBuilder(you=0)
    builder.replay.names = ("You", "Bot")
    builder.end_match(_silence(0))
    assert builder.replay.closing == [
        "You win by Bot's silence (claimed: Bot can still refute it with its record).",
        "You win, 4 to 0 (claimed).",
    ]
    builder = ReplayBuilder()  # a network record whose guest sent the name "You": told as a name, not as us
    builder.replay.names = ("Hana", "You (1d0be1ec)")
    builder.end_match(_silence(0))
    assert builder.replay.closing[0].startswith("Hana wins by You (1d0be1ec)'s silence")
    builder = ReplayBuilder(resume="koikoi resume 2")
    builder.end_match(_adjourned(0))
    assert builder.replay.closing == ["Adjourned: nobody won; resume it with koikoi resume 2."]


def test_koikoi_list_counts_a_claimed_silence_as_a_win() -> None:
    assert result_words(_report(_silence(0), writer=0)) == "you won by their silence (claimed), 4 to 0"
    assert result_words(_report(_silence(0), writer=1)) == "you lost by your silence (claimed), 0 to 4"
    assert re.fullmatch(
        r"adjourned: nobody won; resume it with .*koikoi resume 2", result_words(_report(_adjourned(0)), 2)
    )
    assert result_words(_report(_adjourned(0))) == "adjourned: nobody won"  # not ours to resume (no secret)
    forfeit = MatchEnd(Ending.FORFEIT, 1, "the player left", MatchOutcome(0, (0, 0), Termination.FORFEIT), owed=1)
    assert result_words(_report(forfeit, writer=0)) == "you won (they left), 0 to 0"


# -- the words of real session events ----------------------------------------------------------------------------


def _deliver(pair: SessionPair) -> None:
    moved = True
    while moved:
        moved = False
        for seat, session in enumerate(pair.sessions):
            for signed in session.take_outgoing():
                pair.sessions[1 - seat].receive(signed)
                moved = True


def _guest_owes_a_move() -> SessionPair:
    """A match under way in which the host waits on the guest's decision."""
    pair = session_pair(RULES, deterministic_entropy(b"claims"))
    agent = RandomAgent(3)
    for _ in range(200):
        _deliver(pair)
        if pair.guest.waiting is Waiting.MOVE and pair.host.waiting is Waiting.PEER:
            for session in pair.sessions:
                session.take_events()
            return pair
        if not decide(pair.host, agent):
            decide(pair.guest, agent)
    raise AssertionError("the guest never owed a move")


def test_our_claim_of_the_silent_peer_is_told_as_a_win_by_silence() -> None:
    pair = _guest_owes_a_move()
    assert pair.host.peer_vanished(GONE)
    events = pair.host.take_events()
    assert pair.host.ended_by is SessionEnd.PEER_VANISHED
    lines = event_lines(events, 0, "Bot")
    assert lines[0] == f"You claim the match: {GONE}."
    assert lines[-1] == "You win: Bot went silent (claimed: Bot can still refute it with its record)."
    assert not any("forfeit" in line for line in lines)


def test_the_peers_forfeit_and_adjournment_are_told_as_such() -> None:
    pair = _guest_owes_a_move()
    pair.guest.quit("the player left")
    _deliver(pair)
    assert pair.host.ended_by is SessionEnd.PEER_QUIT
    lines = event_lines(pair.host.take_events(), 0, "Bot")
    assert lines[0] == "Bot left the match."
    assert lines[-1].startswith("You win the match (by forfeit)")
    assert "connection" not in " ".join(lines)

    pair = _guest_owes_a_move()
    pair.host.adjourn("adjourned: the opponent did not decide within 40 s")
    _deliver(pair)
    assert pair.guest.ended_by is SessionEnd.ADJOURNED
    assert event_lines(pair.guest.take_events(), 1, "Bot") == ["Bot adjourned the match: nobody won."]


@pytest.mark.parametrize(
    ("ended_by", "words"),
    [
        (SessionEnd.PEER_VANISHED, "You win: Bot went silent (claimed: Bot can still refute it with its record)."),
        (SessionEnd.PEER_CLAIMED, "You lose: you went silent and Bot claimed the match."),
        (SessionEnd.PEER_QUIT, "You win by forfeit: Bot left the match."),
        (SessionEnd.QUIT, "You lose by forfeit: you left the match."),
    ],
)
async def test_the_end_screen_says_the_ending_whole_at_80_columns(ended_by: SessionEnd, words: str) -> None:
    async with at_table() as (player, screen, _keys):
        if ended_by is SessionEnd.PEER_QUIT:  # as the session tells it: the peer's goodbye, then the match's outcome
            await player.notify([PeerLeft(SessionEnd.PEER_QUIT, "the player left")])
            await player.notify([MatchOver(MatchOutcome(0, (0, 0), Termination.FORFEIT))])
        BACKGROUND[player].start_soon(lambda: player.finish(None, ended_by=ended_by))
        text = await screen.shows("Match over")
    joined = " ".join(line.strip() for line in text.splitlines())
    assert words in joined, text
    assert "…" not in text and "connection" not in text


def test_an_adjourned_match_names_the_command_that_resumes_it() -> None:
    state = TableState(names=("You", "Bot"), rules=RULES, ended_by=SessionEnd.ADJOURNED, resume="koikoi resume 1")
    state.final = True
    text = screen_text(final_screen(state, 80))
    assert "Adjourned: nobody won; resume it with koikoi resume 1." in text


# -- the offer at the table ------------------------------------------------------------------------------------


def test_a_person_is_offered_the_claim_and_a_bot_is_not() -> None:
    assert isinstance(TablePlayer(Recorder()), Claiming)
    assert isinstance(PlainPlayer(0), Claiming)
    assert not isinstance(BotPlayer(RandomAgent(1), 0), Claiming)  # a bot claims at once


async def test_the_table_counts_down_and_claims_when_nobody_answers(autojump: trio.testing.MockClock) -> None:
    async with at_table() as (player, screen, _keys):
        shown: list[str] = []

        async def watch() -> None:
            while True:
                shown.append(screen.text)
                await trio.sleep(1)

        BACKGROUND[player].start_soon(watch)
        deadline = trio.current_time() + 10
        choice = await player.offer_claim(GONE, deadline)
        assert choice is ClaimChoice.CLAIM and trio.current_time() >= deadline
        after = screen.text
    counts = [int(n) for text in shown for n in re.findall(r"Claiming in (\d+) s", text)]
    assert counts[0] >= 9 and min(counts) <= 1 and counts == sorted(counts, reverse=True), counts
    assert "Claiming in" not in after


@pytest.mark.parametrize(
    ("key", "choice"), [("w", ClaimChoice.WAIT), ("a", ClaimChoice.ADJOURN), ("c", ClaimChoice.CLAIM)]
)
async def test_the_tables_keys_answer_the_offer(
    autojump: trio.testing.MockClock, key: str, choice: ClaimChoice
) -> None:
    async with at_table() as (player, screen, keys):
        got: list[ClaimChoice] = []
        deadline = trio.current_time() + 10

        async def offer() -> None:
            got.append(await player.offer_claim(GONE, deadline))

        BACKGROUND[player].start_soon(offer)
        text = await screen.shows("Claiming in 10 s")
        assert "The opponent is gone (the connection closed)." in text
        assert "Claim the match (c), wait (w), or adjourn (a)?" in text
        assert "Ctrl-C adjourns too" in text
        await keys.send("q")  # no way out that does not say which: q does nothing here
        await trio.sleep(1)
        assert not got and "Claim the match?" in screen.text
        await keys.send(key)
        await screen.hides("Claim the match?")
        while not got:
            await trio.sleep(0.01)
        assert got == [choice] and trio.current_time() < deadline
        if choice is ClaimChoice.ADJOURN:
            assert "You adjourn the match: nobody won." in player.state.log
        if choice is ClaimChoice.WAIT:
            assert "You wait for Bot a while longer." in player.state.log


async def test_ctrl_c_at_the_offer_adjourns() -> None:
    async with at_table() as (player, screen, _keys):
        got: list[ClaimChoice] = []

        async def offer() -> None:
            got.append(await player.offer_claim(GONE, trio.current_time() + 10))

        BACKGROUND[player].start_soon(offer)
        await screen.shows("Claiming in")
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: the offer listens for it
        with trio.fail_after(5):
            while not got:
                await trio.sleep(0.01)
    assert got == [ClaimChoice.ADJOURN]


async def test_leaving_while_the_opponent_decides_with_no_time_limit_says_it_adjourns() -> None:
    rnd = deal(dealer=0)
    view = rnd.view(0)
    async with at_table() as (player, screen, keys):
        await player.notify([])  # the match is on; our first decision will say there is no time limit
        await keys.send("q")
        assert "Leaving now forfeits the match: Bot wins it." in await screen.shows("Leave the match?")
        await keys.send("n")
        BACKGROUND[player].start_soon(lambda: player.choose(view, view.legal_actions(), context()))  # no limit
        await screen.shows("play that card")
        await keys.send("1")
        await screen.hides("play that card")
        await keys.send("q")  # now Bot is deciding, and nobody is hurried
        text = await screen.shows("Leave the match?")
        assert "leaving now adjourns the match" in text and "forfeits" not in text
        await keys.send("n")


# -- the offer in plain mode ------------------------------------------------------------------------------------


def _plain(typed: list[str]) -> tuple[PlainPlayer, list[str]]:
    said: list[str] = []
    lines = iter(typed)
    player = PlainPlayer(0, write=said.append, lines=LineInput(lambda: next(lines, ""), said.append), them="Bot")
    return player, said


async def test_plain_mode_takes_numbers_and_letters() -> None:  # real time: lines come from a thread
    player, said = _plain(["2\n"])
    assert await player.offer_claim(GONE, trio.current_time() + 10) is ClaimChoice.WAIT
    text = "\n".join(said)
    assert "The opponent is gone (the connection closed)." in text
    assert "Claim the match (c), wait (w), or adjourn (a)? Claiming in 10 s [1-3]: " in text
    assert "  1. c: claim the match" in text and "  3. a: adjourn" in text and "Ctrl-C adjourns too" in text
    assert "You wait for Bot a while longer." in text

    player, said = _plain(["\n", "maybe\n", "q\n", "a\n"])
    assert await player.offer_claim(GONE, trio.current_time() + 10) is ClaimChoice.ADJOURN
    text = "\n".join(said)
    assert "'maybe' is not a choice here." in text
    assert "Leaving now is adjourning (a)" in text  # q says which way out there is
    assert "You adjourn the match: nobody won." in text

    player, _said = _plain(["c\n"])
    assert await player.offer_claim(GONE, trio.current_time() + 10) is ClaimChoice.CLAIM
    player, _said = _plain([])  # the input ended: nobody will answer, which claims
    assert await player.offer_claim(GONE, trio.current_time() + 10) is ClaimChoice.CLAIM


class Silent:
    """Standard input of a person who never answers: readline blocks until the test ends."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def readline(self) -> str:
        self.done.wait()
        return ""


async def test_plain_mode_claims_at_the_deadline(autojump: trio.testing.MockClock) -> None:
    said: list[str] = []
    stdin = Silent()
    player = PlainPlayer(0, write=said.append, lines=LineInput(stdin.readline, said.append), them="Bot")
    deadline = trio.current_time() + 10
    try:
        assert await player.offer_claim(GONE, deadline) is ClaimChoice.CLAIM
    finally:
        stdin.done.set()
    assert trio.current_time() >= deadline
    assert "5 seconds left, then the match is claimed." in "\n".join(said)


# -- the exit code ------------------------------------------------------------------------------------------------


def _result(ended_by: SessionEnd, text: str = "") -> NetMatchResult:
    return NetMatchResult(MatchReport(ended_by, None, text, 10, 10, 30), None, "fp")


@pytest.mark.parametrize(
    ("ended_by", "code", "words"),
    [
        (SessionEnd.PEER_QUIT, 0, "You win by forfeit: the opponent left the match."),
        (SessionEnd.PEER_VANISHED, 0, "You win: the opponent went silent (claimed: the opponent can still refute it"),
        (SessionEnd.PEER_CLAIMED, 1, "You lose: you went silent and the opponent claimed the match."),
        (SessionEnd.QUIT, 1, "You lose by forfeit: you left the match."),
        (SessionEnd.ADJOURNED, 1, "Adjourned: nobody won"),
        (SessionEnd.MATCH_OVER, 0, ""),
    ],
)
def test_the_exit_code_matches_the_outcome(
    ended_by: SessionEnd, code: int, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert print_result(_result(ended_by, "the player left")) == code
    out, err = capsys.readouterr()
    assert words in out
    assert "did not finish" not in err


def test_a_violation_still_says_the_match_did_not_finish(capsys: pytest.CaptureFixture[str]) -> None:
    assert print_result(_result(SessionEnd.VIOLATION, "the peer signed two entries")) == 1
    assert capsys.readouterr().err.strip() == "koikoi: the match did not finish: the peer signed two entries"


def test_a_forfeit_win_over_the_network_exits_0_with_you_win(tmp_path: Path) -> None:
    """The guest leaves at its first decision (plain lines: q, then yes); the host's bot wins by forfeit."""
    port = free_port()
    replays = tmp_path / "replays"
    host = spawn_host(tmp_path / "host", port, replays, "--no-upnp", "--bot", "greedy", "--seed", "1")
    try:
        guest = subprocess.run(
            [*KOIKOI, "join", f"127.0.0.1:{port}", "--yes", "--replay-dir", str(replays)],
            env=koikoi_env(tmp_path / "guest"),
            input="q\nyes\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        host_out, host_err = host.communicate(timeout=60)
    finally:
        host.kill()
    assert host.returncode == 0, host_err
    assert "You win by forfeit: the opponent left the match." in host_out.splitlines()
    assert "did not finish" not in host_err and "connection" not in host_out
    assert guest.returncode == 1, guest.stderr
    assert "You lose by forfeit: you left the match." in guest.stdout


# -- the offer box in a real terminal ---------------------------------------------------------------------------

OFFER_SCRIPT = """
import sys
from pathlib import Path

import trio

from p2p_koikoi.app.netplay import NetMatchResult
from p2p_koikoi.ui.terminal import run_at_table


async def offer(table):
    choice = await table.offer_claim("the opponent is gone (the connection closed)", trio.current_time() + 30)
    Path(sys.argv[1]).write_text(choice.value)
    return NetMatchResult(None, None, "")


run_at_table(offer)
"""


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install -y tmux)")
@pytest.mark.parametrize(("keys", "choice"), [("w", "wait"), ("C-c", "adjourn")])
def test_the_offer_box_in_tmux_at_80x24(tmp_path: Path, keys: str, choice: str) -> None:
    from test_ui_tmux import Pane

    script = tmp_path / "offer.py"
    script.write_text(OFFER_SCRIPT)
    answer = tmp_path / "answer"
    env = {**os.environ, "LANG": "C.UTF-8", "KOIKOI_HOME": str(tmp_path / "home")}
    pane = Pane(f'{sys.executable} {script} {answer}; echo "[exit $?]"; sleep 600', env)
    try:
        screen = pane.wait(lambda s: "c: claim · w: wait · a: adjourn" in s, 20, "the offer box")
        assert "Claim the match (c), wait (w), or adjourn (a)? Claiming in" in screen
        assert "The opponent is gone (the connection closed)." in screen
        assert "Ctrl-C adjourns too" in screen
        assert all(len(line) <= 80 for line in screen.splitlines()) and len(screen.splitlines()) <= 24
        pane.keys(keys)
        deadline = time.monotonic() + 10
        while not answer.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answer.read_text() == choice
        after = pane.wait(lambda s: "[exit " in s, 10, "the program's end")
        assert "[exit 0]" in after and "Traceback" not in after
    finally:
        pane.close()
