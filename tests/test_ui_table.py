"""The table player without a terminal: frames go to a recorder, keys come from a channel. A person's
decisions by keys, the opponent's turn told and shown, leaving, help, the end of a round and of the
match, and the rules question."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from conftest import SHORT_NINTENDO
from rich.text import Text

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import RandomAgent
from p2p_koikoi.bots.base import MatchContext
from p2p_koikoi.engine import AnyAction, Deal, Phase, Play, Round, cards_of, preset
from p2p_koikoi.engine.cards import month_mask
from p2p_koikoi.net.runner import Leaving, PlayerQuit, Watching
from p2p_koikoi.session.events import MatchOver, Moves, RoundScored
from p2p_koikoi.ui.render import screen_text
from p2p_koikoi.ui.table_player import TablePlayer

RULES = SHORT_NINTENDO


class Recorder:
    """A screen that keeps every frame."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.width, self.height = width, height
        self.frames: list[list[Text]] = []

    def size(self) -> tuple[int, int]:
        return self.width, self.height

    def draw(self, lines: list[Text]) -> None:
        assert len(lines) == self.height and all(line.cell_len <= self.width for line in lines)
        self.frames.append(lines)

    @property
    def text(self) -> str:
        return screen_text(self.frames[-1]) if self.frames else ""

    async def shows(self, wanted: str, timeout: float = 5) -> str:
        with trio.fail_after(timeout):
            while wanted not in self.text:
                await trio.sleep(0.005)
        return self.text

    async def hides(self, unwanted: str, timeout: float = 5) -> str:
        with trio.fail_after(timeout):
            while unwanted in self.text:
                await trio.sleep(0.005)
        return self.text


@asynccontextmanager
async def at_table(**options: object) -> AsyncIterator[tuple[TablePlayer, Recorder, trio.MemorySendChannel[str]]]:
    """A table player running (keys, animations, spinner) for the test's body; ``BACKGROUND[player]`` is
    where the body starts what the runner would run alongside (a decision, the end of the match)."""
    screen = Recorder()
    player = TablePlayer(screen, names=("You", "Bot"), pause=0.01, rules=RULES, **options)  # type: ignore[arg-type]
    keys_in, keys_out = trio.open_memory_channel[str](100)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(player.run, keys_out)
        BACKGROUND[player] = nursery
        yield player, screen, keys_in
        nursery.cancel_scope.cancel()


BACKGROUND: dict[TablePlayer, trio.Nursery] = {}


def deal(dealer: int, seed: int = 3) -> Round:
    rng = random.Random(seed)
    deck = list(range(48))
    rng.shuffle(deck)
    rnd = Round.from_deal(RULES, dealer, Deal.from_deck(deck, RULES.deal_pattern, dealer))
    while rnd.phase is Phase.HAND_YAKU:
        rnd.apply(rnd.legal_actions()[0])
    return rnd


def context(points: tuple[int, int] = (0, 0)) -> MatchContext:
    return MatchContext(RULES, 0, points, 1)


async def deciding(
    player: TablePlayer, view: Round, points: tuple[int, int] = (0, 0)
) -> Callable[[], AnyAction | BaseException | None]:
    """Start ``player.choose`` in the background; the returned function gives its answer (or error) so far."""
    box: list[AnyAction | BaseException] = []

    async def run() -> None:
        try:
            box.append(await player.choose(view, view.legal_actions(), context(points)))
        except PlayerQuit as exc:
            box.append(exc)

    BACKGROUND[player].start_soon(run)
    return lambda: box[0] if box else None


async def test_the_table_player_is_what_the_runner_expects() -> None:
    async with at_table() as (player, _screen, _keys):
        assert isinstance(player, Leaving) and isinstance(player, Watching)


async def test_a_hand_card_is_played_by_its_number() -> None:
    rnd = deal(dealer=0)
    view = rnd.view(0)
    hand = list(cards_of(view.hands[0]))
    index = next(i for i, c in enumerate(hand) if (view.table & month_mask(c.month)).bit_count() != 2)
    async with at_table() as (player, screen, keys):
        answer = await deciding(player, view)
        await screen.shows("1-8 or ←→ and Enter: play that card")
        assert "── Your hand · 8 cards" in screen.text
        await keys.send(str(index + 1))
        with trio.fail_after(5):
            while answer() is None:
                await trio.sleep(0.005)
        assert answer() == next(a for a in view.legal_actions() if isinstance(a, Play) and a.card == hand[index])
        assert "play that card" not in (await screen.shows("? help · q quit")).splitlines()[-1]


async def test_the_opponents_turn_is_shown_and_told_in_words() -> None:
    rnd = deal(dealer=1)
    async with at_table() as (player, screen, _keys):
        player.see(rnd.view(0))
        await screen.shows("Bot is choosing…")
        view = rnd.view(1)
        play = rnd.apply(RandomAgent(1).choose(view, view.legal_actions(), context()), 1)
        draw = rnd.apply(rnd.legal_actions()[0])
        await player.notify([Moves(1, tuple(e)) for e in (play, draw)])
        card = play[0].card
        assert card is not None
        await screen.shows(f"Bot plays {card.display_name}")
        text = await screen.shows("; draws ")  # the play and the draw make one line
        line = next(line for line in text.splitlines() if "Bot plays" in line)
        assert "; draws " in line
        assert "── Table · 23 in the stock" in text  # the table followed the draw
        await player.settle()


async def test_q_asks_first_then_leaving_ends_the_decision() -> None:
    view = deal(dealer=0).view(0)
    async with at_table() as (player, screen, keys):
        answer = await deciding(player, view)
        await screen.shows("play that card")
        await keys.send("q")
        text = await screen.shows("Leave the match?")
        assert "forfeits the match: Bot wins it" in text
        await keys.send("n")
        await screen.hides("Leave the match?")
        assert "play that card" in screen.text and answer() is None
        await keys.send("q")
        await screen.shows("Leave the match?")
        await keys.send("y")
        with trio.fail_after(5):
            while answer() is None:
                await trio.sleep(0.005)
        assert isinstance(answer(), PlayerQuit)
        assert player.quit_requested.is_set()


async def test_help_explains_the_card_under_the_cursor() -> None:
    view = deal(dealer=0).view(0)
    first = next(cards_of(view.hands[0]))
    async with at_table() as (player, screen, keys):
        await deciding(player, view)
        await screen.shows("play that card")
        await keys.send("?")
        text = await screen.shows("┌─ Help")
        assert f"{first.display_name} ({first.id})" in text
        assert f"Month {first.month.number}" in text
        await keys.send("x")
        await screen.hides("┌─ Help")
        assert "play that card" in screen.text


async def test_the_end_of_a_round_waits_for_the_person_before_the_next_decision() -> None:
    match = play_local_match(RULES, (RandomAgent(1), RandomAgent(2)), random.Random(1))
    result = next(r for r in match.results if r.score is not None)
    view = deal(dealer=0).view(0)
    async with at_table() as (player, screen, keys):
        player.see(view)
        await player.notify([RoundScored(result)])
        answer = await deciding(player, deal(dealer=0, seed=4).view(0), result.points)
        text = await screen.shows(f"── Round {result.number} over")
        assert "Next dealer:" in text and "Enter: continue" in text
        await trio.sleep(0.05)
        assert "play that card" not in screen.text and answer() is None
        assert f"You {result.points[0]} · Bot {result.points[1]}" in screen.text.splitlines()[0]
        await keys.send("enter")
        await screen.shows("play that card")


async def test_the_end_of_the_match_stays_until_the_person_leaves() -> None:
    match = play_local_match(RULES, (RandomAgent(3), RandomAgent(4)), random.Random(3))
    async with at_table() as (player, screen, keys):
        events = [RoundScored(r) for r in match.results]
        await player.notify([*events, MatchOver(match.outcome)])
        for _ in match.results:
            await screen.shows("Enter: continue")
            await keys.send("enter")
            await trio.sleep(0.02)
        done = trio.Event()

        async def finish() -> None:
            await player.finish(Path("/tmp/some-record.koikoi"))
            done.set()

        BACKGROUND[player].start_soon(finish)
        text = await screen.shows("Match over")
        assert "Record saved: /tmp/some-record.koikoi" in text
        joined = "".join(line.strip() for line in text.splitlines())
        assert "koikoi verify" in joined and joined.count("/tmp/some-record.koikoi") == 2
        assert sum(1 for line in text.splitlines() if line[:7].strip() in ("1", "2", "3")) == len(match.results)
        await keys.send("enter")
        with trio.fail_after(5):
            await done.wait()


@pytest.mark.parametrize(("key", "accepted"), [("y", True), ("n", False)])
async def test_the_guest_is_asked_to_accept_the_rules(key: str, accepted: bool) -> None:
    async with at_table(seat=1) as (player, screen, keys):
        box: list[bool] = []

        async def ask() -> None:
            box.append(await player.accept_rules(preset("lemme")))

        BACKGROUND[player].start_soon(ask)
        text = await screen.shows("Play by these rules?")
        assert "Rules fingerprint (both players see the same): " in text
        assert "koikoi-multiplier = all-calls: x(1 + every call" in text
        assert "Pools: You 25 · Bot 25" in text
        await keys.send("down")
        await keys.send(key)
        with trio.fail_after(5):
            while not box:
                await trio.sleep(0.005)
        assert box == [accepted]


async def test_leaving_while_a_rounds_end_is_shown_ends_the_next_decision_at_once() -> None:
    match = play_local_match(RULES, (RandomAgent(1), RandomAgent(2)), random.Random(1))
    result = next(r for r in match.results if r.score is not None)
    async with at_table() as (player, screen, keys):
        await player.notify([RoundScored(result)])
        answer = await deciding(player, deal(dealer=0).view(0))
        await screen.shows("Enter: continue")
        await keys.send("q")
        await screen.shows("Leave the match?")
        await keys.send("y")
        with trio.fail_after(5):
            while answer() is None:
                await trio.sleep(0.005)
        assert isinstance(answer(), PlayerQuit)


async def test_keys_typed_ahead_answer_one_decision_only() -> None:
    view = deal(dealer=0).view(0)
    hand = list(cards_of(view.hands[0]))
    plain = [i for i, c in enumerate(hand) if (view.table & month_mask(c.month)).bit_count() != 2]
    async with at_table() as (player, screen, keys):
        answer = await deciding(player, view)
        await screen.shows("play that card")
        for _ in range(3):  # a burst of keys, handled before the decision's task can run again
            player.press(str(plain[0] + 1))
            player.press("y")
        with trio.fail_after(5):
            while answer() is None:
                await trio.sleep(0.005)
        played = answer()
        assert isinstance(played, Play) and played.card == hand[plain[0]]
        await trio.sleep(0.05)  # the table is still running: no key broke it
        await keys.send("?")
        await screen.shows("┌─ Help")


async def test_a_resumed_match_shows_the_rounds_before_and_no_next_dealer_after_the_last() -> None:
    from p2p_koikoi.app.resume import CatchingUp

    match = play_local_match(RULES, (RandomAgent(5), RandomAgent(6)), random.Random(5))
    async with at_table() as (player, screen, keys):
        assert isinstance(player, CatchingUp)
        player.caught_up(match, RULES)
        rnd = deal(dealer=1)
        BACKGROUND[player].start_soon(lambda: player.choose(rnd.view(0), rnd.view(0).legal_actions(), context()))
        text = await screen.shows("play that card")
        dealer = "You" if match.dealer == 0 else "Bot"
        assert text.splitlines()[0].startswith(f" Round {match.round_number} of 3 │ Dealer: {dealer}")
        await keys.send("1")
        last = [r for r in match.results if r.outcome.kind.value != "redeal"][-1]
        await player.notify([RoundScored(last)])
        text = await screen.shows("Enter: continue")
        assert f"Round {last.number} over" in text and "Next dealer" not in text
        await keys.send("enter")
        await player.settle()
    assert player.state.results[: len(match.results)] == match.results  # the end table has every round
