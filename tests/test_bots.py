"""The computer opponents: always a legal move under every preset, never a look at a hidden card, whole matches.

Random states come from random deals played forward by random legal moves
(hypothesis picks the preset, the deal and how far to play); each agent is then
asked for the move of the seat to act, from that seat's view.
"""

from __future__ import annotations

import random

import pytest
from conftest import presets
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from p2p_koikoi.app.local_match import play_local_match
from p2p_koikoi.bots import MatchContext
from p2p_koikoi.bots.base import Agent
from p2p_koikoi.bots.registry import BOT_NAMES, UnknownBotError, make_agent
from p2p_koikoi.bots.strong import Level, StrongAgent
from p2p_koikoi.engine import (
    CHANCE,
    PRESETS,
    AnyAction,
    Card,
    Deal,
    IllegalActionError,
    Round,
    preset,
)
from p2p_koikoi.engine.rules import Scoring

seeds = st.integers(min_value=0, max_value=2**32 - 1)
QUICK = Level("test", 24, 30.0)  # a strong bot small enough for property tests
SPECS = ["random", "greedy", "strong"]


def agent(spec: str, seed: int) -> Agent:
    return StrongAgent(seed, QUICK) if spec == "strong" else make_agent(spec, seed)


def context(rnd: Round, seat: int, round_number: int = 1) -> MatchContext:
    """The first round of a match: nobody has scored (under pool scoring, both hold the whole pool)."""
    start = rnd.rules.pool if rnd.rules.scoring is Scoring.POOL else 0
    return MatchContext(rnd.rules, seat, (start, start), round_number)


def deal(name: str, seed: int) -> tuple[Round, Deal]:
    rules = preset(name)
    deck = list(range(48))
    random.Random(seed).shuffle(deck)
    dealt = Deal.from_deck(deck, rules.deal_pattern, seed & 1)
    return Round.from_deal(rules, seed & 1, dealt), dealt


def play_forward(rnd: Round, rng: random.Random, steps: int) -> list[tuple[int, AnyAction]]:
    """Random legal moves until ``steps`` seat moves were made or a seat is to act and the round is not over."""
    trace: list[tuple[int, AnyAction]] = []
    while not rnd.over:
        if rnd.to_act != CHANCE and steps <= 0:
            break
        if rnd.to_act != CHANCE:
            steps -= 1
        action = rng.choice(rnd.legal_actions())
        trace.append((rnd.to_act, action))
        rnd.apply(action)
    return trace


# -- legality ------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(presets, seeds, st.integers(0, 40), st.sampled_from(SPECS))
def test_agents_choose_only_legal_moves(name: str, seed: int, steps: int, spec: str) -> None:
    rnd, _ = deal(name, seed)
    play_forward(rnd, random.Random(seed), steps)
    assume(not rnd.over)
    seat = rnd.to_act
    view = rnd.view(seat)
    legal = view.legal_actions()
    action = agent(spec, seed).choose(view, legal, context(rnd, seat))
    assert action in legal
    try:
        rnd.apply(action, seat)
    except IllegalActionError as exc:  # only the Hiki, a fact no view shows, may refuse a view-legal move
        assert exc.rule == "gaji-blocked-by-hiki"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_bot_plays_whole_matches_under_every_preset(name: str) -> None:
    rules = preset(name).with_option("rounds", "3")
    bots = [agent(spec, 3) for spec in SPECS]
    for a, b in [(0, 1), (1, 2), (2, 0)]:
        match = play_local_match(rules, (bots[a], bots[b]), random.Random(a * 3 + b))
        assert match.outcome is not None


def test_the_rulebook_exchange_and_gaji_are_played() -> None:
    """Rulebook matches offer the exchange every round and the Gaji often; the bots answer both."""
    rules = preset("rulebook").with_option("rounds", "6")
    seen: set[str] = set()

    class Watch:
        def __init__(self, inner: Agent) -> None:
            self.inner, self.name = inner, inner.name

        def choose(self, view: Round, legal: list[AnyAction], ctx: MatchContext) -> AnyAction:
            action = self.inner.choose(view, legal, ctx)
            seen.add(view.phase.value)
            if getattr(action, "card", None) is Card.WILLOW_LIGHTNING and getattr(action, "target", None):
                seen.add("gaji")
            return action

    for seed in range(4):
        play_local_match(rules, (Watch(agent("strong", seed)), Watch(agent("greedy", seed))), random.Random(seed))
    assert {"exchange", "hand-yaku", "play", "decision", "gaji"} <= seen


# -- hidden cards --------------------------------------------------------------------------


def twin(rnd: Round, dealt: Deal, trace: list[tuple[int, AnyAction]], seat: int, rng: random.Random) -> Round:
    """The same public game with the cards ``seat`` cannot see dealt differently (the other hand, the stock)."""
    unseen = rnd.view(seat).unseen
    pool = [c for c in range(48) if unseen >> c & 1]
    shuffled = pool.copy()
    rng.shuffle(shuffled)
    swap = dict(zip(pool, shuffled, strict=True))

    def moved(mask: int) -> int:
        out = 0
        for c in range(48):
            if mask >> c & 1:
                out |= 1 << swap.get(c, c)
        return out

    stock = [Card(swap.get(int(c), int(c))) for c in dealt.stock]
    other = Round.start(rnd.rules, rnd.dealer, (moved(dealt.hands[0]), moved(dealt.hands[1])), dealt.table, stock)
    for who, action in trace:
        other.apply(action, who)
    return other


class PoisonedStock(list[Card | None]):
    """A stock that fails any read: an agent that looks at it, even at its unknowns, is caught."""

    def _caught(self, *args: object) -> None:
        raise AssertionError("the agent read the stock")

    __getitem__ = __iter__ = __len__ = __contains__ = _caught

    def copy(self) -> PoisonedStock:
        return PoisonedStock()


@settings(max_examples=60, deadline=None)
@given(presets, seeds, st.integers(0, 30), st.sampled_from(SPECS))
def test_an_agent_never_reads_a_hidden_card(name: str, seed: int, steps: int, spec: str) -> None:
    """Two games alike in all the seat can see but dealt differently where it cannot: the same choice."""
    rnd, dealt = deal(name, seed)
    trace = play_forward(rnd, random.Random(seed), steps)
    assume(not rnd.over)
    seat = rnd.to_act
    try:
        other = twin(rnd, dealt, trace, seat, random.Random(seed + 1))
    except IllegalActionError:
        assume(False)  # the new deal made a hand yaku to claim or a Hiki: not the same public game
    real, fake = rnd.view(seat), other.view(seat)
    assert real.public_state() == fake.public_state() and real.hands[seat] == fake.hands[seat]
    legal = real.legal_actions()
    assert fake.legal_actions() == legal
    poisoned = rnd.view(seat)
    poisoned._stock = PoisonedStock()
    choices = {repr(agent(spec, seed).choose(view, legal, context(rnd, seat))) for view in (real, fake, poisoned)}
    assert len(choices) == 1


def test_a_twin_really_deals_the_hidden_cards_differently() -> None:
    rnd, dealt = deal("nintendo", 5)
    trace = play_forward(rnd, random.Random(5), 3)
    seat = rnd.to_act
    other = twin(rnd, dealt, trace, seat, random.Random(6))
    assert other.hands[1 - seat] != rnd.hands[1 - seat]
    assert other.view(seat).public_state() == rnd.view(seat).public_state()


# -- the registry --------------------------------------------------------------------------


def test_registry_builds_every_bot() -> None:
    for spec in BOT_NAMES:
        bot = make_agent(spec, 1)
        assert bot.name == (spec if spec != "strong" else "strong:normal")
    assert make_agent(" Strong:Easy ", 1).name == "strong:easy"


@pytest.mark.parametrize("spec", ["", "rando", "strong:extreme", "greedy:hard", "random:"])
def test_an_unknown_bot_lists_the_choices(spec: str) -> None:
    with pytest.raises(UnknownBotError) as err:
        make_agent(spec, 1)
    assert isinstance(err.value, ValueError)
    assert all(name in str(err.value) for name in BOT_NAMES)


def test_same_seed_same_moves() -> None:
    rules = preset("nintendo").with_option("rounds", "3")
    runs = []
    for _ in range(2):
        log: list[str] = []
        play_local_match(
            rules,
            (agent("strong", 9), make_agent("greedy", 9)),
            random.Random(2),
            on_events=lambda _r, events, log=log: log.extend(e.text for e in events),
        )
        runs.append(log)
    assert runs[0] == runs[1]
