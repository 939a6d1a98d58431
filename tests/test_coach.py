"""The coach: the hint's line for fixed positions, Koi-Koi advice, a Koi-Koi that can only lose, and the review."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from builders import build_round, cards

from p2p_koikoi.app.coach import (
    REVIEW_CONFIRM,
    REVIEW_PLAYOUTS_PER_MOVE,
    ReviewMark,
    explain,
    hint,
    judge,
    noise,
    pointless_koikoi,
    review,
)
from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.app.plain_input import LineInput
from p2p_koikoi.app.plain_player import PlainPlayer
from p2p_koikoi.app.replay import load_replay
from p2p_koikoi.bots import GreedyAgent, MatchContext
from p2p_koikoi.bots.strong import Level, evaluate
from p2p_koikoi.engine import AnyAction, Card, Phase, Play, Round, RuleSet, preset

PLAIN = preset("nintendo").with_overrides(["hand-yaku=off"])
SAMPLES = Path(__file__).resolve().parent.parent / "replays"
C = Card.parse

STUCK = "wisteria-plain-1 iris-plain-1 peony-plain-1 clover-plain-1 pampas-plain-1 chrysanthemum-plain-1"
QUIET = "pine-plain-1 pine-plain-2 plum-plain-1 maple-plain-1 maple-plain-2 paulownia-plain-1 paulownia-plain-2"
TABLE = (
    "pine-ribbon plum-plain-1 maple-plain-1 maple-plain-2 willow-swallow paulownia-plain-1 iris-plain-2 clover-ribbon"
)


def view_of(hand: str, table: str, mine: str = "", theirs: str = "") -> Round:
    """Seat 0's view, to play, with these captures already made (the other hand unknown)."""
    caps = (cards(mine), cards(theirs))
    rnd = Round.start(PLAIN, 0, (cards(hand), 0), cards(table), [None] * 24, hidden=(0, 8))
    rnd.captures = [caps[0], caps[1]]
    rnd._seen |= caps[0] | caps[1]
    rnd.stock_index = (caps[0] | caps[1]).bit_count()  # they came from the stock, as far as the count goes
    return rnd


def test_the_line_says_what_a_move_takes_the_yaku_it_nears_and_what_it_keeps_away() -> None:
    view = view_of(f"pine-crane cherry-curtain {STUCK}", TABLE, mine="plum-ribbon plum-plain-2")
    line = explain(view, 0, Play(C("pine-crane")), "Bot")
    assert (
        line
        == "play Pine crane: takes the Pine poem ribbon, 2/3 towards Akatan; keeps the Cherry curtain away from Bot"
    )


def test_the_line_of_a_capture_the_other_seat_wanted() -> None:
    table = f"peony-butterflies {QUIET}"
    view = view_of(f"{STUCK} cherry-curtain willow-lightning", table, theirs="clover-boar maple-deer")
    line = explain(view, 0, Play(C("peony-plain-1")), "Bot")
    # Bot holds the Boar and the Deer: Inoshikachō is dead for us (issue 28 item 8), Tane is not
    assert line == (
        "play Peony plain: takes the Peony butterflies, 1/5 towards Tane; keeps the Peony butterflies away from Bot"
    )


def test_a_discard_says_it_takes_nothing_and_whether_it_is_the_safest() -> None:
    view = view_of(f"cherry-curtain {STUCK} willow-lightning", f"plum-plain-2 {QUIET}")
    line = explain(view, 0, Play(C("wisteria-plain-1")), "Bot")
    assert line.startswith("play Wisteria plain: nothing to take")
    assert line.endswith("; keeps the Cherry curtain away from Bot")
    line = explain(view, 0, Play(C("cherry-curtain")), "Bot")
    assert line == "play Cherry curtain: nothing to take"


def test_the_hint_is_the_bots_move_in_words() -> None:
    view = view_of(f"pine-crane cherry-curtain {STUCK}", TABLE, mine="plum-ribbon plum-plain-2")
    context = MatchContext(PLAIN, 0, (0, 0), 1)
    lines = hint(view, view.legal_actions(), context, "Bot")
    assert lines == [
        "Hint: play Pine crane: takes the Pine poem ribbon, 2/3 towards Akatan; keeps the Cherry curtain away from Bot."
    ]
    assert hint(view, view.legal_actions(), context, "Bot") == lines  # the same position, the same advice


# -- Koi-Koi -------------------------------------------------------------------------------


def decisions(rules: RuleSet, *, empty_hand: bool) -> list[tuple[Round, list[AnyAction], MatchContext]]:
    """Koi-Koi decisions met in greedy self-play (seeded), with an empty hand or with cards still to play."""
    found: list[tuple[Round, list[AnyAction], MatchContext]] = []

    class Recorder(GreedyAgent):
        def choose(self, view: Round, legal: list[AnyAction], context: MatchContext) -> AnyAction:
            if view.phase is Phase.DECISION and (view.hand_size(context.seat) == 0) == empty_hand:
                found.append((view.copy(), legal, context))
            return super().choose(view, legal, context)

    seed = 0
    while len(found) < 3 and seed < 40:
        play_local_match(rules, (Recorder(seed), Recorder(seed + 1)), random.Random(seed))
        seed += 1
    assert found, "the seeds no longer reach such a decision"
    return found


def test_a_koikoi_that_can_only_lose_is_said_so_plainly() -> None:
    for view, legal, context in decisions(preset("nintendo"), empty_hand=True):
        left = view.hand_size(1 - context.seat)
        assert left >= 1
        words = pointless_koikoi(view, context.seat, context, "Bot")
        cards_left = "1 card" if left == 1 else f"{left} cards"
        assert words == (
            "Koi-Koi can only lose: your hand is empty, so you cannot add to your captures, "
            f"and Bot still has {cards_left} to play"
        )
        (line,) = hint(view, legal, context, "Bot")
        assert line == f"Hint: Shōbu. {words}."


def test_a_koikoi_with_cards_in_hand_may_pay() -> None:
    for view, legal, context in decisions(preset("nintendo"), empty_hand=False):
        assert pointless_koikoi(view, context.seat, context) is None
        (line,) = hint(view, legal, context, "Bot")
        assert line.startswith(("Hint: Koi-Koi. A Koi-Koi wins the round again in about", "Hint: Shōbu. A Koi-Koi"))
        assert "% of the bot's playouts" in line and "chance to win the match" in line


def test_when_the_hands_running_out_pays_the_last_caller_a_koikoi_is_not_pointless() -> None:
    rules = preset("nintendo").with_overrides(["exhausted=last-caller", "koikoi-multiplier=all-calls"])
    view, _legal, context = decisions(preset("nintendo"), empty_hand=True)[0]
    view.rules = rules
    context = MatchContext(rules, context.seat, context.points, context.round_number)
    assert pointless_koikoi(view, context.seat, context) is None


# -- the review ----------------------------------------------------------------------------


def test_the_review_marks_moves_with_what_they_gave_away() -> None:
    replay = load_replay(SAMPLES / "nintendo.koikoi")
    marks = list(review(replay, margin=1.0))
    assert marks and all(isinstance(m, ReviewMark) and m.loss >= 1.0 for m in marks)
    assert all(m.round_number in (1, 2, 3) and m.seat in (0, 1) for m in marks)
    line = marks[0].line(replay.names)
    assert line.startswith(f"Round {marks[0].round_number}, {replay.names[marks[0].seat]} chose to ")
    assert "the bot would" in line and " points expected; " in line
    assert "playouts each, the bot's move wins the round " in line and line.endswith(")")
    # A margin nobody gives away marks nothing.
    assert list(review(replay, margin=1000.0)) == []


@pytest.mark.parametrize("sample", ["nintendo.koikoi"])
def test_replay_review_on_the_command_line(sample: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "p2p_koikoi", "replay", "--review", str(SAMPLES / sample)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Each move of both players against the strong bot's search")
    assert lines[-1].endswith("rounds reviewed (rounds cut short cannot be).")
    assert any("points expected; " in line for line in lines[1:-1])


# -- at the plain table ----------------------------------------------------------------------


def test_h_at_the_plain_table_prints_the_hint_and_asks_again() -> None:
    view = view_of(f"pine-crane cherry-curtain {STUCK}", TABLE, mine="plum-ribbon plum-plain-2")
    legal = view.legal_actions()
    answers = iter(["h\n", "1\n"])
    written: list[str] = []
    lines = LineInput(lambda: next(answers, ""), prompt=written.append)
    player = PlainPlayer(0, write=written.append, lines=lines)
    chosen = trio.run(player.choose, view, legal, MatchContext(PLAIN, 0, (0, 0), 1))
    assert chosen == legal[0]
    assert "Hint: play Pine crane: takes the Pine poem ribbon, 2/3 towards Akatan; " in "\n".join(written)


def test_the_plain_decision_warns_of_a_koikoi_that_can_only_lose() -> None:
    view, legal, context = decisions(preset("nintendo"), empty_hand=True)[0]
    written: list[str] = []
    lines = LineInput(lambda: "1\n", prompt=written.append)
    player = PlainPlayer(context.seat, write=written.append, lines=lines)
    trio.run(player.choose, view, legal, context)
    assert any(line.startswith("Careful: Koi-Koi can only lose: your hand is empty") for line in written)


# -- at the terminal table -----------------------------------------------------------------


async def test_h_at_the_table_opens_the_hint_and_any_key_closes_it() -> None:
    from test_ui_table import at_table, deciding

    view = view_of(f"pine-crane cherry-curtain {STUCK}", TABLE, mine="plum-ribbon plum-plain-2")
    async with at_table() as (player, screen, keys):
        answer = await deciding(player, view)
        await screen.shows("h hint")
        await keys.send("h")
        text = await screen.shows("┌─ Hint", timeout=30)
        words = " ".join(text.replace("│", " ").split())  # the box's lines, wrapped, without its frame
        assert "Hint: play Pine crane: takes the Pine poem ribbon, 2/3 towards Akatan" in words
        await keys.send("x")
        await screen.hides("┌─ Hint")
        assert answer() is None  # the hint chose nothing


async def test_the_table_says_plainly_when_a_koikoi_can_only_lose() -> None:
    from test_ui_table import at_table, deciding

    view = next(v for v, _legal, context in decisions(preset("nintendo"), empty_hand=True) if context.seat == 0)
    async with at_table() as (player, screen, _keys):
        await deciding(player, view)
        text = await screen.shows("Shōbu now:")
        words = " ".join(text.split())
        assert "Koi-Koi can only lose: your hand is empty, so you cannot add to your captures, and Bot" in words
        assert "card to play." in words or "cards to play." in words


# -- the sake cup that completes Tsukimi (issue 28 item 18) ------------------------------------

# Seat 0 has taken the moon with its Pampas plain; Bot has thrown its Clover ribbon. Now seat 0 can take the
# Chrysanthemum sake cup (Tsukimi, 5 points under nintendo) with a Chrysanthemum card, or the Maple plain
# with its Maple ribbon, or a Pine or Plum plain.
BOTS_HAND = (
    "pine-crane plum-ribbon wisteria-cuckoo iris-bridge clover-ribbon willow-rain paulownia-phoenix cherry-curtain"
)
SAKE_TABLE = (
    "pampas-moon chrysanthemum-sake maple-plain-1 cherry-plain-1 peony-plain-1 paulownia-plain-1 "
    "willow-swallow cherry-ribbon"
)
CUP = Play(C("chrysanthemum-plain-1"))


def before_the_cup(september: str) -> Round:
    """Seat 0's view at its second play, holding ``september`` (its Chrysanthemum cards) among its eight."""
    others = ["maple-ribbon", "pine-plain-1", "plum-plain-1", "iris-plain-1", "clover-plain-1", "wisteria-plain-1"]
    hand = ["pampas-plain-1", *september.split(), *others][:8]
    rnd = build_round(PLAIN, hand0=" ".join(hand), hand1=BOTS_HAND, table=SAKE_TABLE, stock="pine-plain-2 plum-plain-2")
    for seat, card in ((0, "pampas-plain-1"), (1, "clover-ribbon")):
        rnd.apply(Play(C(card)), seat)
        rnd.apply(rnd.legal_actions()[0])  # the draw: a Pine, then a Plum plain, which take nothing
    view = rnd.view(0)
    assert CUP in view.legal_actions() and Play(C("maple-ribbon")) in view.legal_actions()
    return view


def test_taking_the_cup_that_anyone_could_take_is_never_marked_and_a_lone_gap_is_noise() -> None:
    view = before_the_cup("chrysanthemum-plain-1")  # the ribbon and the other plain are unseen: Bot may hold them
    legal = view.legal_actions()
    context = MatchContext(PLAIN, 0, (0, 0), 1)
    for seed in (1, 2, 3, 4):
        assert judge(view, legal, context, CUP, seed=seed, them="Bot") is None
    # With the review's playouts a plain can come out ahead of the cup (seed 2), but by less than the noise...
    short = evaluate(view, legal, context, Level("review", REVIEW_PLAYOUTS_PER_MOVE * len(legal), 60.0), 2, prune=False)
    cup = next(v for v in short if v.action == CUP)
    assert short[0].action != CUP and 0 < short[0].points - cup.points < noise(short[0], cup)
    # ...and a search eight times as long puts the cup first, in match chance and in points.
    longer = Level("long", REVIEW_PLAYOUTS_PER_MOVE * REVIEW_CONFIRM * len(legal), 60.0)
    found = evaluate(view, legal, context, longer, 1, prune=False)
    assert found[0].action == CUP and max(found, key=lambda v: v.points).action == CUP


def test_with_the_rest_of_september_in_hand_the_cup_can_wait_and_the_line_says_why() -> None:
    view = before_the_cup("chrysanthemum-plain-1 chrysanthemum-plain-2 chrysanthemum-ribbon")
    legal = view.legal_actions()
    context = MatchContext(PLAIN, 0, (0, 0), 1)
    mark = judge(view, legal, context, CUP, seed=1, them="Bot")
    assert mark is not None and mark.loss >= 1.0
    line = mark.line(("You", "Bot"))
    assert line.startswith("Round 0, You chose to play Chrysanthemum plain: the bot would play ")
    assert "takes the Chrysanthemum sake cup" not in line  # the better move leaves the cup on the table
    assert (
        "the Chrysanthemum sake cup can wait: nobody else can take it, the rest of Chrysanthemum is in this "
        "player's hand; taking it now makes Tsukimi at once, and the Koi-Koi call with it; over "
    ) in line
    # The numbers are the search's own: the same search, seeded alike, gives them again.
    level = Level("review", REVIEW_PLAYOUTS_PER_MOVE * len(legal), 60.0)
    values = evaluate(view, legal, context, level, 1, prune=False)
    best, cup = values[0], next(v for v in values if v.action == CUP)
    assert mark.loss == best.points - cup.points >= noise(best, cup)
    assert (
        f"over {best.playouts} playouts each, the bot's move wins the round {best.round_won:.0%} of the time "
        f"for {best.points:+.1f} on average, this one {cup.round_won:.0%} for {cup.points:+.1f})"
    ) in line
